// SPDX-License-Identifier: GPL-2.0
/* top_frame.c - rates per flow for `vsockbatch top`, text and JSON. */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <jansson.h>

#include "advise.h"
#include "report.h"
#include "table.h"
#include "top.h"

const char *const vb_top_sort_names[VB_SORT_NR] = {
	[VB_SORT_PKTS] = "pkts/s",
	[VB_SORT_MBS] = "MB/s",
	[VB_SORT_BATCHES] = "batches/s",
	[VB_SORT_BATCH_LEN] = "pkts/batch",
	[VB_SORT_HOLD] = "hold",
	[VB_SORT_DEFERRED] = "%deferred",
};

/*
 * Totals count every packet; a flow only the packets of its batches
 * (packets are counted per CPU, windows per flow: include/vsockbatch.h).
 * "hold" is the mean window time in full mode, the kernel's rx_batch
 * hold in light mode: means, exact per interval (no log2 percentile).
 */
static void fill_row(struct vb_top_row *row, const struct vb_agg *a,
		     enum vb_trace_mode trace, double secs, bool flow)
{
	uint64_t pkts = a->cnt[flow ? VB_C_BATCH_PKTS : VB_C_PKTS];
	uint64_t bytes = a->cnt[flow ? VB_C_BATCH_BYTES : VB_C_BYTES];
	struct vb_metrics m;

	vb_metrics_compute(a, NULL, trace, 1, &m);
	row->pkts_s = secs > 0 ? (double)pkts / secs : NAN;
	row->mb_s = secs > 0 ? (double)bytes / secs / 1e6 : NAN;
	row->batches_s = secs > 0 ? (double)a->cnt[VB_C_BATCHES] / secs : NAN;
	row->mean_batch = m.mean_batch_pkts;
	row->batch_max = m.batch_max;
	row->hold_mean_ns = trace == VB_TRACE_FULL ? m.window_mean_ns
						   : m.kb_hold_mean_ns;
	row->dr_per_batch = m.dr_per_batch;
	row->pct_deferred = m.pct_deferred;
}

int vb_top_frame_build(struct vb_top_frame *f, const struct vb_results *d,
		       double interval_s, uint64_t cost, double cost_s,
		       bool cost_ok)
{
	struct vb_metrics m;
	size_t i;

	memset(f, 0, sizeof(*f));
	f->interval_s = interval_s;
	f->mode = d->mode;
	f->trace = d->trace;
	f->time_sample = d->self.sample;
	snprintf(f->kernel, sizeof(f->kernel), "%s", d->kernel_release);
	fill_row(&f->total, &d->totals, d->trace, interval_s, false);
	f->map_full = d->totals.cnt[VB_C_MAP_FULL];
	{
		/* advise judges the interval: a live delta has no duration */
		struct vb_results dd = *d;

		if (!dd.duration_ns && interval_s > 0)
			dd.duration_ns = (uint64_t)(interval_s * 1e9);
		vb_advise_line(&dd, f->advice, sizeof(f->advice));
	}
	vb_metrics_compute(&d->totals, NULL, d->trace, 1, &m);
	f->lookups_per_pkt = m.lookups_per_pkt;
	f->cost_measured = cost_ok;
	f->cost_unit = d->cost.unit;
	f->ncpus = d->cost.ncpus;
	if (cost_ok) {
		/* per second of the time the cost was counted over, so that
		 * cpu-clock busy ns per second per CPU stays <= 100 % */
		f->cost_per_s = cost_s > 0 ? (double)cost / cost_s : NAN;
		f->cost_per_byte = d->totals.cnt[VB_C_BYTES]
			? (double)cost / (double)d->totals.cnt[VB_C_BYTES] : NAN;
	}
	if (d->nflows) {
		f->rows = calloc(d->nflows, sizeof(*f->rows));
		if (!f->rows)
			return -ENOMEM;
	}
	for (i = 0; i < d->nflows; i++) {
		if (memcmp(&d->flows[i].key, &vb_other_flows,
			   sizeof(vb_other_flows)))
			f->nflows_tracked++;
		/* flows with nothing in this interval are left out */
		if (!d->flows[i].agg.cnt[VB_C_BATCH_PKTS] &&
		    !d->flows[i].agg.cnt[VB_C_CTRL_WINDOWS])
			continue;
		f->rows[f->nrows].key = d->flows[i].key;
		fill_row(&f->rows[f->nrows], &d->flows[i].agg, d->trace,
			 interval_s, true);
		f->nrows++;
	}
	vb_top_frame_sort(f, VB_SORT_PKTS, false);
	return 0;
}

static double sort_value(const struct vb_top_row *r, enum vb_top_sort k)
{
	double v;

	switch (k) {
	case VB_SORT_MBS:
		v = r->mb_s;
		break;
	case VB_SORT_BATCHES:
		v = r->batches_s;
		break;
	case VB_SORT_BATCH_LEN:
		v = r->mean_batch;
		break;
	case VB_SORT_HOLD:
		v = r->hold_mean_ns;
		break;
	case VB_SORT_DEFERRED:
		v = r->pct_deferred;
		break;
	default:
		v = r->pkts_s;
	}
	return isnan(v) ? -INFINITY : v;	/* undefined sorts last */
}

static enum vb_top_sort cur_key;
static bool cur_reverse;

static int cmp_rows(const void *a, const void *b)
{
	double x = sort_value(a, cur_key), y = sort_value(b, cur_key);
	int c = (x < y) - (x > y);	/* descending */

	if (!c)		/* stable, deterministic order for equal values */
		c = vb_flow_key_cmp(&((const struct vb_top_row *)a)->key,
				    &((const struct vb_top_row *)b)->key);
	return cur_reverse ? -c : c;
}

void vb_top_frame_sort(struct vb_top_frame *f, enum vb_top_sort key,
		       bool reverse)
{
	f->sort = key;
	f->reverse = reverse;
	cur_key = key;
	cur_reverse = reverse;
	if (f->nrows > 1)
		qsort(f->rows, f->nrows, sizeof(*f->rows), cmp_rows);
}

void vb_top_frame_free(struct vb_top_frame *f)
{
	free(f->rows);
	f->rows = NULL;
	f->nrows = 0;
}

static void fmt(char *b, size_t n, double v, const char *spec)
{
	if (isnan(v) || isinf(v))
		snprintf(b, n, "-");
	else
		snprintf(b, n, spec, v);
}

/* 1234567 -> "1.23M" */
static void fmt_si(char *b, size_t n, double v)
{
	if (isnan(v))
		snprintf(b, n, "-");
	else if (v >= 1e9)
		snprintf(b, n, "%.2fG", v / 1e9);
	else if (v >= 1e6)
		snprintf(b, n, "%.2fM", v / 1e6);
	else if (v >= 1e4)
		snprintf(b, n, "%.1fk", v / 1e3);
	else
		snprintf(b, n, "%.0f", v);
}

/* MB/s (MB = 10^6 bytes) in at most 6 characters. */
static void fmt_mbs(char *b, size_t n, double v)
{
	fmt(b, n, v, v < 100 ? "%.3f" : v < 10000 ? "%.1f" : "%.0f");
}

/*
 * The flow table's columns.  At a width too narrow for all of them,
 * columns go in ascending `keep` order until the row fits (table.c):
 * BATCH/s first (it is PKTS/s divided by PKT/B), then MAXB, MB/s,
 * PKTS/s, HOLD, PKT/B.  SRC, DST, DR/B and %DEF, the
 * columns that show the series working, are never dropped, nor is the
 * column being sorted by.  What is still too wide is cut at the edge.
 */
enum col_id {
	COL_SRC, COL_DST, COL_PKTS, COL_MBS, COL_BATCHES, COL_LEN,
	COL_MAXB, COL_HOLD, COL_DR, COL_DEF, COL_NR
};

static const struct vb_col cols[COL_NR] = {
	[COL_SRC]     = { "SRC",     3, 0, true },
	[COL_DST]     = { "DST",     3, 0, true },
	[COL_PKTS]    = { "PKTS/s",  7, 4, false },
	[COL_MBS]     = { "MB/s",    6, 3, false },
	[COL_BATCHES] = { "BATCH/s", 7, 1, false },
	[COL_LEN]     = { "PKT/B",   6, 6, false },
	[COL_MAXB]    = { "MAXB",    7, 2, false },
	[COL_HOLD]    = { "HOLD",    7, 5, false },
	[COL_DR]      = { "DR/B",    5, 0, false },
	[COL_DEF]     = { "%DEF",    4, 0, false },
};

/* The column of each sort key. */
static const enum col_id sort_col[VB_SORT_NR] = {
	[VB_SORT_PKTS] = COL_PKTS,
	[VB_SORT_MBS] = COL_MBS,
	[VB_SORT_BATCHES] = COL_BATCHES,
	[VB_SORT_BATCH_LEN] = COL_LEN,
	[VB_SORT_HOLD] = COL_HOLD,
	[VB_SORT_DEFERRED] = COL_DEF,
};

struct cells {
	char text[COL_NR][32];
	const char *ptr[COL_NR];
};

static void row_cells(struct cells *c, const struct vb_top_row *r)
{
	int i;

	if (!memcmp(&r->key, &vb_other_flows, sizeof(vb_other_flows))) {
		snprintf(c->text[COL_SRC], sizeof(c->text[0]), "(other");
		snprintf(c->text[COL_DST], sizeof(c->text[0]), "flows)");
	} else {
		vb_fmt_flow(c->text[COL_SRC], sizeof(c->text[0]), &r->key, true);
		vb_fmt_flow(c->text[COL_DST], sizeof(c->text[0]), &r->key, false);
	}
	fmt_si(c->text[COL_PKTS], sizeof(c->text[0]), r->pkts_s);
	fmt_mbs(c->text[COL_MBS], sizeof(c->text[0]), r->mb_s);
	fmt_si(c->text[COL_BATCHES], sizeof(c->text[0]), r->batches_s);
	fmt(c->text[COL_LEN], sizeof(c->text[0]), r->mean_batch, "%.2f");
	fmt(c->text[COL_MAXB], sizeof(c->text[0]), r->batch_max, "%.0f");
	vb_fmt_ns(c->text[COL_HOLD], sizeof(c->text[0]), r->hold_mean_ns);
	fmt(c->text[COL_DR], sizeof(c->text[0]), r->dr_per_batch, "%.2f");
	fmt(c->text[COL_DEF], sizeof(c->text[0]), r->pct_deferred, "%.0f");
	for (i = 0; i < COL_NR; i++)
		c->ptr[i] = c->text[i];
}

static void plan_layout(struct vb_table *t, const struct vb_top_frame *f,
			int width)
{
	struct cells c;
	size_t i;
	int k;

	vb_table_init(t, cols, COL_NR);
	for (i = 0; i < f->nrows; i++) {
		row_cells(&c, &f->rows[i]);
		for (k = 0; k < COL_NR; k++)
			vb_table_fit_cell(t, k, c.ptr[k]);
	}
	vb_table_fit(t, width, sort_col[f->sort]);
}

static void emit(vb_top_line_fn line, void *ctx, int *idx, int width,
		 int attr, const char *text, int hl_at, int hl_len)
{
	char buf[512];

	snprintf(buf, sizeof(buf), "%s", text);
	if (width > 0 && width < (int)sizeof(buf))
		buf[width] = 0;
	line(ctx, (*idx)++, buf, attr, hl_at, hl_len);
}

static void stamp_text(char *b, size_t n, uint64_t unix_ns, bool date)
{
	time_t t = (time_t)(unix_ns / 1000000000ULL);
	struct tm tm;

	if (!unix_ns || !localtime_r(&t, &tm) ||
	    !strftime(b, n, date ? "%Y-%m-%d %H:%M:%S" : "%H:%M:%S", &tm))
		snprintf(b, n, "-");
}

int vb_top_format(const struct vb_top_frame *f, int width, int first_row,
		  int max_lines, int *nshown, vb_top_line_fn line, void *ctx)
{
	char buf[512], a[32], b[32], c[32], d[64], e[32], g[32], h[48];
	const struct vb_top_row *t = &f->total;
	struct vb_table lay;
	struct cells cl;
	int idx = 0, hl_at = -1, hl_len = 0, shown, room, i;

	/* the header: at most 80 columns each, so nothing is cut at 80 */
	if (f->replay) {
		stamp_text(a, sizeof(a), f->stamp_unix_ns, true);
		snprintf(buf, sizeof(buf),
			 "vsockbatch top - replay: %.1f s recorded %s - sort %s%s",
			 f->interval_s, a, vb_top_sort_names[f->sort],
			 f->reverse ? " (rev)" : "");
	} else {
		stamp_text(a, sizeof(a), f->stamp_unix_ns, false);
		snprintf(buf, sizeof(buf),
			 "vsockbatch top - %s - live, %.1f s interval - sort %s%s",
			 a, f->interval_s, vb_top_sort_names[f->sort],
			 f->reverse ? " (rev)" : "");
	}
	emit(line, ctx, &idx, width, 1, buf, -1, 0);
	snprintf(buf, sizeof(buf), "kernel %s (%s), %s mode, flows %zu/%d, map full %llu%s%s",
		 f->kernel, vb_mode_name(f->mode), vb_trace_mode_name(f->trace),
		 f->nflows_tracked, VB_MAX_FLOWS,
		 (unsigned long long)f->map_full, f->replay ? " - " : "",
		 f->replay ? f->source : "");
	emit(line, ctx, &idx, width, 0, buf, -1, 0);

	fmt_si(a, sizeof(a), t->pkts_s);
	fmt_mbs(b, sizeof(b), t->mb_s);
	fmt_si(c, sizeof(c), t->batches_s);
	fmt(d, sizeof(d), t->mean_batch, "%.2f");
	snprintf(buf, sizeof(buf),
		 "total %s pkts/s  %s MB/s  %s batches/s  %s pkts/batch",
		 a, b, c, d);
	emit(line, ctx, &idx, width, 0, buf, -1, 0);

	vb_fmt_ns(a, sizeof(a), t->hold_mean_ns);
	fmt(b, sizeof(b), t->batch_max, "%.0f");
	fmt(c, sizeof(c), t->dr_per_batch, "%.2f");
	fmt(d, sizeof(d), t->pct_deferred, "%.0f%%");
	snprintf(buf, sizeof(buf),
		 "per batch: %s mean %s, max %s pkts, data-ready %s (%s deferred)",
		 f->trace == VB_TRACE_FULL ? "window" : "hold", a, b, c, d);
	emit(line, ctx, &idx, width, 0, buf, -1, 0);

	if (!f->cost_measured) {
		snprintf(h, sizeof(h), "not measured");
		d[0] = 0;
	} else if (f->cost_unit == VB_COST_CYCLES) {
		fmt_si(e, sizeof(e), f->cost_per_s);
		snprintf(h, sizeof(h), "%s cycles/s", e);
		fmt(g, sizeof(g), f->cost_per_byte, "%.1f cycles/B");
		snprintf(d, sizeof(d), ", %s", g);
	} else {
		/* busy ns per second per CPU = utilisation */
		fmt(h, sizeof(h), f->ncpus ? f->cost_per_s / 1e7 /
		    (double)f->ncpus : NAN, "%.1f%% busy");
		fmt(g, sizeof(g), f->cost_per_byte, "%.1f ns/B");
		snprintf(d, sizeof(d), ", %s (cpu-clock, no PMU)", g);
	}
	fmt(e, sizeof(e), f->lookups_per_pkt, "%.2f");
	snprintf(buf, sizeof(buf), "lookups/pkt %s | cpu %zu CPU%s: %s%s", e,
		 f->ncpus, f->ncpus == 1 ? "" : "s", h, d);
	emit(line, ctx, &idx, width, 0, buf, -1, 0);
	if (f->advice[0])	/* frames built by vb_top_frame_build() */
		emit(line, ctx, &idx, width, 0, f->advice, -1, 0);

	plan_layout(&lay, f, width);
	vb_table_row(&lay, buf, sizeof(buf), NULL, sort_col[f->sort], &hl_at,
		     &hl_len);
	emit(line, ctx, &idx, width, 2, buf, hl_at, hl_len);
	if (nshown)
		*nshown = 0;
	if (!f->nrows) {
		emit(line, ctx, &idx, width, 0,
		     "(no vsock packets in this interval)", -1, 0);
		return idx;
	}
	/* lines left for the rows, after the note about left-out columns */
	room = max_lines > 0 ? max_lines - idx - (lay.ndropped ? 1 : 0) : 0;
	if (first_row < 0 || (size_t)first_row >= f->nrows)
		first_row = 0;
	shown = (int)f->nrows - first_row;
	if (max_lines > 0 && (shown > room || first_row))
		shown = room - 1;	/* one line for "N more" */
	if (shown > (int)f->nrows - first_row)
		shown = (int)f->nrows - first_row;
	if (shown < 1)
		shown = 1;
	if (nshown)
		*nshown = shown;
	for (i = first_row; i < first_row + shown; i++) {
		row_cells(&cl, &f->rows[i]);
		vb_table_row(&lay, buf, sizeof(buf), cl.ptr, -1, NULL, NULL);
		emit(line, ctx, &idx, width, 0, buf, -1, 0);
	}
	if (first_row || (size_t)(first_row + shown) < f->nrows) {
		snprintf(buf, sizeof(buf),
			 "flows %d-%d of %zu: %zu more (arrows, PgUp/PgDn scroll)",
			 first_row + 1, first_row + shown, f->nrows,
			 f->nrows - (size_t)shown);
		emit(line, ctx, &idx, width, 3, buf, -1, 0);
	}
	if (lay.ndropped) {
		/* say what is missing, once per frame, in batch output too */
		snprintf(buf, sizeof(buf),
			 "(%d column%s left out at %d columns: wider terminal shows them)",
			 lay.ndropped, lay.ndropped == 1 ? "" : "s", width);
		emit(line, ctx, &idx, width, 3, buf, -1, 0);
	}
	return idx;
}

static void print_line(void *ctx, int idx, const char *text, int attr,
		       int hl_at, int hl_len)
{
	(void)idx;
	(void)attr;
	(void)hl_at;
	(void)hl_len;
	fprintf(ctx, "%s\n", text);
}

void vb_top_print_text(FILE *out, const struct vb_top_frame *f, int width)
{
	vb_top_format(f, width, 0, 0, NULL, print_line, out);
	fprintf(out, "\n");
	fflush(out);
}

void vb_top_print_totals_line(FILE *out, const struct vb_top_frame *f,
			      bool header)
{
	char b[48], cpu[24];
	struct cells cl;
	int c;

	if (header) {
		fprintf(out, "%-8s", "TIME");
		for (c = COL_PKTS; c < COL_NR; c++)
			fprintf(out, " %*s", cols[c].width, cols[c].title);
		fprintf(out, " %8s\n", f->cost_unit == VB_COST_CYCLES ?
			"CYCLES/s" : "CPU%");
	}
	stamp_text(b, sizeof(b), f->stamp_unix_ns, false);
	fprintf(out, "%-8s", b);
	row_cells(&cl, &f->total);
	for (c = COL_PKTS; c < COL_NR; c++)
		fprintf(out, " %*s", cols[c].width, cl.ptr[c]);
	if (!f->cost_measured)
		snprintf(cpu, sizeof(cpu), "-");
	else if (f->cost_unit == VB_COST_CYCLES)
		fmt_si(cpu, sizeof(cpu), f->cost_per_s);
	else	/* busy ns per second per CPU = utilisation */
		fmt(cpu, sizeof(cpu), f->ncpus ? f->cost_per_s / 1e7 /
		    (double)f->ncpus : NAN, "%.1f");
	fprintf(out, " %8s\n", cpu);
	fflush(out);
}

static json_t *jnum(double v)
{
	return (isnan(v) || isinf(v)) ? json_null() : json_real(v);
}

static json_t *row_json(const struct vb_top_row *r, bool key)
{
	json_t *o = json_object();

	if (key) {
		json_object_set_new(o, "src_cid", json_integer(r->key.src_cid));
		json_object_set_new(o, "src_port", json_integer(r->key.src_port));
		json_object_set_new(o, "dst_cid", json_integer(r->key.dst_cid));
		json_object_set_new(o, "dst_port", json_integer(r->key.dst_port));
	}
	json_object_set_new(o, "pkts_per_s", jnum(r->pkts_s));
	json_object_set_new(o, "mb_per_s", jnum(r->mb_s));
	json_object_set_new(o, "batches_per_s", jnum(r->batches_s));
	json_object_set_new(o, "pkts_per_batch", jnum(r->mean_batch));
	json_object_set_new(o, "hold_mean_ns", jnum(r->hold_mean_ns));
	json_object_set_new(o, "batch_max", jnum(r->batch_max));
	json_object_set_new(o, "dr_per_batch", jnum(r->dr_per_batch));
	json_object_set_new(o, "pct_deferred", jnum(r->pct_deferred));
	return o;
}

void vb_top_print_json(FILE *out, const struct vb_top_frame *f)
{
	json_t *root = json_object(), *cpu = json_object(), *a = json_array();
	size_t i;

	json_object_set_new(root, "source", json_string(f->replay ? "replay" : "live"));
	json_object_set_new(root, "interval_s", jnum(f->interval_s));
	/* live: end of the interval; replay: start of the recording (an
	 * integer: 6 significant digits of a real would keep no seconds) */
	json_object_set_new(root, "time_unix_ns", f->stamp_unix_ns ?
			    json_integer((json_int_t)f->stamp_unix_ns) : json_null());
	json_object_set_new(root, "kernel", json_string(f->kernel));
	json_object_set_new(root, "mode", json_string(vb_mode_name(f->mode)));
	json_object_set_new(root, "trace_mode", json_string(vb_trace_mode_name(f->trace)));
	/* full mode's window times are 1 window in this many (--sample) */
	json_object_set_new(root, "time_sample", f->trace == VB_TRACE_LIGHT ? json_null()
			    : json_integer(f->time_sample));
	json_object_set_new(root, "map_full", json_integer((json_int_t)f->map_full));
	json_object_set_new(root, "flows_tracked", json_integer((json_int_t)f->nflows_tracked));
	json_object_set_new(root, "total", row_json(&f->total, false));
	json_object_set_new(root, "lookups_per_pkt", jnum(f->lookups_per_pkt));
	json_object_set_new(cpu, "unit", json_string(vb_cost_unit_name(f->cost_unit)));
	json_object_set_new(cpu, "measured", json_boolean(f->cost_measured));
	json_object_set_new(cpu, "per_s", f->cost_measured ? jnum(f->cost_per_s) : json_null());
	json_object_set_new(cpu, "per_byte", f->cost_measured ? jnum(f->cost_per_byte) : json_null());
	json_object_set_new(cpu, "cpus", json_integer((json_int_t)f->ncpus));
	json_object_set_new(root, "cpu_cost", cpu);
	json_object_set_new(root, "advice", json_string(f->advice));
	for (i = 0; i < f->nrows; i++)
		json_array_append_new(a, row_json(&f->rows[i], true));
	json_object_set_new(root, "flows", a);
	json_dumpf(root, out, JSON_COMPACT | JSON_REAL_PRECISION(6));
	fputc('\n', out);
	fflush(out);
	json_decref(root);
}
