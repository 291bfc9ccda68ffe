/* SPDX-License-Identifier: GPL-2.0 */
/*
 * stats.h - small statistics kit for baseline-vs-patched comparisons.
 *
 * The experiment design is n balanced AB/BA pairs: run i measures the
 * baseline (A) and the patched kernel (B) back to back, so run-to-run
 * drift cancels inside a pair.  The analysis therefore works on the
 * per-pair log ratio r_i = ln(B_i / A_i):
 *
 *   change %      = 100 * (exp(mean r) - 1)        (geometric mean ratio)
 *   95% CI        = mean r +- t(0.975, n-1) * sd(r) / sqrt(n), both ends
 *                   exponentiated -> asymmetric % interval > -100%
 *   bootstrap     = resample the n pairs with replacement (fixed seed,
 *                   splitmix64), statistic mean(B*)/mean(A*) - 1, i.e. the
 *                   ratio of means ("total cycles / total bytes"), and a
 *                   percentile interval; a cross-check of the t interval.
 *
 * All functions are pure (no I/O, no globals) so they can be unit tested
 * against hand-computed values.  Errors are returned as -EINVAL.
 */
#ifndef VSOCKBATCH_STATS_H
#define VSOCKBATCH_STATS_H

#include <stddef.h>
#include <stdint.h>

/* --- plain descriptive helpers ------------------------------------------ */

/* Arithmetic mean; NaN when n == 0. */
double stats_mean(const double *x, size_t n);

/* Sample standard deviation (n - 1 denominator); NaN when n < 2. */
double stats_sd(const double *x, size_t n);

/*
 * Percentile p in [0, 100] with linear interpolation between closest
 * ranks (the "type 7" definition used by numpy and R by default).  x is
 * not modified (a sorted copy is made).  Returns 0, or -EINVAL for n == 0,
 * p outside [0, 100] or a NaN in x; -ENOMEM if the copy fails.
 */
int stats_percentile(const double *x, size_t n, double p, double *out);

/* Same on data that is already sorted ascending (no allocation). */
double stats_percentile_sorted(const double *sorted, size_t n, double p);

/* Median = 50th percentile; NaN when n == 0. */
double stats_median(const double *x, size_t n);

/* --- Student t ------------------------------------------------------------ */

/* CDF of Student's t distribution with df degrees of freedom (df > 0). */
double stats_t_cdf(double t, double df);

/*
 * Inverse CDF (quantile) of Student's t: the t with P(T <= t) = p.
 * p in (0, 1), df > 0; NaN otherwise.  Computed from the regularized
 * incomplete beta function, accurate to ~1e-9 (tables give 3 decimals).
 */
double stats_t_quantile(double p, double df);

/* --- deterministic PRNG (splitmix64) --------------------------------------- */

struct stats_rng {
	uint64_t state;
};

void stats_rng_seed(struct stats_rng *rng, uint64_t seed);
uint64_t stats_rng_next(struct stats_rng *rng);
/* Uniform integer in [0, bound), bound > 0, without modulo bias. */
uint64_t stats_rng_below(struct stats_rng *rng, uint64_t bound);

/* --- paired comparison ---------------------------------------------------- */

#define STATS_LEVEL_DEFAULT	0.95
#define STATS_BOOT_ITERS	10000u
/* "vsockbat" in ASCII: fixed so every report is reproducible; printed. */
#define STATS_BOOT_SEED		0x76736f636b626174ULL

struct stats_paired {
	size_t n;			/* number of pairs */
	double level;			/* confidence level, e.g. 0.95 */
	double mean_base;		/* arithmetic mean of the baseline runs */
	double mean_patched;		/* arithmetic mean of the patched runs */
	double mean_log_ratio;		/* mean of ln(patched/base) */
	double sd_log_ratio;		/* sample sd of the log ratios (NaN n<2) */
	double change_pct;		/* 100 * (exp(mean r) - 1) */
	int has_ci;			/* 1 when n >= 2 (CI fields valid) */
	double t_crit;			/* t((1 + level) / 2, n - 1) */
	double ci_lo_pct;		/* lower end of the t interval, % */
	double ci_hi_pct;		/* upper end of the t interval, % */
};

/*
 * Paired log-ratio analysis of n pairs (base[i], patched[i]).  Every value
 * must be finite and > 0 (ratios of non-positive numbers are undefined).
 * level in (0, 1).  Returns 0 or -EINVAL (n == 0, bad value, bad level).
 */
int stats_paired(const double *base, const double *patched, size_t n,
		 double level, struct stats_paired *out);

/*
 * Smallest change the pairs could detect: the true change that a two-sided
 * paired t-test at the interval's level would find with the given power
 * (e.g. 0.8), for the observed sd of the log ratios:
 *   (t((1 + level) / 2, n - 1) + t(power, n - 1)) * sd / sqrt(n),
 * as a percentage of the baseline (100 * (exp(x) - 1)).  The usual
 * "minimum detectable effect" of a power analysis; it is what a "not
 * resolved" row can and cannot rule out.  NaN for n < 2.
 */
double stats_paired_mde_pct(const struct stats_paired *p, double power);

struct stats_boot {
	size_t n;			/* number of pairs */
	unsigned int iters;		/* resamples drawn */
	uint64_t seed;			/* splitmix64 seed used */
	double level;
	double point_pct;		/* 100 * (mean(B)/mean(A) - 1), all pairs */
	double lo_pct;			/* percentile interval, % */
	double hi_pct;
};

/*
 * Bootstrap over pairs: draw iters resamples of n pair indices with
 * replacement; statistic 100 * (mean(B*)/mean(A*) - 1); percentile
 * interval at (1-level)/2 and (1+level)/2.  Same value rules as
 * stats_paired(); n >= 2, iters >= 100.  Returns 0, -EINVAL or -ENOMEM.
 */
int stats_bootstrap_pairs(const double *base, const double *patched, size_t n,
			  double level, unsigned int iters, uint64_t seed,
			  struct stats_boot *out);

/* Direction of a change, judged on the whole CI against a noise band. */
enum stats_verdict {
	STATS_NO_CHANGE = 0,	/* CI touches [-noise, +noise] or no CI */
	STATS_HIGHER,		/* whole CI above +noise_pct */
	STATS_LOWER,		/* whole CI below -noise_pct */
};

enum stats_verdict stats_paired_verdict(const struct stats_paired *p,
					double noise_pct);

/*
 * Order-effect check for alternating AB/BA pairs: ab[i] != 0 when the
 * baseline ran first in pair i.  Computes the t interval of the mean log
 * ratio separately over the AB and the BA pairs; *disagree = 1 when both
 * groups have >= 2 pairs and their intervals do not overlap (the order in
 * which the two kernels ran changed the result: drift, warm-up).
 * Returns 0 or -EINVAL.
 */
struct stats_order {
	size_t n_ab, n_ba;
	double change_ab_pct, change_ba_pct;	/* per group point estimate */
	int disagree;
};

int stats_order_check(const double *base, const double *patched,
		      const int *ab, size_t n, double level,
		      struct stats_order *out);

#endif /* VSOCKBATCH_STATS_H */
