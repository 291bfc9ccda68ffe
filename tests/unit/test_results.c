// SPDX-License-Identifier: GPL-2.0
/*
 * Unit tests for tools/vsockbatch/results.c: JSON round trip, strict
 * rejection of malformed / truncated / wrong-format / wrong-version /
 * incomplete files, and the derived metrics.
 */
#include <errno.h>
#include <libgen.h>
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>

#include "test_util.h"

#include <jansson.h>

#include "../../tools/lib/hist.h"
#include "../../tools/vsockbatch/results.h"
#include "tracer_fixture.h"

static void assert_same(const struct vb_results *a, const struct vb_results *b)
{
	size_t i;

	assert_int_equal(a->version, b->version);
	assert_string_equal(a->tool, b->tool);
	assert_int_equal(a->argc, b->argc);
	for (i = 0; i < a->argc; i++)
		assert_string_equal(a->argv[i], b->argv[i]);
	assert_string_equal(a->kernel_release, b->kernel_release);
	assert_int_equal(a->mode, b->mode);
	assert_string_equal(a->detected_by, b->detected_by);
	assert_int_equal(a->nhooks, b->nhooks);
	for (i = 0; i < a->nhooks; i++)
		assert_string_equal(a->hooks[i], b->hooks[i]);
	assert_true(a->duration_ns == b->duration_ns);
	assert_true(a->start_unix_ns == b->start_unix_ns);
	assert_memory_equal(&a->totals, &b->totals, sizeof(a->totals));
	assert_int_equal(a->nflows, b->nflows);
	for (i = 0; i < a->nflows; i++)
		assert_memory_equal(&a->flows[i], &b->flows[i],
				    sizeof(a->flows[i]));
	assert_int_equal(a->ncpus, b->ncpus);
	for (i = 0; i < a->ncpus; i++) {
		assert_int_equal(a->cpus[i].cpu, b->cpus[i].cpu);
		assert_true(a->cpus[i].cost == b->cpus[i].cost);
		/* per-CPU rows carry counters only, no histograms */
		assert_memory_equal(a->cpus[i].agg.cnt, b->cpus[i].agg.cnt,
				    sizeof(a->cpus[i].agg.cnt));
	}
	assert_int_equal(a->cost.unit, b->cost.unit);
	assert_int_equal(a->cost.measured, b->cost.measured);
	assert_true(a->cost.total == b->cost.total);
	assert_string_equal(a->cost.source, b->cost.source);
	assert_string_equal(a->cost.note, b->cost.note);
	assert_int_equal(a->cost.ncpus, b->cost.ncpus);
	assert_memory_equal(&a->self, &b->self, sizeof(a->self));
	assert_int_equal(a->nlabels, b->nlabels);
	for (i = 0; i < a->nlabels; i++) {
		assert_string_equal(a->labels[i].key, b->labels[i].key);
		assert_string_equal(a->labels[i].value, b->labels[i].value);
	}
}

static void test_roundtrip_file(void **state)
{
	char path[] = "/tmp/vb-test-results-XXXXXX", err[256];
	struct vb_results a, b;
	int fd;

	(void)state;
	fd = mkstemp(path);
	assert_true(fd >= 0);
	close(fd);
	fixture_results(&a, true, VB_COST_CPU_CLOCK_NS);
	/* u64 values beyond 2^32 survive */
	a.totals.cnt[VB_C_WORKER_NS] = 123456789012345ULL;
	assert_int_equal(vb_results_save(path, &a, err, sizeof(err)), 0);
	assert_int_equal(vb_results_load(path, &b, err, sizeof(err)), 0);
	assert_same(&a, &b);
	vb_results_free(&a);
	vb_results_free(&b);
	unlink(path);
}

/* A per-run cell's figures survive; a bad one is refused by name. */
static void test_roundtrip_per_run(void **state)
{
	struct vb_results a, b;
	char err[256], *s, *bad;
	json_t *root, *ov;

	(void)state;
	fixture_results(&a, true, VB_COST_CPU_CLOCK_NS);
	fixture_per_run(&a);
	s = vb_results_dump_string(&a, 0);
	assert_int_equal(vb_results_load_string(s, &b, err, sizeof(err)), 0);
	assert_same(&a, &b);
	vb_results_free(&b);
	root = json_loads(s, 0, NULL);
	assert_non_null(root);
	ov = json_object_get(json_object_get(root, "tracer"), "overhead");
	/* a CI that does not hold the mean */
	json_object_set_new(ov, "own_insns_per_run_ci95",
			    json_pack("[f, f]", 201.0, 208.0));
	bad = json_dumps(root, 0);
	assert_int_equal(vb_results_load_string(bad, &b, err, sizeof(err)),
			 -EINVAL);
	assert_non_null(strstr(err, "own_insns_per_run_ci95\" does not hold"));
	free(bad);
	/* a run length that is no length */
	json_object_set_new(ov, "own_insns_per_run_ci95",
			    json_pack("[f, f]", 192.0, 208.0));
	json_object_set_new(ov, "set_run_len_pkts", json_real(0));
	bad = json_dumps(root, 0);
	assert_int_equal(vb_results_load_string(bad, &b, err, sizeof(err)),
			 -EINVAL);
	assert_non_null(strstr(err, "set_run_len_pkts\" is not a positive number"));
	free(bad);
	json_decref(root);
	free(s);
	vb_results_free(&a);
}

static void test_roundtrip_string_cycles(void **state)
{
	struct vb_results a, b;
	char err[256], *s;

	(void)state;
	fixture_results(&a, false, VB_COST_CYCLES);
	s = vb_results_dump_string(&a, 0);
	assert_non_null(s);
	assert_non_null(strstr(s, "\"format\":\"vsockbatch-results\""));
	assert_non_null(strstr(s, "\"unit\":\"cycles\""));
	assert_int_equal(vb_results_load_string(s, &b, err, sizeof(err)), 0);
	assert_same(&a, &b);
	free(s);
	vb_results_free(&a);
	vb_results_free(&b);
}

/* Load text, expect code and a reason containing want. */
static void expect_reject(const char *text, int code, const char *want)
{
	struct vb_results r;
	char err[512];
	int e;

	e = vb_results_load_string(text, &r, err, sizeof(err));
	if (e != code || !strstr(err, want)) {
		print_error("got %d \"%s\", want %d containing \"%s\"\n", e,
			    err, code, want);
		fail();
	}
	/* a rejected load leaves an empty, freeable model */
	assert_int_equal(r.nflows, 0);
	assert_null(r.flows);
	vb_results_free(&r);
}

static char *fixture_json(void)
{
	struct vb_results a;
	char *s;

	fixture_results(&a, true, VB_COST_CYCLES);
	s = vb_results_dump_string(&a, 2);
	vb_results_free(&a);
	assert_non_null(s);
	return s;
}

/* fixture JSON with one edit applied through jansson */
typedef void (*edit_fn)(json_t *root);

static char *edited(edit_fn fn)
{
	char *s = fixture_json(), *out;
	json_t *root = json_loads(s, 0, NULL);

	assert_non_null(root);
	fn(root);
	out = json_dumps(root, 0);
	json_decref(root);
	free(s);
	return out;
}

static void ed_version3(json_t *r) { json_object_set_new(r, "version", json_integer(3)); }
static void ed_version_str(json_t *r) { json_object_set_new(r, "version", json_string("1")); }
static void ed_format(json_t *r) { json_object_set_new(r, "format", json_string("perf-data")); }
static void ed_no_format(json_t *r) { json_object_del(r, "format"); }
static void ed_no_totals_pkts(json_t *r) { json_object_del(json_object_get(r, "totals"), "pkts"); }
static void ed_no_kernel(json_t *r) { json_object_del(r, "kernel"); }
static void ed_duration_str(json_t *r) { json_object_set_new(r, "duration_ns", json_string("2s")); }
static void ed_negative(json_t *r) { json_object_set_new(json_object_get(r, "totals"), "bytes", json_integer(-5)); }
static void ed_short_hist(json_t *r)
{
	json_t *h = json_object_get(json_object_get(r, "histograms"), "window_ns");

	json_array_remove(json_object_get(h, "slots"), 0);
}
static void ed_bad_mode(json_t *r) { json_object_set_new(json_object_get(r, "kernel"), "mode", json_string("fast")); }
static void ed_bad_unit(json_t *r) { json_object_set_new(json_object_get(r, "cpu_cost"), "unit", json_string("joules")); }
static void ed_flow_no_port(json_t *r) { json_object_del(json_array_get(json_object_get(r, "flows"), 1), "dst_port"); }
static void ed_label_int(json_t *r) { json_object_set_new(json_object_get(r, "labels"), "payload", json_integer(64)); }
static void ed_no_labels(json_t *r) { json_object_del(r, "labels"); }
static void ed_tracer_neg(json_t *r) { json_object_set_new(json_object_get(r, "tracer"), "run_ns", json_integer(-1)); }
static void ed_no_tracer(json_t *r) { json_object_del(r, "tracer"); }
static void ed_scheme(json_t *r)
{
	json_object_set_new(json_object_get(json_object_get(r, "histograms"), "batch_pkts"),
			    "scheme", json_string("log2z"));
}
static void ed_trace_mode(json_t *r) { json_object_set_new(json_object_get(r, "tracer"), "mode", json_string("auto")); }
static void ed_overhead_str(json_t *r)
{
	json_object_set_new(json_object_get(json_object_get(r, "tracer"), "overhead"),
			    "insns_per_byte_pct", json_string("1%"));
}

static void test_reject_content(void **state)
{
	static const struct { edit_fn fn; int code; const char *want; } cases[] = {
		{ ed_version3, -EPROTO, "unsupported results version 3" },
		{ ed_version_str, -EINVAL, "version" },
		{ ed_format, -EINVAL, "not a vsockbatch results file" },
		{ ed_no_format, -EINVAL, "not a vsockbatch results file" },
		{ ed_no_totals_pkts, -EINVAL, "missing field \"totals.pkts\"" },
		{ ed_no_kernel, -EINVAL, "missing field \"kernel\"" },
		{ ed_duration_str, -EINVAL, "\"duration_ns\" is not an integer" },
		{ ed_negative, -EINVAL, "\"totals.bytes\" is negative" },
		{ ed_short_hist, -EINVAL, "has 31 entries, expected 32" },
		{ ed_bad_mode, -EINVAL, "\"kernel.mode\" is \"fast\"" },
		{ ed_bad_unit, -EINVAL, "\"cpu_cost.unit\" is \"joules\"" },
		{ ed_flow_no_port, -EINVAL, "missing field \"flows[1].dst_port\"" },
		{ ed_label_int, -EINVAL, "\"labels.payload\" is not a string" },
		{ ed_scheme, -EINVAL, "\"histograms.batch_pkts.scheme\" is \"log2z\", expected \"linear\"" },
		{ ed_trace_mode, -EINVAL, "\"tracer.mode\" is \"auto\"" },
		{ ed_overhead_str, -EINVAL, "insns_per_byte_pct\" is not a number" },
		{ ed_no_tracer, -EINVAL, "missing field \"tracer\"" },
		{ ed_tracer_neg, -EINVAL, "\"tracer.run_ns\" is negative" },
	};
	size_t i;
	char *s;

	(void)state;
	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		s = edited(cases[i].fn);
		expect_reject(s, cases[i].code, cases[i].want);
		free(s);
	}
}

/*
 * A committed version-1 recording (the tracer before light/full modes,
 * patched kernel, 64 B) still loads: counters by name, hold_ns as the
 * window time, the kernel's runs as batches, no exact batch lengths.
 * results/2026-11-30-default/raw.tar.xz:runs/r00-patched/traced/64.json,
 * zstd-compressed into fixtures/recordings/ (its README).
 */
static void test_load_version1(void **state)
{
	char src[] = __FILE__, path[768], err[512];
	struct vb_results r;
	int e;

	(void)state;
	snprintf(path, sizeof(path),
		 "%s/fixtures/recordings/default-r00-patched-64.json.zst",
		 getenv("VB_TEST_SRCDIR") ? getenv("VB_TEST_SRCDIR") : dirname(src));
	e = vb_results_load(path, &r, err, sizeof(err));
	if (e)
		print_error("%s\n", err);
	assert_int_equal(e, 0);
	assert_int_equal(r.version, 1);
	assert_int_equal(r.trace, VB_TRACE_FULL);
	assert_int_equal(r.mode, VB_MODE_BATCHED);
	assert_true(r.totals.cnt[VB_C_PKTS] > 0);
	assert_true(r.totals.cnt[VB_C_BATCHES] > 0);
	assert_int_equal(r.totals.cnt[VB_C_BATCHES], vb_kb_runs(r.totals.cnt));
	assert_true(r.totals.cnt[VB_C_WINDOW_NS] > 0);
	assert_int_equal(r.totals.cnt[VB_C_BATCH_MAX], 0);
	assert_int_equal(vb_hist_total(r.totals.hist[VB_H_BATCH_PKTS].slots,
				       VB_LIN_SLOTS), 0);
	assert_false(r.self.overhead.measured);
	assert_non_null(strstr(r.self.overhead.source, "version-1"));
	vb_results_free(&r);
}

/* Runs a tracer could not see are saved as such and load back. */
static void test_runs_not_visible(void **state)
{
	struct vb_results a, b;
	struct vb_metrics m;
	char err[256], *s;

	(void)state;
	fixture_results(&a, true, VB_COST_CYCLES);
	a.trace = VB_TRACE_FULL_NORUNS;
	s = vb_results_dump_string(&a, 0);
	assert_non_null(strstr(s, "\"mode\":\"full\",\"runs_visible\":false"));
	assert_int_equal(vb_results_load_string(s, &b, err, sizeof(err)), 0);
	assert_int_equal(b.trace, VB_TRACE_FULL_NORUNS);
	vb_metrics_compute(&b.totals, &b.cost, b.trace, 1, &m);
	assert_true(isnan(m.mean_batch_pkts));
	assert_true(isnan(m.lookups_per_pkt));
	assert_true(isnan(m.window_mean_ns));
	assert_near(m.user_wait_mean_ns, 50000.0, 1e-9);	/* still measured */
	free(s);
	vb_results_free(&a);
	vb_results_free(&b);
}

/*
 * --duty: the file says N; the per-packet window figures divide by the
 * packets the window hooks saw, and with none seen they are unknown, not
 * 0.  A duty other than 1 in light mode, or out of range, is refused.
 */
static void test_window_duty(void **state)
{
	struct vb_results a, b;
	struct vb_metrics m;
	char err[256], *s, *p;

	(void)state;
	fixture_results(&a, false, VB_COST_CYCLES);
	a.self.duty = 8;
	a.totals.cnt[VB_C_PKTS] = 8000;
	a.totals.cnt[VB_C_WIN_PKTS] = 1000;
	a.totals.cnt[VB_C_BATCHES] = 1000;
	a.totals.cnt[VB_C_BATCH_PKTS] = 1000;
	a.totals.cnt[VB_C_DR_INSIDE] = 990;
	a.totals.cnt[VB_C_DR_AFTER] = 0;
	s = vb_results_dump_string(&a, 0);
	assert_non_null(strstr(s, "\"window_duty\":8"));
	assert_non_null(strstr(s, "\"win_pkts\":1000"));
	assert_int_equal(vb_results_load_string(s, &b, err, sizeof(err)), 0);
	assert_int_equal(b.self.duty, 8);
	vb_metrics_compute(&b.totals, &b.cost, b.trace, b.self.duty, &m);
	assert_near(m.lookups_per_pkt, 1.0, 1e-12);
	assert_near(m.dr_per_pkt, 0.99, 1e-12);
	assert_near(m.mean_batch_pkts, 1.0, 1e-12);
	/* the same counters read as unsliced: 8 times fewer per packet */
	vb_metrics_compute(&b.totals, &b.cost, b.trace, 1, &m);
	assert_near(m.dr_per_pkt, 0.12375, 1e-12);
	b.totals.cnt[VB_C_WIN_PKTS] = 0;
	b.totals.cnt[VB_C_BATCHES] = b.totals.cnt[VB_C_BATCH_PKTS] = 0;
	b.totals.cnt[VB_C_DR_INSIDE] = 0;
	vb_metrics_compute(&b.totals, &b.cost, b.trace, 8, &m);
	assert_true(isnan(m.lookups_per_pkt));
	assert_true(isnan(m.dr_per_pkt));
	vb_results_free(&b);

	/* a file from before --duty: no win_pkts anywhere, loaded as 0 */
	{
		char *t = strdup(s), *q, *e;

		assert_non_null(t);
		while ((q = strstr(t, ",\"win_pkts\":"))) {
			e = q + strlen(",\"win_pkts\":");
			while (*e >= '0' && *e <= '9')
				e++;
			memmove(q, e, strlen(e) + 1);
		}
		assert_int_equal(vb_results_load_string(t, &b, err, sizeof(err)), 0);
		assert_int_equal(b.totals.cnt[VB_C_WIN_PKTS], 0);
		vb_results_free(&b);
		free(t);
	}
	p = strstr(s, "\"window_duty\":8");
	memcpy(p, "\"window_duty\":0", strlen("\"window_duty\":0"));
	expect_reject(s, -EINVAL, "window_duty");
	free(s);
	a.trace = VB_TRACE_LIGHT;
	s = vb_results_dump_string(&a, 0);
	expect_reject(s, -EINVAL, "needs tracer.mode full");
	free(s);
	vb_results_free(&a);
}

static void test_labels_optional(void **state)
{
	struct vb_results r;
	char err[256], *s = edited(ed_no_labels);

	(void)state;
	assert_int_equal(vb_results_load_string(s, &r, err, sizeof(err)), 0);
	assert_int_equal(r.nlabels, 0);
	assert_null(vb_results_label(&r, "payload"));
	assert_int_equal(r.trace, VB_TRACE_FULL);
	assert_true(r.self.overhead.measured);
	vb_results_free(&r);
	free(s);
}

static void test_reject_malformed_and_truncated(void **state)
{
	char *s = fixture_json();
	size_t len = strlen(s), cut;

	(void)state;
	expect_reject("", -EINVAL, "malformed JSON");
	expect_reject("{", -EINVAL, "malformed JSON");
	expect_reject("[1,2]", -EINVAL, "top level is not a JSON object");
	expect_reject("{\"format\":\"vsockbatch-results\",\"version\":1,}",
		      -EINVAL, "malformed JSON");
	/* duplicate keys are refused rather than silently resolved */
	expect_reject("{\"format\":\"vsockbatch-results\",\"format\":\"x\"}",
		      -EINVAL, "malformed JSON");
	/* a file cut anywhere is refused */
	for (cut = 1; cut < len; cut += len / 37 + 1) {
		char saved = s[cut];

		s[cut] = 0;
		expect_reject(s, -EINVAL, "malformed JSON");
		s[cut] = saved;
	}
	free(s);
}

static void test_load_file_errors(void **state)
{
	char path[] = "/tmp/vb-test-trunc-XXXXXX", err[256];
	struct vb_results r;
	char *s = fixture_json();
	FILE *f;
	int fd;

	(void)state;
	assert_int_equal(vb_results_load("/nonexistent/vb.json", &r, err,
					  sizeof(err)), -ENOENT);
	assert_non_null(strstr(err, "/nonexistent/vb.json"));
	vb_results_free(&r);

	fd = mkstemp(path);
	assert_true(fd >= 0);
	f = fdopen(fd, "w");
	fwrite(s, 1, strlen(s) / 2, f);		/* truncated file */
	fclose(f);
	assert_int_equal(vb_results_load(path, &r, err, sizeof(err)), -EINVAL);
	assert_non_null(strstr(err, path));
	if (!strstr(err, "truncated")) {
		print_error("reason: %s\n", err);
		fail();
	}
	vb_results_free(&r);
	unlink(path);
	free(s);
}

static void test_save_error(void **state)
{
	struct vb_results a;
	char err[256];

	(void)state;
	fixture_results(&a, true, VB_COST_CYCLES);
	assert_true(vb_results_save("/nonexistent/dir/x.json", &a, err,
				    sizeof(err)) < 0);
	assert_non_null(strstr(err, "/nonexistent/dir/x.json"));
	vb_results_free(&a);
}

static void test_metrics(void **state)
{
	struct vb_results r;
	struct vb_metrics m;

	(void)state;
	fixture_results(&r, true, VB_COST_CYCLES);
	vb_metrics_compute(&r.totals, &r.cost, r.trace, 1, &m);
	assert_near(m.mean_batch_pkts, 4.0, 1e-12);
	assert_near(m.mean_batch_bytes, 256.0, 1e-12);
	assert_near(m.batch_max, 4.0, 1e-12);
	assert_near(m.window_mean_ns, 3000.0, 1e-9);
	assert_near(m.kb_hold_mean_ns, 2500.0, 1e-9);
	assert_near(m.pct_deferred, 100.0, 1e-12);
	assert_near(m.dr_per_batch, 1.0, 1e-12);
	assert_near(m.dr_lat_mean_ns, 800.0, 1e-9);
	/* 1000 packets, 750 joined an open run: 250 lookups */
	assert_near(m.lookups_per_pkt, 0.25, 1e-12);
	assert_near(m.ws_per_pkt, 0.25, 1e-12);
	assert_near(m.user_wait_mean_ns, 50000.0, 1e-9);
	assert_near(m.user_waits_per_mb, 10 * 1e6 / 64000, 1e-9);
	assert_near(m.cost_per_byte, 50.0, 1e-12);	/* 3.2e6 / 64000 */
	assert_near(m.worker_ns_per_byte, 100.0, 1e-12);
	/* light mode: only what the two tracepoints say */
	vb_metrics_compute(&r.totals, &r.cost, VB_TRACE_LIGHT, 1, &m);
	assert_near(m.mean_batch_pkts, 4.0, 1e-12);
	assert_near(m.kb_hold_mean_ns, 2500.0, 1e-9);
	assert_near(m.lookups_per_pkt, 0.25, 1e-12);
	assert_true(isnan(m.window_mean_ns));
	assert_true(isnan(m.dr_lat_mean_ns));
	assert_true(isnan(m.pct_deferred));
	/* reader waits where light mode hooked __lock_sock and saw some */
	assert_near(m.user_wait_mean_ns, 50000.0, 1e-9);
	r.totals.cnt[VB_C_USER_WAITS] = 0;
	r.totals.cnt[VB_C_USER_WAIT_NS] = 0;
	vb_metrics_compute(&r.totals, &r.cost, VB_TRACE_LIGHT, 1, &m);
	assert_true(isnan(m.user_wait_mean_ns));
	assert_true(isnan(m.user_waits_per_mb));
	vb_results_free(&r);

	fixture_results(&r, false, VB_COST_CYCLES);
	r.cost.measured = false;
	vb_metrics_compute(&r.totals, &r.cost, r.trace, 1, &m);
	assert_near(m.mean_batch_pkts, 1.0, 1e-12);
	assert_near(m.pct_deferred, 0.0, 1e-12);
	assert_near(m.lookups_per_pkt, 1.0, 1e-12);
	assert_true(isnan(m.cost_per_byte));	/* not measured */
	assert_true(isnan(m.kb_hold_mean_ns));	/* no rx_batch event */
	assert_true(isnan(m.ws_per_pkt));	/* not measured on baseline */
	r.totals.cnt[VB_C_USER_WAITS] = 0;
	vb_metrics_compute(&r.totals, &r.cost, r.trace, 1, &m);
	assert_true(isnan(m.user_wait_mean_ns));	/* no samples */
	vb_results_free(&r);
}

static void test_agg_ops_and_labels(void **state)
{
	struct vb_results r;
	struct vb_agg a, b;
	struct vb_flow_key k = { 2, 5000, 3, 80 }, none = { 9, 9, 9, 9 };

	(void)state;
	fixture_results(&r, true, VB_COST_CYCLES);
	a = r.totals;
	b = r.totals;
	vb_agg_add(&a, &b);
	assert_true(a.cnt[VB_C_PKTS] == 2000);
	assert_true(a.cnt[VB_C_BATCH_MAX] == 4);	/* a MAX, not a sum */
	assert_true(a.hist[VB_H_WINDOW_NS].slots[12] == 500);
	assert_true(a.hist[VB_H_BATCH_PKTS].slots[4] == 500);
	vb_agg_sub(&a, &b);
	assert_memory_equal(&a, &b, sizeof(a));
	vb_agg_sub(&a, &r.flows[0].agg);
	vb_agg_sub(&a, &r.flows[0].agg);	/* clamps at 0 */
	assert_true(a.cnt[VB_C_BATCHES] == 0);
	assert_true(a.cnt[VB_C_PKTS] == 1000);	/* flows hold no packets */

	assert_non_null(vb_results_find_flow(&r, &k));
	assert_null(vb_results_find_flow(&r, &none));
	assert_string_equal(vb_results_label(&r, "payload"), "64");
	assert_int_equal(vb_results_set_label(&r, "payload", "1024"), 0);
	assert_string_equal(vb_results_label(&r, "payload"), "1024");
	assert_int_equal(r.nlabels, 2);
	vb_results_free(&r);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_roundtrip_file),
		cmocka_unit_test(test_roundtrip_per_run),
		cmocka_unit_test(test_roundtrip_string_cycles),
		cmocka_unit_test(test_reject_content),
		cmocka_unit_test(test_labels_optional),
		cmocka_unit_test(test_load_version1),
		cmocka_unit_test(test_runs_not_visible),
		cmocka_unit_test(test_reject_malformed_and_truncated),
		cmocka_unit_test(test_load_file_errors),
		cmocka_unit_test(test_save_error),
		cmocka_unit_test(test_metrics),
		cmocka_unit_test(test_window_duty),
		cmocka_unit_test(test_agg_ops_and_labels),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
