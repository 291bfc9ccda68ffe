/* SPDX-License-Identifier: GPL-2.0 */
/*
 * flow_track.h - growth of the BPF flow map's per-CPU counters between
 * reads, for the long-running readers (export, top).
 *
 * They used to drain the map (lookup-and-delete every flow at every
 * read).  A BPF program holds a pointer to its flow's value while it
 * counts a window, so a delete between its lookup and its adds threw
 * those adds away: export lost 2 of 16384 windows of a 1 MiB transfer at
 * 64 B in the lab (baseline, full mode, 0.5-s reads).  Now the map is
 * only read; the growth since the previous read is computed here, and a
 * flow is deleted only after VB_FLOW_IDLE_READS reads without growth.
 */
#ifndef VB_FLOW_TRACK_H
#define VB_FLOW_TRACK_H

#include <stdbool.h>
#include <stddef.h>

#include "vsockbatch.h"

/* reads without growth before a flow leaves the map */
#define VB_FLOW_IDLE_READS	2

struct vb_flow_seen {
	struct vb_flow_key key;
	unsigned int idle;		/* reads without growth */
	bool live;			/* read in the current walk */
	struct vb_flow_stats *vals;	/* ncpu values as last read */
};

struct vb_flow_track {
	int ncpu;
	struct vb_flow_seen *e;
	size_t n, cap;
};

int vb_flow_track_init(struct vb_flow_track *t, int ncpu);
void vb_flow_track_free(struct vb_flow_track *t);
/* A walk of the map starts: every flow not stepped before _end is gone. */
void vb_flow_track_begin(struct vb_flow_track *t);
/*
 * The flow's ncpu values as just read: delta (ncpu values) gets their
 * growth since the previous read (MAX counters: the value itself).
 * Returns 1 if any counter grew, 0 if not, -ENOMEM.  *expire says the
 * flow has not grown for VB_FLOW_IDLE_READS reads: delete it from the
 * map, then vb_flow_track_forget() it.
 */
int vb_flow_track_step(struct vb_flow_track *t, const struct vb_flow_key *key,
		       const struct vb_flow_stats *vals,
		       struct vb_flow_stats *delta, bool *expire);
void vb_flow_track_forget(struct vb_flow_track *t,
			  const struct vb_flow_key *key);
/* Drops the flows the walk did not meet (deleted elsewhere). */
void vb_flow_track_end(struct vb_flow_track *t);

#endif
