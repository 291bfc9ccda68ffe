/* SPDX-License-Identifier: GPL-2.0 */
/*
 * top.h - the data behind `vsockbatch top`: one frame = rates over one
 * interval (live) or over the whole recording (--replay), rendered as
 * ncurses, plain lines (-b) or JSON lines (--json).  Building and
 * rendering are separate from the terminal code so they can be tested.
 */
#ifndef VB_TOP_H
#define VB_TOP_H

#include <stdbool.h>
#include <stdio.h>

#include "results.h"

enum vb_top_sort {
	VB_SORT_PKTS = 0,
	VB_SORT_MBS,
	VB_SORT_BATCHES,
	VB_SORT_BATCH_LEN,
	VB_SORT_HOLD_P99,
	VB_SORT_DEFERRED,
	VB_SORT_NR
};

struct vb_top_row {
	struct vb_flow_key key;
	double pkts_s, mb_s, batches_s;
	double mean_batch;	/* packets per batch */
	double hold_p50_ns, hold_p99_ns;
	double dr_per_batch;
	double pct_deferred;
};

struct vb_top_frame {
	double interval_s;
	bool replay;
	char source[160];		/* "live" or the replayed file */
	enum vb_kernel_mode mode;
	char kernel[128];
	struct vb_top_row total;	/* key unused */
	double lookups_per_pkt;
	bool cost_measured;
	enum vb_cost_unit cost_unit;
	double cost_per_s;		/* cycles/s or busy ns/s */
	double cost_per_byte;
	size_t ncpus;			/* CPUs the cost covers */
	struct vb_top_row *rows;
	size_t nrows;
	enum vb_top_sort sort;
	bool reverse;
};

extern const char *const vb_top_sort_names[VB_SORT_NR];

/*
 * delta holds the counts of the interval (live: now - previous snapshot;
 * replay: the file).  cost is the cost of the same interval in
 * delta->cost.unit; cost_ok false = not measured.  0 or -ENOMEM.
 */
int vb_top_frame_build(struct vb_top_frame *f, const struct vb_results *delta,
		       double interval_s, uint64_t cost, bool cost_ok);
void vb_top_frame_sort(struct vb_top_frame *f, enum vb_top_sort key,
		       bool reverse);
void vb_top_frame_free(struct vb_top_frame *f);

/*
 * Text lines of a frame, width columns at most, at most max_rows flow
 * rows (0 = all).  line(ctx, idx, text, attr) is called per line;
 * attr 1 = header, 2 = column titles, 0 = plain.
 */
typedef void (*vb_top_line_fn)(void *ctx, int idx, const char *text, int attr);
int vb_top_format(const struct vb_top_frame *f, int width, int max_rows,
		  vb_top_line_fn line, void *ctx);
/* The same lines to a stream (batch mode), with a blank line after. */
void vb_top_print_text(FILE *out, const struct vb_top_frame *f, int width);
/* One JSON object on one line. */
void vb_top_print_json(FILE *out, const struct vb_top_frame *f);

#endif
