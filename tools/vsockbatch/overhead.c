// SPDX-License-Identifier: GPL-2.0
/*
 * overhead.c - measured tracer cost per kernel, level and payload.
 *
 * Source: the set named by VB_OVERHEAD_SET in overhead_table.h
 * (scripts/tracer-cost.sh measures it; --table-only regenerates the
 * table from a committed set).  Two figures per cell, each the mean over
 * the set's boots with a 95 % CI:
 *   pct     the transfer's guest instructions, traced / untraced - 1;
 *   direct  the instructions of the tracer's own code (BPF programs,
 *           trampolines, helpers) per packet / untraced ones per packet.
 * A level that runs once per kernel run (light mode with the series) also
 * has its own instructions per run (SET/per-run.tsv,
 * scripts/light-per-run.sh): steady across the set's boots where its
 * direct figure follows their run lengths, so it is what carries over to
 * a user's transfer (vb_overhead_at_run_len).
 */
#include <fnmatch.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "overhead.h"

struct row {
	enum vb_trace_mode trace;
	enum vb_kernel_mode kernel;
	uint32_t sample;
	uint32_t duty;		/* --duty: window hooks 1 slice in N */
	bool kprobe;
	const char *name;	/* the lab's name for the kernel */
	const char *release;	/* fnmatch pattern of its uname -r */
	unsigned long payload;
	double pct, lo, hi, direct;
	int boots;
	double untraced;	/* untraced instructions per packet */
	/* per-run levels (per-run.tsv of the set); 0: per packet */
	double per_run, per_run_lo, per_run_hi, run_len;
	const char *set;	/* the results set it comes from */
};

/* The rows of VB_OVERHEAD_SET/cost.tsv, Debian's kernels first. */
static const struct row rows[] = {
#include "overhead_table.h"
};

#ifndef VB_OVERHEAD_SET
#error "overhead_table.h names no set: regenerate it with scripts/tracer-cost.sh --table-only"
#endif

#define NROWS (sizeof(rows) / sizeof(rows[0]))

unsigned long vb_payload_bytes(const char *s)
{
	unsigned long v;
	char *end;

	if (!s || !*s)
		return 0;
	v = strtoul(s, &end, 10);
	if (end == s)
		return 0;
	if (*end == 'K' || *end == 'k') {
		v *= 1024;
		end++;
	} else if (*end == 'M' || *end == 'm') {
		v *= 1024 * 1024;
		end++;
	}
	if (!strcmp(end, "iB") || !strcmp(end, "B"))
		end += strlen(end);
	return *end ? 0 : v;
}

/*
 * FULL_NORUNS (a kernel that batches without the rx_batch event, the
 * lab's p1-3) attaches other hooks than either measured kernel: never
 * a cell; nor light mode at the run-close function (such a kernel's
 * light).
 */
static bool same_level(const struct row *r, const struct vb_overhead_key *k)
{
	enum vb_trace_mode t = k->trace;

	if (k->run_close)
		return false;
	if (r->trace != t || r->kernel != k->kernel || r->kprobe != k->kprobe ||
	    r->duty != (k->duty ? k->duty : 1))
		return false;
	return t == VB_TRACE_LIGHT || r->sample == (k->sample ? k->sample : 1);
}

/* "6.12.118+deb12-cloud-amd64" and "6.12.*" share "6.12." */
static bool same_minor(const char *release, const char *pattern)
{
	const char *dot = strchr(pattern, '.');

	dot = dot ? strchr(dot + 1, '.') : NULL;
	return dot && !strncmp(release, pattern, (size_t)(dot - pattern + 1));
}

/* The measured kernel k's cell comes from (its rows' name), or NULL. */
static const char *pick_kernel(const struct vb_overhead_key *k, bool *exact)
{
	const char *minor = NULL, *any = NULL;
	size_t i;

	*exact = false;
	for (i = 0; i < NROWS; i++) {
		if (!same_level(&rows[i], k))
			continue;
		if (k->release && !fnmatch(rows[i].release, k->release, 0)) {
			*exact = true;
			return rows[i].name;
		}
		if (!minor && k->release && same_minor(k->release, rows[i].release))
			minor = rows[i].name;
		/* the lab's kernels: no "deb" in their pattern */
		if (!any && !strstr(rows[i].release, "deb"))
			any = rows[i].name;
	}
	if (!k->release && any)
		*exact = true;
	return minor ? minor : any;
}

/*
 * The table's light cells have no __lock_sock pair (it runs per contended
 * socket lock): a light recording that attached the pair says so inside
 * the cell's "(method)" suffix, which every source string ends with.
 */
static void note_level(const struct vb_overhead_key *k, struct vb_overhead *o)
{
	size_t n = strlen(o->source);

	if (k->trace != VB_TRACE_LIGHT || !k->lock_wait || n < 1 ||
	    o->source[n - 1] != ')')
		return;
	snprintf(o->source + n - 1, sizeof(o->source) - n + 1,
		 ", without __lock_sock)");
}

static void fill(const struct row *row, bool exact, struct vb_overhead *o)
{
	memset(o, 0, sizeof(*o));
	o->measured = true;
	o->pct = row->pct;
	o->lo = row->lo;
	o->hi = row->hi;
	o->direct = row->direct;
	o->boots = row->boots;
	o->untraced = row->untraced;
	o->per_run = row->per_run;
	o->per_run_lo = row->per_run_lo;
	o->per_run_hi = row->per_run_hi;
	o->run_len = row->run_len;
	snprintf(o->payload, sizeof(o->payload), "%lu", row->payload);
	snprintf(o->kernel, sizeof(o->kernel), "%s%s", row->name,
		 exact ? "" : "?");
	snprintf(o->source, sizeof(o->source), "%s (icount)", row->set);
}

size_t vb_overhead_rows(const struct vb_overhead_key *k,
			struct vb_overhead *out, size_t max)
{
	bool exact;
	const char *name = pick_kernel(k, &exact);
	size_t i, n = 0;

	/* the table is generated sorted by payload within a kernel */
	for (i = 0; name && i < NROWS; i++) {
		if (!same_level(&rows[i], k) || strcmp(rows[i].name, name))
			continue;
		if (n < max) {
			fill(&rows[i], exact, &out[n]);
			note_level(k, &out[n]);
		}
		n++;
	}
	return n;
}

void vb_overhead_lookup(const struct vb_overhead_key *k, struct vb_overhead *o)
{
	unsigned long want = vb_payload_bytes(k->payload);
	double best = INFINITY, d;
	const struct row *pick = NULL;
	bool exact;
	const char *name = pick_kernel(k, &exact);
	size_t i;

	memset(o, 0, sizeof(*o));
	if (!want)
		want = 64;
	for (i = 0; name && i < NROWS; i++) {
		if (!same_level(&rows[i], k) || strcmp(rows[i].name, name))
			continue;
		d = fabs(log((double)rows[i].payload / (double)want));
		if (d < best) {
			best = d;
			pick = &rows[i];
		}
	}
	if (!pick) {
		snprintf(o->source, sizeof(o->source),
			 "not measured for this mode, kernel%s",
			 k->run_close ? " and hooks (light at the run-close function)" :
			 k->trace == VB_TRACE_LIGHT ? "" : ", --sample and --duty");
		return;
	}
	fill(pick, exact, o);
	note_level(k, o);
}

bool vb_overhead_at_run_len(const struct vb_overhead *o, double run_len,
			    double *pct, double *lo, double *hi)
{
	double per_pkt = o->untraced * run_len;

	if (!o->measured || !(o->per_run > 0) || !(per_pkt > 0) ||
	    !isfinite(per_pkt))
		return false;
	*pct = 100.0 * o->per_run / per_pkt;
	*lo = 100.0 * o->per_run_lo / per_pkt;
	*hi = 100.0 * o->per_run_hi / per_pkt;
	return true;
}
