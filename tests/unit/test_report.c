// SPDX-License-Identifier: GPL-2.0
/*
 * Unit tests for `vsockbatch report` and `vsockbatch top --replay`:
 * rendered text and JSON from a results file with known numbers
 * (tests/unit/tracer_fixture.h), the cost unit labelling (cycles vs
 * cpu-clock), and the exit codes for bad input.
 */
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <cmocka.h>

#include "../../tools/vsockbatch/commands.h"
#include "../../tools/vsockbatch/report.h"
#include "../../tools/vsockbatch/top.h"
#include "test_util.h"
#include "tracer_fixture.h"

static char tmpdir[] = "/tmp/vb-test-report-XXXXXX";

static int setup(void **state)
{
	(void)state;
	return mkdtemp(tmpdir) ? 0 : -1;
}

static int teardown(void **state)
{
	(void)state;
	return test_rm_rf(tmpdir);
}

static char *write_fixture(const char *name, bool batched,
			   enum vb_cost_unit unit)
{
	struct vb_results r;
	char err[256], *path;

	assert_true(asprintf(&path, "%s/%s", tmpdir, name) > 0);
	fixture_results(&r, batched, unit);
	assert_int_equal(vb_results_save(path, &r, err, sizeof(err)), 0);
	vb_results_free(&r);
	return path;
}

/* Run a command with stdout and stderr captured; returns exit status. */
#define run(fn, out, err, ...) test_run_args(fn, tmpdir, out, err, __VA_ARGS__)

static void expect_in(const char *text, const char *want)
{
	if (!strstr(text, want)) {
		print_error("missing \"%s\" in:\n%s\n", want, text);
		fail();
	}
}

/*
 * A level that runs once per run: its cost per run, and its share at
 * this recording's run length (1000 packets in 250 runs: 4 per run).
 */
static void test_report_per_run(void **state)
{
	struct vb_results r;
	char err[256], *path, *out, *e;

	(void)state;
	assert_true(asprintf(&path, "%s/perrun.json", tmpdir) > 0);
	fixture_results(&r, true, VB_COST_CPU_CLOCK_NS);
	fixture_per_run(&r);
	assert_int_equal(vb_results_save(path, &r, err, sizeof(err)), 0);
	assert_int_equal(run(cmd_report, &out, &e, 3, "report", "--wide", path), 0);
	expect_in(out, "  it runs once per kernel run: 200.0 [192.0, 208.0] own instructions per run, in runs of 5.00 packets there; at this recording's 4.00 packets per run, 50.0 per packet: own code 1.25% [1.20, 1.30] of that kernel's untraced 4000 instructions per 64 B packet (less at larger payloads)\n");
	free(out);
	free(e);
	assert_int_equal(run(cmd_report, &out, &e, 3, "report", "--json", path), 0);
	expect_in(out, "\"own_insns_per_run\": 200");
	expect_in(out, "\"own_pct_at_run_len\": 1.25");
	free(out);
	free(e);
	/* no runs recorded: said, no figure */
	r.totals.cnt[VB_C_BATCHES] = 0;
	assert_int_equal(vb_results_save(path, &r, err, sizeof(err)), 0);
	assert_int_equal(run(cmd_report, &out, &e, 3, "report", "--wide", path), 0);
	expect_in(out, "in runs of 5.00 packets there; this recording has no runs\n");
	free(out);
	free(e);
	vb_results_free(&r);
	free(path);
}

static void test_report_text_batched(void **state)
{
	char *path = write_fixture("b.json", true, VB_COST_CPU_CLOCK_NS);
	char *out, *err;

	(void)state;
	/* --wide: lines whole, every flow column */
	assert_int_equal(run(cmd_report, &out, &err, 3, "report", "--wide", path), 0);
	assert_string_equal(err, "");
	expect_in(out, "kernel 6.12.117, batched (kallsyms: virtio_transport_rx_batch_recv present)");
	expect_in(out, "labels: payload=64 kernel=patched");
	expect_in(out, "tracer: full mode, measured overhead +4.50% guest instructions per byte (64 B payload, results/test-set (icount))\n");
	expect_in(out, "        BPF programs 9000 runs (9.00 per packet), 5.00ms inside them, 5000 ns per packet\n");
	expect_in(out, "  packets        1000 (data 1000, control 0), 64000 bytes\n");
	expect_in(out, "  batches        250, mean 4.00 packets / 256 bytes, max 4 packets;");
	/* exact batch lengths; log2 times only as the slot holding them */
	expect_in(out, "  batch length   p50 4, p99 4 (exact)\n");
	expect_in(out, "  window         mean 3.0us, p50 [2.0us, 4.1us], p99 [2.0us, 4.1us]");
	expect_in(out, "  data-ready     0 inside windows, 250 at run ends (100.0% deferred), 1.00 per batch\n");
	expect_in(out, "  lookup+lock    0.250 per packet");
	expect_in(out, "  rx_batch runs  250, hold mean 2.5us, p50 [2.0us, 4.1us], p99 [2.0us, 4.1us]; write_space in 250\n");
	/* what batching costs */
	expect_in(out, "  reader waits   10 behind the socket lock (156.2 per MB), mean 50.0us, p50 [32.8us, 65.5us], p99 [32.8us, 65.5us]\n");
	expect_in(out, "  enqueue->ready mean 800ns, p50 [512ns, 1.0us], p99 [512ns, 1.0us]");
	/* no PMU: ns per byte, labelled, never "cycles/byte" */
	expect_in(out, "3200000 cpu-clock-ns, 50.00 ns/byte (cpu-clock, no PMU) (traced: includes the tracer)");
	assert_null(strstr(out, "cycles/byte"));
	expect_in(out, "note: no PMU");
	expect_in(out, "ends: queue 50 flow 200 state 0");
	/* histograms: log2 in bcc style, batch length linear */
	expect_in(out, "window time per batch (full mode) (ns)\n");
	expect_in(out, "      2048 -> 4095       : 250      |****************************************|\n");
	expect_in(out, "packets per batch (pkts)\n");
	expect_in(out, "         4 : 250      |****************************************|\n");
	/* never an interpolated percentile */
	assert_null(strstr(out, "3.1us"));
	/* flow table, biggest flow first */
	expect_in(out, "  SRC    DST    PKTS BYTES BATCHES  PKT/B MAXB   HOLD  DR/B %DEF LKP/PK\n");
	expect_in(out, "  1:1025 1:1234 1000 64000     250   4.00    4  3.0us  1.00  100   0.25\n");
	assert_true(strstr(out, "1:1025") < strstr(out, "2:5000"));
	free(out);
	free(err);
	free(path);
}

/* Flow keys with 32-bit ports, as ephemeral vsock ports are. */
static char *write_long_keys(const char *name)
{
	struct vb_results r;
	char err[256], *path;

	assert_true(asprintf(&path, "%s/%s", tmpdir, name) > 0);
	fixture_results(&r, true, VB_COST_CPU_CLOCK_NS);
	r.flows[0].key.src_port = 3846758489u;
	r.flows[0].key.dst_cid = 3;
	r.flows[0].key.dst_port = 3846758000u;
	assert_int_equal(vb_results_save(path, &r, err, sizeof(err)), 0);
	vb_results_free(&r);
	return path;
}

static void test_report_80_columns(void **state)
{
	char *path = write_long_keys("l.json"), *out, *err, *line, *nl;

	(void)state;
	assert_int_equal(run(cmd_report, &out, &err, 2, "report", path), 0);
	/* no line over 80; long ones go on, 4 deeper */
	for (line = out; *line; line = nl + 1) {
		nl = strchr(line, '\n');
		assert_non_null(nl);
		assert_true(nl - line <= 80);
	}
	expect_in(out, "  data-ready     0 inside windows, 250 at run ends (100.0% deferred), 1.00 per\n      batch\n");
	/* the flow table drops BATCHES first */
	expect_in(out, "  SRC          DST          PKTS BYTES  PKT/B MAXB   HOLD  DR/B %DEF LKP/PK\n");
	expect_in(out, "  1:3846758489 3:3846758000 1000 64000   4.00    4  3.0us  1.00  100   0.25\n");
	expect_in(out, "  (1 column left out at 80 columns: --wide shows them)\n");
	free(out);
	free(err);
	/* --wide: all of them, and the long line whole */
	assert_int_equal(run(cmd_report, &out, &err, 3, "report", "-w", path), 0);
	expect_in(out, "BATCHES  PKT/B MAXB   HOLD");
	expect_in(out, "(100.0% deferred), 1.00 per batch\n");
	free(out);
	free(err);
	free(path);
}

static void test_report_per_flow(void **state)
{
	char *path = write_fixture("p.json", true, VB_COST_CYCLES);
	char *out, *err, *a, *b;

	(void)state;
	assert_int_equal(run(cmd_report, &out, &err, 4, "report", "-w", "-P", path), 0);
	/* per flow: exact means and max (histograms are per CPU) */
	a = strstr(out, "  flow 1:1025 -> 1:1234: 250 batches, mean 4.00, max 4 packets; window mean 3.0us, rx_batch hold mean 2.5us, enqueue->ready mean 800ns\n");
	assert_non_null(a);
	expect_in(out, "  flow 2:5000 -> 3:80: 0 batches");
	free(out);
	free(err);
	/* without -P: no per-flow histograms */
	assert_int_equal(run(cmd_report, &out, &err, 2, "report", path), 0);
	assert_null(strstr(out, "flow 1:1025 -> 1:1234:"));
	/* flows are numerically ordered when their bytes tie */
	a = strstr(out, "1:1025 ");
	b = strstr(out, "2:5000 ");
	assert_true(a && b && a < b);
	free(out);
	free(err);
	free(path);
}

static void test_report_text_cycles(void **state)
{
	char *path = write_fixture("c.json", false, VB_COST_CYCLES);
	char *out, *err;

	(void)state;
	assert_int_equal(run(cmd_report, &out, &err, 2, "report", path), 0);
	expect_in(out, "3200000 cycles, 50.00 cycles/byte");
	assert_null(strstr(out, "cpu-clock"));
	expect_in(out, "  data-ready     1000 inside windows, 0 at run ends (0.0% deferred)");
	expect_in(out, "  lookup+lock    1.000 per packet");
	/* baseline: no rx_batch section */
	assert_null(strstr(out, "rx_batch runs"));
	free(out);
	free(err);
	free(path);
}

static void test_report_json(void **state)
{
	char *path = write_fixture("j.json", true, VB_COST_CPU_CLOCK_NS);
	char *out, *err;

	(void)state;
	assert_int_equal(run(cmd_report, &out, &err, 3, "report", "--json", path), 0);
	/* one key per line, 4-space indented metrics (the guest test greps these) */
	expect_in(out, "\n    \"mean_batch_pkts\": 4.0,\n");
	expect_in(out, "\n    \"pct_deferred\": 100.0,\n");
	expect_in(out, "\n    \"lookups_per_pkt\": 0.25,\n");
	expect_in(out, "\n    \"dr_after\": 250,\n");
	expect_in(out, "\"per_byte_unit\": \"cpu-clock-ns/byte\"");
	expect_in(out, "\"mode\": \"batched\"");
	expect_in(out, "\"trace_mode\": \"full\"");
	expect_in(out, "\"overhead_pct\": 4.5");
	/* percentiles as text no finer than their histograms */
	expect_in(out, "\"p50\": \"[2048, 4095]\"");
	expect_in(out, "\"batch_pkts\": {\n      \"scheme\": \"linear\",\n      \"p50_slot\": 4,\n      \"p99_slot\": 4,\n      \"p50\": \"4\"");
	/* undefined metric is null, not NaN */
	expect_in(out, "\"kb_hold_mean_ns\": 2500.0");
	assert_null(strstr(out, "nan"));
	/* histograms: totals and per flow, non-empty slots with bounds */
	expect_in(out, "\"histograms\": {");
	expect_in(out, "\"low\": 2048,\n");
	expect_in(out, "\"high\": 4095,\n");
	expect_in(out, "\"count\": 250\n");
	/* flows carry window counters only: no per-flow histograms */
	assert_null(strstr(strstr(out, "\"flows\""), "\"histograms\""));
	/* per-CPU rows with their cost */
	expect_in(out, "\"cpus\": [");
	expect_in(out, "\"cost\": 1600000");
	expect_in(out, "\"worker_ns\": 6400000");
	free(out);
	free(err);
	free(path);
}

static void test_report_bad_input(void **state)
{
	char *out, *err, path[160];
	FILE *f;

	(void)state;
	assert_int_equal(run(cmd_report, &out, &err, 1, "report"), 2);
	expect_in(err, "expected exactly one results FILE");
	free(out);
	free(err);
	assert_int_equal(run(cmd_report, &out, &err, 3, "report", "--bogus", "x"), 2);
	free(out);
	free(err);
	assert_int_equal(run(cmd_report, &out, &err, 2, "report", "/nonexistent.json"), 2);
	expect_in(err, "No such file");
	free(out);
	free(err);

	snprintf(path, sizeof(path), "%s/trunc.json", tmpdir);
	f = fopen(path, "w");
	fputs("{\"format\": \"vsockbatch-results\", \"version\": 1, \"tool\": ", f);
	fclose(f);
	assert_int_equal(run(cmd_report, &out, &err, 2, "report", path), 2);
	expect_in(err, "truncated");
	assert_string_equal(out, "");
	/* exactly one line of reason */
	assert_int_equal(strchr(err, '\n') - err + 1, (long)strlen(err));
	free(out);
	free(err);

	f = fopen(path, "w");
	fputs("{\"format\": \"vsockbatch-results\", \"version\": 7}", f);
	fclose(f);
	assert_int_equal(run(cmd_report, &out, &err, 2, "report", path), 2);
	expect_in(err, "unsupported results version 7");
	free(out);
	free(err);

	assert_int_equal(run(cmd_report, &out, &err, 2, "report", "--help"), 0);
	expect_in(out, "Usage: vsockbatch report FILE [--json]");
	free(out);
	free(err);
}

static void test_top_replay_text(void **state)
{
	char *path = write_fixture("t.json", true, VB_COST_CYCLES);
	char *out, *err;

	(void)state;
	assert_int_equal(run(cmd_top, &out, &err, 4, "top", "-b", "--replay", path), 0);
	assert_string_equal(err, "");
	/* the recording's start (TZ=UTC, set in main) heads the frame */
	expect_in(out, "vsockbatch top - replay: 2.0 s recorded 2023-11-14 22:13:20 - sort pkts/s\n");
	expect_in(out, "kernel 6.12.117 (batched), full mode, flows 2/256, map full 0 - ");
	/* 1000 pkts / 2 s, 64000 B / 2 s, 250 batches / 2 s */
	expect_in(out, "total 500 pkts/s  0.032 MB/s  125 batches/s  4.00 pkts/batch\n");
	expect_in(out, "per batch: window mean 3.0us, max 4 pkts, data-ready 1.00 (100% deferred)\n");
	expect_in(out, "lookups/pkt 0.25 | cpu 2 CPUs: 1.60M cycles/s, 50.0 cycles/B\n");
	expect_in(out, "SRC    DST     PKTS/s   MB/s BATCH/s  PKT/B    MAXB    HOLD  DR/B %DEF\n");
	expect_in(out, "1:1025 1:1234     500  0.032     125   4.00       4   3.0us  1.00  100\n");
	/* a control-only flow: windows but no batch */
	expect_in(out, "2:5000 3:80         0  0.000       0      -       -       -     -    -\n");
	/* batch frames carry no key help */
	assert_null(strstr(out, "keys"));
	assert_null(strstr(out, "help"));
	assert_true(strstr(out, "1:1025") < strstr(out, "2:5000"));
	free(out);
	free(err);

	/* reverse sort puts the small flow first */
	assert_int_equal(run(cmd_top, &out, &err, 5, "top", "-b", "-R", "--replay", path), 0);
	assert_true(strstr(out, "2:5000") < strstr(out, "1:1025"));
	expect_in(out, "sort pkts/s (rev)");
	free(out);
	free(err);

	/* sort by %deferred: the flow without batches sorts last */
	assert_int_equal(run(cmd_top, &out, &err, 6, "top", "-b", "-s", "deferred", "--replay", path), 0);
	expect_in(out, "sort %deferred");
	assert_true(strstr(out, "1:1025") < strstr(out, "2:5000"));
	free(out);
	free(err);
	free(path);
}

static void test_top_replay_json_and_errors(void **state)
{
	char *path = write_fixture("tj.json", false, VB_COST_CPU_CLOCK_NS);
	char *out, *err, *nl;

	(void)state;
	assert_int_equal(run(cmd_top, &out, &err, 4, "top", "--json", "--replay", path), 0);
	nl = strchr(out, '\n');
	assert_non_null(nl);
	assert_int_equal(nl[1], 0);	/* exactly one line */
	expect_in(out, "\"source\":\"replay\"");
	/* the recording's start, as -b's time line shows it */
	expect_in(out, "\"time_unix_ns\":1700000000000000000,");
	expect_in(out, "\"mode\":\"baseline\"");
	/* a full-mode file says which windows its times are (--sample) */
	expect_in(out, "\"time_sample\":1,");
	expect_in(out, "\"unit\":\"cpu-clock-ns\"");
	expect_in(out, "\"pkts_per_batch\":1.0");
	expect_in(out, "\"pkts_per_batch\":null");	/* control-only flow */
	free(out);
	free(err);

	/* full-screen mode needs a terminal: refused with a reason */
	assert_int_equal(run(cmd_top, &out, &err, 3, "top", "--replay", path), 2);
	expect_in(err, "not a terminal");
	free(out);
	free(err);
	assert_int_equal(run(cmd_top, &out, &err, 5, "top", "-b", "--json", "--replay", path), 2);
	free(out);
	free(err);
	assert_int_equal(run(cmd_top, &out, &err, 4, "top", "-b", "-s", "colour"), 2);
	expect_in(err, "unknown sort key 'colour'");
	free(out);
	free(err);
	assert_int_equal(run(cmd_top, &out, &err, 4, "top", "-b", "-i", "0"), 2);
	expect_in(err, "invalid interval");
	free(out);
	free(err);
	assert_int_equal(run(cmd_top, &out, &err, 4, "top", "-b", "--replay", "/nonexistent"), 2);
	free(out);
	free(err);
	/* a replay is one frame of the whole file: -i, -C, -n are refused */
	assert_int_equal(run(cmd_top, &out, &err, 6, "top", "-b", "-i", "2", "--replay", path), 2);
	expect_in(err, "-i does not apply to --replay");
	free(out);
	free(err);
	assert_int_equal(run(cmd_top, &out, &err, 6, "top", "-b", "-C", "0", "--replay", path), 2);
	expect_in(err, "-C does not apply to --replay");
	free(out);
	free(err);
	assert_int_equal(run(cmd_top, &out, &err, 6, "top", "-b", "-n", "3", "--replay", path), 2);
	expect_in(err, "-n does not apply to --replay");
	free(out);
	free(err);
	assert_int_equal(run(cmd_top, &out, &err, 6, "top", "-b", "--sample", "1", "--replay", path), 2);
	expect_in(err, "--sample does not apply to --replay");
	free(out);
	free(err);
	assert_int_equal(run(cmd_top, &out, &err, 4, "top", "-b", "--sample", "6"), 2);
	expect_in(err, "invalid --sample '6'");
	free(out);
	free(err);
	/* -r, as the usage line says, and -R both reverse */
	assert_int_equal(run(cmd_top, &out, &err, 5, "top", "-b", "-r", "--replay", path), 0);
	assert_true(strstr(out, "2:5000") < strstr(out, "1:1025"));
	free(out);
	free(err);
	free(path);
}

static void test_top_frame_build(void **state)
{
	struct vb_top_frame f;
	struct vb_results r;

	(void)state;
	fixture_results(&r, true, VB_COST_CYCLES);
	assert_int_equal(vb_top_frame_build(&f, &r, 2.0, 3200000, 2.0, true), 0);
	assert_int_equal(f.nrows, 2);
	assert_true(fabs(f.total.pkts_s - 500) < 1e-9);
	assert_true(fabs(f.total.mean_batch - 4) < 1e-9);
	assert_true(fabs(f.cost_per_s - 1.6e6) < 1e-6);
	assert_true(fabs(f.cost_per_byte - 50) < 1e-9);
	vb_top_frame_sort(&f, VB_SORT_HOLD, false);
	assert_int_equal(f.rows[0].key.src_port, 1025);
	vb_top_frame_sort(&f, VB_SORT_HOLD, true);
	assert_int_equal(f.rows[0].key.src_port, 5000);
	vb_top_frame_free(&f);
	/* a flow with nothing in the interval is not shown */
	memset(&r.flows[1].agg, 0, sizeof(r.flows[1].agg));
	assert_int_equal(vb_top_frame_build(&f, &r, 1.0, 0, 1.0, false), 0);
	assert_int_equal(f.nrows, 1);
	assert_false(f.cost_measured);
	vb_top_frame_free(&f);
	vb_results_free(&r);
}

/*
 * cpu-clock: busy ns per second of the counters' own span.  Two CPUs busy
 * throughout a span of 1.008 s that top's clock saw as 1.000 s (a late
 * read on the debug kernel under TCG printed "100.8% busy") read 100.0 %.
 */
static void test_top_frame_busy_share(void **state)
{
	struct vb_top_frame f;
	struct vb_results r;
	char *out;
	size_t n;
	FILE *m;

	(void)state;
	fixture_results(&r, true, VB_COST_CPU_CLOCK_NS);
	r.cost.ncpus = 2;
	assert_int_equal(vb_top_frame_build(&f, &r, 1.0, 2016000000, 1.008,
					    true), 0);
	assert_true(fabs(f.cost_per_s / 1e7 / 2 - 100) < 1e-9);
	m = open_memstream(&out, &n);
	assert_non_null(m);
	vb_top_print_totals_line(m, &f, false);
	fclose(m);
	expect_in(out, " 100.0\n");
	free(out);
	vb_top_frame_free(&f);
	vb_results_free(&r);
}

int main(void)
{
	/* frames show local time: make it the same wherever this runs */
	setenv("TZ", "UTC", 1);
	tzset();
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_report_text_batched),
		cmocka_unit_test(test_report_per_run),
		cmocka_unit_test(test_report_80_columns),
		cmocka_unit_test(test_report_per_flow),
		cmocka_unit_test(test_report_text_cycles),
		cmocka_unit_test(test_report_json),
		cmocka_unit_test(test_report_bad_input),
		cmocka_unit_test(test_top_replay_text),
		cmocka_unit_test(test_top_replay_json_and_errors),
		cmocka_unit_test(test_top_frame_build),
		cmocka_unit_test(test_top_frame_busy_share),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
