// SPDX-License-Identifier: GPL-2.0
/* top_frame.c - rates per flow for `vsockbatch top`, text and JSON. */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "report.h"
#include "top.h"

const char *const vb_top_sort_names[VB_SORT_NR] = {
	[VB_SORT_PKTS] = "pkts/s",
	[VB_SORT_MBS] = "MB/s",
	[VB_SORT_BATCHES] = "batches/s",
	[VB_SORT_BATCH_LEN] = "pkts/batch",
	[VB_SORT_HOLD_P99] = "hold p99",
	[VB_SORT_DEFERRED] = "%deferred",
};

static void fill_row(struct vb_top_row *row, const struct vb_agg *a,
		     double secs)
{
	struct vb_metrics m;

	vb_metrics_compute(a, NULL, &m);
	row->pkts_s = secs > 0 ? (double)a->cnt[VB_C_PKTS] / secs : NAN;
	row->mb_s = secs > 0 ? (double)a->cnt[VB_C_BYTES] / secs / 1e6 : NAN;
	row->batches_s = secs > 0 ? (double)a->cnt[VB_C_BATCHES] / secs : NAN;
	row->mean_batch = m.mean_batch_pkts;
	row->hold_p50_ns = m.hold_p50_ns;
	row->hold_p99_ns = m.hold_p99_ns;
	row->dr_per_batch = m.dr_per_batch;
	row->pct_deferred = m.pct_deferred;
}

int vb_top_frame_build(struct vb_top_frame *f, const struct vb_results *d,
		       double interval_s, uint64_t cost, bool cost_ok)
{
	struct vb_metrics m;
	size_t i;

	memset(f, 0, sizeof(*f));
	f->interval_s = interval_s;
	f->mode = d->mode;
	snprintf(f->kernel, sizeof(f->kernel), "%s", d->kernel_release);
	fill_row(&f->total, &d->totals, interval_s);
	vb_metrics_compute(&d->totals, NULL, &m);
	f->lookups_per_pkt = m.lookups_per_pkt;
	f->cost_measured = cost_ok;
	f->cost_unit = d->cost.unit;
	f->ncpus = d->cost.ncpus;
	if (cost_ok) {
		f->cost_per_s = interval_s > 0 ? (double)cost / interval_s : NAN;
		f->cost_per_byte = d->totals.cnt[VB_C_BYTES]
			? (double)cost / (double)d->totals.cnt[VB_C_BYTES] : NAN;
	}
	if (d->nflows) {
		f->rows = calloc(d->nflows, sizeof(*f->rows));
		if (!f->rows)
			return -ENOMEM;
	}
	for (i = 0; i < d->nflows; i++) {
		/* flows with nothing in this interval are left out */
		if (!d->flows[i].agg.cnt[VB_C_PKTS] &&
		    !d->flows[i].agg.cnt[VB_C_KB_RUNS])
			continue;
		f->rows[f->nrows].key = d->flows[i].key;
		fill_row(&f->rows[f->nrows], &d->flows[i].agg, interval_s);
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
	case VB_SORT_HOLD_P99:
		v = r->hold_p99_ns;
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
		c = memcmp(&((const struct vb_top_row *)a)->key,
			   &((const struct vb_top_row *)b)->key,
			   sizeof(struct vb_flow_key));
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

static void emit(vb_top_line_fn line, void *ctx, int *idx, int width,
		 int attr, const char *text)
{
	char buf[512];

	snprintf(buf, sizeof(buf), "%s", text);
	if (width > 0 && width < (int)sizeof(buf))
		buf[width] = 0;
	line(ctx, (*idx)++, buf, attr);
}

static void row_text(char *buf, size_t n, const struct vb_top_row *r)
{
	char s[32], d[32], p[16], mb[16], b[16], l[16], h5[16], h9[16], dr[16],
	     df[16];

	vb_fmt_flow(s, sizeof(s), &r->key, true);
	vb_fmt_flow(d, sizeof(d), &r->key, false);
	fmt_si(p, sizeof(p), r->pkts_s);
	fmt(mb, sizeof(mb), r->mb_s, "%.3f");
	fmt_si(b, sizeof(b), r->batches_s);
	fmt(l, sizeof(l), r->mean_batch, "%.2f");
	vb_fmt_ns(h5, sizeof(h5), r->hold_p50_ns);
	vb_fmt_ns(h9, sizeof(h9), r->hold_p99_ns);
	fmt(dr, sizeof(dr), r->dr_per_batch, "%.2f");
	fmt(df, sizeof(df), r->pct_deferred, "%.0f");
	snprintf(buf, n, "%-13s %-13s %8s %8s %8s %6s %8s %8s %5s %4s",
		 s, d, p, mb, b, l, h5, h9, dr, df);
}

int vb_top_format(const struct vb_top_frame *f, int width, int max_rows,
		  vb_top_line_fn line, void *ctx)
{
	char buf[512], a[32], b[32], c[32], d[32], e[24], g[32], h[48];
	const struct vb_top_row *t = &f->total;
	int idx = 0;
	size_t i;

	snprintf(buf, sizeof(buf),
		 "vsockbatch top - %s %.1fs | kernel %s %s | sort %s%s | "
		 "keys: p m b l h d sort, r reverse, space pause, q quit",
		 f->replay ? "replay" : "live", f->interval_s, f->kernel,
		 vb_mode_name(f->mode), vb_top_sort_names[f->sort],
		 f->reverse ? " (rev)" : "");
	emit(line, ctx, &idx, width, 1, buf);

	fmt_si(a, sizeof(a), t->pkts_s);
	fmt(b, sizeof(b), t->mb_s, "%.3f");
	fmt_si(c, sizeof(c), t->batches_s);
	fmt(d, sizeof(d), t->mean_batch, "%.2f");
	vb_fmt_ns(e, sizeof(e), t->hold_p50_ns);
	vb_fmt_ns(g, sizeof(g), t->hold_p99_ns);
	snprintf(buf, sizeof(buf),
		 "total: %s pkts/s  %s MB/s  %s batches/s  %s pkts/batch  hold p50 %s p99 %s",
		 a, b, c, d, e, g);
	emit(line, ctx, &idx, width, 0, buf);

	fmt(a, sizeof(a), t->dr_per_batch, "%.2f");
	fmt(b, sizeof(b), t->pct_deferred, "%.0f%%");
	fmt(c, sizeof(c), f->lookups_per_pkt, "%.2f");
	if (!f->cost_measured) {
		snprintf(h, sizeof(h), "not measured");
		snprintf(d, sizeof(d), "-");
	} else if (f->cost_unit == VB_COST_CYCLES) {
		fmt_si(e, sizeof(e), f->cost_per_s);
		snprintf(h, sizeof(h), "%s cycles/s", e);
		fmt(d, sizeof(d), f->cost_per_byte, "%.1f cycles/B");
	} else {
		/* busy ns per second per CPU = utilisation */
		fmt(h, sizeof(h), f->ncpus ? f->cost_per_s / 1e7 /
		    (double)f->ncpus : NAN, "%.1f%% busy");
		fmt(d, sizeof(d), f->cost_per_byte, "%.1f ns/B");
	}
	snprintf(buf, sizeof(buf),
		 "data-ready/batch %s  deferred %s  lookups/pkt %s | cpu (%zu): %s, %s%s",
		 a, b, c, f->ncpus, h, d,
		 f->cost_measured && f->cost_unit == VB_COST_CPU_CLOCK_NS
			 ? " (cpu-clock, no PMU)" : "");
	emit(line, ctx, &idx, width, 0, buf);

	snprintf(buf, sizeof(buf), "%-13s %-13s %8s %8s %8s %6s %8s %8s %5s %4s",
		 "SRC", "DST", "PKTS/s", "MB/s", "BATCH/s", "PKT/B", "HOLDp50",
		 "HOLDp99", "DR/B", "%DEF");
	emit(line, ctx, &idx, width, 2, buf);
	for (i = 0; i < f->nrows; i++) {
		if (max_rows > 0 && (int)i >= max_rows)
			break;
		row_text(buf, sizeof(buf), &f->rows[i]);
		emit(line, ctx, &idx, width, 0, buf);
	}
	if (!f->nrows)
		emit(line, ctx, &idx, width, 0, "(no vsock packets in this interval)");
	return idx;
}

static void print_line(void *ctx, int idx, const char *text, int attr)
{
	(void)idx;
	(void)attr;
	fprintf(ctx, "%s\n", text);
}

void vb_top_print_text(FILE *out, const struct vb_top_frame *f, int width)
{
	vb_top_format(f, width, 0, print_line, out);
	fprintf(out, "\n");
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
	json_object_set_new(o, "hold_p50_ns", jnum(r->hold_p50_ns));
	json_object_set_new(o, "hold_p99_ns", jnum(r->hold_p99_ns));
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
	json_object_set_new(root, "kernel", json_string(f->kernel));
	json_object_set_new(root, "mode", json_string(vb_mode_name(f->mode)));
	json_object_set_new(root, "total", row_json(&f->total, false));
	json_object_set_new(root, "lookups_per_pkt", jnum(f->lookups_per_pkt));
	json_object_set_new(cpu, "unit", json_string(vb_cost_unit_name(f->cost_unit)));
	json_object_set_new(cpu, "measured", json_boolean(f->cost_measured));
	json_object_set_new(cpu, "per_s", f->cost_measured ? jnum(f->cost_per_s) : json_null());
	json_object_set_new(cpu, "per_byte", f->cost_measured ? jnum(f->cost_per_byte) : json_null());
	json_object_set_new(cpu, "cpus", json_integer((json_int_t)f->ncpus));
	json_object_set_new(root, "cpu_cost", cpu);
	for (i = 0; i < f->nrows; i++)
		json_array_append_new(a, row_json(&f->rows[i], true));
	json_object_set_new(root, "flows", a);
	json_dumpf(root, out, JSON_COMPACT | JSON_REAL_PRECISION(6));
	fputc('\n', out);
	fflush(out);
	json_decref(root);
}
