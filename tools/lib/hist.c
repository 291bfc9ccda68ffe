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

int vb_hist_pct_slot(const uint64_t *slots, unsigned int nslots, double p)
{
	uint64_t total = vb_hist_total(slots, nslots), rank, below = 0;
	unsigned int i;

	if (!total || !(p > 0) || p > 100)
		return -1;
	rank = (uint64_t)ceil(p / 100.0 * (double)total);
	if (rank < 1)
		rank = 1;
	for (i = 0; i < nslots; i++) {
		below += slots[i];
		if (below >= rank)
			return (int)i;
	}
	return (int)nslots - 1;
}

void vb_hist_fmt_ns(char *buf, size_t len, uint64_t ns)
{
	if (ns < 1000)
		snprintf(buf, len, "%lluns", (unsigned long long)ns);
	else if (ns < 1000000)
		snprintf(buf, len, "%.1fus", (double)ns / 1e3);
	else if (ns < 1000000000)
		snprintf(buf, len, "%.2fms", (double)ns / 1e6);
	else
		snprintf(buf, len, "%.2fs", (double)ns / 1e9);
}

void vb_hist_pct_str(char *buf, size_t len, const uint64_t *slots,
		     unsigned int nslots, bool linear, double p, uint64_t max,
		     bool ns)
{
	int i = vb_hist_pct_slot(slots, nslots, p);
	uint64_t low, high;
	char a[24], b[24];

	if (i < 0) {
		snprintf(buf, len, "-");
		return;
	}
	if (linear) {
		if ((unsigned int)i < nslots - 1)
			snprintf(buf, len, "%d", i);
		else if (max)
			snprintf(buf, len, ">=%d (max %llu)", i,
				 (unsigned long long)max);
		else
			snprintf(buf, len, ">=%d", i);
		return;
	}
	vb_hist_bounds((unsigned int)i, nslots, &low, &high);
	if (ns) {
		vb_hist_fmt_ns(a, sizeof(a), low);
		vb_hist_fmt_ns(b, sizeof(b), high);
	} else {
		snprintf(a, sizeof(a), "%llu", (unsigned long long)low);
		snprintf(b, sizeof(b), "%llu", (unsigned long long)high);
	}
	if (high == UINT64_MAX)
		snprintf(buf, len, "[>=%s]", a);
	else if (low == high)
		snprintf(buf, len, "[%s]", a);
	else
		snprintf(buf, len, "[%s, %s]", a, b);
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

/*
 * First and last non-empty slot and the largest count; prints "(no
 * samples)" and returns false for an empty histogram.
 */
static bool hist_span(FILE *f, const uint64_t *slots, unsigned int nslots,
		      int *first, int *last, uint64_t *max)
{
	unsigned int i;

	*first = *last = -1;
	*max = 0;
	for (i = 0; i < nslots; i++) {
		if (!slots[i])
			continue;
		if (*first < 0)
			*first = (int)i;
		*last = (int)i;
		if (slots[i] > *max)
			*max = slots[i];
	}
	if (*first < 0)
		fprintf(f, "     (no samples)\n");
	return *first >= 0;
}

void vb_hist_print(FILE *f, const uint64_t *slots, unsigned int nslots,
		   const char *unit)
{
	int first = -1, last = -1, stars = nslots <= 32 ? 40 : 20;
	uint64_t max = 0, low, high;
	char lo[24], hi[24];
	unsigned int i;

	if (!hist_span(f, slots, nslots, &first, &last, &max))
		return;
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

void vb_lhist_print(FILE *f, const uint64_t *slots, unsigned int nslots,
		    const char *unit)
{
	int first = -1, last = -1;
	uint64_t max = 0;
	unsigned int i;
	char v[24];

	if (!hist_span(f, slots, nslots, &first, &last, &max))
		return;
	fprintf(f, "%10s : count    distribution\n", unit ? unit : "value");
	for (i = (unsigned int)first; i <= (unsigned int)last; i++) {
		if (i == nslots - 1)
			snprintf(v, sizeof(v), ">=%u", i);
		else
			snprintf(v, sizeof(v), "%u", i);
		fprintf(f, "%10s : %-8llu |", v, (unsigned long long)slots[i]);
		print_stars(f, slots[i], max, 40);
		fprintf(f, "|\n");
	}
}
