/* SPDX-License-Identifier: GPL-2.0 */
/* collect.h - read the tracer's maps into the results model. */
#ifndef VB_COLLECT_H
#define VB_COLLECT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "results.h"

struct vsockbatch_bpf;
struct vb_stats;
struct vb_flow_track;

/*
 * Replace r->totals, r->cpus (online CPUs, cost -1) and r->flows with the
 * current map contents, cumulative since load.  track (export, live top):
 * r->flows and the window counters in r->totals hold each flow's growth
 * since the previous read with this tracker (plus the other-flows row,
 * cumulative), only flows that grew are listed, and flows idle for
 * VB_FLOW_IDLE_READS reads leave the map (flow_track.h).  NULL: the
 * whole map, cumulative (record).  0 or -errno + reason.
 */
int vb_collect(struct vsockbatch_bpf *skel, struct vb_results *r,
	       struct vb_flow_track *track, char *errbuf, size_t errlen);

/*
 * Add light mode's per-op packet counts of one CPU's stats slot
 * (s->op_pkts, stock kernels) to the packet counters cnt[VB_C_*]: packets,
 * data or control packets, credit updates, resets.
 */
void vb_stats_fold_ops(uint64_t *cnt, const struct vb_stats *s);

#endif
