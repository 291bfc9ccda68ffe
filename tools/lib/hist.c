// SPDX-License-Identifier: GPL-2.0
/* hist.c - log2 histogram bucketing, percentiles and bcc-style printing. */
#include <math.h>
#include <string.h>

#include "hist.h"

unsigned int vb_hist_slot(uint64_t v, unsigned int nslots)
{
	unsigned int i;

	if (!v || !nslots)
		return 0;
	i = 64 - __builtin_clzll(v);	/* floor(log2 v) + 1 */
	return i < nslots ? i : nslots - 1;
}

void vb_hist_bounds(unsigned int i, unsigned int nslots,
		    uint64_t *low, uint64_t *high)
{
	if (i == 0) {
		*low = *high = 0;
		return;
	}
	*low = 1ULL << (i - 1);
	*high = (i >= 64) ? UINT64_MAX : (1ULL << i) - 1;
	if (i == nslots - 1)
		*high = UINT64_MAX;
}

uint64_t vb_hist_total(const uint64_t *slots, unsigned int nslots)
{
	uint64_t t = 0;
	unsigned int i;

	for (i = 0; i < nslots; i++)
		t += slots[i];
	return t;
}

double vb_hist_percentile(const uint64_t *slots, unsigned int nslots,
			  double p)
{
	uint64_t total = vb_hist_total(slots, nslots), low, high;
	double rank, below = 0, frac, width;
	unsigned int i;

	if (!total || !(p > 0) || p > 100)
		return NAN;
	rank = p / 100.0 * (double)total;
	for (i = 0; i < nslots; i++) {
		if (!slots[i])
			continue;
		if (below + (double)slots[i] >= rank)
			break;
		below += (double)slots[i];
	}
	if (i == nslots)	/* rounding: rank == total */
		i = nslots - 1;
	vb_hist_bounds(i, nslots, &low, &high);
	if (i == 0)
		return 0;
	/* values are integers: slot [low, high] spans high - low + 1 */
	width = (i == nslots - 1) ? (double)low : (double)(high - low + 1);
	frac = (rank - below) / (double)slots[i];
	if (frac < 0)
		frac = 0;
	if (frac > 1)
		frac = 1;
	return (double)low + frac * (width - 1);
}

static void print_stars(FILE *f, uint64_t val, uint64_t max, int width)
{
	int n = max ? (int)((double)val * width / (double)max) : 0, i;

	if (n > width)
		n = width;
	for (i = 0; i < n; i++)
		fputc('*', f);
	for (; i < width; i++)
		fputc(' ', f);
}

void vb_hist_print(FILE *f, const uint64_t *slots, unsigned int nslots,
		   const char *unit)
{
	int first = -1, last = -1, stars = nslots <= 32 ? 40 : 20;
	uint64_t max = 0, low, high;
	char lo[24], hi[24];
	unsigned int i;

	for (i = 0; i < nslots; i++) {
		if (!slots[i])
			continue;
		if (first < 0)
			first = (int)i;
		last = (int)i;
		if (slots[i] > max)
			max = slots[i];
	}
	if (first < 0) {
		fprintf(f, "     (no samples)\n");
		return;
	}
	/* 10 + 4 + 10 columns of range, as the rows below */
	fprintf(f, "%5s%-19s : count    distribution\n", "",
		unit ? unit : "value");
	for (i = (unsigned int)first; i <= (unsigned int)last; i++) {
		vb_hist_bounds(i, nslots, &low, &high);
		snprintf(lo, sizeof(lo), "%llu", (unsigned long long)low);
		if (high == UINT64_MAX)
			snprintf(hi, sizeof(hi), "inf");
		else
			snprintf(hi, sizeof(hi), "%llu",
				 (unsigned long long)high);
		fprintf(f, "%10s -> %-10s : %-8llu |", lo, hi,
			(unsigned long long)slots[i]);
		print_stars(f, slots[i], max, stars);
		fprintf(f, "|\n");
	}
}
