// SPDX-License-Identifier: GPL-2.0
/*
 * Unit tests for `vsockbatch export` without BPF: the page from fixture
 * snapshots (prom.c), linted by the real promtool; the folding of drained
 * map reads (prom_snap.c); the HTTP server under concurrent scrapes
 * (export_http.c); usage errors; and the shipped rules and dashboard
 * (monitoring/), checked with promtool and against the page's names.
 */
#include <arpa/inet.h>
#include <ctype.h>
#include <errno.h>
#include <netinet/in.h>
#include <pthread.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <cmocka.h>
#include <jansson.h>

#include "test_util.h"

#include "../../tools/vsockbatch/export.h"
#include "../../tools/vsockbatch/overhead.h"
#include "../../tools/vsockbatch/prom.h"

/* One drained read: per-CPU counters, flows (dst ports), other row. */
struct fixture_flow {
	uint32_t port;
	uint64_t windows, pkts;
};

static void make_read(struct vb_results *r, uint64_t pkts_per_cpu,
		      const struct fixture_flow *flows, size_t nflows,
		      uint64_t other_windows)
{
	size_t i, n = nflows + (other_windows ? 1 : 0);

	vb_results_free(r);
	vb_results_init(r);
	r->ncpus = 2;
	r->cpus = calloc(2, sizeof(*r->cpus));
	assert_non_null(r->cpus);
	for (i = 0; i < 2; i++) {
		r->cpus[i].cpu = (uint32_t)i;
		r->cpus[i].agg.cnt[VB_C_PKTS] = pkts_per_cpu;
		r->cpus[i].agg.cnt[VB_C_BYTES] = pkts_per_cpu * 64;
		r->cpus[i].agg.cnt[VB_C_USER_WAITS] = 3;
		r->cpus[i].agg.cnt[VB_C_USER_WAIT_NS] = 3000;
		r->totals.cnt[VB_C_PKTS] += pkts_per_cpu;
		r->totals.cnt[VB_C_BYTES] += pkts_per_cpu * 64;
		r->totals.cnt[VB_C_USER_WAITS] += 3;
		r->totals.cnt[VB_C_USER_WAIT_NS] += 3000;
	}
	r->flows = n ? calloc(n, sizeof(*r->flows)) : NULL;
	r->nflows = n;
	for (i = 0; i < nflows; i++) {
		struct vb_flow *f = &r->flows[i];

		f->key.src_cid = 2;
		f->key.dst_cid = 3;
		f->key.src_port = 50000 + (uint32_t)i;
		f->key.dst_port = flows[i].port;
		f->agg.cnt[VB_C_BATCHES] = flows[i].windows;
		f->agg.cnt[VB_C_BATCH_PKTS] = flows[i].pkts;
		f->agg.cnt[VB_C_BATCH_BYTES] = flows[i].pkts * 64;
		f->agg.cnt[VB_C_BATCH_MAX] = flows[i].windows ?
			(flows[i].pkts + flows[i].windows - 1) / flows[i].windows : 0;
		f->agg.cnt[VB_C_DR_AFTER] = flows[i].windows;
		f->agg.cnt[VB_C_KB_R_QUEUE] = flows[i].windows;
		f->agg.cnt[VB_C_KB_HOLD_NS] = flows[i].windows * 5000;
	}
	if (other_windows) {
		r->flows[nflows].key = vb_other_flows;
		r->flows[nflows].agg.cnt[VB_C_BATCHES] = other_windows;
		r->flows[nflows].agg.cnt[VB_C_BATCH_PKTS] = other_windows;
	}
}

/* Histograms as the BPF side leaves them (cumulative per read). */
static void set_hists(struct vb_results *r, uint64_t scale)
{
	memset(r->totals.hist, 0, sizeof(r->totals.hist));
	/* batch lengths: 1 x10, 4 x5, 16 x2, 64 x1 */
	r->totals.hist[VB_H_BATCH_PKTS].slots[1] = 10 * scale;
	r->totals.hist[VB_H_BATCH_PKTS].slots[4] = 5 * scale;
	r->totals.hist[VB_H_BATCH_PKTS].slots[16] = 2 * scale;
	r->totals.hist[VB_H_BATCH_PKTS].slots[64] = 1 * scale;
	/* hold: slot 13 = [4096, 8191] ns, slot 11 = [1024, 2047] ns */
	r->totals.hist[VB_H_KB_HOLD_NS].slots[11] = 7 * scale;
	r->totals.hist[VB_H_KB_HOLD_NS].slots[13] = 11 * scale;
	r->totals.hist[VB_H_USER_WAIT_NS].slots[12] = 6 * scale;
}

static void snap_setup(struct vb_prom_snap *s, enum vb_trace_mode trace,
		       enum vb_kernel_mode kernel, bool ports)
{
	vb_prom_snap_init(s);
	snprintf(s->kernel_release, sizeof(s->kernel_release),
		 "6.12.118-vb \"lab\"");
	s->trace = trace;
	s->kernel = kernel;
	s->time_sample = trace == VB_TRACE_LIGHT ? 1 : VB_SAMPLE_DEFAULT;
	/* the lab's kernels: the patched one has the event */
	s->rx_batch_event = kernel == VB_MODE_BATCHED &&
			    trace != VB_TRACE_FULL_NORUNS;
	/* light with the rx_batch event has no per-packet event */
	s->pkt_event = !(trace == VB_TRACE_LIGHT && s->rx_batch_event);
	s->noverhead = vb_overhead_rows(&(struct vb_overhead_key){
						.trace = trace, .kernel = kernel,
						.sample = VB_SAMPLE_DEFAULT },
					s->overhead, VB_PROM_OVERHEAD_MAX);
	s->ports_on = ports;
	s->max_ports = 2;
	s->port_age = 3;
	s->start_unix_seconds = 1764806400.5;
}

/* Two reads: the second drained read adds to the first. */
static void fixture(struct vb_prom_snap *s, enum vb_trace_mode trace,
		    enum vb_kernel_mode kernel, bool ports)
{
	static const struct fixture_flow f1[] = {
		{ 1234, 10, 80 }, { 1235, 4, 4 }, { 1236, 2, 2 },
	};
	static const struct fixture_flow f2[] = { { 1234, 8, 64 } };
	struct vb_results r;

	vb_results_init(&r);
	snap_setup(s, trace, kernel, ports);
	make_read(&r, 50, f1, 3, 5);
	set_hists(&r, 1);
	assert_int_equal(vb_prom_snap_fold(s, &r), 0);
	make_read(&r, 90, f2, 1, 7);
	set_hists(&r, 2);
	assert_int_equal(vb_prom_snap_fold(s, &r), 0);
	vb_results_free(&r);
}

static char *page_of(const struct vb_prom_snap *s, enum vb_prom_format fmt)
{
	size_t len;
	char *p = vb_prom_format(s, fmt, &len);

	assert_non_null(p);
	assert_int_equal(strlen(p), len);
	return p;
}

/* The value of the sample line starting with `sample ` (exact), or NaN. */
static double sample(const char *page, const char *name)
{
	size_t n = strlen(name);
	const char *p = page;

	while ((p = strstr(p, name))) {
		if ((p == page || p[-1] == '\n') && p[n] == ' ')
			return strtod(p + n + 1, NULL);
		p += n;
	}
	return NAN;
}

/* Run a shell command with page on its stdin; its output in *out. */
static int run_with_input(const char *cmd, const char *input, char **out)
{
	char path[] = "/tmp/vb-test-export-XXXXXX", full[512], buf[4096];
	size_t len = 0;
	FILE *p;
	int fd, st;

	fd = mkstemp(path);
	assert_true(fd >= 0);
	assert_int_equal(write(fd, input, strlen(input)), (ssize_t)strlen(input));
	close(fd);
	snprintf(full, sizeof(full), "%s < %s 2>&1", cmd, path);
	p = popen(full, "r");
	assert_non_null(p);
	*out = calloc(1, 1);
	while (fgets(buf, sizeof(buf), p)) {
		*out = realloc(*out, len + strlen(buf) + 1);
		strcpy(*out + len, buf);
		len += strlen(buf);
	}
	st = pclose(p);
	unlink(path);
	return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

/* promtool check metrics: exit 0 and not one lint complaint. */
static void assert_promtool_clean(const char *page)
{
	char *out;
	int rc = run_with_input("promtool check metrics", page, &out);

	if (rc || *out)
		print_error("promtool check metrics (exit %d):\n%s\n", rc, out);
	assert_int_equal(rc, 0);
	assert_string_equal(out, "");
	free(out);
}

static void test_negotiate(void **state)
{
	(void)state;
	assert_int_equal(vb_prom_negotiate(NULL), VB_PROM_TEXT);
	assert_int_equal(vb_prom_negotiate("text/plain"), VB_PROM_TEXT);
	assert_int_equal(vb_prom_negotiate("*/*"), VB_PROM_TEXT);
	/* Prometheus 2.42's own header */
	assert_int_equal(vb_prom_negotiate(
		"application/openmetrics-text;version=1.0.0,application/openmetrics-text;version=0.0.1;q=0.75,text/plain;version=0.0.4;q=0.5,*/*;q=0.1"),
		VB_PROM_OPENMETRICS);
	assert_int_equal(vb_prom_negotiate("text/plain;q=0.5, application/OpenMetrics-Text"),
			 VB_PROM_OPENMETRICS);
	assert_int_equal(vb_prom_negotiate("application/openmetrics-text;q=0"),
			 VB_PROM_TEXT);
	assert_string_equal(vb_prom_content_type(VB_PROM_TEXT),
			    "text/plain; version=0.0.4; charset=utf-8");
	assert_non_null(strstr(vb_prom_content_type(VB_PROM_OPENMETRICS),
			       "application/openmetrics-text; version=1.0.0"));
}

/* Light mode on a batched kernel: what the two tracepoints give. */
static void test_page_light(void **state)
{
	struct vb_prom_snap s;
	char *p;

	(void)state;
	fixture(&s, VB_TRACE_LIGHT, VB_MODE_BATCHED, false);
	p = page_of(&s, VB_PROM_TEXT);
	assert_promtool_clean(p);
	/* per-CPU counters as last read (cumulative in the map) */
	assert_true(sample(p, "vsockbatch_packets_total{cpu=\"0\"}") == 90);
	assert_true(sample(p, "vsockbatch_payload_bytes_total{cpu=\"1\"}") == 90 * 64);
	/* window counters: both drained reads + the other row (7) */
	assert_true(sample(p, "vsockbatch_lock_windows_total") == 10 + 4 + 2 + 8 + 7);
	assert_true(sample(p, "vsockbatch_window_packets_total") == 80 + 4 + 2 + 64 + 7);
	assert_true(sample(p, "vsockbatch_run_ends_total{reason=\"queue\"}") == 24);
	assert_true(sample(p, "vsockbatch_data_ready_calls_total{where=\"after_unlock\"}") == 24);
	/* exact buckets: le=4 holds lengths 1 and 4 (second read: x2) */
	assert_true(sample(p, "vsockbatch_batch_packets_bucket{le=\"1\"}") == 20);
	assert_true(sample(p, "vsockbatch_batch_packets_bucket{le=\"4\"}") == 30);
	assert_true(sample(p, "vsockbatch_batch_packets_bucket{le=\"64\"}") == 36);
	assert_true(sample(p, "vsockbatch_batch_packets_bucket{le=\"+Inf\"}") == 36);
	assert_true(sample(p, "vsockbatch_batch_packets_count") == 36);
	assert_true(sample(p, "vsockbatch_batch_packets_sum") == 157);
	/* le = 2^12 - 1 ns takes slot 11 ([1024, 2047]), not slot 13 */
	assert_true(sample(p, "vsockbatch_lock_hold_seconds_bucket{le=\"1.023e-06\"}") == 0);
	assert_true(sample(p, "vsockbatch_lock_hold_seconds_bucket{le=\"4.095e-06\"}") == 14);
	assert_true(sample(p, "vsockbatch_lock_hold_seconds_bucket{le=\"1.6383e-05\"}") == 36);
	/* the sum is the exact ns counter: 24 runs x 5000 ns */
	assert_non_null(strstr(p, "vsockbatch_lock_hold_seconds_sum 0.000120000\n"));
	/* full-mode figures are left out, not shown as 0 */
	assert_null(strstr(p, "vsockbatch_reader_wait"));
	assert_null(strstr(p, "{where=\"under_lock\"}"));
	assert_null(strstr(p, "vsockbatch_window_seconds"));
	assert_null(strstr(p, "vsockbatch_tracer_time_sample"));
	assert_null(strstr(p, "port="));
	/* gauges: mode, kernel, the measured cost of light mode */
	assert_true(sample(p, "vsockbatch_tracer_full_mode") == 0);
	assert_true(sample(p, "vsockbatch_kernel_batched") == 1);
	assert_non_null(strstr(p, "vsockbatch_tracer_info{kernel_release=\"6.12.118-vb \\\"lab\\\"\",kernel_mode=\"batched\",tracer_mode=\"light\",runs_visible=\"true\"} 1\n"));
	assert_non_null(strstr(p, "vsockbatch_tracer_overhead_ratio{payload_bytes=\"64\",source=\"results/"));
	assert_true(s.noverhead >= 1);
	assert_near(s.overhead[0].pct / 100,
		    strtod(strstr(strstr(p, "overhead_ratio{payload_bytes=\"64\""), "} ") + 2, NULL),
		    1e-9);
	/* it runs once per run: its cost per run, and what that is of */
	assert_true(s.overhead[0].per_run > 0);
	assert_near(s.overhead[0].per_run,
		    strtod(strstr(strstr(p, "\nvsockbatch_tracer_own_insns_per_run{source=\"results/"), "} ") + 2, NULL),
		    1e-3);
	assert_near(s.overhead[0].untraced,
		    strtod(strstr(strstr(p, "\nvsockbatch_tracer_untraced_insns_per_packet{payload_bytes=\"64\",source=\"results/"), "} ") + 2, NULL),
		    1e-3);
	/* lookups: packets that joined no run: 180 - (157 - 31) */
	assert_true(sample(p, "vsockbatch_socket_lookups_total") == 180 - (157 - 31));
	free(p);
	vb_prom_snap_free(&s);
}

/* Full mode on a baseline kernel, with per-port series. */
static void test_page_full_ports(void **state)
{
	struct vb_prom_snap s;
	char *p;

	(void)state;
	fixture(&s, VB_TRACE_FULL, VB_MODE_BASELINE, true);
	p = page_of(&s, VB_PROM_TEXT);
	assert_promtool_clean(p);
	assert_true(sample(p, "vsockbatch_reader_waits_total{cpu=\"1\"}") == 3);
	assert_true(sample(p, "vsockbatch_reader_wait_seconds_count") == 12);
	assert_non_null(strstr(p, "vsockbatch_data_ready_calls_total{where=\"under_lock\"}"));
	/* no rx_batch event on a baseline kernel: no runs, no hold times */
	assert_null(strstr(p, "vsockbatch_run_ends_total"));
	/* a per-packet level: no per-run cost */
	assert_null(strstr(p, "vsockbatch_tracer_own_insns_per_run"));
	assert_non_null(strstr(p, "\nvsockbatch_tracer_untraced_insns_per_packet{"));
	assert_null(strstr(p, "vsockbatch_lock_hold_seconds"));
	assert_true(sample(p, "vsockbatch_kernel_batched") == 0);
	/* the window times are a 1-in-8 sample (--sample), and say so */
	assert_true(sample(p, "vsockbatch_tracer_time_sample") == VB_SAMPLE_DEFAULT);
	/* ports: bound 2 -> 1234 and 1235 own series, 1236 under other */
	assert_true(sample(p, "vsockbatch_port_limit") == 2);
	assert_true(sample(p, "vsockbatch_port_lock_windows_total{port=\"1234\"}") == 18);
	assert_true(sample(p, "vsockbatch_port_lock_windows_total{port=\"1235\"}") == 4);
	assert_true(isnan(sample(p, "vsockbatch_port_lock_windows_total{port=\"1236\"}")));
	/* other: port 1236 (2) + the map's other row (7) */
	assert_true(sample(p, "vsockbatch_port_lock_windows_total{port=\"other\"}") == 9);
	assert_non_null(strstr(p, "vsockbatch_port_data_ready_calls_total{port=\"1234\",where=\"under_lock\"}"));
	free(p);
	vb_prom_snap_free(&s);
}

/* Full mode on a batched kernel without the rx_batch event (p1-3). */
static void test_page_norun(void **state)
{
	struct vb_prom_snap s;
	char *p;

	(void)state;
	fixture(&s, VB_TRACE_FULL_NORUNS, VB_MODE_BATCHED, false);
	p = page_of(&s, VB_PROM_TEXT);
	assert_promtool_clean(p);
	assert_null(strstr(p, "vsockbatch_lock_windows_total"));
	assert_null(strstr(p, "vsockbatch_batch_packets"));
	assert_null(strstr(p, "vsockbatch_socket_lookups_total"));
	/* never measured for this mode: no cost gauge rather than a guess */
	assert_null(strstr(p, "vsockbatch_tracer_overhead_ratio"));
	assert_null(strstr(p, "vsockbatch_tracer_untraced_insns_per_packet"));
	assert_null(strstr(p, "vsockbatch_tracer_own_insns_per_run"));
	assert_non_null(strstr(p, "runs_visible=\"false\""));
	free(p);
	vb_prom_snap_free(&s);
}

/*
 * A batched kernel without the rx_batch event whose runs full mode sees
 * through the series' functions (p1-3): windows yes, run ends, hold
 * times and write-space no (they come from the event alone).
 */
static void test_page_no_event(void **state)
{
	struct vb_prom_snap s;
	struct vb_results r;
	char *p;

	(void)state;
	vb_results_init(&r);
	snap_setup(&s, VB_TRACE_FULL, VB_MODE_BATCHED, false);
	s.rx_batch_event = false;
	make_read(&r, 10, NULL, 0, 3);
	assert_int_equal(vb_prom_snap_fold(&s, &r), 0);
	p = page_of(&s, VB_PROM_TEXT);
	assert_promtool_clean(p);
	assert_true(sample(p, "vsockbatch_lock_windows_total") == 3);
	assert_null(strstr(p, "vsockbatch_run_ends_total"));
	assert_null(strstr(p, "vsockbatch_lock_hold_seconds"));
	assert_null(strstr(p, "vsockbatch_write_space_runs_total"));
	assert_non_null(strstr(p, "vsockbatch_window_seconds_count"));
	free(p);
	vb_results_free(&r);
	vb_prom_snap_free(&s);
}

static void test_openmetrics(void **state)
{
	struct vb_prom_snap s;
	char *p, *t;
	size_t n;

	(void)state;
	fixture(&s, VB_TRACE_FULL, VB_MODE_BATCHED, true);
	p = page_of(&s, VB_PROM_OPENMETRICS);
	n = strlen(p);
	assert_true(n > 6 && !strcmp(p + n - 6, "# EOF\n"));
	assert_int_equal(strstr(p, "# EOF") - p, (ptrdiff_t)(n - 6));
	/* counter families are named without _total, samples with it */
	assert_non_null(strstr(p, "# TYPE vsockbatch_packets counter\n"));
	assert_null(strstr(p, "# TYPE vsockbatch_packets_total"));
	assert_non_null(strstr(p, "\nvsockbatch_packets_total{cpu=\"0\"} 90\n"));
	assert_non_null(strstr(p, "# TYPE vsockbatch_tracer info\n"));
	assert_non_null(strstr(p, "\nvsockbatch_tracer_info{"));
	assert_non_null(strstr(p, "# TYPE vsockbatch_lock_hold_seconds histogram\n"));
	/* the text page says the same with text format's family names */
	t = page_of(&s, VB_PROM_TEXT);
	assert_non_null(strstr(t, "# TYPE vsockbatch_packets_total counter\n"));
	assert_non_null(strstr(t, "# TYPE vsockbatch_tracer_info gauge\n"));
	assert_null(strstr(t, "# EOF"));
	assert_promtool_clean(t);
	free(t);
	free(p);
	vb_prom_snap_free(&s);
}

/* Counters never fall across drains; ports age out; lookups monotonic. */
static void test_fold(void **state)
{
	static const struct fixture_flow a[] = { { 7, 1, 1 }, { 8, 1, 1 } };
	static const struct fixture_flow b[] = { { 9, 2, 2 } };
	struct vb_prom_snap s;
	struct vb_results r;
	uint64_t last_lookups = 0;
	int i;

	(void)state;
	vb_results_init(&r);
	snap_setup(&s, VB_TRACE_LIGHT, VB_MODE_BATCHED, true);
	make_read(&r, 10, a, 2, 0);
	assert_int_equal(vb_prom_snap_fold(&s, &r), 0);
	assert_int_equal(s.nports, 2);
	/* a third port while both are tracked: counted under other */
	make_read(&r, 20, b, 1, 0);
	assert_int_equal(vb_prom_snap_fold(&s, &r), 0);
	assert_int_equal(s.nports, 2);
	assert_int_equal(s.other_port[VB_C_BATCHES], 2);
	assert_int_equal(s.totals.cnt[VB_C_BATCHES], 4);
	/* quiet reads: 7 and 8 age out after port_age (3) reads */
	make_read(&r, 20, NULL, 0, 0);
	assert_int_equal(vb_prom_snap_fold(&s, &r), 0);
	assert_int_equal(s.nports, 2);
	assert_int_equal(vb_prom_snap_fold(&s, &r), 0);
	assert_int_equal(s.nports, 0);
	assert_int_equal(s.ports_aged, 2);
	/* ...their counts stay in the totals, and the room is free again */
	assert_int_equal(s.totals.cnt[VB_C_BATCHES], 4);
	make_read(&r, 20, b, 1, 0);
	assert_int_equal(vb_prom_snap_fold(&s, &r), 0);
	assert_int_equal(s.nports, 1);
	assert_int_equal(s.ports[0].port, 9);
	assert_int_equal(s.totals.cnt[VB_C_BATCHES], 6);

	/*
	 * Lookups: packets counted before their run ends would make
	 * packets - joined fall back when the run ends; the counter holds.
	 */
	for (i = 0; i < 5; i++) {
		static const struct fixture_flow run[] = { { 9, 1, 40 } };

		make_read(&r, 100 + 40 * (uint64_t)i, NULL, 0, 0);
		assert_int_equal(vb_prom_snap_fold(&s, &r), 0);
		assert_true(s.lookups >= last_lookups);
		last_lookups = s.lookups;
		make_read(&r, 100 + 40 * (uint64_t)i, run, 1, 0);
		assert_int_equal(vb_prom_snap_fold(&s, &r), 0);
		assert_true(s.lookups >= last_lookups);
		last_lookups = s.lookups;
	}
	assert_int_equal(s.collections, 15);
	vb_results_free(&r);
	vb_prom_snap_free(&s);
}

/*
 * The hard bound docs/export.md states: 108 + 9 x CPUs series (full
 * mode, batched kernel), + 3 + 18 x (max-ports + 1) with --ports, however
 * many ports carry traffic.
 */
static void test_cardinality(void **state)
{
	struct fixture_flow many[40];
	struct vb_prom_snap s;
	struct vb_results r;
	size_t i, n = 0;
	char *p, *l;

	(void)state;
	for (i = 0; i < 40; i++)
		many[i] = (struct fixture_flow){ (uint32_t)(2000 + i), 1, 1 };
	vb_results_init(&r);
	snap_setup(&s, VB_TRACE_FULL, VB_MODE_BATCHED, true);
	s.max_ports = VB_PROM_PORTS_DEFAULT;
	make_read(&r, 1, many, 40, 3);
	assert_int_equal(vb_prom_snap_fold(&s, &r), 0);
	assert_int_equal(s.nports, VB_PROM_PORTS_DEFAULT);
	p = page_of(&s, VB_PROM_TEXT);
	for (l = p; l && *l; l = strchr(l, '\n') ? strchr(l, '\n') + 1 : NULL)
		n += *l != '#';
	assert_int_equal(n, 108 + 9 * 2 + 3 + 18 * (VB_PROM_PORTS_DEFAULT + 1));
	free(p);
	vb_results_free(&r);
	vb_prom_snap_free(&s);
}

/* ---- HTTP ---------------------------------------------------------- */

static int free_port(void)
{
	struct sockaddr_in a = { .sin_family = AF_INET };
	socklen_t len = sizeof(a);
	int fd = socket(AF_INET, SOCK_STREAM, 0), port;

	a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	assert_int_equal(bind(fd, (struct sockaddr *)&a, sizeof(a)), 0);
	assert_int_equal(getsockname(fd, (struct sockaddr *)&a, &len), 0);
	port = ntohs(a.sin_port);
	close(fd);
	return port;
}

/* GET path with an Accept header; the whole response (malloc'ed). */
static char *http_get(int port, const char *path, const char *accept)
{
	struct sockaddr_in a = { .sin_family = AF_INET };
	char req[512], *buf = NULL;
	size_t len = 0, cap = 0;
	ssize_t n;
	int fd = socket(AF_INET, SOCK_STREAM, 0);

	if (fd < 0)
		return NULL;
	a.sin_port = htons((uint16_t)port);
	a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	if (connect(fd, (struct sockaddr *)&a, sizeof(a))) {
		close(fd);
		return NULL;
	}
	snprintf(req, sizeof(req), "GET %s HTTP/1.0\r\n%s%s%s\r\n", path,
		 accept ? "Accept: " : "", accept ? accept : "",
		 accept ? "\r\n" : "");
	if (write(fd, req, strlen(req)) != (ssize_t)strlen(req)) {
		close(fd);
		return NULL;
	}
	for (;;) {
		if (cap - len < 4096) {
			cap = cap * 2 + 8192;
			buf = realloc(buf, cap);
		}
		n = read(fd, buf + len, cap - len - 1);
		if (n <= 0)
			break;
		len += (size_t)n;
	}
	close(fd);
	buf[len] = 0;
	return buf;
}

struct scraper {
	int port, ok, n;
};

static void *scrape_loop(void *arg)
{
	struct scraper *sc = arg;
	char *r;
	int i;

	for (i = 0; i < sc->n; i++) {
		r = http_get(sc->port, "/metrics", i % 2 ?
			     "application/openmetrics-text;version=1.0.0" : NULL);
		if (r && strstr(r, " 200 ") &&
		    strstr(r, "vsockbatch_packets_total{cpu=\"1\"}") &&
		    (i % 2 ? strstr(r, "# EOF\n") != NULL : !strstr(r, "# EOF")))
			sc->ok++;
		free(r);
	}
	return NULL;
}

static void test_http(void **state)
{
	struct vb_pub pub = { .lock = PTHREAD_MUTEX_INITIALIZER };
	struct scraper sc[6];
	pthread_t th[6];
	struct vb_prom_snap s;
	struct vb_http *h;
	char spec[64], err[256], *r;
	int port = free_port(), fd, fd2, i;

	(void)state;
	vb_prom_snap_init(&pub.snap);
	snprintf(spec, sizeof(spec), "127.0.0.1:%d", port);
	assert_int_equal(vb_http_listen_tcp(spec, &fd, err, sizeof(err)), 0);
	/* the same port again: in use, said as such */
	assert_int_equal(vb_http_listen_tcp(spec, &fd2, err, sizeof(err)),
			 -EADDRINUSE);
	assert_non_null(strstr(err, "Address already in use"));
	h = vb_http_start(fd, 4, &pub, err, sizeof(err));
	assert_non_null(h);

	/* before the first read: 503, not an empty page */
	r = http_get(port, "/metrics", NULL);
	assert_non_null(r);
	assert_non_null(strstr(r, " 503 "));
	free(r);

	fixture(&s, VB_TRACE_LIGHT, VB_MODE_BATCHED, true);
	pthread_mutex_lock(&pub.lock);
	assert_int_equal(vb_prom_snap_copy(&pub.snap, &s), 0);
	pub.ready = true;
	pthread_mutex_unlock(&pub.lock);

	r = http_get(port, "/metrics", NULL);
	assert_non_null(strstr(r, " 200 "));
	assert_non_null(strstr(r, "Content-Type: text/plain; version=0.0.4"));
	free(r);
	r = http_get(port, "/metrics", "application/openmetrics-text;version=1.0.0,text/plain;q=0.5");
	assert_non_null(strstr(r, "Content-Type: application/openmetrics-text; version=1.0.0"));
	assert_non_null(strstr(r, "# EOF\n"));
	free(r);
	r = http_get(port, "/other", NULL);
	assert_non_null(strstr(r, " 404 "));
	free(r);

	/* concurrent scrapes while the reader republishes, as it does */
	for (i = 0; i < 6; i++) {
		sc[i] = (struct scraper){ .port = port, .n = 40 };
		assert_int_equal(pthread_create(&th[i], NULL, scrape_loop, &sc[i]), 0);
	}
	for (i = 0; i < 300; i++) {
		pthread_mutex_lock(&pub.lock);
		assert_int_equal(vb_prom_snap_copy(&pub.snap, &s), 0);
		pthread_mutex_unlock(&pub.lock);
		usleep(1000);
	}
	for (i = 0; i < 6; i++) {
		pthread_join(th[i], NULL);
		assert_int_equal(sc[i].ok, sc[i].n);
	}
	vb_http_stop(h);
	/* stopped: the port is free again */
	assert_int_equal(vb_http_listen_tcp(spec, &fd2, err, sizeof(err)), 0);
	close(fd2);
	vb_prom_snap_free(&s);
	vb_prom_snap_free(&pub.snap);
}

static void test_listen_spec(void **state)
{
	static const char *const bad[] = {
		"9477", ":9477", "127.0.0.1", "127.0.0.1:", "127.0.0.1:0",
		"127.0.0.1:65536", "127.0.0.1:94x", "localhost:9477",
		"[::1:9477", "::1:9477", "[]:9477", "1.2.3:9477",
	};
	char err[256];
	size_t i;
	int fd;

	(void)state;
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		assert_int_equal(vb_http_listen_tcp(bad[i], &fd, err, sizeof(err)),
				 -EINVAL);
		assert_non_null(strstr(err, "invalid listen address"));
	}
}

/*
 * Usage errors: exit 2 with one line, before anything is attached.  Run
 * as nobody in a child: were a case ever to get past the parsing, the
 * root check stops it (exit 1) before any BPF is loaded on this machine.
 */
static int export_as_nobody(char **argv, int argc, char **err)
{
	char path[] = "/tmp/vb-test-export-err-XXXXXX";
	int fd = mkstemp(path), st;
	pid_t pid;

	assert_true(fd >= 0);
	assert_int_equal(fchmod(fd, 0666), 0);
	pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		if (setgid(65534) || setuid(65534))
			_exit(99);
		dup2(fd, 2);
		_exit(cmd_export(argc, argv));
	}
	close(fd);
	assert_int_equal(waitpid(pid, &st, 0), pid);
	*err = test_slurp_(path);
	unlink(path);
	return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

static void test_usage(void **state)
{
	static const char *const cases[][4] = {
		{ "-i", "0", NULL, "invalid interval" },
		{ "--max-ports", "4", NULL, "--max-ports needs --ports" },
		{ "--ports", "--max-ports", "999", "invalid --max-ports" },
		{ "--textfile", "/nonexistent-dir-vb", NULL, "--textfile /nonexistent-dir-vb" },
		{ "--textfile", "/tmp", "-l1.2.3.4:5", "drop --listen" },
		{ "-m", "heavy", NULL, "unknown mode" },
		{ "-s", "3", NULL, "invalid --sample '3'" },
		{ "--sample", "2048", NULL, "invalid --sample '2048'" },
		{ "--vsock-port", "-1", NULL, "invalid --vsock-port" },
		{ "--bogus", NULL, NULL, "unknown option" },
		{ "extra", NULL, NULL, "unexpected argument" },
	};
	char *argv[5], *err;
	size_t i;
	int argc;

	(void)state;
	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		argv[0] = "export";
		for (argc = 1; argc < 4 && cases[i][argc - 1]; argc++)
			argv[argc] = (char *)cases[i][argc - 1];
		argv[argc] = NULL;
		assert_int_equal(export_as_nobody(argv, argc, &err), 2);
		if (!strstr(err, cases[i][3]))
			print_error("case %zu: stderr '%s'\n", i, err);
		assert_non_null(strstr(err, cases[i][3]));
		/* one line */
		assert_non_null(strchr(err, '\n'));
		assert_int_equal(strchr(err, '\n')[1], 0);
		free(err);
	}
}

/* ---- monitoring/: rules and dashboard --------------------------------- */

static void test_rules(void **state)
{
	char *out;

	(void)state;
	assert_int_equal(run_with_input("promtool check rules monitoring/vsockbatch.rules.yml",
					"", &out), 0);
	assert_non_null(strstr(out, "SUCCESS"));
	free(out);
	/* the alerts fire on their series and not otherwise */
	assert_int_equal(run_with_input("cd monitoring && promtool test rules vsockbatch.rules.test.yml",
					"", &out), 0);
	assert_non_null(strstr(out, "SUCCESS"));
	free(out);
	assert_int_equal(run_with_input("promtool check config monitoring/prometheus-example.yml",
					"", &out), 0);
	free(out);
}

/*
 * Every vsockbatch name a PromQL expression uses is a sample name the
 * exporter writes (some page: full + ports, light) or a recording rule.
 */
static void check_names(const char *expr, const char *pages, const char *rules)
{
	char name[128], want[160];
	const char *p = expr;
	size_t n;

	while ((p = strstr(p, "vsockbatch"))) {
		/* part of a longer name, or a label value (job="vsockbatch") */
		if (p > expr && (isalnum((unsigned char)p[-1]) || p[-1] == '_' ||
				 p[-1] == '"')) {
			p++;
			continue;
		}
		for (n = 0; n < sizeof(name) - 1 && (isalnum((unsigned char)p[n]) ||
		     p[n] == '_' || p[n] == ':'); n++)
			name[n] = p[n];
		name[n] = 0;
		p += n;
		snprintf(want, sizeof(want), "record: %s\n", name);
		if (strstr(rules, want))
			continue;
		snprintf(want, sizeof(want), "\n%s{", name);
		if (strstr(pages, want))
			continue;
		snprintf(want, sizeof(want), "\n%s ", name);
		if (!strstr(pages, want))
			print_error("'%s' (in %s) is on no page and no rule\n", name, expr);
		assert_non_null(strstr(pages, want));
	}
}

/* Every sample name the exporter can write: a full + ports and a light page. */
static char *all_pages(void)
{
	struct vb_prom_snap full, light;
	char *pages, *p1, *p2;

	fixture(&full, VB_TRACE_FULL, VB_MODE_BATCHED, true);
	fixture(&light, VB_TRACE_LIGHT, VB_MODE_BATCHED, false);
	p1 = page_of(&full, VB_PROM_TEXT);
	p2 = page_of(&light, VB_PROM_TEXT);
	assert_true(asprintf(&pages, "\n%s%s", p1, p2) > 0);
	free(p1);
	free(p2);
	vb_prom_snap_free(&full);
	vb_prom_snap_free(&light);
	return pages;
}

static void test_dashboard(void **state)
{
	json_t *d, *panels, *panel, *targets, *t, *gp;
	char *pages, *rules, *tmpl;
	json_error_t jerr;
	size_t i, j, nexpr = 0;
	int ids[64] = { 0 };

	(void)state;
	pages = all_pages();
	rules = test_slurp_("monitoring/vsockbatch.rules.yml");
	d = json_load_file("monitoring/grafana-vsockbatch.json", 0, &jerr);
	if (!d)
		print_error("dashboard: %s line %d\n", jerr.text, jerr.line);
	assert_non_null(d);
	assert_true(json_is_string(json_object_get(d, "title")));
	assert_string_equal(json_string_value(json_object_get(d, "uid")), "vsockbatch-rx");
	assert_true(json_is_integer(json_object_get(d, "schemaVersion")));
	/* the data source is a variable, so it imports into any Grafana */
	tmpl = json_dumps(json_object_get(d, "templating"), 0);
	assert_non_null(strstr(tmpl, "\"type\": \"datasource\""));
	free(tmpl);
	panels = json_object_get(d, "panels");
	assert_true(json_is_array(panels) && json_array_size(panels) >= 8);
	json_array_foreach(panels, i, panel) {
		json_int_t id = json_integer_value(json_object_get(panel, "id"));

		assert_true(id > 0 && id < 64);
		assert_int_equal(ids[id]++, 0);		/* ids are unique */
		assert_true(json_is_string(json_object_get(panel, "type")));
		assert_true(json_is_string(json_object_get(panel, "title")));
		gp = json_object_get(panel, "gridPos");
		assert_true(json_integer_value(json_object_get(gp, "w")) > 0);
		assert_true(json_integer_value(json_object_get(gp, "x")) +
			    json_integer_value(json_object_get(gp, "w")) <= 24);
		targets = json_object_get(panel, "targets");
		assert_true(json_is_array(targets) && json_array_size(targets) > 0);
		json_array_foreach(targets, j, t) {
			const char *e = json_string_value(json_object_get(t, "expr"));

			assert_non_null(e);
			check_names(e, pages, rules);
			nexpr++;
		}
	}
	assert_true(nexpr >= 12);
	json_decref(d);
	free(rules);
	free(pages);
}

/* The rules' expressions too: no name the exporter does not write. */
static void test_rule_names(void **state)
{
	char *rules, *pages, *line, *save, *copy;

	(void)state;
	pages = all_pages();
	rules = test_slurp_("monitoring/vsockbatch.rules.yml");
	copy = strdup(rules);
	for (line = strtok_r(copy, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		if (strstr(line, "record:") || strstr(line, "alert:") ||
		    strstr(line, "name:") ||
		    strstr(line, "summary:") || strchr(line, '#'))
			continue;
		/* expressions and their continuation lines; prose mentions too */
		check_names(line, pages, rules);
	}
	free(copy);
	free(rules);
	free(pages);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_negotiate),
		cmocka_unit_test(test_page_light),
		cmocka_unit_test(test_page_full_ports),
		cmocka_unit_test(test_page_norun),
		cmocka_unit_test(test_page_no_event),
		cmocka_unit_test(test_openmetrics),
		cmocka_unit_test(test_fold),
		cmocka_unit_test(test_cardinality),
		cmocka_unit_test(test_http),
		cmocka_unit_test(test_listen_spec),
		cmocka_unit_test(test_usage),
		cmocka_unit_test(test_rules),
		cmocka_unit_test(test_dashboard),
		cmocka_unit_test(test_rule_names),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
