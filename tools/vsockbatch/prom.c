// SPDX-License-Identifier: GPL-2.0
/*
 * prom.c - the exporter's page from a snapshot: Prometheus text
 * exposition 0.0.4 or OpenMetrics 1.0.0, a pure function of its input.
 *
 * Names follow Prometheus' conventions: base units (seconds, bytes),
 * counters end in _total, every family has HELP and TYPE.  A figure the
 * attached hooks cannot measure is left out rather than shown as 0 (a
 * zero reader-wait count in light mode would read as "no waits").
 *
 * Histograms are the tracer's own exact slots, cut at fixed bucket
 * bounds that fall on slot edges: a log2z slot i holds
 * [2^(i-1), 2^i - 1], so "le" = (2^k - 1) ns counts slots 0..k exactly;
 * a linear slot holds one packet count.  Their _sum is the exact summed
 * counter beside the histogram, not a slot estimate.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "prom.h"

#define NS	1	/* scale: value in ns, shown in seconds */

/* What a figure needs attached (availability in avail()). */
enum need {
	NEED_NONE,
	NEED_FULL,	/* the full-mode function hooks */
	NEED_WINDOWS,	/* windows visible: not full mode without rx_batch */
	NEED_RUNS,	/* the rx_batch event of the series attached */
	NEED_PKTS,	/* the per-packet recv_pkt event attached */
};

struct counter_def {
	int id;			/* enum vb_counter */
	const char *name;	/* without vsockbatch_ and _total */
	const char *help;
	int scale;		/* NS: ns counted, seconds shown */
	enum need need;
};

/* Per packet and per CPU event: label cpu. */
static const struct counter_def cpu_counters[] = {
	{ VB_C_PKTS, "packets", "Packets the vsock recv_pkt tracepoint saw (light mode with the rx_batch event: the data packets of runs).", 0, NEED_NONE },
	{ VB_C_BYTES, "payload_bytes", "Payload bytes of those packets.", 0, NEED_NONE },
	{ VB_C_RW_PKTS, "data_packets", "OP_RW (data) packets.", 0, NEED_NONE },
	{ VB_C_CTRL_PKTS, "control_packets", "Non-RW packets (credit updates, shutdown, ...).", 0, NEED_PKTS },
	{ VB_C_USER_WAITS, "reader_waits", "Readers that waited for a vsock socket lock (full mode).", 0, NEED_FULL },
	{ VB_C_WORKER_CALLS, "rx_worker_calls", "RX worker invocations (full mode).", 0, NEED_FULL },
	{ VB_C_WORKER_NS, "rx_worker_seconds", "Time inside the RX worker functions (full mode).", NS, NEED_FULL },
	{ VB_C_STALE, "stale_windows", "Window state dropped without an end event (full mode).", 0, NEED_FULL },
	{ VB_C_MAP_FULL, "flow_map_full_events", "Events whose flow did not fit the BPF flow map (counted under port \"other\").", 0, NEED_NONE },
};

/* Per lock window / kernel run: totals, and per port with --ports. */
static const struct counter_def window_counters[] = {
	{ VB_C_BATCHES, "lock_windows", "Socket-lock windows (kernel runs) with at least one data packet.", 0, NEED_WINDOWS },
	{ VB_C_BATCH_PKTS, "window_packets", "Packets inside those windows.", 0, NEED_WINDOWS },
	{ VB_C_BATCH_BYTES, "window_bytes", "Payload bytes inside those windows.", 0, NEED_WINDOWS },
	{ VB_C_CTRL_WINDOWS, "control_windows", "Windows with control packets only (full mode).", 0, NEED_FULL },
	{ VB_C_KB_WRITE_SPACE, "write_space_runs", "Runs that called write-space (rx_batch event).", 0, NEED_RUNS },
};

/* data_ready_calls_total{where}: two counters of one family. */
static const struct counter_def dr_counters[] = {
	{ VB_C_DR_INSIDE, "under_lock", NULL, 0, NEED_FULL },
	{ VB_C_DR_AFTER, "after_unlock", NULL, 0, NEED_WINDOWS },
};

struct hist_def {
	int h;			/* enum vb_hist_id */
	const char *name;
	const char *help;
	int sum;		/* enum vb_counter: the exact sum */
	int scale;		/* NS: slots in ns, shown in seconds */
	int k0, k1, kstep;	/* log2z: le = 2^k - 1, k = k0..k1 */
	enum need need;
};

static const struct hist_def hists[] = {
	{ VB_H_BATCH_PKTS, "batch_packets", "Packets per lock window (exact per-window counts).",
	  VB_C_BATCH_PKTS, 0, 0, 6, 1, NEED_WINDOWS },
	{ VB_H_BATCH_BYTES, "batch_bytes", "Payload bytes per lock window.",
	  VB_C_BATCH_BYTES, 0, 6, 20, 2, NEED_WINDOWS },
	{ VB_H_KB_HOLD_NS, "lock_hold_seconds", "Socket lock hold time per kernel run (rx_batch event).",
	  VB_C_KB_HOLD_NS, NS, 10, 30, 2, NEED_RUNS },
	{ VB_H_WINDOW_NS, "window_seconds", "First packet event to window end, per window (full mode).",
	  VB_C_WINDOW_NS, NS, 10, 30, 2, NEED_FULL },
	{ VB_H_DR_LAT_NS, "data_ready_latency_seconds", "First enqueue of a window to its data-ready call (full mode).",
	  VB_C_DR_LAT_NS, NS, 10, 30, 2, NEED_FULL },
	{ VB_H_USER_WAIT_NS, "reader_wait_seconds", "Socket lock wait of a reader behind the RX worker (full mode).",
	  VB_C_USER_WAIT_NS, NS, 10, 30, 2, NEED_FULL },
};

enum ftype { T_COUNTER, T_GAUGE, T_HISTOGRAM, T_INFO };

struct out {
	FILE *f;
	enum vb_prom_format fmt;
	const struct vb_prom_snap *s;
	bool oom;
};

static bool avail(const struct vb_prom_snap *s, enum need n)
{
	bool full = s->trace == VB_TRACE_FULL || s->trace == VB_TRACE_FULL_NORUNS;

	switch (n) {
	case NEED_FULL:
		return full;
	case NEED_WINDOWS:
		return s->trace != VB_TRACE_FULL_NORUNS;
	case NEED_RUNS:
		return s->rx_batch_event;
	case NEED_PKTS:
		return s->pkt_event;
	default:
		return true;
	}
}

/*
 * HELP and TYPE of a family.  Text format names a counter family by its
 * sample name (…_total), OpenMetrics by the name without the suffix; an
 * info family is a gauge in text format.
 */
static void family(struct out *o, const char *name, enum ftype t,
		   const char *help)
{
	static const char *const tn[] = { "counter", "gauge", "histogram", "info" };
	bool om = o->fmt == VB_PROM_OPENMETRICS;
	const char *sfx = "";

	if (!om && t == T_COUNTER)
		sfx = "_total";
	else if (!om && t == T_INFO)
		sfx = "_info";
	fprintf(o->f, "# HELP vsockbatch_%s%s %s\n", name, sfx, help);
	fprintf(o->f, "# TYPE vsockbatch_%s%s %s\n", name, sfx,
		!om && t == T_INFO ? "gauge" : tn[t]);
}

/* A label value, escaped as both formats want (\\, \", \n). */
static void label_value(FILE *f, const char *v)
{
	for (; *v; v++) {
		if (*v == '\\' || *v == '"')
			fprintf(f, "\\%c", *v);
		else if (*v == '\n')
			fputs("\\n", f);
		else
			fputc(*v, f);
	}
}

/* An exact value: integers as such, ns as seconds with 9 decimals. */
static void value(FILE *f, uint64_t v, int scale)
{
	if (scale == NS)
		fprintf(f, " %llu.%09llu\n", (unsigned long long)(v / 1000000000ULL),
			(unsigned long long)(v % 1000000000ULL));
	else
		fprintf(f, " %llu\n", (unsigned long long)v);
}

static void cpu_families(struct out *o)
{
	const struct vb_prom_snap *s = o->s;
	size_t i, c;

	for (i = 0; i < sizeof(cpu_counters) / sizeof(cpu_counters[0]); i++) {
		const struct counter_def *d = &cpu_counters[i];

		if (!avail(s, d->need))
			continue;
		family(o, d->name, T_COUNTER, d->help);
		for (c = 0; c < s->ncpus; c++) {
			fprintf(o->f, "vsockbatch_%s_total{cpu=\"%u\"}", d->name,
				s->cpus[c].cpu);
			value(o->f, s->cpus[c].cnt[d->id], d->scale);
		}
	}
}

/*
 * The window counters of the totals (port NULL) or of every port:
 * families vsockbatch_<name>_total or vsockbatch_port_<name>_total.
 */
struct wrow {
	char label[32];		/* port label value; "" = no label */
	const uint64_t *cnt;	/* VB_FC_NR window counters */
};

static void row_labels(FILE *f, const struct wrow *w, const char *extra_k,
		       const char *extra_v)
{
	bool any = w->label[0] || extra_k;

	if (!any)
		return;
	fputc('{', f);
	if (w->label[0])
		fprintf(f, "port=\"%s\"%s", w->label, extra_k ? "," : "");
	if (extra_k)
		fprintf(f, "%s=\"%s\"", extra_k, extra_v);
	fputc('}', f);
}

static void window_families(struct out *o, const char *prefix,
			    const char *what, const struct wrow *rows,
			    size_t nrows)
{
	const struct vb_prom_snap *s = o->s;
	char name[96], help[256];
	size_t i, r;

	for (i = 0; i < sizeof(window_counters) / sizeof(window_counters[0]); i++) {
		const struct counter_def *d = &window_counters[i];

		if (!avail(s, d->need))
			continue;
		snprintf(name, sizeof(name), "%s%s", prefix, d->name);
		snprintf(help, sizeof(help), "%s%s", d->help, what);
		family(o, name, T_COUNTER, help);
		for (r = 0; r < nrows; r++) {
			fprintf(o->f, "vsockbatch_%s_total", name);
			row_labels(o->f, &rows[r], NULL, NULL);
			value(o->f, rows[r].cnt[d->id], d->scale);
		}
	}
	snprintf(name, sizeof(name), "%sdata_ready_calls", prefix);
	snprintf(help, sizeof(help),
		 "Data-ready calls: where=under_lock (inside a window, full mode), after_unlock (deferred to the end of a run by the series).%s",
		 what);
	family(o, name, T_COUNTER, help);
	for (i = 0; i < 2; i++) {
		if (!avail(s, dr_counters[i].need))
			continue;
		for (r = 0; r < nrows; r++) {
			fprintf(o->f, "vsockbatch_%s_total", name);
			row_labels(o->f, &rows[r], "where", dr_counters[i].name);
			value(o->f, rows[r].cnt[dr_counters[i].id], 0);
		}
	}
	if (!avail(s, NEED_RUNS))
		return;
	snprintf(name, sizeof(name), "%srun_ends", prefix);
	snprintf(help, sizeof(help),
		 "Kernel runs (rx_batch events) by the reason they ended.%s", what);
	family(o, name, T_COUNTER, help);
	for (i = 0; i <= VB_C_KB_R_OTHER - VB_C_KB_R_QUEUE; i++)
		for (r = 0; r < nrows; r++) {
			fprintf(o->f, "vsockbatch_%s_total", name);
			row_labels(o->f, &rows[r], "reason",
				   vb_end_reason_name((int)i));
			value(o->f, rows[r].cnt[VB_C_KB_R_QUEUE + (int)i], 0);
		}
}

static void port_families(struct out *o)
{
	const struct vb_prom_snap *s = o->s;
	struct wrow *rows;
	size_t i;

	family(o, "port_limit", T_GAUGE,
	       "Ports with series of their own at most (--max-ports); the rest count under port=\"other\".");
	fprintf(o->f, "vsockbatch_port_limit %u\n", s->max_ports);
	family(o, "ports_tracked", T_GAUGE, "Ports with series of their own now.");
	fprintf(o->f, "vsockbatch_ports_tracked %zu\n", s->nports);
	family(o, "ports_aged_out", T_COUNTER,
	       "Ports whose series were dropped after --port-age quiet collections.");
	fprintf(o->f, "vsockbatch_ports_aged_out_total %llu\n",
		(unsigned long long)s->ports_aged);
	rows = calloc(s->nports + 1, sizeof(*rows));
	if (!rows) {
		o->oom = true;
		return;
	}
	for (i = 0; i < s->nports; i++) {
		snprintf(rows[i].label, sizeof(rows[i].label), "%u", s->ports[i].port);
		rows[i].cnt = s->ports[i].cnt;
	}
	snprintf(rows[i].label, sizeof(rows[i].label), "other");
	rows[i].cnt = s->other_port;
	window_families(o, "port_", " Per destination port.", rows, s->nports + 1);
	free(rows);
}

static uint64_t slots_upto(const struct vb_uhist *h, unsigned int k)
{
	uint64_t n = 0;
	unsigned int i;

	for (i = 0; i <= k; i++)
		n += h->slots[i];
	return n;
}

static void histogram(struct out *o, const struct hist_def *d)
{
	const struct vb_uhist *h = &o->s->totals.hist[d->h];
	unsigned int k, nslots = vb_hist_nslots(d->h);
	uint64_t count = slots_upto(h, nslots - 1), le;

	family(o, d->name, T_HISTOGRAM, d->help);
	for (k = (unsigned int)d->k0; k <= (unsigned int)d->k1;
	     k += (unsigned int)d->kstep) {
		/* linear: slot k holds k packets; log2z: slots 0..k end at 2^k - 1 */
		unsigned int top = vb_hist_linear(d->h) ? (1U << k) : k;

		le = vb_hist_linear(d->h) ? top : (1ULL << k) - 1;
		fprintf(o->f, "vsockbatch_%s_bucket{le=\"", d->name);
		if (d->scale == NS)
			fprintf(o->f, "%.10g", (double)le / 1e9);
		else
			fprintf(o->f, "%llu", (unsigned long long)le);
		fprintf(o->f, "\"} %llu\n", (unsigned long long)slots_upto(h, top));
	}
	fprintf(o->f, "vsockbatch_%s_bucket{le=\"+Inf\"} %llu\n", d->name,
		(unsigned long long)count);
	fprintf(o->f, "vsockbatch_%s_sum", d->name);
	value(o->f, o->s->totals.cnt[d->sum], d->scale);
	fprintf(o->f, "vsockbatch_%s_count %llu\n", d->name,
		(unsigned long long)count);
}

/* One sample of a tracer-cost family: the measurement's payload and set. */
static void overhead_sample(struct out *o, const char *name,
			    const struct vb_overhead *ov, double v)
{
	fprintf(o->f, "vsockbatch_%s{payload_bytes=\"%s\",source=\"", name,
		ov->payload);
	label_value(o->f, ov->source);
	fprintf(o->f, "\"} %.6g\n", v);
}

static void tracer_families(struct out *o)
{
	const struct vb_prom_snap *s = o->s;
	size_t i;

	family(o, "tracer", T_INFO,
	       "The traced kernel and the tracer's mode (value always 1).");
	fputs("vsockbatch_tracer_info{kernel_release=\"", o->f);
	label_value(o->f, s->kernel_release);
	fprintf(o->f, "\",kernel_mode=\"%s\",tracer_mode=\"%s\",runs_visible=\"%s\"} 1\n",
		vb_mode_name(s->kernel), vb_trace_mode_name(s->trace),
		s->trace == VB_TRACE_FULL_NORUNS ? "false" : "true");
	family(o, "tracer_full_mode", T_GAUGE,
	       "1: full mode (vsock function hooks), 0: light mode (the two vsock tracepoints).");
	fprintf(o->f, "vsockbatch_tracer_full_mode %d\n",
		avail(s, NEED_FULL) ? 1 : 0);
	/* the window-time histograms are this sample of the windows */
	if (avail(s, NEED_FULL) && s->time_sample) {
		family(o, "tracer_time_sample", T_GAUGE,
		       "Full mode times 1 window in this many (--sample): the window and data-ready latency histograms are that sample; counts are exact.");
		fprintf(o->f, "vsockbatch_tracer_time_sample %u\n",
			s->time_sample);
	}
	if (s->kernel != VB_MODE_UNKNOWN) {
		family(o, "kernel_batched", T_GAUGE,
		       "1: the kernel batches vsock RX (the series), 0: baseline.");
		fprintf(o->f, "vsockbatch_kernel_batched %d\n",
			s->kernel == VB_MODE_BATCHED ? 1 : 0);
	}
	/* left out, not 0, when this mode and kernel were never measured */
	if (s->noverhead) {
		family(o, "tracer_overhead_ratio", T_GAUGE,
		       "The tracer's measured cost in this mode on this kernel: extra guest instructions per byte received, traced vs untraced, under QEMU icount, per payload size of the measurement (a negative figure is within that measurement's noise).");
		for (i = 0; i < s->noverhead; i++)
			overhead_sample(o, "tracer_overhead_ratio",
					&s->overhead[i],
					s->overhead[i].pct / 100.0);
		family(o, "tracer_untraced_insns_per_packet", T_GAUGE,
		       "Guest instructions per packet of the untraced transfer in the measurement behind vsockbatch_tracer_overhead_ratio (QEMU icount, that kernel and payload): what the tracer's own instructions are a share of.");
		for (i = 0; i < s->noverhead; i++)
			overhead_sample(o, "tracer_untraced_insns_per_packet",
					&s->overhead[i],
					s->overhead[i].untraced);
	}
	/* light mode with the series: its cost follows the run length here */
	if (s->noverhead && s->overhead[0].per_run > 0) {
		family(o, "tracer_own_insns_per_run", T_GAUGE,
		       "This mode runs once per kernel run: its own measured instructions per run (QEMU icount, mean over the set's boots).  Per packet here it is this over the packets per run (vsockbatch:tracer_own_code:ratio_rate1m).");
		fprintf(o->f, "vsockbatch_tracer_own_insns_per_run{source=\"");
		label_value(o->f, s->overhead[0].source);
		fprintf(o->f, "\"} %.6g\n", s->overhead[0].per_run);
	}
	family(o, "tracer_missed_runs", T_COUNTER,
	       "Tracer program runs the kernel skipped (recursion): events not counted.");
	fprintf(o->f, "vsockbatch_tracer_missed_runs_total %llu\n",
		(unsigned long long)s->missed_runs);
	family(o, "collections", T_COUNTER, "Reads of the tracer's BPF maps.");
	fprintf(o->f, "vsockbatch_collections_total %llu\n",
		(unsigned long long)s->collections);
	family(o, "collect_duration_seconds", T_GAUGE,
	       "Duration of the last read of the BPF maps.");
	fprintf(o->f, "vsockbatch_collect_duration_seconds %.6f\n",
		s->collect_seconds);
	family(o, "exporter_heap_bytes", T_GAUGE,
	       "Bytes the exporter has allocated and not freed (malloc, all arenas), at the last read.");
	fprintf(o->f, "vsockbatch_exporter_heap_bytes %llu\n",
		(unsigned long long)s->heap_bytes);
	family(o, "start_time_seconds", T_GAUGE,
	       "When counting started, seconds since the Unix epoch.");
	fprintf(o->f, "vsockbatch_start_time_seconds %.3f\n",
		s->start_unix_seconds);
}

const char *vb_prom_content_type(enum vb_prom_format fmt)
{
	return fmt == VB_PROM_OPENMETRICS
		? "application/openmetrics-text; version=1.0.0; charset=utf-8"
		: "text/plain; version=0.0.4; charset=utf-8";
}

/*
 * Accept: "application/openmetrics-text;version=1.0.0,text/plain;q=0.5"
 * (Prometheus' own).  A media range with q=0 is refused, so it does not
 * count; anything else that names openmetrics-text does.
 */
enum vb_prom_format vb_prom_negotiate(const char *accept)
{
	const char *p = accept, *end, *q;
	size_t n;

	while (p && *p) {
		end = strchr(p, ',');
		n = end ? (size_t)(end - p) : strlen(p);
		while (n && (*p == ' ' || *p == '\t')) {
			p++;
			n--;
		}
		if (n >= 28 && !strncasecmp(p, "application/openmetrics-text", 28)) {
			q = memmem(p, n, "q=", 2);
			if (!q || strtod(q + 2, NULL) > 0)
				return VB_PROM_OPENMETRICS;
		}
		p = end ? end + 1 : NULL;
	}
	return VB_PROM_TEXT;
}

char *vb_prom_format(const struct vb_prom_snap *s, enum vb_prom_format fmt,
		     size_t *len)
{
	struct out o = { .fmt = fmt, .s = s };
	struct wrow total;
	char *buf = NULL;
	size_t i;

	*len = 0;
	o.f = open_memstream(&buf, len);
	if (!o.f)
		return NULL;
	tracer_families(&o);
	cpu_families(&o);
	memset(&total, 0, sizeof(total));
	total.cnt = s->totals.cnt;
	window_families(&o, "", "", &total, 1);
	if (avail(s, NEED_WINDOWS)) {
		family(&o, "socket_lookups", T_COUNTER,
		       "Socket lookups + locks: packets that did not join an open window (never below an earlier scrape's value).");
		fprintf(o.f, "vsockbatch_socket_lookups_total %llu\n",
			(unsigned long long)s->lookups);
		family(&o, "batch_max_packets", T_GAUGE,
		       "Most packets in one lock window so far (exact).");
		fprintf(o.f, "vsockbatch_batch_max_packets %llu\n",
			(unsigned long long)s->totals.cnt[VB_C_BATCH_MAX]);
	}
	for (i = 0; i < sizeof(hists) / sizeof(hists[0]); i++)
		if (avail(s, hists[i].need))
			histogram(&o, &hists[i]);
	if (s->ports_on)
		port_families(&o);
	if (fmt == VB_PROM_OPENMETRICS)
		fputs("# EOF\n", o.f);
	if (fclose(o.f) || o.oom) {
		free(buf);
		return NULL;
	}
	return buf;
}
