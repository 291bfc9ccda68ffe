/* SPDX-License-Identifier: GPL-2.0 */
/*
 * overhead.h - the tracer's own cost, as measured, for results files.
 *
 * The figures come from the committed overhead set (results/, see
 * tools/vsockbatch/overhead.c): per lab kernel and tracer level, guest
 * instructions under QEMU -icount, untraced vs traced, n boots with 95 %
 * CIs.  `record` and `export` quote the cell of the kernel, level and
 * payload in use; report and compare print it.
 */
#ifndef VB_OVERHEAD_H
#define VB_OVERHEAD_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "results.h"

/* What was traced, and how: the key of a cell. */
struct vb_overhead_key {
	enum vb_trace_mode trace;	/* FULL_NORUNS: never measured */
	enum vb_kernel_mode kernel;
	uint32_t sample;		/* full mode's --sample (light: any) */
	uint32_t duty;			/* full mode's --duty (0: 1) */
	bool kprobe;			/* a hook attached as a kprobe */
	bool run_close;			/* light at the run-close function:
					 * never measured */
	bool lock_wait;			/* the __lock_sock pair attached: the
					 * light cells were measured without */
	const char *release;		/* uname -r; NULL: the lab's kernels */
	const char *payload;		/* payload label; NULL: 64 B */
};

/*
 * Fill o with the cell for k: among the measured kernels of k's mode,
 * the one whose release pattern matches k->release (Debian's before the
 * lab's), else one of the same major.minor, else the lab's own; then the
 * measured payload nearest to the label's (log scale).  o->measured false
 * (and o->source says why) when no cell has k's level.
 */
void vb_overhead_lookup(const struct vb_overhead_key *k, struct vb_overhead *o);

/*
 * Every measured payload of the kernel vb_overhead_lookup() picks for k,
 * ascending: up to max into out; returns how many there are.
 */
size_t vb_overhead_rows(const struct vb_overhead_key *k,
			struct vb_overhead *out, size_t max);

/*
 * A per-run level's own code at run_len packets per run (a recording's
 * own mean): its instructions per run over run_len packets of the set's
 * untraced instructions, as % with the per-run CI (the run length is the
 * recording's, exact).  The untraced packet is the set's: at a larger
 * payload or another kernel each packet costs more, so the share is an
 * upper bound there.  Interleaved flows add a flush per change of flow
 * that the one-flow set never paid.  false: not a per-run level, or no
 * runs (run_len <= 0).
 */
bool vb_overhead_at_run_len(const struct vb_overhead *o, double run_len,
			    double *pct, double *lo, double *hi);

/* "64", "1K", "64KiB", "65536" -> bytes; 0 if not a size. */
unsigned long vb_payload_bytes(const char *s);

#endif
