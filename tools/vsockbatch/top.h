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
	VB_SORT_HOLD,		/* mean window time (full) or rx_batch hold */
	VB_SORT_DEFERRED,
	VB_SORT_NR
};

struct vb_top_row {
	struct vb_flow_key key;
	double pkts_s, mb_s, batches_s;
	double mean_batch;	/* packets per batch */
	double batch_max;	/* exact */
	double hold_mean_ns;	/* window mean (full) or rx_batch hold mean */
	double dr_per_batch;
	double pct_deferred;
};

struct vb_top_frame {
	double interval_s;
	uint64_t stamp_unix_ns;		/* live: end of the interval; replay:
					 * start of the recording; 0 unknown */
	bool replay;
	char source[160];		/* "live" or the replayed file */
	enum vb_kernel_mode mode;
	char kernel[128];
	enum vb_trace_mode trace;
	uint32_t time_sample;		/* full mode: 1 window in this many timed */
	struct vb_top_row total;	/* key unused */
	uint64_t map_full;		/* windows of flows the map had no room for */
	size_t nflows_tracked;		/* flows in the table (live: this interval) */
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
	char advice[96];		/* vb_advise_line() of the interval */
};

extern const char *const vb_top_sort_names[VB_SORT_NR];

/*
 * delta holds the counts of the interval (live: now - previous snapshot;
 * replay: the file).  cost is the cost of the same interval in
 * delta->cost.unit, counted over cost_s seconds (interval_s, or for
 * cpu-clock the counters' own span: vb_cost_read_interval()); cost_ok
 * false = not measured.  0 or -ENOMEM.
 */
int vb_top_frame_build(struct vb_top_frame *f, const struct vb_results *delta,
		       double interval_s, uint64_t cost, double cost_s,
		       bool cost_ok);
void vb_top_frame_sort(struct vb_top_frame *f, enum vb_top_sort key,
		       bool reverse);
void vb_top_frame_free(struct vb_top_frame *f);

/*
 * Text lines of a frame, width columns at most (0 = no limit): header
 * lines of at most 80 columns each, the column titles, the flow rows from
 * first_row on, max_lines lines in all (0 = no limit); when rows do not
 * fit, or the view is scrolled, a line says which are shown and how many
 * more there are (*nshown: rows shown, if nshown).  Flow columns that do
 * not fit in width are left out in a fixed order (top_frame.c) and a last
 * line says so.  line(ctx, idx,
 * text, attr, hl_at, hl_len) is called per line; attr 1 = title,
 * 2 = column titles (hl_at/hl_len: the sort column, else -1/0),
 * 3 = a note about what is not shown, 0 = plain.  Returns the lines.
 */
typedef void (*vb_top_line_fn)(void *ctx, int idx, const char *text, int attr,
			       int hl_at, int hl_len);
int vb_top_format(const struct vb_top_frame *f, int width, int first_row,
		  int max_lines, int *nshown, vb_top_line_fn line, void *ctx);
/* Every line, all rows, to a stream (batch mode), a blank line after. */
void vb_top_print_text(FILE *out, const struct vb_top_frame *f, int width);
/*
 * The totals of a frame as one line of at most 80 columns: its time, the
 * flow table's rate columns, CPU% (cpu-clock) or cycles/s; with header,
 * the column titles first (record -i).
 */
void vb_top_print_totals_line(FILE *out, const struct vb_top_frame *f,
			      bool header);
/* One JSON object on one line. */
void vb_top_print_json(FILE *out, const struct vb_top_frame *f);

#endif
