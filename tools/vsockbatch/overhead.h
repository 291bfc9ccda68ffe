/* SPDX-License-Identifier: GPL-2.0 */
/*
 * overhead.h - the tracer's own cost, as measured, for results files.
 *
 * The figures come from the committed overhead set (results/, see
 * tools/vsockbatch/overhead.c): guest instructions per byte received,
 * traced vs untraced, under QEMU -icount, per tracer mode, kernel and
 * payload.  `record` stores the figure for its mode, kernel and payload
 * label in every results file; report and compare print it.
 */
#ifndef VB_OVERHEAD_H
#define VB_OVERHEAD_H

#include <stddef.h>

#include "results.h"

/*
 * Fill o for (trace, kernel, payload label) from the table: the measured
 * payload nearest to the label's (on a log scale; 64 B when there is no
 * or no parsable label).  o->measured false when the table has no row
 * for the mode and kernel.
 */
void vb_overhead_lookup(enum vb_trace_mode trace, enum vb_kernel_mode kernel,
			const char *payload, struct vb_overhead *o);

/*
 * Every measured row for (trace, kernel), payloads ascending: up to max
 * into out; returns how many there are.
 */
size_t vb_overhead_rows(enum vb_trace_mode trace, enum vb_kernel_mode kernel,
			struct vb_overhead *out, size_t max);

/* "64", "1K", "64KiB", "65536" -> bytes; 0 if not a size. */
unsigned long vb_payload_bytes(const char *s);

#endif
