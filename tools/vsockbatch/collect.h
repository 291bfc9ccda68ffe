/* SPDX-License-Identifier: GPL-2.0 */
/* collect.h - read the tracer's maps into the results model. */
#ifndef VB_COLLECT_H
#define VB_COLLECT_H

#include <stdbool.h>
#include <stddef.h>

#include "results.h"

struct vsockbatch_bpf;

/*
 * Replace r->totals, r->cpus (online CPUs, cost -1) and r->flows with the
 * current map contents, cumulative since load.  drain: take the flows out
 * of the map (live top); r->flows and the window counters in r->totals
 * then hold the flows since the last drain (plus the other-flows row,
 * which is never drained).  0 or -errno + reason.
 */
int vb_collect(struct vsockbatch_bpf *skel, struct vb_results *r, bool drain,
	       char *errbuf, size_t errlen);

#endif
