// SPDX-License-Identifier: GPL-2.0
/*
 * stats.c - paired AB/BA statistics (see stats.h for the method).
 */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "stats.h"

/* --- descriptive ----------------------------------------------------------- */

double stats_mean(const double *x, size_t n)
{
	double sum = 0.0;
	size_t i;

	if (!n)
		return NAN;
	for (i = 0; i < n; i++)
		sum += x[i];
	return sum / (double)n;
}

double stats_sd(const double *x, size_t n)
{
	double m, ss = 0.0;
	size_t i;

	if (n < 2)
		return NAN;
	/* Two passes: the naive sum of squares loses digits when the values
	 * are close together, which log ratios of similar runs are. */
	m = stats_mean(x, n);
	for (i = 0; i < n; i++)
		ss += (x[i] - m) * (x[i] - m);
	return sqrt(ss / (double)(n - 1));
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

double stats_percentile_sorted(const double *s, size_t n, double p)
{
	double h, frac;
	size_t lo;

	if (!n || !(p >= 0.0 && p <= 100.0))
		return NAN;
	h = (double)(n - 1) * p / 100.0;
	lo = (size_t)floor(h);
	if (lo >= n - 1)
		return s[n - 1];
	frac = h - (double)lo;
	return s[lo] + frac * (s[lo + 1] - s[lo]);
}

int stats_percentile(const double *x, size_t n, double p, double *out)
{
	double *copy;
	size_t i;

	if (!n || !(p >= 0.0 && p <= 100.0))
		return -EINVAL;
	for (i = 0; i < n; i++)
		if (isnan(x[i]))
			return -EINVAL;
	copy = malloc(n * sizeof(*copy));
	if (!copy)
		return -ENOMEM;
	memcpy(copy, x, n * sizeof(*copy));
	qsort(copy, n, sizeof(*copy), cmp_double);
	*out = stats_percentile_sorted(copy, n, p);
	free(copy);
	return 0;
}

double stats_median(const double *x, size_t n)
{
	double m;

	if (stats_percentile(x, n, 50.0, &m))
		return NAN;
	return m;
}

/* --- Student t --------------------------------------------------------------- */

/* Below this, c and d are pushed off zero (Lentz's guard). */
#define LENTZ_TINY 1e-300

/* One term of the modified Lentz recurrence with partial numerator num:
 * updates c and d, returns the factor the fraction is multiplied by. */
static inline double lentz_step(double num, double *c, double *d)
{
	*d = 1.0 + num * *d;
	*c = 1.0 + num / *c;
	if (fabs(*d) < LENTZ_TINY)
		*d = LENTZ_TINY;
	if (fabs(*c) < LENTZ_TINY)
		*c = LENTZ_TINY;
	*d = 1.0 / *d;
	return *d * *c;
}

/*
 * Continued fraction of the regularized incomplete beta function I_x(a, b),
 * evaluated with the modified Lentz method.  Converges quickly for
 * x < (a + 1) / (a + b + 2); the caller uses the symmetry
 * I_x(a, b) = 1 - I_{1-x}(b, a) otherwise.
 */
static double betacf(double a, double b, double x)
{
	const double tiny = LENTZ_TINY, eps = 1e-15;
	double c = 1.0, d, f;
	int m;

	d = 1.0 - (a + b) * x / (a + 1.0);
	if (fabs(d) < tiny)
		d = tiny;
	d = 1.0 / d;
	f = d;
	for (m = 1; m <= 1000; m++) {
		double num, delta;

		/* even step: d_2m = m (b - m) x / ((a + 2m - 1)(a + 2m)) */
		num = m * (b - m) * x / ((a + 2.0 * m - 1.0) * (a + 2.0 * m));
		f *= lentz_step(num, &c, &d);
		/* odd step: d_2m+1 = -(a + m)(a + b + m) x / ((a + 2m)(a + 2m + 1)) */
		num = -(a + m) * (a + b + m) * x / ((a + 2.0 * m) * (a + 2.0 * m + 1.0));
		delta = lentz_step(num, &c, &d);
		f *= delta;
		if (fabs(delta - 1.0) < eps)
			break;
	}
	return f;
}

static double inc_beta(double a, double b, double x)
{
	double front;

	if (x <= 0.0)
		return 0.0;
	if (x >= 1.0)
		return 1.0;
	front = exp(lgamma(a + b) - lgamma(a) - lgamma(b) +
		    a * log(x) + b * log1p(-x));
	if (x < (a + 1.0) / (a + b + 2.0))
		return front * betacf(a, b, x) / a;
	return 1.0 - front * betacf(b, a, 1.0 - x) / b;
}

double stats_t_cdf(double t, double df)
{
	double tail;

	if (!(df > 0.0) || isnan(t))
		return NAN;
	if (isinf(t))
		return t > 0 ? 1.0 : 0.0;
	/* P(|T| > |t|) = I_{df/(df+t^2)}(df/2, 1/2); each side holds half. */
	tail = 0.5 * inc_beta(df / 2.0, 0.5, df / (df + t * t));
	return t >= 0 ? 1.0 - tail : tail;
}

double stats_t_quantile(double p, double df)
{
	double target, lo = 0.0, hi = 1.0, x;
	int i;

	if (!(p > 0.0 && p < 1.0) || !(df > 0.0))
		return NAN;
	if (p == 0.5)
		return 0.0;
	if (p < 0.5)
		return -stats_t_quantile(1.0 - p, df);
	/*
	 * Solve I_x(df/2, 1/2) = 2 (1 - p) for x by bisection (I_x grows with
	 * x, so the root is bracketed by [0, 1] whatever df is), then map
	 * back: t = sqrt(df (1 - x) / x).  Bisection stops when the interval
	 * cannot shrink any more in double precision.
	 */
	target = 2.0 * (1.0 - p);
	for (i = 0; i < 2000; i++) {
		double mid = 0.5 * (lo + hi);

		if (mid <= lo || mid >= hi)
			break;
		if (inc_beta(df / 2.0, 0.5, mid) < target)
			lo = mid;
		else
			hi = mid;
	}
	x = 0.5 * (lo + hi);
	return sqrt(df * (1.0 - x) / x);
}

/* --- splitmix64 ------------------------------------------------------------- */

void stats_rng_seed(struct stats_rng *rng, uint64_t seed)
{
	rng->state = seed;
}

uint64_t stats_rng_next(struct stats_rng *rng)
{
	uint64_t z;

	rng->state += 0x9e3779b97f4a7c15ULL;
	z = rng->state;
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

uint64_t stats_rng_below(struct stats_rng *rng, uint64_t bound)
{
	/* Reject the lowest (2^64 mod bound) values so every residue is
	 * equally likely. */
	uint64_t threshold = (0 - bound) % bound;
	uint64_t r;

	do
		r = stats_rng_next(rng);
	while (r < threshold);
	return r % bound;
}

/* --- paired comparison --------------------------------------------------------- */

static int check_pairs(const double *base, const double *patched, size_t n,
		       double level)
{
	size_t i;

	if (!n || !(level > 0.0 && level < 1.0))
		return -EINVAL;
	for (i = 0; i < n; i++) {
		if (!isfinite(base[i]) || !isfinite(patched[i]) ||
		    base[i] <= 0.0 || patched[i] <= 0.0)
			return -EINVAL;
	}
	return 0;
}

double stats_paired_mde_pct(const struct stats_paired *p, double power)
{
	double df;

	if (p->n < 2 || !isfinite(p->sd_log_ratio) || power <= 0 || power >= 1)
		return NAN;
	df = (double)(p->n - 1);
	return 100.0 * expm1((stats_t_quantile((1.0 + p->level) / 2.0, df) +
			      stats_t_quantile(power, df)) *
			     p->sd_log_ratio / sqrt((double)p->n));
}

int stats_paired(const double *base, const double *patched, size_t n,
		 double level, struct stats_paired *out)
{
	double *r;
	size_t i;
	int err;

	err = check_pairs(base, patched, n, level);
	if (err)
		return err;
	/* calloc: gcc cannot see that n > 0 here and warns about malloc */
	r = calloc(n, sizeof(*r));
	if (!r)
		return -ENOMEM;
	for (i = 0; i < n; i++)
		r[i] = log(patched[i] / base[i]);

	memset(out, 0, sizeof(*out));
	out->n = n;
	out->level = level;
	out->mean_base = stats_mean(base, n);
	out->mean_patched = stats_mean(patched, n);
	out->mean_log_ratio = stats_mean(r, n);
	out->sd_log_ratio = stats_sd(r, n);
	out->change_pct = 100.0 * expm1(out->mean_log_ratio);
	if (n >= 2) {
		double half;

		out->has_ci = 1;
		out->t_crit = stats_t_quantile((1.0 + level) / 2.0, (double)(n - 1));
		half = out->t_crit * out->sd_log_ratio / sqrt((double)n);
		out->ci_lo_pct = 100.0 * expm1(out->mean_log_ratio - half);
		out->ci_hi_pct = 100.0 * expm1(out->mean_log_ratio + half);
	} else {
		out->t_crit = NAN;
		out->ci_lo_pct = NAN;
		out->ci_hi_pct = NAN;
	}
	free(r);
	return 0;
}

int stats_bootstrap_pairs(const double *base, const double *patched, size_t n,
			  double level, unsigned int iters, uint64_t seed,
			  struct stats_boot *out)
{
	struct stats_rng rng;
	double *stat;
	unsigned int it;
	int err;

	err = check_pairs(base, patched, n, level);
	if (err)
		return err;
	if (n < 2 || iters < 100)
		return -EINVAL;
	stat = malloc((size_t)iters * sizeof(*stat));
	if (!stat)
		return -ENOMEM;

	stats_rng_seed(&rng, seed);
	for (it = 0; it < iters; it++) {
		double sa = 0.0, sb = 0.0;
		size_t k;

		for (k = 0; k < n; k++) {
			size_t j = (size_t)stats_rng_below(&rng, n);

			sa += base[j];
			sb += patched[j];
		}
		stat[it] = 100.0 * (sb / sa - 1.0);
	}
	qsort(stat, iters, sizeof(*stat), cmp_double);

	memset(out, 0, sizeof(*out));
	out->n = n;
	out->iters = iters;
	out->seed = seed;
	out->level = level;
	out->point_pct = 100.0 * (stats_mean(patched, n) / stats_mean(base, n) - 1.0);
	out->lo_pct = stats_percentile_sorted(stat, iters, 50.0 * (1.0 - level));
	out->hi_pct = stats_percentile_sorted(stat, iters, 50.0 * (1.0 + level));
	free(stat);
	return 0;
}

enum stats_verdict stats_paired_verdict(const struct stats_paired *p,
					double noise_pct)
{
	if (!p->has_ci || isnan(p->ci_lo_pct) || isnan(p->ci_hi_pct))
		return STATS_NO_CHANGE;
	if (p->ci_lo_pct > noise_pct)
		return STATS_HIGHER;
	if (p->ci_hi_pct < -noise_pct)
		return STATS_LOWER;
	return STATS_NO_CHANGE;
}

int stats_order_check(const double *base, const double *patched,
		      const int *ab, size_t n, double level,
		      struct stats_order *out)
{
	double *ga_b, *ga_p, *gb_b, *gb_p;
	struct stats_paired pa, pb;
	size_t i, na = 0, nb = 0;
	int err;

	err = check_pairs(base, patched, n, level);
	if (err)
		return err;
	ga_b = malloc(4 * n * sizeof(double));
	if (!ga_b)
		return -ENOMEM;
	ga_p = ga_b + n;
	gb_b = ga_p + n;
	gb_p = gb_b + n;
	for (i = 0; i < n; i++) {
		if (ab[i]) {
			ga_b[na] = base[i];
			ga_p[na++] = patched[i];
		} else {
			gb_b[nb] = base[i];
			gb_p[nb++] = patched[i];
		}
	}

	memset(out, 0, sizeof(*out));
	out->n_ab = na;
	out->n_ba = nb;
	out->change_ab_pct = NAN;
	out->change_ba_pct = NAN;
	if (na && !stats_paired(ga_b, ga_p, na, level, &pa))
		out->change_ab_pct = pa.change_pct;
	if (nb && !stats_paired(gb_b, gb_p, nb, level, &pb))
		out->change_ba_pct = pb.change_pct;
	/* Non-overlapping intervals: the order of the runs mattered. */
	if (na >= 2 && nb >= 2)
		out->disagree = pa.ci_hi_pct < pb.ci_lo_pct ||
				pb.ci_hi_pct < pa.ci_lo_pct;
	free(ga_b);
	return 0;
}
