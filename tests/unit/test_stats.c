// SPDX-License-Identifier: GPL-2.0
/*
 * Unit tests for tools/lib/stats.c against published t tables and paired
 * examples computed by hand (the arithmetic is in the comments).
 */
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <cmocka.h>

#include "test_util.h"

#include "stats.h"

static void test_t_quantile_table(void **state)
{
	(void)state;
	/* Two-sided 95% critical values, any printed t table (3 decimals). */
	assert_near(stats_t_quantile(0.975, 1), 12.706, 0.0005);
	assert_near(stats_t_quantile(0.975, 2), 4.303, 0.0005);
	assert_near(stats_t_quantile(0.975, 3), 3.182, 0.0005);
	assert_near(stats_t_quantile(0.975, 5), 2.571, 0.0005);
	assert_near(stats_t_quantile(0.975, 10), 2.228, 0.0005);
	assert_near(stats_t_quantile(0.975, 15), 2.131, 0.0005);
	assert_near(stats_t_quantile(0.975, 30), 2.042, 0.0005);
	assert_near(stats_t_quantile(0.975, 100), 1.984, 0.0005);
	/* Other levels from the same tables. */
	assert_near(stats_t_quantile(0.95, 10), 1.812, 0.0005);
	assert_near(stats_t_quantile(0.995, 10), 3.169, 0.0005);
	assert_near(stats_t_quantile(0.9995, 1), 636.619, 0.005);
	/* Large df tends to the normal quantile 1.959964. */
	assert_near(stats_t_quantile(0.975, 1e7), 1.959964, 1e-5);
}

static void test_t_quantile_closed_forms(void **state)
{
	double p;

	(void)state;
	/* df = 1 is Cauchy: t = tan(pi (p - 1/2)).
	 * df = 2: t = (2p - 1) / sqrt(2 p (1 - p)). */
	for (p = 0.55; p < 0.999; p += 0.05) {
		assert_near(stats_t_quantile(p, 1), tan(M_PI * (p - 0.5)), 1e-7);
		assert_near(stats_t_quantile(p, 2),
			    (2 * p - 1) / sqrt(2 * p * (1 - p)), 1e-8);
	}
	/* Symmetry and the centre. */
	assert_near(stats_t_quantile(0.025, 7), -stats_t_quantile(0.975, 7), 1e-12);
	assert_near(stats_t_quantile(0.5, 4), 0.0, 0.0);
	/* cdf(quantile(p)) == p */
	assert_near(stats_t_cdf(stats_t_quantile(0.9, 3.5), 3.5), 0.9, 1e-10);
	assert_near(stats_t_cdf(0.0, 9), 0.5, 1e-15);
	/* Invalid input gives NaN, not a number that looks real. */
	assert_true(isnan(stats_t_quantile(0.0, 5)));
	assert_true(isnan(stats_t_quantile(1.0, 5)));
	assert_true(isnan(stats_t_quantile(0.9, 0)));
}

static void test_descriptive(void **state)
{
	const double x[] = { 4, 1, 3, 2 };	/* sorted: 1 2 3 4 */
	const double one[] = { 7 };
	double v;

	(void)state;
	assert_near(stats_mean(x, 4), 2.5, 1e-15);
	/* squares of deviations 2.25+0.25+0.25+2.25 = 5, /3, sqrt */
	assert_near(stats_sd(x, 4), sqrt(5.0 / 3.0), 1e-15);
	assert_true(isnan(stats_sd(one, 1)));
	assert_true(isnan(stats_mean(x, 0)));
	/* type 7: h = 3 * p; p50 -> h 1.5 -> 2.5; p90 -> h 2.7 -> 3.7 */
	assert_near(stats_median(x, 4), 2.5, 1e-15);
	assert_int_equal(stats_percentile(x, 4, 90, &v), 0);
	assert_near(v, 3.7, 1e-12);
	assert_int_equal(stats_percentile(x, 4, 0, &v), 0);
	assert_near(v, 1, 0);
	assert_int_equal(stats_percentile(x, 4, 100, &v), 0);
	assert_near(v, 4, 0);
	assert_int_equal(stats_percentile(one, 1, 99, &v), 0);
	assert_near(v, 7, 0);
	/* input untouched (a copy was sorted) */
	assert_near(x[0], 4, 0);
	assert_int_equal(stats_percentile(x, 0, 50, &v), -EINVAL);
	assert_int_equal(stats_percentile(x, 4, 101, &v), -EINVAL);
	assert_int_equal(stats_percentile(x, 4, -1, &v), -EINVAL);
}

/*
 * Hand-computed example: log ratios r = 0.1, 0.2, 0.3 (patched = base *
 * e^r).  mean r = 0.2, sd r = 0.1, n = 3, t(0.975, 2) = 4.302653,
 * half width = 4.302653 * 0.1 / sqrt(3) = 0.2484138.
 *   change = e^0.2 - 1        = +22.1403 %
 *   CI     = e^-0.0484138 - 1 =  -4.7261 %
 *            e^0.4484138 - 1  = +56.5826 %
 */
static void test_paired_hand_example(void **state)
{
	const double base[] = { 2.0, 4.0, 8.0 };
	double patched[3];
	struct stats_paired p;
	int i;

	(void)state;
	for (i = 0; i < 3; i++)
		patched[i] = base[i] * exp(0.1 * (i + 1));
	assert_int_equal(stats_paired(base, patched, 3, 0.95, &p), 0);
	assert_int_equal(p.n, 3);
	assert_int_equal(p.has_ci, 1);
	assert_near(p.mean_log_ratio, 0.2, 1e-12);
	assert_near(p.sd_log_ratio, 0.1, 1e-12);
	assert_near(p.t_crit, 4.302653, 1e-6);
	assert_near(p.change_pct, 22.1403, 5e-4);
	assert_near(p.ci_lo_pct, -4.7261, 5e-4);
	assert_near(p.ci_hi_pct, 56.5826, 5e-4);
	assert_near(p.mean_base, 14.0 / 3.0, 1e-12);
	/* CI straddles zero: no verdict. */
	assert_int_equal(stats_paired_verdict(&p, 1.0), STATS_NO_CHANGE);
}

/*
 * Second example, throughput-like numbers (Gbit/s), 4 pairs:
 *   base    1.00 2.00 1.60 1.25      patched 1.10 2.10 1.80 1.40
 *   ratios  1.10 1.05 1.125 1.12
 *   ln      0.0953102 0.0487902 0.1177830 0.1133287
 *   mean    0.0938030     -> change = e^mean - 1 = +9.8343 %
 *   sd      0.0315421 (deviations 0.0015072 -0.0450128 0.0239800
 *           0.0195257; squares sum 0.0029847 / 3 = 0.00099491)
 *   t(0.975, 3) = 3.182446; half = 3.182446 * 0.0315421 / 2 = 0.0501906
 *   CI = e^0.0436124 - 1 = +4.4577 %, e^0.1439936 - 1 = +15.4877 %
 * Whole interval above +1 %: verdict "higher".
 */
static void test_paired_throughput_example(void **state)
{
	const double base[] = { 1.00, 2.00, 1.60, 1.25 };
	const double patched[] = { 1.10, 2.10, 1.80, 1.40 };
	struct stats_paired p;

	(void)state;
	assert_int_equal(stats_paired(base, patched, 4, 0.95, &p), 0);
	assert_near(p.mean_log_ratio, 0.0938030, 1e-6);
	assert_near(p.sd_log_ratio, 0.0315421, 1e-6);
	assert_near(p.change_pct, 9.8343, 1e-3);
	assert_near(p.ci_lo_pct, 4.4577, 5e-4);
	assert_near(p.ci_hi_pct, 15.4877, 5e-4);
	assert_int_equal(stats_paired_verdict(&p, 1.0), STATS_HIGHER);
	/* Swapping the sides mirrors the log interval. */
	assert_int_equal(stats_paired(patched, base, 4, 0.95, &p), 0);
	assert_near(p.change_pct, 100.0 * (1.0 / 1.098343 - 1.0), 1e-3);
	assert_near(p.ci_hi_pct, 100.0 * (1.0 / 1.044577 - 1.0), 5e-4);
	assert_int_equal(stats_paired_verdict(&p, 1.0), STATS_LOWER);
}

static void test_paired_single_and_bad(void **state)
{
	const double a[] = { 2.0, 1.0 }, b[] = { 3.0, 0.0 };
	const double nan_b[] = { 3.0, NAN };
	struct stats_paired p;

	(void)state;
	/* One pair: a point estimate, no interval. */
	assert_int_equal(stats_paired(a, b, 1, 0.95, &p), 0);
	assert_near(p.change_pct, 50.0, 1e-12);
	assert_int_equal(p.has_ci, 0);
	assert_true(isnan(p.ci_lo_pct));
	assert_int_equal(stats_paired_verdict(&p, 0.0), STATS_NO_CHANGE);
	/* Zero, NaN, no pairs, bad level: refused. */
	assert_int_equal(stats_paired(a, b, 2, 0.95, &p), -EINVAL);
	assert_int_equal(stats_paired(a, nan_b, 2, 0.95, &p), -EINVAL);
	assert_int_equal(stats_paired(a, b, 0, 0.95, &p), -EINVAL);
	assert_int_equal(stats_paired(a, b, 1, 1.0, &p), -EINVAL);
}

static void test_rng(void **state)
{
	struct stats_rng r;
	int i, seen[5] = { 0 };

	(void)state;
	/* Reference splitmix64 outputs for seed 0. */
	stats_rng_seed(&r, 0);
	assert_true(stats_rng_next(&r) == 0xe220a8397b1dcdafULL);
	assert_true(stats_rng_next(&r) == 0x6e789e6aa1b965f4ULL);
	assert_true(stats_rng_next(&r) == 0x06c45d188009454fULL);
	/* below(): in range, every value reached */
	stats_rng_seed(&r, 42);
	for (i = 0; i < 1000; i++) {
		uint64_t v = stats_rng_below(&r, 5);

		assert_true(v < 5);
		seen[v]++;
	}
	for (i = 0; i < 5; i++)
		assert_true(seen[i] > 150);
}

static void test_bootstrap(void **state)
{
	const double base[] = { 1.00, 2.00, 1.60, 1.25 };
	const double patched[] = { 1.10, 2.10, 1.80, 1.40 };
	const double same[] = { 3.0, 3.0, 3.0 };
	struct stats_boot b1, b2;

	(void)state;
	assert_int_equal(stats_bootstrap_pairs(base, patched, 4, 0.95, 10000,
					       STATS_BOOT_SEED, &b1), 0);
	/* ratio of means: 6.4 / 5.85 - 1 */
	assert_near(b1.point_pct, 100.0 * (6.40 / 5.85 - 1.0), 1e-9);
	/* Every resampled statistic lies between the smallest (+5 %) and
	 * the largest (+12.5 %) per-pair ratio. */
	assert_true(b1.lo_pct >= 5.0 - 1e-9);
	assert_true(b1.hi_pct <= 12.5 + 1e-9);
	assert_true(b1.lo_pct < b1.point_pct && b1.point_pct < b1.hi_pct);
	assert_true(b1.seed == STATS_BOOT_SEED);
	assert_int_equal(b1.iters, 10000);
	/* Fixed seed: the same numbers twice. */
	assert_int_equal(stats_bootstrap_pairs(base, patched, 4, 0.95, 10000,
					       STATS_BOOT_SEED, &b2), 0);
	assert_true(b1.lo_pct == b2.lo_pct && b1.hi_pct == b2.hi_pct);
	/* No variation at all: a zero-width interval at 0 %. */
	assert_int_equal(stats_bootstrap_pairs(same, same, 3, 0.95, 1000, 1, &b2), 0);
	assert_near(b2.lo_pct, 0.0, 1e-12);
	assert_near(b2.hi_pct, 0.0, 1e-12);
	/* One pair cannot be resampled meaningfully. */
	assert_int_equal(stats_bootstrap_pairs(base, patched, 1, 0.95, 1000, 1, &b2),
			 -EINVAL);
}

static void test_order_check(void **state)
{
	/* AB pairs gain 10 %, BA pairs gain 30 %: order clearly mattered. */
	const double base[] = { 1, 1, 1, 1, 1, 1 };
	const double patched[] = { 1.10, 1.30, 1.11, 1.31, 1.09, 1.29 };
	const int ab[] = { 1, 0, 1, 0, 1, 0 };
	const double steady[] = { 1.10, 1.11, 1.09, 1.10, 1.11, 1.09 };
	struct stats_order o;

	(void)state;
	assert_int_equal(stats_order_check(base, patched, ab, 6, 0.95, &o), 0);
	assert_int_equal(o.n_ab, 3);
	assert_int_equal(o.n_ba, 3);
	assert_near(o.change_ab_pct, 10.0, 0.5);
	assert_near(o.change_ba_pct, 30.0, 0.5);
	assert_int_equal(o.disagree, 1);
	assert_int_equal(stats_order_check(base, steady, ab, 6, 0.95, &o), 0);
	assert_int_equal(o.disagree, 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_t_quantile_table),
		cmocka_unit_test(test_t_quantile_closed_forms),
		cmocka_unit_test(test_descriptive),
		cmocka_unit_test(test_paired_hand_example),
		cmocka_unit_test(test_paired_throughput_example),
		cmocka_unit_test(test_paired_single_and_bad),
		cmocka_unit_test(test_rng),
		cmocka_unit_test(test_bootstrap),
		cmocka_unit_test(test_order_check),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
