// SPDX-License-Identifier: GPL-2.0
/*
 * Unit tests for `vsockbatch compare` (tools/vsockbatch/compare.c), run
 * through its real entry point cmd_compare() with stdout/stderr captured.
 *
 * Inputs are built from the overlays in tests/unit/fixtures/compare/ (see
 * the README there): a complete empty results file from the results model,
 * with the overlay merged in, written to a temporary directory.
 */
#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <math.h>
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>

#include "test_util.h"

#include <jansson.h>

#include "../../tools/vsockbatch/commands.h"
#include "../../tools/vsockbatch/results.h"

static char fixdir[2048];
static char tmpdir[] = "/tmp/vb-test-compare.XXXXXX";

struct captured {
	int rc;
	char *out;
	char *err;
};

/* Overlay keys must exist in the template (a typo in a fixture would
 * otherwise be ignored silently); "labels" is optional in the model. */
static void check_keys(json_t *tmpl, json_t *over, const char *where)
{
	const char *key;
	json_t *v, *t;

	json_object_foreach(over, key, v) {
		if (!strcmp(where, "") && !strcmp(key, "labels"))
			continue;
		t = json_object_get(tmpl, key);
		if (!t) {
			print_error("fixture key %s%s not in the results model\n",
				    where, key);
			fail();
		}
		if (json_is_object(v) && json_is_object(t)) {
			char w[256];

			snprintf(w, sizeof(w), "%s%s.", where, key);
			check_keys(t, v, w);
		}
	}
}

/* Build tmpdir/NAME from fixture overlay NAME; returns the path. */
static char *materialize(const char *name)
{
	char path[4096], *text, *out;
	struct vb_results r;
	json_error_t jerr;
	json_t *doc, *over;

	snprintf(path, sizeof(path), "%s/%s", fixdir, name);
	over = json_load_file(path, 0, &jerr);
	if (!over) {
		print_error("%s: %s\n", path, jerr.text);
		fail();
	}
	vb_results_init(&r);
	r.trace = VB_TRACE_FULL;
	text = vb_results_dump_string(&r, 0);
	assert_non_null(text);
	doc = json_loads(text, 0, &jerr);
	assert_non_null(doc);
	free(text);
	vb_results_free(&r);
	check_keys(doc, over, "");
	assert_int_equal(json_object_update_recursive(doc, over), 0);
	assert_true(asprintf(&out, "%s/%s", tmpdir, name) > 0);
	assert_int_equal(json_dump_file(doc, out, JSON_INDENT(1)), 0);
	json_decref(doc);
	json_decref(over);
	return out;
}

/* tmpdir/NAME: a copy of SRC, with label KEY=VALUE set if KEY. */
static char *copy_of(const char *src, const char *name, const char *key,
		     const char *value)
{
	json_error_t jerr;
	json_t *doc, *labels;
	char *out;

	doc = json_load_file(src, 0, &jerr);
	assert_non_null(doc);
	if (key) {
		labels = json_object_get(doc, "labels");
		if (!labels) {
			labels = json_object();
			json_object_set_new(doc, "labels", labels);
		}
		json_object_set_new(labels, key, json_string(value));
	}
	assert_true(asprintf(&out, "%s/%s", tmpdir, name) > 0);
	assert_int_equal(json_dump_file(doc, out, JSON_INDENT(1)), 0);
	json_decref(doc);
	return out;
}

static char *slurp_fd(int fd)
{
	char *buf;
	off_t len = lseek(fd, 0, SEEK_END);

	assert_true(len >= 0);
	buf = calloc(1, (size_t)len + 1);
	assert_non_null(buf);
	assert_int_equal(pread(fd, buf, (size_t)len, 0), len);
	return buf;
}

/* Run cmd_compare(argv...) with stdout and stderr captured. */
static struct captured run(const char *first, ...)
{
	char *argv[32];
	struct captured c;
	int argc = 0, so, se, fo, fe;
	char tmpl_o[] = "/tmp/vb-cmp-out.XXXXXX", tmpl_e[] = "/tmp/vb-cmp-err.XXXXXX";
	va_list ap;
	const char *a;

	argv[argc++] = (char *)"compare";
	va_start(ap, first);
	for (a = first; a; a = va_arg(ap, const char *))
		argv[argc++] = (char *)a;
	va_end(ap);
	argv[argc] = NULL;

	fo = mkstemp(tmpl_o);
	fe = mkstemp(tmpl_e);
	assert_true(fo >= 0 && fe >= 0);
	unlink(tmpl_o);
	unlink(tmpl_e);
	fflush(stdout);
	fflush(stderr);
	so = dup(1);
	se = dup(2);
	dup2(fo, 1);
	dup2(fe, 2);
	c.rc = cmd_compare(argc, argv);
	fflush(stdout);
	fflush(stderr);
	dup2(so, 1);
	dup2(se, 2);
	close(so);
	close(se);
	c.out = slurp_fd(fo);
	c.err = slurp_fd(fe);
	close(fo);
	close(fe);
	return c;
}

static void cap_free(struct captured *c)
{
	free(c->out);
	free(c->err);
}

struct paths {
	char *b[3], *p[3];
	char *cpuclock, *payload4k, *nopayload, *badgbps, *heavy, *v3;
	char *cpuclock2;	/* another file with the same content */
	char *b1copy;		/* a copy of base-1 (same start time) */
	/* with labels: mode=h2g / mode=loopback, bytes=1M / bytes=2M */
	char *b1h2g, *p1loop, *b2bytes, *p2bytes;
};

static struct paths P;

static int setup(void **state)
{
	char src[] = __FILE__;
	int i;

	(void)state;
	/* fixtures live next to this file; make runs tests from the repo */
	snprintf(fixdir, sizeof(fixdir), "%s/fixtures/compare",
		 getenv("VB_TEST_SRCDIR") ? getenv("VB_TEST_SRCDIR") : dirname(src));
	if (!mkdtemp(tmpdir))
		return -1;
	for (i = 0; i < 3; i++) {
		char n[32];

		snprintf(n, sizeof(n), "base-%d.json", i + 1);
		P.b[i] = materialize(n);
		snprintf(n, sizeof(n), "patched-%d.json", i + 1);
		P.p[i] = materialize(n);
	}
	P.cpuclock = materialize("patched-cpuclock.json");
	P.payload4k = materialize("patched-payload4k.json");
	P.nopayload = materialize("patched-nopayload.json");
	P.badgbps = materialize("patched-badgbps.json");
	P.cpuclock2 = copy_of(P.cpuclock, "cpuclock-copy.json", NULL, NULL);
	P.b1copy = copy_of(P.b[0], "base-1-copy.json", NULL, NULL);
	P.b1h2g = copy_of(P.b[0], "base-1-h2g.json", "mode", "h2g");
	P.p1loop = copy_of(P.p[0], "patched-1-loop.json", "mode", "loopback");
	P.b2bytes = copy_of(P.b[1], "base-2-bytes.json", "bytes", "1048576");
	P.p2bytes = copy_of(P.p[1], "patched-2-bytes.json", "bytes", "2097152");
	P.heavy = materialize("base-heavy.json");
	/* version3.json is a complete (newer) file: used as is */
	assert_true(asprintf(&P.v3, "%s/version3.json", fixdir) > 0);
	return 0;
}

static int teardown(void **state)
{
	char cmd[256];
	int i;

	(void)state;
	for (i = 0; i < 3; i++) {
		free(P.b[i]);
		free(P.p[i]);
	}
	free(P.cpuclock);
	free(P.cpuclock2);
	free(P.b1copy);
	free(P.b1h2g);
	free(P.p1loop);
	free(P.b2bytes);
	free(P.p2bytes);
	free(P.payload4k);
	free(P.nopayload);
	free(P.badgbps);
	free(P.heavy);
	free(P.v3);
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", tmpdir);
	return system(cmd) == 0 ? 0 : -1;
}

static json_t *metric(json_t *root, const char *name)
{
	json_t *m;
	size_t i;

	json_array_foreach(json_object_get(root, "metrics"), i, m)
		if (!strcmp(json_string_value(json_object_get(m, "name")), name))
			return m;
	print_error("metric %s not in the output\n", name);
	fail();
	return NULL;
}

static double num(json_t *o, const char *key)
{
	json_t *v = json_object_get(o, key);

	if (!json_is_number(v)) {
		print_error("\"%s\" is not a number\n", key);
		fail();
	}
	return json_number_value(v);
}

static json_t *parse_out(struct captured *c)
{
	json_error_t jerr;
	json_t *root = json_loads(c->out, 0, &jerr);

	if (!root) {
		print_error("compare --json output is not JSON: %s\n%s\n",
			    jerr.text, c->out);
		fail();
	}
	return root;
}

/* The hand-computed example of test_stats.c, through compare: gbps log
 * ratios 0.1, 0.2, 0.3 -> +22.1403 % [-4.7261 %, +56.5826 %]. */
static void test_ci_through_compare(void **state)
{
	struct captured c;
	json_t *root, *m;

	(void)state;
	c = run("--json", "-b", P.b[0], "-b", P.b[1], "-b", P.b[2],
		"-p", P.p[0], "-p", P.p[1], "-p", P.p[2], NULL);
	assert_int_equal(c.rc, 0);
	root = parse_out(&c);
	assert_int_equal(json_integer_value(json_object_get(root, "pairs")), 3);

	m = metric(root, "throughput_gbps");
	assert_near(num(m, "base"), 14.0 / 3.0, 1e-9);
	assert_near(num(m, "change_pct"), 22.1403, 5e-4);
	assert_near(num(m, "ci_lo_pct"), -4.7261, 5e-4);
	assert_near(num(m, "ci_hi_pct"), 56.5826, 5e-4);
	/* bootstrap (ratio of means) stays inside the per-pair ratios */
	assert_near(num(m, "boot_lo_pct"), 0.5 * (100 * expm1(0.1) + 100 * expm1(0.3)),
		    0.5 * (100 * expm1(0.3) - 100 * expm1(0.1)) + 1e-6);
	assert_near(num(m, "boot_hi_pct"), 0.5 * (100 * expm1(0.1) + 100 * expm1(0.3)),
		    0.5 * (100 * expm1(0.3) - 100 * expm1(0.1)) + 1e-6);
	assert_string_equal(json_string_value(json_object_get(m, "verdict")), "no-change");
	assert_string_equal(json_string_value(json_object_get(m, "better")), "higher");
	assert_int_equal(json_array_size(json_object_get(m, "base_values")), 3);

	/* cycles/B: 63.4766 -> 56.7578, change -10.5908 % [-11.8804, -9.2823] */
	m = metric(root, "cycles_per_byte");
	assert_near(num(m, "base"), 63.4765625, 1e-9);
	assert_near(num(m, "patched"), 56.7578125, 1e-9);
	assert_near(num(m, "change_pct"), -10.5908, 5e-4);
	assert_near(num(m, "ci_lo_pct"), -11.8804, 5e-4);
	assert_near(num(m, "ci_hi_pct"), -9.2823, 5e-4);
	assert_string_equal(json_string_value(json_object_get(m, "verdict")), "lower");

	/* identical ratios in every pair: zero-width interval */
	m = metric(root, "lookups_per_pkt");
	assert_near(num(m, "change_pct"), -80.0, 1e-9);
	assert_near(num(m, "ci_lo_pct"), -80.0, 1e-9);
	assert_near(num(m, "ci_hi_pct"), -80.0, 1e-9);
	m = metric(root, "mean_batch_pkts");
	assert_near(num(m, "base"), 1.0, 1e-12);
	assert_near(num(m, "patched"), 5.0, 1e-12);
	/* what batching costs: reader wait 100 -> 300 us, enq->ready 600 ns -> 100 us */
	m = metric(root, "user_wait_mean_ns");
	assert_near(num(m, "change_pct"), 200.0, 1e-9);
	assert_string_equal(json_string_value(json_object_get(m, "better")), "lower");
	m = metric(root, "dr_lat_mean_ns");
	assert_near(num(m, "base"), 600.0, 1e-9);
	assert_near(num(m, "patched"), 100000.0, 1e-9);
	/* data-ready per packet: 1.0 (inside) vs 0.2 (after) */
	m = metric(root, "dr_per_pkt");
	assert_near(num(m, "change_pct"), -80.0, 1e-9);
	json_decref(root);
	cap_free(&c);
}

static void test_json_shape(void **state)
{
	static const char *const top[] = {
		"format", "version", "pairs", "level", "noise_pct", "method",
		"payload", "cost_unit", "base_files", "patched_files",
		"bootstrap", "metrics", "histograms", "order", "headline",
		"tracer", "warnings",
	};
	static const char *const mkeys[] = {
		"name", "unit", "better", "base", "patched", "change_pct",
		"method", "ci_lo_pct", "ci_hi_pct", "boot_lo_pct",
		"boot_hi_pct", "verdict", "base_values", "patched_values",
	};
	struct captured c;
	json_t *root, *m, *h, *o;
	size_t i, j;

	(void)state;
	/* comma-list syntax */
	{
		char bl[8192], pl[8192];

		snprintf(bl, sizeof(bl), "%s,%s,%s", P.b[0], P.b[1], P.b[2]);
		snprintf(pl, sizeof(pl), "%s,%s,%s", P.p[0], P.p[1], P.p[2]);
		c = run(bl, pl, "--json", NULL);
	}
	assert_int_equal(c.rc, 0);
	assert_string_equal(c.err, "");
	root = parse_out(&c);
	assert_int_equal(json_object_size(root), sizeof(top) / sizeof(top[0]));
	for (i = 0; i < sizeof(top) / sizeof(top[0]); i++)
		if (!json_object_get(root, top[i])) {
			print_error("top-level key %s missing\n", top[i]);
			fail();
		}
	assert_string_equal(json_string_value(json_object_get(root, "format")),
			    "vsockbatch-compare");
	assert_string_equal(json_string_value(json_object_get(root, "payload")), "1K");
	assert_string_equal(json_string_value(json_object_get(root, "cost_unit")), "cycles");
	assert_string_equal(json_string_value(json_object_get(root, "headline")),
			    "throughput_gbps");
	assert_string_equal(json_string_value(json_object_get(
		json_object_get(root, "bootstrap"), "seed")), "0x76736f636b626174");
	assert_int_equal(json_array_size(json_object_get(root, "base_files")), 3);
	assert_int_equal(json_array_size(json_object_get(root, "warnings")), 0);
	json_array_foreach(json_object_get(root, "metrics"), i, m) {
		assert_int_equal(json_object_size(m), sizeof(mkeys) / sizeof(mkeys[0]));
		for (j = 0; j < sizeof(mkeys) / sizeof(mkeys[0]); j++)
			assert_non_null(json_object_get(m, mkeys[j]));
	}
	/* every metric the brief asks for is there */
	metric(root, "pkts");
	metric(root, "bytes");
	metric(root, "lookups_per_pkt");
	metric(root, "ws_per_pkt");
	metric(root, "window_mean_ns");
	metric(root, "user_wait_mean_ns");
	metric(root, "user_waits_per_mb");
	metric(root, "dr_lat_mean_ns");
	/* no row is a histogram percentile: those have no CI */
	json_array_foreach(json_object_get(root, "metrics"), i, m)
		assert_null(strstr(json_string_value(json_object_get(m, "name")), "_p5")),
		assert_null(strstr(json_string_value(json_object_get(m, "name")), "_p9"));
	/* histogram shifts: batch length exact (linear), times as slots */
	h = json_array_get(json_object_get(root, "histograms"), 0);
	assert_string_equal(json_string_value(json_object_get(h, "name")), "batch_pkts");
	assert_string_equal(json_string_value(json_object_get(h, "scheme")), "linear");
	assert_string_equal(json_string_value(json_object_get(h, "base_p50")), "1");
	assert_string_equal(json_string_value(json_object_get(h, "patched_p50")), "5");
	assert_string_equal(json_string_value(json_object_get(h, "patched_p99")), "5");
	assert_int_equal(json_integer_value(json_object_get(h, "base_samples")), 3000);
	h = json_array_get(json_object_get(root, "histograms"), 1);
	assert_string_equal(json_string_value(json_object_get(h, "name")), "window_ns");
	assert_string_equal(json_string_value(json_object_get(h, "base_p99")), "[512ns, 1.0us]");
	/* the other histograms are empty in every file: not listed */
	assert_int_equal(json_array_size(json_object_get(root, "histograms")), 2);
	o = json_object_get(root, "tracer");
	assert_string_equal(json_string_value(json_object_get(o, "base_mode")), "full");
	assert_near(num(o, "base_overhead_pct"), 4.0, 1e-12);
	assert_near(num(o, "tracer_shift_pct"), 100 * (1.045 / 1.04 - 1), 1e-9);
	/* pair 2 ran patched first */
	o = json_object_get(root, "order");
	assert_int_equal(json_integer_value(json_object_get(o, "ab_pairs")), 2);
	assert_int_equal(json_integer_value(json_object_get(o, "ba_pairs")), 1);
	json_decref(root);
	cap_free(&c);
}

static void test_text_table(void **state)
{
	struct captured c;

	(void)state;
	c = run("-b", P.b[0], "-b", P.b[1], "-b", P.b[2],
		"-p", P.p[0], "-p", P.p[1], "-p", P.p[2], NULL);
	assert_int_equal(c.rc, 0);
	assert_non_null(strstr(c.out, "3 pairs, payload 1K"));
	assert_non_null(strstr(c.out, "+22.14%  [-4.73%, +56.58%]"));
	assert_non_null(strstr(c.out, "cycles per byte"));
	assert_non_null(strstr(c.out, "-10.59%  [-11.88%, -9.28%] better"));
	/* linear histograms exact, in the unit's format */
	assert_non_null(strstr(c.out, "batch length         p50 1 -> 5 pkts/batch, p99 1 -> 5 pkts/batch"));
	assert_non_null(strstr(c.out, "window time          p50 [512ns, 1.0us] -> [2.0us, 4.1us]"));
	assert_non_null(strstr(c.out, "reader wait mean (ns)"));
	assert_non_null(strstr(c.out, "enq->ready mean (ns)"));
	assert_non_null(strstr(c.out, "tracer: baseline full mode, +4.00% insns/B; patched full mode, +4.50% insns/B"));
	assert_null(strstr(c.out, "warning:"));
	assert_non_null(strstr(c.out, "seed 0x76736f636b626174"));
	assert_non_null(strstr(c.out, "throughput (Gbit/s) change: [-4.73% +22.14% +56.58%] (95% CI, n=3"));
	assert_non_null(strstr(c.out, "No significant change"));
	cap_free(&c);
}

/* A CPU-cost change the tracer's own cost difference could explain. */
static void test_tracer_cost_warning(void **state)
{
	struct captured c;

	(void)state;
	/* baseline traced at +20 %, patched at +4.5 %: the tracer alone
	 * moves the ratio by 1.045/1.2 - 1 = -12.9 %; cycles/B change -10.6 % */
	c = run("--wide", P.heavy, P.p[0], NULL);
	assert_int_equal(c.rc, 0);
	if (!strstr(c.out, "lies within"))
		print_error("%s\n", c.out);
	assert_non_null(strstr(c.out, "its own share of a traced CPU-cost change: -12.92%"));
	assert_non_null(strstr(c.out, "warning: cycles per byte: the change (-10.77%) lies within the tracer-cost difference of the two sides (-12.92%)"));
	cap_free(&c);
	/* an unmeasured overhead is said, too */
	c = run(P.b[0], P.cpuclock, NULL);
	cap_free(&c);
}

static void test_single_pair(void **state)
{
	struct captured c;
	json_t *root, *m;

	(void)state;
	c = run(P.b[0], P.p[0], "--json", NULL);
	assert_int_equal(c.rc, 0);
	root = parse_out(&c);
	m = metric(root, "throughput_gbps");
	assert_near(num(m, "change_pct"), 100 * expm1(0.1), 1e-6);
	assert_true(json_is_null(json_object_get(m, "ci_lo_pct")));
	assert_true(json_is_null(json_object_get(m, "boot_lo_pct")));
	assert_true(json_is_null(json_object_get(m, "verdict")));
	json_decref(root);
	cap_free(&c);

	c = run(P.b[0], P.p[0], NULL);
	assert_int_equal(c.rc, 0);
	assert_non_null(strstr(c.out, "no confidence interval"));
	assert_null(strstr(c.out, "95% CI"));
	cap_free(&c);
}

/* Every refusal: exit 2, nothing on stdout, the reason on stderr. */
static void refused(struct captured c, const char *reason)
{
	if (c.rc != 2 || !strstr(c.err, reason) || *c.out) {
		print_error("rc %d, stderr '%s', stdout '%.80s'; want 2 and '%s'\n",
			    c.rc, c.err, c.out, reason);
		fail();
	}
	cap_free(&c);
}

static void test_refusals(void **state)
{
	(void)state;
	refused(run(P.b[0], P.cpuclock, NULL),
		"refused: CPU-cost units differ: ");
	refused(run(P.b[0], P.payload4k, NULL),
		"refused: payload labels differ: ");
	refused(run(P.b[0], P.nopayload, NULL),
		"has no payload label but");
	refused(run(P.b[0], P.badgbps, NULL),
		"label gbps=\"fast\" is not a positive number");
	refused(run(P.b[0], P.v3, NULL), "unsupported results version 3");
	refused(run("-b", P.b[0], "-b", P.b[1], "-p", P.p[0], NULL),
		"refused: 2 baseline files but 1 patched file");
	/* mismatch inside a multi-pair run is still found */
	refused(run("-b", P.b[0], "-b", P.b[1], "-p", P.p[0], "-p", P.cpuclock,
		    "--json", NULL), "CPU-cost units differ");
}

/*
 * Pairings that would fake samples: each refused with exit 2 and one
 * line.  The t-interval needs independent pairs.
 */
static void test_refused_pairings(void **state)
{
	char list_b[2048], list_p[2048];
	struct captured c;

	(void)state;
	/* baseline and patched are one file */
	refused(run(P.b[0], P.b[0], NULL),
		"refused: pair 1: baseline ");
	/* ... or a copy of one recording (same start time and kernel) */
	refused(run(P.b[0], P.b1copy, NULL), "are the same recording");
	/* the same pair given twice, with -b/-p ... */
	refused(run("-b", P.b[0], "-b", P.b[0], "-p", P.p[0], "-p", P.p[0], NULL),
		"refused: pairs 1 and 2 are the same pair");
	/* ... or as comma lists, or with a copy standing in */
	snprintf(list_b, sizeof(list_b), "%s,%s,%s", P.b[0], P.b[1], P.b1copy);
	snprintf(list_p, sizeof(list_p), "%s,%s,%s", P.p[0], P.p[1], P.p[0]);
	refused(run(list_b, list_p, NULL), "refused: pairs 1 and 3 are the same pair");
	/* one recording in two pairs, same side or across sides */
	refused(run("-b", P.b[0], "-b", P.b[0], "-p", P.p[0], "-p", P.p[1], NULL),
		"refused: one recording in pairs 1 and 2");
	refused(run("-b", P.b[0], "-b", P.b[1], "-p", P.p[0], "-p", P.b[0], NULL),
		"refused: one recording in pairs 1 and 2");
	/* the reason is one line */
	c = run(P.b[0], P.b[0], NULL);
	assert_non_null(strchr(c.err, '\n'));
	assert_int_equal(strchr(c.err, '\n')[1], 0);
	cap_free(&c);
	/* distinct files with equal content and no start time are fine */
	c = run(P.cpuclock, P.cpuclock2, NULL);
	assert_int_equal(c.rc, 0);
	cap_free(&c);
}

/* Different 'mode' or 'bytes' labels: compared, with a warning. */
static void test_label_warnings(void **state)
{
	struct captured c;
	json_t *root, *w;

	(void)state;
	c = run("-b", P.b[0], "-b", P.b[1], "-p", P.p1loop, "-p", P.p[1], NULL);
	assert_int_equal(c.rc, 0);
	assert_non_null(strstr(c.out, "warning: label 'mode' in only 1 of 4 files"));
	cap_free(&c);
	/* two values: the files that disagree are named */
	c = run("-b", P.b1h2g, "-p", P.p1loop, NULL);
	assert_int_equal(c.rc, 0);
	assert_non_null(strstr(c.out, "warning: label 'mode' differs: "));
	assert_non_null(strstr(c.out, "mode=h2g"));
	assert_non_null(strstr(c.out, "mode=loopback"));
	cap_free(&c);
	c = run("--json", "-b", P.b1h2g, "-b", P.b2bytes, "-p", P.p1loop, "-p",
		P.p2bytes, NULL);
	assert_int_equal(c.rc, 0);
	root = parse_out(&c);
	w = json_object_get(root, "warnings");
	assert_true(json_array_size(w) >= 2);
	assert_non_null(strstr(json_string_value(json_array_get(w, 0)),
			       "label 'mode' "));
	assert_non_null(strstr(json_string_value(json_array_get(w, 1)),
			       "label 'bytes' "));
	json_decref(root);
	cap_free(&c);
}

/* Text: 80 columns, one path a line (16 paths were one 459-char line). */
static void test_text_80_columns(void **state)
{
	struct captured c;
	char *line, *nl, *b0;

	(void)state;
	c = run("-b", P.b[0], "-b", P.b[1], "-b", P.b[2],
		"-p", P.p[0], "-p", P.p[1], "-p", P.p[2], NULL);
	assert_int_equal(c.rc, 0);
	for (line = c.out; *line; line = nl + 1) {
		nl = strchr(line, '\n');
		assert_non_null(nl);
		assert_true(nl - line <= 80);
	}
	b0 = strstr(c.out, P.b[0]);
	assert_non_null(b0);
	/* the next path starts a line of its own */
	assert_null(memchr(b0, ' ', (size_t)(strchr(b0, '\n') - b0)));
	assert_non_null(strstr(c.out, "\n  baseline  "));
	assert_non_null(strstr(c.out, "\n  patched   "));
	cap_free(&c);
}

static void test_usage_errors(void **state)
{
	struct captured c;

	(void)state;
	refused(run(NULL), "need BASE and PATCHED");
	refused(run(P.b[0], NULL), "need BASE and PATCHED");
	refused(run("-b", P.b[0], NULL), "need at least one patched file");
	refused(run("-b", P.b[0], "-p", P.p[0], P.p[1], NULL), "not both");
	refused(run("--bogus", P.b[0], P.p[0], NULL), "unknown option");
	refused(run("--level", "2", P.b[0], P.p[0], NULL), "--level");
	refused(run("--iters", "5", P.b[0], P.p[0], NULL), "--iters");
	refused(run("/nonexistent/a.json", P.p[0], NULL),
		"baseline file: /nonexistent/a.json: No such file");
	refused(run(P.b[0], ",", NULL), "empty patched file name");
	c = run("--help", NULL);
	assert_int_equal(c.rc, 0);
	assert_non_null(strstr(c.out, "Usage: vsockbatch compare"));
	cap_free(&c);
}

/* cpu-clock on both sides: the cost row is relabelled, never mixed. */
static void test_cpu_clock_unit(void **state)
{
	struct captured c;
	json_t *root, *m;

	(void)state;
	c = run("--json", P.cpuclock, P.cpuclock2, NULL);
	assert_int_equal(c.rc, 0);
	root = parse_out(&c);
	assert_string_equal(json_string_value(json_object_get(root, "cost_unit")),
			    "cpu-clock-ns");
	m = metric(root, "ns_per_byte");
	/* 30,000,000 ns / 1,024,000 bytes */
	assert_near(num(m, "base"), 30000000.0 / 1024000.0, 1e-9);
	assert_near(num(m, "change_pct"), 0.0, 1e-12);
	assert_string_equal(json_string_value(json_object_get(m, "unit")), "ns/B");
	json_decref(root);
	cap_free(&c);
	c = run(P.cpuclock, P.cpuclock2, NULL);
	assert_int_equal(c.rc, 0);
	assert_non_null(strstr(c.out, "ns/byte (cpu-clock)"));
	assert_null(strstr(c.out, "cycles per byte"));
	cap_free(&c);
}

static void test_seed_and_level(void **state)
{
	struct captured a, b;
	json_t *ra, *rb, *ma, *mb;

	(void)state;
	/* a different seed changes the bootstrap only; 90 % narrows the t CI:
	 * t(0.95, 2) = 2.919986 -> half 0.1685854 -> [+3.1913 %, +44.5688 %] */
	a = run("--json", "--seed", "7", "--level", "0.9",
		"-b", P.b[0], "-b", P.b[1], "-b", P.b[2],
		"-p", P.p[0], "-p", P.p[1], "-p", P.p[2], NULL);
	b = run("--json", "--seed", "7", "--level", "0.9",
		"-b", P.b[0], "-b", P.b[1], "-b", P.b[2],
		"-p", P.p[0], "-p", P.p[1], "-p", P.p[2], NULL);
	assert_int_equal(a.rc, 0);
	ra = parse_out(&a);
	rb = parse_out(&b);
	ma = metric(ra, "throughput_gbps");
	mb = metric(rb, "throughput_gbps");
	assert_near(num(ma, "ci_lo_pct"), 3.1913, 5e-4);
	assert_near(num(ma, "ci_hi_pct"), 44.5688, 5e-4);
	assert_true(num(ma, "boot_lo_pct") == num(mb, "boot_lo_pct"));
	assert_string_equal(json_string_value(json_object_get(
		json_object_get(ra, "bootstrap"), "seed")), "0x7");
	json_decref(ra);
	json_decref(rb);
	cap_free(&a);
	cap_free(&b);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_ci_through_compare),
		cmocka_unit_test(test_json_shape),
		cmocka_unit_test(test_text_table),
		cmocka_unit_test(test_single_pair),
		cmocka_unit_test(test_tracer_cost_warning),
		cmocka_unit_test(test_refusals),
		cmocka_unit_test(test_refused_pairings),
		cmocka_unit_test(test_label_warnings),
		cmocka_unit_test(test_text_80_columns),
		cmocka_unit_test(test_usage_errors),
		cmocka_unit_test(test_cpu_clock_unit),
		cmocka_unit_test(test_seed_and_level),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
