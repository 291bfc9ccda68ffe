// SPDX-License-Identifier: GPL-2.0
/*
 * Unit tests for the pure half of `vsockbatch-lab summarize`
 * (tools/lab/summarize_core.c): run-plan checks, sample checks,
 * pairing by round with AB/BA order, refusal of incomplete pairs, the
 * row statistics and the cover-letter cell formatting.
 */
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <cmocka.h>

#include "test_util.h"

#include "../../tools/lab/summarize.h"

enum { BASE = 0, P13 = 1, PATCHED = 2, NSTATES = 3 };

/* The experiment's plan: round r forward (0 1 2) when even, else reversed. */
static size_t make_plan(struct sum_run *runs, unsigned int nrounds)
{
	unsigned int r, p;
	size_t n = 0;

	for (r = 0; r < nrounds; r++)
		for (p = 0; p < NSTATES; p++)
			runs[n++] = (struct sum_run){
				.round = r, .pos = p,
				.state = r % 2 ? NSTATES - 1 - p : p,
			};
	return n;
}

static unsigned int pos_of(unsigned int round, unsigned int state)
{
	return round % 2 ? NSTATES - 1 - state : state;
}

static struct sum_sample S(unsigned int round, unsigned int state,
			   unsigned int payload, enum sum_metric m, double v)
{
	return (struct sum_sample){
		.round = round, .pos = pos_of(round, state), .state = state,
		.payload = payload, .metric = m, .value = v,
	};
}

static void test_plan_ok(void **state)
{
	struct sum_run runs[12];
	unsigned int nrounds = 0;
	char err[160];
	size_t n;

	(void)state;
	n = make_plan(runs, 4);
	assert_int_equal(sum_check_plan(runs, n, NSTATES, &nrounds, err, sizeof(err)), 0);
	assert_int_equal(nrounds, 4);
}

static void test_plan_refused(void **state)
{
	struct sum_run runs[12];
	unsigned int nrounds = 0;
	char err[160];
	size_t n;

	(void)state;
	/* a round without one of the states */
	n = make_plan(runs, 2);
	assert_int_equal(sum_check_plan(runs, n - 1, NSTATES, &nrounds, err, sizeof(err)), -EINVAL);
	assert_non_null(strstr(err, "incomplete"));
	/* a state twice in one round (and another missing) */
	n = make_plan(runs, 2);
	runs[1].state = runs[0].state;
	assert_int_equal(sum_check_plan(runs, n, NSTATES, &nrounds, err, sizeof(err)), -EINVAL);
	assert_non_null(strstr(err, "twice"));
	/* two runs at the same position */
	n = make_plan(runs, 2);
	runs[4].pos = runs[3].pos;
	assert_int_equal(sum_check_plan(runs, n, NSTATES, &nrounds, err, sizeof(err)), -EINVAL);
	/* unknown state index */
	n = make_plan(runs, 2);
	runs[2].state = 7;
	assert_int_equal(sum_check_plan(runs, n, NSTATES, &nrounds, err, sizeof(err)), -EINVAL);
	assert_non_null(strstr(err, "out of range"));
	/* nothing planned */
	assert_int_equal(sum_check_plan(runs, 0, NSTATES, &nrounds, err, sizeof(err)), -EINVAL);
}

static void test_samples_refused(void **state)
{
	struct sum_run runs[6];
	struct sum_sample s[3];
	char err[160];
	size_t n;

	(void)state;
	n = make_plan(runs, 2);
	s[0] = S(0, BASE, 64, SUM_M_TPUT_FIXED, 1.0);
	s[1] = S(1, BASE, 64, SUM_M_TPUT_FIXED, 1.1);
	assert_int_equal(sum_check_samples(s, 2, runs, n, err, sizeof(err)), 0);
	/* a round that was never planned */
	s[1] = S(5, BASE, 64, SUM_M_TPUT_FIXED, 1.1);
	assert_int_equal(sum_check_samples(s, 2, runs, n, err, sizeof(err)), -EINVAL);
	assert_non_null(strstr(err, "no planned run"));
	/* right round and state, wrong position: not that run */
	s[1] = S(1, BASE, 64, SUM_M_TPUT_FIXED, 1.1);
	s[1].pos = 0;
	assert_int_equal(sum_check_samples(s, 2, runs, n, err, sizeof(err)), -EINVAL);
	/* measured twice */
	s[1] = S(0, BASE, 64, SUM_M_TPUT_FIXED, 1.2);
	assert_int_equal(sum_check_samples(s, 2, runs, n, err, sizeof(err)), -EINVAL);
	assert_non_null(strstr(err, "twice"));
	/* same run, other payload: fine */
	s[1] = S(0, BASE, 256, SUM_M_TPUT_FIXED, 1.2);
	assert_int_equal(sum_check_samples(s, 2, runs, n, err, sizeof(err)), 0);
	/* not a number */
	s[2] = S(1, PATCHED, 64, SUM_M_RTT_MEAN, NAN);
	assert_int_equal(sum_check_samples(s, 3, runs, n, err, sizeof(err)), -EINVAL);
	assert_non_null(strstr(err, "not a number"));
}

static void test_pairing_order(void **state)
{
	struct sum_sample s[8];
	struct sum_pairs p;
	char err[160];
	size_t n = 0;

	(void)state;
	/* 3 rounds; a distractor of another metric and payload */
	s[n++] = S(0, BASE, 64, SUM_M_TPUT_FIXED, 1.0);
	s[n++] = S(0, PATCHED, 64, SUM_M_TPUT_FIXED, 2.0);
	s[n++] = S(1, BASE, 64, SUM_M_TPUT_FIXED, 3.0);
	s[n++] = S(1, PATCHED, 64, SUM_M_TPUT_FIXED, 4.0);
	s[n++] = S(2, PATCHED, 64, SUM_M_TPUT_FIXED, 6.0);
	s[n++] = S(2, BASE, 64, SUM_M_TPUT_FIXED, 5.0);
	s[n++] = S(2, BASE, 4096, SUM_M_TPUT_FIXED, 99.0);
	s[n++] = S(2, BASE, 64, SUM_M_TPUT_MATCH, 98.0);
	assert_int_equal(sum_pair(s, n, 3, BASE, PATCHED, 64, SUM_M_TPUT_FIXED,
				  false, &p, err, sizeof(err)), 0);
	assert_int_equal(p.n, 3);
	assert_int_equal(p.dropped, 0);
	/* rounds 0 and 2 forward (baseline first), round 1 reversed */
	assert_int_equal(p.n_ab, 2);
	assert_int_equal(p.ab[0], 1);
	assert_int_equal(p.ab[1], 0);
	assert_int_equal(p.ab[2], 1);
	assert_near(p.a[0], 1.0, 0);
	assert_near(p.b[0], 2.0, 0);
	assert_near(p.a[1], 3.0, 0);
	assert_near(p.b[1], 4.0, 0);
	assert_near(p.a[2], 5.0, 0);
	assert_near(p.b[2], 6.0, 0);
	sum_pairs_free(&p);
	/* p1-3 has no values while patched has: every round incomplete */
	assert_int_equal(sum_pair(s, n, 3, P13, PATCHED, 64, SUM_M_TPUT_FIXED,
				  false, &p, err, sizeof(err)), -EINVAL);
	assert_int_equal(sum_pair(s, n, 3, P13, PATCHED, 64, SUM_M_TPUT_FIXED,
				  true, &p, err, sizeof(err)), 0);
	assert_int_equal(p.n, 0);
	assert_int_equal(p.dropped, 3);
	sum_pairs_free(&p);
	/* a metric nobody measured: no pair, nothing dropped, no error */
	assert_int_equal(sum_pair(s, n, 3, BASE, PATCHED, 64, SUM_M_RTT_MEAN,
				  false, &p, err, sizeof(err)), 0);
	assert_int_equal(p.n, 0);
	assert_int_equal(p.dropped, 0);
	sum_pairs_free(&p);
	assert_int_equal(sum_pair(s, n, 3, BASE, BASE, 64, SUM_M_TPUT_FIXED,
				  false, &p, err, sizeof(err)), -EINVAL);
}

static void test_pairing_missing(void **state)
{
	struct sum_sample s[5];
	struct sum_pairs p;
	char err[160];

	(void)state;
	s[0] = S(0, BASE, 64, SUM_M_TPUT_FIXED, 1.0);
	s[1] = S(0, PATCHED, 64, SUM_M_TPUT_FIXED, 2.0);
	s[2] = S(1, BASE, 64, SUM_M_TPUT_FIXED, 3.0);	/* patched missing */
	s[3] = S(2, BASE, 64, SUM_M_TPUT_FIXED, 5.0);
	s[4] = S(2, PATCHED, 64, SUM_M_TPUT_FIXED, 6.0);
	err[0] = 0;
	assert_int_equal(sum_pair(s, 5, 3, BASE, PATCHED, 64, SUM_M_TPUT_FIXED,
				  false, &p, err, sizeof(err)), -EINVAL);
	assert_non_null(strstr(err, "round 1"));
	assert_null(p.a);
	assert_int_equal(sum_pair(s, 5, 3, BASE, PATCHED, 64, SUM_M_TPUT_FIXED,
				  true, &p, err, sizeof(err)), 0);
	assert_int_equal(p.n, 2);
	assert_int_equal(p.dropped, 1);
	assert_near(p.a[1], 5.0, 0);
	sum_pairs_free(&p);
}

/* Three pairs with ratios 1.1, 1.2, 1.3 (computed by hand):
 * r = 0.0953102, 0.1823216, 0.2623643; mean 0.1799987;
 * sd 0.0835512; t(0.975, 2) = 4.302653; half width 0.2075527
 * change 100*(e^0.1799987 - 1) = +19.722 %,
 * CI [100*(e^-0.027554 - 1), 100*(e^0.387551 - 1)] = [-2.718 %, +47.337 %] */
static void test_row_ci_and_format(void **state)
{
	struct sum_sample s[6];
	struct sum_row row;
	char err[160], buf[96];

	(void)state;
	s[0] = S(0, BASE, 64, SUM_M_TPUT_FIXED, 10.0);
	s[1] = S(0, PATCHED, 64, SUM_M_TPUT_FIXED, 11.0);
	s[2] = S(1, BASE, 64, SUM_M_TPUT_FIXED, 5.0);
	s[3] = S(1, PATCHED, 64, SUM_M_TPUT_FIXED, 6.0);
	s[4] = S(2, BASE, 64, SUM_M_TPUT_FIXED, 1.0);
	s[5] = S(2, PATCHED, 64, SUM_M_TPUT_FIXED, 1.3);
	assert_int_equal(sum_row_compute(&row, s, 6, 3, BASE, PATCHED, 64,
					 SUM_M_TPUT_FIXED, false, 0.95, 1000,
					 STATS_BOOT_SEED, 1.0, err, sizeof(err)), 0);
	assert_true(row.ok);
	assert_int_equal(row.st.n, 3);
	assert_near(row.st.change_pct, 19.722, 0.001);
	assert_near(row.st.ci_lo_pct, -2.718, 0.001);
	assert_near(row.st.ci_hi_pct, 47.337, 0.001);
	assert_near(row.st.mean_base, 16.0 / 3, 1e-12);
	assert_near(row.st.mean_patched, 18.3 / 3, 1e-12);
	/* the CI touches 0: no verdict */
	assert_int_equal(row.verdict, STATS_NO_CHANGE);
	assert_true(row.has_boot);
	assert_int_equal(row.boot.seed, STATS_BOOT_SEED);
	assert_true(row.has_order);
	assert_int_equal(row.order.n_ab, 2);
	assert_int_equal(row.order.n_ba, 1);
	assert_string_equal(sum_fmt_change(&row, buf, sizeof(buf)),
			    "+19.72% [-2.72%, +47.34%]");
	sum_row_free(&row);

	/* one pair: a change, no CI */
	assert_int_equal(sum_row_compute(&row, s, 2, 1, BASE, PATCHED, 64,
					 SUM_M_TPUT_FIXED, false, 0.95, 1000,
					 STATS_BOOT_SEED, 1.0, err, sizeof(err)), 0);
	assert_true(row.ok);
	assert_false(row.has_boot);
	assert_string_equal(sum_fmt_change(&row, buf, sizeof(buf)),
			    "+10.00% (n=1, no CI)");
	sum_row_free(&row);

	/* a zero cannot be log-ratioed: kept, but no statistics */
	s[1].value = 0;
	assert_int_equal(sum_row_compute(&row, s, 6, 3, BASE, PATCHED, 64,
					 SUM_M_TPUT_FIXED, false, 0.95, 1000,
					 STATS_BOOT_SEED, 1.0, err, sizeof(err)), 0);
	assert_false(row.ok);
	assert_string_equal(sum_fmt_change(&row, buf, sizeof(buf)),
			    "n/a (a value <= 0 has no log ratio)");
	/* the means are still reported */
	assert_near(row.mean_a, 16.0 / 3, 1e-12);
	assert_near(row.mean_b, 7.3 / 3, 1e-12);
	sum_row_free(&row);

	/* no data at all */
	assert_int_equal(sum_row_compute(&row, s, 6, 3, BASE, PATCHED, 4096,
					 SUM_M_TPUT_FIXED, false, 0.95, 1000,
					 STATS_BOOT_SEED, 1.0, err, sizeof(err)), 0);
	assert_false(row.ok);
	assert_int_equal(row.pairs.n, 0);
	assert_true(isnan(row.mean_a));
	assert_string_equal(sum_fmt_change(&row, buf, sizeof(buf)),
			    "n/a (no complete pair)");
	sum_row_free(&row);

	/* an incomplete pair without allow_missing is refused by the row */
	assert_int_equal(sum_row_compute(&row, s, 5, 3, BASE, PATCHED, 64,
					 SUM_M_TPUT_FIXED, false, 0.95, 1000,
					 STATS_BOOT_SEED, 1.0, err, sizeof(err)), -EINVAL);
}

static void test_row_verdict_and_order(void **state)
{
	struct sum_sample s[16];
	struct sum_row row;
	char err[160];
	unsigned int r;
	size_t n = 0;

	(void)state;
	/* 8 rounds: +50% when baseline ran first, +10% when it ran second:
	 * a strong order effect, and a clear improvement overall */
	for (r = 0; r < 8; r++) {
		double jitter = 1 + 0.001 * r;

		s[n++] = S(r, BASE, 64, SUM_M_TPUT_FIXED, 2.0 * jitter);
		s[n++] = S(r, PATCHED, 64, SUM_M_TPUT_FIXED,
			   2.0 * (r % 2 ? 1.1 : 1.5) * jitter * (1 + 0.002 * r));
	}
	assert_int_equal(sum_row_compute(&row, s, n, 8, BASE, PATCHED, 64,
					 SUM_M_TPUT_FIXED, false, 0.95, 1000,
					 STATS_BOOT_SEED, 1.0, err, sizeof(err)), 0);
	assert_true(row.ok);
	assert_int_equal(row.verdict, STATS_HIGHER);
	assert_true(row.has_order);
	assert_int_equal(row.order.n_ab, 4);
	assert_int_equal(row.order.n_ba, 4);
	assert_true(row.order.disagree);
	assert_true(row.order.change_ab_pct > 45);
	assert_true(row.order.change_ba_pct < 15);
	sum_row_free(&row);
}

static void test_labels_and_values(void **state)
{
	char buf[32];
	int i;

	(void)state;
	assert_string_equal(sum_payload_label(64, buf, sizeof(buf)), "64B");
	assert_string_equal(sum_payload_label(512, buf, sizeof(buf)), "512B");
	assert_string_equal(sum_payload_label(1024, buf, sizeof(buf)), "1K");
	assert_string_equal(sum_payload_label(65536, buf, sizeof(buf)), "64K");
	assert_string_equal(sum_payload_label(1536, buf, sizeof(buf)), "1536B");
	assert_string_equal(sum_payload_label(1048576, buf, sizeof(buf)), "1M");

	assert_string_equal(sum_fmt_value(0.00541962427, buf, sizeof(buf)), "0.00542");
	assert_string_equal(sum_fmt_value(224.148, buf, sizeof(buf)), "224.1");
	assert_string_equal(sum_fmt_value(5.4842, buf, sizeof(buf)), "5.484");
	assert_string_equal(sum_fmt_value(1048577, buf, sizeof(buf)), "1048577");
	assert_string_equal(sum_fmt_value(8193, buf, sizeof(buf)), "8193");
	assert_string_equal(sum_fmt_value(8398.5, buf, sizeof(buf)), "8398.5");
	assert_string_equal(sum_fmt_value(1.0, buf, sizeof(buf)), "1");
	assert_string_equal(sum_fmt_value(NAN, buf, sizeof(buf)), "-");

	for (i = 0; i < SUM_M_NR; i++) {
		assert_non_null(sum_metrics[i].name);
		assert_non_null(sum_metrics[i].unit);
		assert_int_equal(sum_metric_find(sum_metrics[i].name), i);
		/* tracer-file metrics are always from traced runs */
		if (sum_metrics[i].from_results)
			assert_true(sum_metrics[i].traced);
	}
	assert_int_equal(sum_metric_find("tput_fixed_gbps"), SUM_M_TPUT_FIXED);
	assert_int_equal(sum_metric_find("gbps"), -1);
	/* the traced throughput is a guest-script sample, not file-derived */
	assert_true(sum_metrics[SUM_M_TPUT_TRACED].traced);
	assert_false(sum_metrics[SUM_M_TPUT_TRACED].from_results);
}

/* The exclusion rule: strictly above a limit excludes; NaN never does. */
static void test_xfer_exclusion(void **state)
{
	(void)state;
	assert_false(sum_xfer_excluded(0.2, 1.0, 0.5, 5.0));
	assert_false(sum_xfer_excluded(0.5, 5.0, 0.5, 5.0));
	assert_true(sum_xfer_excluded(0.51, 0.0, 0.5, 5.0));
	assert_true(sum_xfer_excluded(0.0, 5.1, 0.5, 5.0));
	assert_false(sum_xfer_excluded(9.0, 99.0, NAN, NAN));
	assert_true(sum_xfer_excluded(9.0, 0.0, 0.5, NAN));
	assert_false(sum_xfer_excluded(NAN, NAN, 0.5, 5.0));
	assert_int_equal(sum_metric_find("tput_tcp_gbps"), SUM_M_TPUT_TCP);
	assert_int_equal(sum_metric_find("eff_gbps_per_vcpu"), SUM_M_EFF);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_plan_ok),
		cmocka_unit_test(test_plan_refused),
		cmocka_unit_test(test_samples_refused),
		cmocka_unit_test(test_pairing_order),
		cmocka_unit_test(test_pairing_missing),
		cmocka_unit_test(test_row_ci_and_format),
		cmocka_unit_test(test_row_verdict_and_order),
		cmocka_unit_test(test_labels_and_values),
		cmocka_unit_test(test_xfer_exclusion),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
