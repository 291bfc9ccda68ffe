// SPDX-License-Identifier: GPL-2.0
/*
 * report.c - `vsockbatch report FILE [--json]`: totals, per-packet and
 * per-MB ratios (MB = 10^6 bytes, as in top's MB/s), CPU cost per byte
 * in its own unit, bcc-style log2 histograms, per-flow and per-CPU
 * tables; -P adds each flow's histograms.  Text fits 80 columns (long
 * lines wrapped, flow columns left out in table.c's way) unless --wide.
 */
#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "commands.h"
#include "hist.h"
#include "overhead.h"
#include "report.h"
#include "results.h"
#include "table.h"

void vb_fmt_ns(char *buf, size_t len, double ns)
{
	if (isnan(ns))
		snprintf(buf, len, "-");
	else if (ns < 1e3)
		snprintf(buf, len, "%.0fns", ns);
	else if (ns < 1e6)
		snprintf(buf, len, "%.1fus", ns / 1e3);
	else if (ns < 1e9)
		snprintf(buf, len, "%.2fms", ns / 1e6);
	else
		snprintf(buf, len, "%.2fs", ns / 1e9);
}

void vb_fmt_flow(char *buf, size_t len, const struct vb_flow_key *k, bool src)
{
	if (src)
		snprintf(buf, len, "%u:%u", k->src_cid, k->src_port);
	else
		snprintf(buf, len, "%u:%u", k->dst_cid, k->dst_port);
}

int vb_flow_key_cmp(const struct vb_flow_key *a, const struct vb_flow_key *b)
{
	const uint32_t x[4] = { a->src_cid, a->src_port, a->dst_cid, a->dst_port };
	const uint32_t y[4] = { b->src_cid, b->src_port, b->dst_cid, b->dst_port };
	int i;

	/* numerically, not memcmp: little-endian bytes order 256 before 1 */
	for (i = 0; i < 4; i++)
		if (x[i] != y[i])
			return x[i] < y[i] ? -1 : 1;
	return 0;
}

static void fmt_num(char *buf, size_t len, double v, const char *f)
{
	if (isnan(v) || isinf(v))
		snprintf(buf, len, "-");
	else
		snprintf(buf, len, f, v);
}

const char *vb_cost_per_byte_label(enum vb_cost_unit unit)
{
	return unit == VB_COST_CYCLES ? "cycles/byte"
				      : "ns/byte (cpu-clock, no PMU)";
}

static int cmp_flow_bytes(const void *a, const void *b)
{
	const struct vb_flow *x = a, *y = b;
	uint64_t bx = x->agg.cnt[VB_C_BATCH_BYTES];
	uint64_t by = y->agg.cnt[VB_C_BATCH_BYTES];

	if (bx != by)
		return bx < by ? 1 : -1;
	return vb_flow_key_cmp(&x->key, &y->key);
}

/*
 * The flow table.  Narrower than its rows, columns go in this order:
 * BATCHES (PKTS / PKT/B), MAXB, LKP/PK, BYTES, HOLD, PKT/B, PKTS;
 * SRC, DST, DR/B and %DEF stay.  --wide shows them all.
 */
enum fcol {
	FC_SRC, FC_DST, FC_PKTS, FC_BYTES, FC_BATCHES, FC_LEN, FC_MAXB,
	FC_HOLD, FC_DR, FC_DEF, FC_LKP, FC_NR
};

static const struct vb_col flow_cols[FC_NR] = {
	[FC_SRC]     = { "SRC",     3, 0, true },
	[FC_DST]     = { "DST",     3, 0, true },
	[FC_PKTS]    = { "PKTS",    4, 7, false },
	[FC_BYTES]   = { "BYTES",   5, 4, false },
	[FC_BATCHES] = { "BATCHES", 7, 1, false },
	[FC_LEN]     = { "PKT/B",   6, 6, false },
	[FC_MAXB]    = { "MAXB",    4, 2, false },
	[FC_HOLD]    = { "HOLD",    6, 5, false },
	[FC_DR]      = { "DR/B",    5, 0, false },
	[FC_DEF]     = { "%DEF",    4, 0, false },
	[FC_LKP]     = { "LKP/PK",  6, 3, false },
};

struct flow_cells {
	char text[FC_NR][32];
	const char *ptr[FC_NR];
};

/*
 * A flow's row: its batches (packets and bytes inside them: packets are
 * counted per CPU, windows per flow), MAXB the exact longest, HOLD the
 * mean window time (full mode) or the kernel's rx_batch hold (light).
 */
static void flow_cells(struct flow_cells *c, const struct vb_flow *fl,
		       enum vb_trace_mode trace)
{
	struct vb_metrics m;
	size_t n = sizeof(c->text[0]);
	int i;

	vb_metrics_compute(&fl->agg, NULL, trace, 1, &m);
	if (!memcmp(&fl->key, &vb_other_flows, sizeof(fl->key))) {
		snprintf(c->text[FC_SRC], n, "(other flows:");
		snprintf(c->text[FC_DST], n, "map full)");
	} else {
		vb_fmt_flow(c->text[FC_SRC], n, &fl->key, true);
		vb_fmt_flow(c->text[FC_DST], n, &fl->key, false);
	}
	snprintf(c->text[FC_PKTS], n, "%llu",
		 (unsigned long long)fl->agg.cnt[VB_C_BATCH_PKTS]);
	snprintf(c->text[FC_BYTES], n, "%llu",
		 (unsigned long long)fl->agg.cnt[VB_C_BATCH_BYTES]);
	snprintf(c->text[FC_BATCHES], n, "%llu",
		 (unsigned long long)fl->agg.cnt[VB_C_BATCHES]);
	fmt_num(c->text[FC_LEN], n, m.mean_batch_pkts, "%.2f");
	fmt_num(c->text[FC_MAXB], n, m.batch_max, "%.0f");
	vb_fmt_ns(c->text[FC_HOLD], n, trace == VB_TRACE_FULL ?
		  m.window_mean_ns : m.kb_hold_mean_ns);
	fmt_num(c->text[FC_DR], n, m.dr_per_batch, "%.2f");
	fmt_num(c->text[FC_DEF], n, m.pct_deferred, "%.0f");
	/* a flow's packets are those of its batches: one lookup each */
	fmt_num(c->text[FC_LKP], n, fl->agg.cnt[VB_C_BATCH_PKTS] ?
		(double)fl->agg.cnt[VB_C_BATCHES] /
		(double)fl->agg.cnt[VB_C_BATCH_PKTS] : NAN, "%.2f");
	for (i = 0; i < FC_NR; i++)
		c->ptr[i] = c->text[i];
}

/* Flows by bytes, then by key (numerically); malloc'ed, NULL if none. */
static struct vb_flow *sorted_flows(const struct vb_results *r)
{
	struct vb_flow *sorted;

	if (!r->nflows)
		return NULL;
	sorted = malloc(r->nflows * sizeof(*sorted));
	if (!sorted)
		return NULL;
	memcpy(sorted, r->flows, r->nflows * sizeof(*sorted));
	qsort(sorted, r->nflows, sizeof(*sorted), cmp_flow_bytes);
	return sorted;
}

static void print_flows(FILE *f, const struct vb_results *r, int width)
{
	struct vb_flow *sorted;
	struct flow_cells c;
	struct vb_table t;
	char buf[512];
	size_t i;
	int k;

	fprintf(f, "\nFlows (src -> dst, by bytes)\n");
	if (!r->nflows) {
		fprintf(f, "  (none)\n");
		return;
	}
	sorted = sorted_flows(r);
	if (!sorted)
		return;
	vb_table_init(&t, flow_cols, FC_NR);
	for (i = 0; i < r->nflows; i++) {
		flow_cells(&c, &sorted[i], r->trace);
		for (k = 0; k < FC_NR; k++)
			vb_table_fit_cell(&t, k, c.ptr[k]);
	}
	vb_table_fit(&t, width > 2 ? width - 2 : width, -1);
	vb_table_row(&t, buf, sizeof(buf), NULL, -1, NULL, NULL);
	fprintf(f, "  %s\n", buf);
	for (i = 0; i < r->nflows; i++) {
		flow_cells(&c, &sorted[i], r->trace);
		vb_table_row(&t, buf, sizeof(buf), c.ptr, -1, NULL, NULL);
		fprintf(f, "  %s\n", buf);
	}
	if (t.ndropped)
		fprintf(f, "  (%d column%s left out at %d columns: --wide shows them)\n",
			t.ndropped, t.ndropped == 1 ? "" : "s", width);
	free(sorted);
}

/*
 * -P: each flow's exact figures.  Results version 2 keeps histograms per
 * CPU only (a flow's value is its window counters, include/vsockbatch.h),
 * so a flow shows means and its exact longest batch.
 */
static void print_flow_hists(FILE *f, const struct vb_results *r)
{
	struct vb_flow *sorted = sorted_flows(r);
	char s[32], d[32], w[24], h[24], l[24];
	struct vb_metrics m;
	size_t i;

	if (!sorted)
		return;
	fprintf(f, "\nPer flow (histograms are per CPU since results version 2)\n");
	for (i = 0; i < r->nflows; i++) {
		const struct vb_flow *fl = &sorted[i];

		vb_metrics_compute(&fl->agg, NULL, r->trace, r->self.duty, &m);
		vb_fmt_flow(s, sizeof(s), &fl->key, true);
		vb_fmt_flow(d, sizeof(d), &fl->key, false);
		vb_fmt_ns(w, sizeof(w), m.window_mean_ns);
		vb_fmt_ns(h, sizeof(h), m.kb_hold_mean_ns);
		vb_fmt_ns(l, sizeof(l), m.dr_lat_mean_ns);
		fprintf(f, "  flow %s -> %s: %llu batches, mean %.2f, max %.0f packets; window mean %s, rx_batch hold mean %s, enqueue->ready mean %s\n",
			s, d, (unsigned long long)fl->agg.cnt[VB_C_BATCHES],
			isnan(m.mean_batch_pkts) ? 0 : m.mean_batch_pkts,
			isnan(m.batch_max) ? 0 : m.batch_max, w, h, l);
	}
	free(sorted);
}

static void print_cpus(FILE *f, const struct vb_results *r)
{
	char busy[16], cost[24];
	size_t i;

	fprintf(f, "\nPer CPU\n  %-4s %10s %9s %9s %10s %16s\n", "CPU", "PKTS",
		"BATCHES", "WORKERS", "WORKER", vb_cost_unit_name(r->cost.unit));
	for (i = 0; i < r->ncpus; i++) {
		const struct vb_cpu *c = &r->cpus[i];

		vb_fmt_ns(busy, sizeof(busy), (double)c->agg.cnt[VB_C_WORKER_NS]);
		if (c->cost >= 0)
			snprintf(cost, sizeof(cost), "%lld", (long long)c->cost);
		else
			snprintf(cost, sizeof(cost), "-");
		fprintf(f, "  %-4u %10llu %9llu %9llu %10s %16s\n", c->cpu,
			(unsigned long long)c->agg.cnt[VB_C_PKTS],
			(unsigned long long)c->agg.cnt[VB_C_BATCHES],
			(unsigned long long)c->agg.cnt[VB_C_WORKER_CALLS], busy,
			cost);
	}
}

/* "p50 [1.0us, 2.0us], p99 [...]" of a histogram, never finer than it holds */
static void pcts(char *buf, size_t len, const struct vb_results *r, int h)
{
	char a[48], b[48];
	bool lin = vb_hist_linear(h);
	uint64_t max = h == VB_H_BATCH_PKTS ? r->totals.cnt[VB_C_BATCH_MAX] : 0;

	vb_hist_pct_str(a, sizeof(a), r->totals.hist[h].slots,
			vb_hist_nslots(h), lin, 50, max, !strcmp(vb_hist_units[h], "ns"));
	vb_hist_pct_str(b, sizeof(b), r->totals.hist[h].slots,
			vb_hist_nslots(h), lin, 99, max, !strcmp(vb_hist_units[h], "ns"));
	snprintf(buf, len, "p50 %s, p99 %s", a, b);
}

/*
 * A level that runs once per kernel run: the set's own code per packet
 * holds at the set's run length only; at this recording's it is the
 * per-run cost over this run length (vb_overhead_at_run_len).
 */
static void report_per_run(FILE *f, const struct vb_results *r)
{
	const struct vb_overhead *o = &r->self.overhead;
	struct vb_metrics m;
	double len, pct, lo, hi;

	if (!(o->measured && o->per_run > 0))
		return;
	fprintf(f, "  it runs once per kernel run: %.1f [%.1f, %.1f] own instructions per run, in runs of %.2f packets there; ",
		o->per_run, o->per_run_lo, o->per_run_hi, o->run_len);
	/* the run length report and report --json print */
	vb_metrics_compute(&r->totals, &r->cost, r->trace, r->self.duty, &m);
	len = m.mean_batch_pkts;
	if (vb_overhead_at_run_len(o, len, &pct, &lo, &hi))
		fprintf(f, "at this recording's %.2f packets per run, %.1f per packet: own code %.2f%% [%.2f, %.2f] of that kernel's untraced %.0f instructions per 64 B packet (less at larger payloads)\n",
			len, o->per_run / len, pct, lo, hi, o->untraced);
	else
		fprintf(f, "this recording has no runs\n");
}

void vb_report_tracer(FILE *f, const struct vb_results *r)
{
	char a[32], b[32];
	uint64_t pkts = r->totals.cnt[VB_C_PKTS];

	if (r->trace == VB_TRACE_FULL_NORUNS)
		fprintf(f, "tracer: this kernel batches but has no vsock:virtio_transport_rx_batch event: its runs are not visible to the tracer (no generic lock hooks), so batch, window and lookup figures are not measured\n");

	fprintf(f, "tracer: %s mode, ", vb_trace_mode_name(r->trace));
	if (r->self.overhead.measured && r->self.overhead.boots > 0)
		fprintf(f, "measured overhead %+.2f%% [%+.2f, %+.2f] guest instructions per byte, own code %.2f%% of the untraced instructions (%s B payload, kernel %s, %d boots, %s)\n",
			r->self.overhead.pct, r->self.overhead.lo,
			r->self.overhead.hi, r->self.overhead.direct,
			r->self.overhead.payload, r->self.overhead.kernel,
			r->self.overhead.boots, r->self.overhead.source);
	else if (r->self.overhead.measured)
		fprintf(f, "measured overhead %+.2f%% guest instructions per byte (%s B payload, %s)\n",
			r->self.overhead.pct, r->self.overhead.payload,
			r->self.overhead.source);
	else
		fprintf(f, "overhead not measured (%s)\n",
			r->self.overhead.source[0] ? r->self.overhead.source
						   : "no figure");
	report_per_run(f, r);
	if (r->self.duty > 1)
		fprintf(f, "        window hooks attached 1 time slice (%u ms) in %u (--duty): they saw %llu of the %llu packets (%.1f%%); windows, data-ready and their times are from those packets, packets, bytes, worker time and reader waits from all\n",
			r->self.slice_ms, r->self.duty,
			(unsigned long long)r->totals.cnt[VB_C_WIN_PKTS],
			(unsigned long long)pkts,
			pkts ? 100.0 * (double)r->totals.cnt[VB_C_WIN_PKTS] /
			       (double)pkts : 0.0);
	if (r->self.bpf_stats) {
		vb_fmt_ns(a, sizeof(a), (double)r->self.run_ns);
		fmt_num(b, sizeof(b), pkts ? (double)r->self.run_ns /
			(double)pkts : NAN, "%.0f");
		fprintf(f, "        BPF programs %llu runs (%.2f per packet), %s inside them, %s ns per packet\n",
			(unsigned long long)r->self.run_cnt,
			pkts ? (double)r->self.run_cnt / (double)pkts : 0.0,
			a, b);
	}
	if (r->self.recursion_misses)
		fprintf(f, "        recursion misses %llu (counts are incomplete)\n",
			(unsigned long long)r->self.recursion_misses);
}


void vb_report_text(FILE *f, const struct vb_results *r, const char *name)
{
	vb_report_text_opts(f, r, name, 0, false);
}

void vb_report_text_opts(FILE *f, const struct vb_results *r,
			 const char *name, int width, bool per_flow)
{
	const uint64_t *c = r->totals.cnt;
	uint64_t bytes = c[VB_C_BYTES], pkts = c[VB_C_PKTS], runs;
	bool full = r->trace != VB_TRACE_LIGHT;
	struct vb_metrics m;
	char a[32], b[32], d[32], x[32], y[128];
	size_t i;
	int h;

	vb_metrics_compute(&r->totals, &r->cost, r->trace, r->self.duty, &m);
	runs = vb_kb_runs(r->totals.cnt);
	fprintf(f, "vsockbatch report: %s\n", name);
	fprintf(f, "kernel %s, %s (%s)\n", r->kernel_release,
		vb_mode_name(r->mode), r->detected_by);
	vb_report_tracer(f, r);
	fprintf(f, "recorded %.2f s:", (double)r->duration_ns / 1e9);
	for (i = 0; i < r->argc; i++)
		fprintf(f, " %s", r->argv[i]);
	fprintf(f, "\n");
	if (r->nlabels) {
		fprintf(f, "labels:");
		for (i = 0; i < r->nlabels; i++)
			fprintf(f, " %s=%s", r->labels[i].key, r->labels[i].value);
		fprintf(f, "\n");
	}
	fprintf(f, "hooks: %zu:", r->nhooks);
	for (i = 0; i < r->nhooks; i++)
		fprintf(f, " %s", r->hooks[i]);
	fprintf(f, "\n\nTotals\n");
	if (vb_results_pkt_event(r))
		fprintf(f, "  packets        %llu (data %llu, control %llu), %llu bytes\n",
			(unsigned long long)pkts,
			(unsigned long long)c[VB_C_RW_PKTS],
			(unsigned long long)c[VB_C_CTRL_PKTS],
			(unsigned long long)bytes);
	else
		fprintf(f, "  packets        %llu data packets in runs, %llu bytes (no per-packet hook: packets in no run not seen, control packets and SEQPACKET sockets' among them)\n",
			(unsigned long long)pkts, (unsigned long long)bytes);
	fmt_num(a, sizeof(a), m.mean_batch_pkts, "%.2f");
	fmt_num(b, sizeof(b), m.mean_batch_bytes, "%.0f");
	fmt_num(d, sizeof(d), m.batch_max, "%.0f");
	fprintf(f, "  batches        %llu, mean %s packets / %s bytes, max %s packets",
		(unsigned long long)c[VB_C_BATCHES], a, b, d);
	if (full)
		fprintf(f, "; control-only windows %llu",
			(unsigned long long)c[VB_C_CTRL_WINDOWS]);
	fprintf(f, "\n");
	pcts(y, sizeof(y), r, VB_H_BATCH_PKTS);
	fprintf(f, "  batch length   %s (exact)\n", y);
	fmt_num(a, sizeof(a), m.lookups_per_pkt, "%.3f");
	fprintf(f, "  lookup+lock    %s per packet (packets that joined no open run)\n", a);
	if (full) {
		vb_fmt_ns(a, sizeof(a), m.window_mean_ns);
		pcts(y, sizeof(y), r, VB_H_WINDOW_NS);
		fprintf(f, "  window         mean %s, %s (first packet event -> window end)\n",
			a, y);
		fmt_num(a, sizeof(a), m.pct_deferred, "%.1f%%");
		fmt_num(b, sizeof(b), m.dr_per_batch, "%.2f");
		fprintf(f, "  data-ready     %llu inside windows, %llu at run ends (%s deferred), %s per batch\n",
			(unsigned long long)c[VB_C_DR_INSIDE],
			(unsigned long long)c[VB_C_DR_AFTER], a, b);
	} else {
		fprintf(f, "  data-ready     %llu runs ended with the readable callback due (light mode: no window times)\n",
			(unsigned long long)c[VB_C_DR_AFTER]);
	}
	if (runs) {
		vb_fmt_ns(a, sizeof(a), m.kb_hold_mean_ns);
		pcts(y, sizeof(y), r, VB_H_KB_HOLD_NS);
		fprintf(f, "  rx_batch runs  %llu, hold mean %s, %s; write_space in %llu\n  ends:",
			(unsigned long long)runs, a, y,
			(unsigned long long)c[VB_C_KB_WRITE_SPACE]);
		for (i = 0; i <= VB_C_KB_R_OTHER - VB_C_KB_R_QUEUE; i++)
			fprintf(f, " %s %llu", vb_end_reason_name(i),
				(unsigned long long)c[VB_C_KB_R_QUEUE + i]);
		fprintf(f, "\n");
	}

	fprintf(f, "\nWhat batching costs%s\n",
		full || vb_results_reader_waits(r) ? "" : " (full mode only)");
	if (full || vb_results_reader_waits(r)) {
		vb_fmt_ns(a, sizeof(a), m.user_wait_mean_ns);
		fmt_num(b, sizeof(b), m.user_waits_per_mb, "%.1f");
		pcts(y, sizeof(y), r, VB_H_USER_WAIT_NS);
		fprintf(f, "  reader waits   %llu behind the socket lock (%s per MB), mean %s, %s\n",
			(unsigned long long)c[VB_C_USER_WAITS], b, a, y);
	}
	if (full) {
		vb_fmt_ns(a, sizeof(a), m.dr_lat_mean_ns);
		pcts(y, sizeof(y), r, VB_H_DR_LAT_NS);
		fprintf(f, "  enqueue->ready mean %s, %s (first packet of a batch to its data-ready)\n",
			a, y);
	}

	fprintf(f, "\nCPU cost\n");
	if (full) {
		vb_fmt_ns(a, sizeof(a), (double)c[VB_C_WORKER_NS]);
		fmt_num(b, sizeof(b), m.worker_ns_per_byte, "%.2f");
		fprintf(f, "  RX workers     %llu calls, %s inside worker functions, %s ns/byte\n",
			(unsigned long long)c[VB_C_WORKER_CALLS], a, b);
	}
	if (r->cost.measured) {
		fmt_num(x, sizeof(x), m.cost_per_byte, "%.2f");
		fprintf(f, "  CPUs");
		for (i = 0; i < r->cost.ncpus; i++)
			fprintf(f, "%s%u", i ? "," : " ", r->cost.cpus[i]);
		fprintf(f, "       %llu %s, %s %s (traced: includes the tracer)\n",
			(unsigned long long)r->cost.total,
			vb_cost_unit_name(r->cost.unit), x,
			vb_cost_per_byte_label(r->cost.unit));
	} else {
		fprintf(f, "  CPUs           not measured\n");
	}
	if (r->cost.note[0])
		fprintf(f, "  note: %s\n", r->cost.note);
	fprintf(f, "  source: %s\n", r->cost.source);

	if (c[VB_C_MAP_FULL] || c[VB_C_STALE])
		fprintf(f, "\n  anomalies: %llu windows of flows the flow map had no room for (counted under 'other flows'), %llu window states dropped without an end event\n",
			(unsigned long long)c[VB_C_MAP_FULL],
			(unsigned long long)c[VB_C_STALE]);

	for (h = 0; h < VB_H_NR; h++) {
		if (!vb_hist_total(r->totals.hist[h].slots, vb_hist_nslots(h)))
			continue;
		fprintf(f, "\n%s (%s)\n", vb_hist_descs[h], vb_hist_units[h]);
		if (vb_hist_linear(h))
			vb_lhist_print(f, r->totals.hist[h].slots,
				       vb_hist_nslots(h), vb_hist_units[h]);
		else
			vb_hist_print(f, r->totals.hist[h].slots,
				      VB_MAX_SLOTS, vb_hist_units[h]);
	}
	print_flows(f, r, width);
	if (per_flow)
		print_flow_hists(f, r);
	print_cpus(f, r);
}

static json_t *num_or_null(double v)
{
	return (isnan(v) || isinf(v)) ? json_null() : json_real(v);
}

static json_t *metrics_json(const struct vb_metrics *m)
{
	json_t *o = json_object();

#define M(f) json_object_set_new(o, #f, num_or_null(m->f))
	M(mean_batch_pkts);
	M(mean_batch_bytes);
	M(batch_max);
	M(window_mean_ns);
	M(kb_hold_mean_ns);
	M(dr_per_batch);
	M(pct_deferred);
	M(dr_lat_mean_ns);
	M(lookups_per_pkt);
	M(ws_per_pkt);
	M(dr_per_pkt);
	M(user_wait_mean_ns);
	M(user_waits_per_mb);
	M(worker_ns_per_byte);
#undef M
	return o;
}

/* p50/p99 as text (exact for linear histograms, slot ranges for log2). */
static json_t *pct_json(const struct vb_results *r)
{
	json_t *o = json_object(), *e;
	char a[48];
	int h;

	for (h = 0; h < VB_H_NR; h++) {
		uint64_t max = h == VB_H_BATCH_PKTS ? r->totals.cnt[VB_C_BATCH_MAX] : 0;
		int p50 = vb_hist_pct_slot(r->totals.hist[h].slots,
					   vb_hist_nslots(h), 50);
		int p99 = vb_hist_pct_slot(r->totals.hist[h].slots,
					   vb_hist_nslots(h), 99);

		e = json_object();
		json_object_set_new(e, "scheme", json_string(vb_hist_linear(h) ?
				    VB_SCHEME_LINEAR : VB_SCHEME_LOG2));
		json_object_set_new(e, "p50_slot", p50 < 0 ? json_null() : json_integer(p50));
		json_object_set_new(e, "p99_slot", p99 < 0 ? json_null() : json_integer(p99));
		vb_hist_pct_str(a, sizeof(a), r->totals.hist[h].slots,
				vb_hist_nslots(h), vb_hist_linear(h), 50, max, false);
		json_object_set_new(e, "p50", json_string(a));
		vb_hist_pct_str(a, sizeof(a), r->totals.hist[h].slots,
				vb_hist_nslots(h), vb_hist_linear(h), 99, max, false);
		json_object_set_new(e, "p99", json_string(a));
		json_object_set_new(o, vb_hist_names[h], e);
	}
	return o;
}

/*
 * A histogram's non-empty slots: [{ "low", "high" (null: open), "count" }]
 * (linear: low = high = the value, except the open last slot).
 */
static json_t *hist_json(const uint64_t *slots, int h)
{
	unsigned int i, n = vb_hist_nslots(h);
	json_t *a = json_array(), *e;
	uint64_t lo, hi;

	for (i = 0; a && i < n; i++) {
		if (!slots[i])
			continue;
		if (vb_hist_linear(h)) {
			lo = i;
			hi = i == n - 1 ? UINT64_MAX : i;
		} else {
			vb_hist_bounds(i, n, &lo, &hi);
		}
		e = json_object();
		json_object_set_new(e, "low", json_integer((json_int_t)lo));
		json_object_set_new(e, "high", hi == UINT64_MAX ? json_null() :
				    json_integer((json_int_t)hi));
		json_object_set_new(e, "count", json_integer((json_int_t)slots[i]));
		json_array_append_new(a, e);
	}
	return a;
}

/* Every histogram of an aggregate: { name: { unit, total, slots } }. */
static json_t *hists_json(const struct vb_agg *agg)
{
	json_t *o = json_object(), *h;
	int k;

	for (k = 0; o && k < VB_H_NR; k++) {
		h = json_object();
		json_object_set_new(h, "unit", json_string(vb_hist_units[k]));
		json_object_set_new(h, "scheme", json_string(vb_hist_linear(k) ?
				    VB_SCHEME_LINEAR : VB_SCHEME_LOG2));
		json_object_set_new(h, "total", json_integer((json_int_t)
			vb_hist_total(agg->hist[k].slots, vb_hist_nslots(k))));
		json_object_set_new(h, "slots", hist_json(agg->hist[k].slots, k));
		json_object_set_new(o, vb_hist_names[k], h);
	}
	return o;
}

char *vb_report_json(const struct vb_results *r, const char *name)
{
	json_t *root = json_object(), *o, *a, *e;
	struct vb_flow *sorted;
	struct vb_metrics m;
	char *s;
	size_t i;
	int k;

	vb_metrics_compute(&r->totals, &r->cost, r->trace, r->self.duty, &m);
	json_object_set_new(root, "file", json_string(name));
	json_object_set_new(root, "kernel_release", json_string(r->kernel_release));
	json_object_set_new(root, "mode", json_string(vb_mode_name(r->mode)));
	json_object_set_new(root, "detected_by", json_string(r->detected_by));
	json_object_set_new(root, "duration_s",
			    json_real((double)r->duration_ns / 1e9));
	json_object_set_new(root, "trace_mode", json_string(vb_trace_mode_name(r->trace)));
	json_object_set_new(root, "version", json_integer(r->version));
	o = metrics_json(&m);
	json_object_set_new(root, "metrics", o);
	json_object_set_new(root, "percentiles", pct_json(r));
	o = json_object();
	json_object_set_new(o, "unit", json_string(vb_cost_unit_name(r->cost.unit)));
	json_object_set_new(o, "measured", json_boolean(r->cost.measured));
	json_object_set_new(o, "total", json_integer((json_int_t)r->cost.total));
	json_object_set_new(o, "per_byte", num_or_null(m.cost_per_byte));
	json_object_set_new(o, "per_byte_unit",
			    json_string(r->cost.unit == VB_COST_CYCLES ?
					"cycles/byte" : "cpu-clock-ns/byte"));
	json_object_set_new(o, "note", json_string(r->cost.note));
	json_object_set_new(root, "cpu_cost", o);
	o = json_object();
	for (k = 0; k < VB_C_NR; k++)
		json_object_set_new(o, vb_counter_names[k],
				    json_integer((json_int_t)r->totals.cnt[k]));
	json_object_set_new(root, "totals", o);
	json_object_set_new(root, "histograms", hists_json(&r->totals));
	a = json_array();
	sorted = sorted_flows(r);
	for (i = 0; sorted && i < r->nflows; i++) {
		const struct vb_flow *fl = &sorted[i];
		struct vb_metrics fm;

		vb_metrics_compute(&fl->agg, NULL, r->trace, r->self.duty, &fm);
		e = json_object();
		json_object_set_new(e, "src_cid", json_integer(fl->key.src_cid));
		json_object_set_new(e, "src_port", json_integer(fl->key.src_port));
		json_object_set_new(e, "dst_cid", json_integer(fl->key.dst_cid));
		json_object_set_new(e, "dst_port", json_integer(fl->key.dst_port));
		json_object_set_new(e, "batch_pkts", json_integer((json_int_t)fl->agg.cnt[VB_C_BATCH_PKTS]));
		json_object_set_new(e, "batch_bytes", json_integer((json_int_t)fl->agg.cnt[VB_C_BATCH_BYTES]));
		json_object_set_new(e, "batches", json_integer((json_int_t)fl->agg.cnt[VB_C_BATCHES]));
		json_object_set_new(e, "metrics", metrics_json(&fm));
		json_array_append_new(a, e);
	}
	free(sorted);
	json_object_set_new(root, "flows", a);
	a = json_array();
	for (i = 0; i < r->ncpus; i++) {
		const struct vb_cpu *c = &r->cpus[i];

		e = json_object();
		json_object_set_new(e, "cpu", json_integer(c->cpu));
		json_object_set_new(e, "pkts", json_integer((json_int_t)c->agg.cnt[VB_C_PKTS]));
		json_object_set_new(e, "batches", json_integer((json_int_t)c->agg.cnt[VB_C_BATCHES]));
		json_object_set_new(e, "worker_calls", json_integer((json_int_t)c->agg.cnt[VB_C_WORKER_CALLS]));
		json_object_set_new(e, "worker_ns", json_integer((json_int_t)c->agg.cnt[VB_C_WORKER_NS]));
		/* cost in cpu_cost.unit; null where it was not measured */
		json_object_set_new(e, "cost", c->cost >= 0 ?
				    json_integer((json_int_t)c->cost) : json_null());
		json_array_append_new(a, e);
	}
	json_object_set_new(root, "cpus", a);
	o = json_object();
	json_object_set_new(o, "mode", json_string(vb_trace_mode_name(r->trace)));
	json_object_set_new(o, "recursion_misses",
			    json_integer((json_int_t)r->self.recursion_misses));
	json_object_set_new(o, "bpf_run_ns", r->self.bpf_stats ?
			    json_integer((json_int_t)r->self.run_ns) : json_null());
	json_object_set_new(o, "bpf_run_cnt", r->self.bpf_stats ?
			    json_integer((json_int_t)r->self.run_cnt) : json_null());
	/* --duty: the window figures are from the packets its slices saw */
	json_object_set_new(o, "window_duty", json_integer(r->self.duty));
	json_object_set_new(o, "window_pkts", r->self.duty > 1 ?
			    json_integer((json_int_t)r->totals.cnt[VB_C_WIN_PKTS]) :
			    json_integer((json_int_t)r->totals.cnt[VB_C_PKTS]));
	json_object_set_new(o, "overhead_pct", r->self.overhead.measured ?
			    json_real(r->self.overhead.pct) : json_null());
	json_object_set_new(o, "overhead_payload", json_string(r->self.overhead.payload));
	json_object_set_new(o, "overhead_source", json_string(r->self.overhead.source));
	{
		double pct, lo, hi;
		bool per_run = vb_overhead_at_run_len(&r->self.overhead,
						      m.mean_batch_pkts, &pct,
						      &lo, &hi);

		/* a level run once per kernel run, at this run length */
		json_object_set_new(o, "own_insns_per_run",
				    r->self.overhead.per_run > 0 ?
				    json_real(r->self.overhead.per_run) :
				    json_null());
		json_object_set_new(o, "own_pct_at_run_len", per_run ?
				    json_real(pct) : json_null());
	}
	json_object_set_new(root, "tracer", o);
	vb_results_labels_to_json(root, r);
	/* one key per line: easy for awk in the busybox guest */
	s = json_dumps(root, JSON_INDENT(2) | JSON_REAL_PRECISION(6));
	json_decref(root);
	return s;
}

#define REPORT_WIDTH	80

/*
 * Break a line longer than width at its last space that fits; the rest
 * goes on lines indented 4 more than the line's own indent.  A word
 * longer than the room stays whole.
 */
void vb_wrap_line(FILE *out, const char *line, int width)
{
	int indent = (int)strspn(line, " "), len, room, cut, first = 1;
	const char *p = line;

	for (;;) {
		len = (int)strlen(p);
		room = first ? width : width - indent - 4;
		if (len <= room || room < 20) {
			fprintf(out, "%*s%s\n", first ? 0 : indent + 4, "", p);
			return;
		}
		for (cut = room; cut > 0 && p[cut] != ' '; cut--)
			;
		if (cut <= (first ? indent : 0)) {	/* one long word */
			for (cut = room; p[cut] && p[cut] != ' '; cut++)
				;
			if (!p[cut]) {
				fprintf(out, "%*s%s\n", first ? 0 : indent + 4, "", p);
				return;
			}
		}
		fprintf(out, "%*s%.*s\n", first ? 0 : indent + 4, "", cut, p);
		p += cut;
		while (*p == ' ')
			p++;
		first = 0;
	}
}

void vb_print_wrapped(FILE *out, int width, vb_print_fn print,
		      const void *ctx)
{
	char *buf = NULL, *line, *nl;
	size_t len = 0;
	FILE *m = open_memstream(&buf, &len);

	if (!m) {	/* no memory for the copy: unwrapped is still right */
		print(out, ctx);
		return;
	}
	print(m, ctx);
	fclose(m);
	for (line = buf; line && *line; line = nl ? nl + 1 : NULL) {
		nl = strchr(line, '\n');
		if (nl)
			*nl = 0;
		vb_wrap_line(out, line, width);
	}
	free(buf);
}

struct report_args {
	const struct vb_results *r;
	const char *name;
	int width;
	bool per_flow;
};

static void print_report(FILE *f, const void *ctx)
{
	const struct report_args *a = ctx;

	vb_report_text_opts(f, a->r, a->name, a->width, a->per_flow);
}

static void usage(FILE *f)
{
	fprintf(f,
"Usage: vsockbatch report FILE [--json] [-P] [-w]\n"
"\n"
"Print a results file written by `vsockbatch record`: totals, per-packet\n"
"and per-MB ratios (MB = 10^6 bytes), CPU cost per byte (cycles, or\n"
"cpu-clock ns when the machine had no PMU: the unit is always printed),\n"
"log2 histograms, per-flow and per-CPU tables.  The text fits 80 columns:\n"
"long lines are wrapped and flow-table columns left out (BATCHES, MAXB,\n"
"LKP/PK, BYTES, HOLD, PKT/B, PKTS, in that order) until a row fits.\n"
"FILE may be gzip- or zstd-compressed (run.json.gz, run.json.zst; told by\n"
"its first bytes, not its name).\n"
"\n"
"  -P, --per-flow  each flow's histograms too\n"
"  -w, --wide      no wrapping, every flow column\n"
"  -j, --json      derived metrics, totals, histograms, flows (with their\n"
"                  histograms) and per-CPU rows as JSON (one key a line)\n"
"  -h, --help      this help\n"
"\n"
"Exit status: 0 printed, 1 read or write error, 2 bad usage or a FILE\n"
"that is missing, unreadable or not a valid results file (malformed,\n"
"truncated, wrong version, corrupt compressed data).\n");
}

int cmd_report(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "json", no_argument, NULL, 'j' },
		{ "per-flow", no_argument, NULL, 'P' },
		{ "wide", no_argument, NULL, 'w' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	struct vb_results r;
	bool json = false, per_flow = false, wide = false;
	char err[512], *s;
	int opt, e;

	optind = 1;
	opterr = 0;	/* one line of our own instead of getopt's */
	while ((opt = getopt_long(argc, argv, "jPwh", longopts, NULL)) != -1) {
		switch (opt) {
		case 'j':
			json = true;
			break;
		case 'P':
			per_flow = true;
			break;
		case 'w':
			wide = true;
			break;
		case 'h':
			usage(stdout);
			return VB_EXIT_OK;
		default:
			fprintf(stderr, "vsockbatch report: unknown option or missing argument '%s' (try --help)\n",
				argv[optind - 1]);
			return VB_EXIT_USAGE;
		}
	}
	if (optind != argc - 1) {
		fprintf(stderr, "vsockbatch report: expected exactly one results FILE (try --help)\n");
		return VB_EXIT_USAGE;
	}
	e = vb_results_load(argv[optind], &r, err, sizeof(err));
	if (e) {
		fprintf(stderr, "vsockbatch report: %s\n", err);
		return vb_results_load_exit(e);
	}
	if (json) {
		s = vb_report_json(&r, argv[optind]);
		if (!s) {
			fprintf(stderr, "vsockbatch report: out of memory\n");
			vb_results_free(&r);
			return VB_EXIT_FAIL;
		}
		printf("%s\n", s);
		free(s);
	} else if (wide) {
		vb_report_text_opts(stdout, &r, argv[optind], 0, per_flow);
	} else {
		struct report_args a = { &r, argv[optind], REPORT_WIDTH, per_flow };

		vb_print_wrapped(stdout, REPORT_WIDTH, print_report, &a);
	}
	vb_results_free(&r);
	if (fflush(stdout) || ferror(stdout)) {
		fprintf(stderr, "vsockbatch report: write error on stdout\n");
		return VB_EXIT_FAIL;
	}
	return VB_EXIT_OK;
}
