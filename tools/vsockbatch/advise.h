/* SPDX-License-Identifier: GPL-2.0 */
/*
 * advise.h - `vsockbatch advise`: from a results file to what limits the
 * transfer and what to change.
 *
 * The rule engine (advise_rules.c) is a pure function of the parsed
 * results: no I/O, no clock, no globals, so the unit tests feed it
 * hand-made vb_results and check every verdict.  Each rule has fixed
 * thresholds (documented in advise_rules.c and printed by --rules) and
 * reports its evidence as named numbers taken from the file, so a reader
 * can check the verdict against `vsockbatch report`.
 */
#ifndef VB_ADVISE_H
#define VB_ADVISE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "results.h"

enum vb_adv_rule {
	VB_ADV_PER_PACKET = 0,	/* small packets, runs of 1 */
	VB_ADV_WAKEUPS,		/* reader woken per few KiB */
	VB_ADV_RX_BUDGET,	/* runs end on the skb budget, ENOBUFS */
	VB_ADV_CREDIT,		/* sender out of credit */
	VB_ADV_SAME_CPU,	/* RX worker and reader share a CPU */
	VB_ADV_RX_IDLE,		/* the guest is not the limit */
	VB_ADV_STARVE,		/* one flow takes the worker */
	VB_ADV_NR
};

enum vb_adv_verdict {
	VB_ADV_CLEAR = 0,	/* measured, below threshold */
	VB_ADV_FIRES,		/* measured, past threshold: a finding */
	VB_ADV_NOT_LIMITING,	/* past threshold, but the guest is not the
				 * limit (VB_ADV_RX_IDLE fired) */
	VB_ADV_NO_DATA,		/* the file lacks what the rule needs */
};

#define VB_ADV_MAX_EV		6
#define VB_ADV_TEXT		512

/* One number from the file (or derived from it) and the bound it met. */
struct vb_adv_ev {
	const char *name;	/* JSON key, e.g. "bytes_per_pkt" */
	double value;
	const char *unit;	/* "B", "%", "per MB", ... */
};

struct vb_adv_finding {
	enum vb_adv_rule rule;
	enum vb_adv_verdict verdict;
	double severity;	/* how far past the threshold (>= 1 fires) */
	struct vb_adv_ev ev[VB_ADV_MAX_EV];
	size_t nev;
	char evidence[VB_ADV_TEXT];	/* one sentence with the numbers */
	char advice[VB_ADV_TEXT];	/* the change (empty: none) */
};

struct vb_advice {
	struct vb_adv_finding f[VB_ADV_NR];	/* indexed by rule */
	enum vb_adv_rule order[VB_ADV_NR];	/* fired first, by severity */
	size_t nfired;				/* FIRES verdicts */
	double mb_s;				/* bytes / duration */
	int rx_cpu;				/* CPU of most RX packets, -1 */
};

struct vb_adv_rule_info {
	const char *name;	/* "per-packet", ... (JSON id) */
	const char *title;	/* one line */
	const char *threshold;	/* the bound, with numbers */
	const char *why;	/* why that bound */
};

extern const struct vb_adv_rule_info vb_adv_rules[VB_ADV_NR];

const char *vb_adv_verdict_name(enum vb_adv_verdict v);

/*
 * Run every rule on r.  0, or -EINVAL with a one-line reason in err when
 * the file cannot be advised on (no data packets recorded, no duration):
 * a "mismatched" file for the command's exit status 2.
 */
int vb_advise(const struct vb_results *r, struct vb_advice *a,
	      char *err, size_t errlen);

/* Renderings (advise.c).  Text lines fit in 80 columns. */
void vb_advise_print_text(FILE *f, const struct vb_results *r,
			  const struct vb_advice *a, const char *name,
			  bool verbose);
char *vb_advise_json(const struct vb_results *r, const struct vb_advice *a,
		     const char *name);
void vb_advise_print_rules(FILE *f);

/*
 * One line for `top`: the most severe finding as "advice: <rule>: <short
 * change>" or "advice: no limit found" (at most len - 1 bytes, no
 * newline).  Returns the number of findings (0 when nothing fired, -1
 * when r cannot be advised on, e.g. an interval without packets: then
 * buf says why in a few words).
 */
int vb_advise_line(const struct vb_results *r, char *buf, size_t len);

#endif
