// SPDX-License-Identifier: GPL-2.0
/*
 * Unit tests for tools/lib/hist.c (log2z bucketing, percentiles, bcc-style
 * printing), the BPF-side slot function in bpf/bits.bpf.h (must agree
 * with the user-side one), and tools/lib/cpulist.c.
 */
#include <errno.h>
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "test_util.h"

#include <linux/types.h>

#include "cpulist.h"
#include "hist.h"
#include "vsockbatch.h"

/* Compile the BPF helper as plain C to compare it with the user one. */
#ifndef __always_inline
#define __always_inline inline __attribute__((always_inline))
#endif
#include "../../bpf/bits.bpf.h"

#define N VB_MAX_SLOTS

static void test_slot_edges(void **state)
{
	(void)state;
	assert_int_equal(vb_hist_slot(0, N), 0);
	assert_int_equal(vb_hist_slot(1, N), 1);
	assert_int_equal(vb_hist_slot(2, N), 2);
	assert_int_equal(vb_hist_slot(3, N), 2);
	assert_int_equal(vb_hist_slot(4, N), 3);
	assert_int_equal(vb_hist_slot(7, N), 3);
	assert_int_equal(vb_hist_slot(8, N), 4);
	assert_int_equal(vb_hist_slot(1023, N), 10);
	assert_int_equal(vb_hist_slot(1024, N), 11);
	/* 2^30 .. : the last slot is open-ended */
	assert_int_equal(vb_hist_slot(1ULL << 30, N), 31);
	assert_int_equal(vb_hist_slot(UINT64_MAX, N), 31);
	assert_int_equal(vb_hist_slot(1ULL << 29, N), 30);
}

static void test_bounds_cover_slots(void **state)
{
	uint64_t lo, hi, v;
	unsigned int i;

	(void)state;
	for (i = 0; i < N; i++) {
		vb_hist_bounds(i, N, &lo, &hi);
		assert_int_equal(vb_hist_slot(lo, N), i);
		assert_int_equal(vb_hist_slot(hi, N), i);
		if (i + 1 < N) {
			v = hi + 1;
			assert_int_equal(vb_hist_slot(v, N), i + 1);
		}
	}
	vb_hist_bounds(N - 1, N, &lo, &hi);
	assert_true(hi == UINT64_MAX);
}

/* The BPF slot function (bits.bpf.h) agrees with the user-side one. */
static void test_bpf_slot_matches(void **state)
{
	uint64_t v, x = 0x9e3779b97f4a7c15ULL;
	int i, s;

	(void)state;
	for (v = 0; v < 5000; v++)
		assert_int_equal(vb_slot(v), vb_hist_slot(v, N));
	for (s = 0; s < 64; s++) {
		v = 1ULL << s;
		assert_int_equal(vb_slot(v), vb_hist_slot(v, N));
		assert_int_equal(vb_slot(v - 1), vb_hist_slot(v - 1, N));
		assert_int_equal(vb_slot(v + 1), vb_hist_slot(v + 1, N));
	}
	for (i = 0; i < 100000; i++) {	/* xorshift64 */
		x ^= x << 13;
		x ^= x >> 7;
		x ^= x << 17;
		v = x >> (x & 63);
		assert_int_equal(vb_slot(v), vb_hist_slot(v, N));
	}
}

static void test_percentiles(void **state)
{
	uint64_t h[N] = { 0 }, lin[128] = { 0 }, x = 88172645463325252ULL;
	char buf[64];
	int i, k, slot;

	(void)state;
	assert_int_equal(vb_hist_pct_slot(h, N, 50), -1);
	vb_hist_pct_str(buf, sizeof(buf), h, N, false, 50, 0, false);
	assert_string_equal(buf, "-");
	/* 100 values all in slot 4 = [8, 15]: every percentile is the slot */
	h[4] = 100;
	assert_int_equal(vb_hist_pct_slot(h, N, 1), 4);
	assert_int_equal(vb_hist_pct_slot(h, N, 100), 4);
	vb_hist_pct_str(buf, sizeof(buf), h, N, false, 50, 0, false);
	assert_string_equal(buf, "[8, 15]");
	/* 90 zeros and 10 in [1024, 2047] ns: nearest rank */
	memset(h, 0, sizeof(h));
	h[0] = 90;
	h[11] = 10;
	assert_int_equal(vb_hist_pct_slot(h, N, 50), 0);
	assert_int_equal(vb_hist_pct_slot(h, N, 90), 0);
	assert_int_equal(vb_hist_pct_slot(h, N, 91), 11);
	vb_hist_pct_str(buf, sizeof(buf), h, N, false, 99, 0, true);
	assert_string_equal(buf, "[1.0us, 2.0us]");
	vb_hist_pct_str(buf, sizeof(buf), h, N, false, 50, 0, true);
	assert_string_equal(buf, "[0ns]");
	h[N - 1] = 1000;	/* open last slot */
	vb_hist_pct_str(buf, sizeof(buf), h, N, false, 99, 0, false);
	assert_string_equal(buf, "[>=1073741824]");
	/* bad p */
	assert_int_equal(vb_hist_pct_slot(h, N, 0), -1);
	assert_int_equal(vb_hist_pct_slot(h, N, 101), -1);

	/*
	 * Linear: the h2g 64 B case, 991 of 1056 runs ended on the
	 * 64-packet cap.  Interpolating log2 slots printed p50 93.43; the
	 * exact histogram says 64, never more than the max.
	 */
	lin[64] = 991;
	lin[1] = 40;
	lin[30] = 25;
	vb_hist_pct_str(buf, sizeof(buf), lin, 128, true, 50, 64, false);
	assert_string_equal(buf, "64");
	vb_hist_pct_str(buf, sizeof(buf), lin, 128, true, 99, 64, false);
	assert_string_equal(buf, "64");
	vb_hist_pct_str(buf, sizeof(buf), lin, 128, true, 3, 64, false);
	assert_string_equal(buf, "1");
	memset(lin, 0, sizeof(lin));
	lin[127] = 5;		/* >= 127: open, the exact max beside it */
	vb_hist_pct_str(buf, sizeof(buf), lin, 128, true, 50, 300, false);
	assert_string_equal(buf, ">=127 (max 300)");

	/* property: the percentile's slot always holds samples */
	for (k = 0; k < 2000; k++) {
		memset(h, 0, sizeof(h));
		for (i = 0; i < 5; i++) {
			x ^= x << 13;
			x ^= x >> 7;
			x ^= x << 17;
			h[x % N] += x % 7;
		}
		for (i = 1; i <= 100; i += 7) {
			slot = vb_hist_pct_slot(h, N, i);
			if (vb_hist_total(h, N))
				assert_true(slot >= 0 && h[slot] > 0);
			else
				assert_int_equal(slot, -1);
		}
	}
}

static void test_cpulist_online_check(void **state)
{
	uint32_t online[] = { 0, 1, 2, 4 }, want[] = { 1, 3 };
	char err[128];

	(void)state;
	assert_int_equal(vb_cpulist_check(want, 1, online, 4, err, sizeof(err)), 0);
	assert_int_equal(vb_cpulist_check(want, 2, online, 4, err, sizeof(err)),
			 -EINVAL);
	assert_string_equal(err, "CPU 3 is not online (online: 0-2,4)");
}

static void test_lhist_print(void **state)
{
	uint64_t lin[128] = { 0 };
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	(void)state;
	lin[1] = 10;
	lin[3] = 5;
	lin[127] = 1;
	vb_lhist_print(f, lin, 128, "pkts");
	fclose(f);
	assert_non_null(strstr(buf, "         1 : 10       |****************************************|"));
	assert_non_null(strstr(buf, "         2 : 0 "));
	assert_non_null(strstr(buf, "     >=127 : 1 "));
	free(buf);
}

static char *print_to_string(const uint64_t *h, const char *unit)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	assert_non_null(f);
	vb_hist_print(f, h, N, unit);
	fclose(f);
	return buf;
}

static void test_print_bcc_style(void **state)
{
	uint64_t h[N] = { 0 };
	char *s, *line;
	int lines = 0;

	(void)state;
	s = print_to_string(h, "ns");
	assert_string_equal(s, "     (no samples)\n");
	free(s);

	h[1] = 5;	/* 1 -> 1 */
	h[3] = 10;	/* 4 -> 7, the maximum: 40 stars */
	s = print_to_string(h, "pkts");
	assert_non_null(strstr(s, "pkts"));
	assert_non_null(strstr(s, "count    distribution"));
	assert_non_null(strstr(s, "         1 -> 1          : 5        |********************                    |\n"));
	/* empty slot between two used ones is printed (bcc does too) */
	assert_non_null(strstr(s, "         2 -> 3          : 0        |                                        |\n"));
	assert_non_null(strstr(s, "         4 -> 7          : 10       |****************************************|\n"));
	/* slot 0 is not printed: first row is the first non-zero slot */
	assert_null(strstr(s, " 0 -> 0 "));
	for (line = s; (line = strchr(line, '\n')); line++)
		lines++;
	assert_int_equal(lines, 4);	/* header + 3 rows */
	/* every line fits in 80 columns */
	for (line = strtok(s, "\n"); line; line = strtok(NULL, "\n"))
		assert_true(strlen(line) < 80);
	free(s);

	memset(h, 0, sizeof(h));
	h[N - 1] = 1;
	s = print_to_string(h, "ns");
	assert_non_null(strstr(s, "1073741824 -> inf"));
	free(s);
}

static void test_cpulist(void **state)
{
	uint32_t c[16];

	(void)state;
	assert_int_equal(vb_cpulist_parse("0", c, 16), 1);
	assert_int_equal(c[0], 0);
	assert_int_equal(vb_cpulist_parse("0-3\n", c, 16), 4);
	assert_int_equal(c[3], 3);
	assert_int_equal(vb_cpulist_parse("3,1,1-2", c, 16), 3);
	assert_int_equal(c[0], 1);
	assert_int_equal(c[1], 2);
	assert_int_equal(c[2], 3);
	assert_int_equal(vb_cpulist_parse("", c, 16), -EINVAL);
	assert_int_equal(vb_cpulist_parse("0,", c, 16), -EINVAL);
	assert_int_equal(vb_cpulist_parse("3-1", c, 16), -EINVAL);
	assert_int_equal(vb_cpulist_parse("a", c, 16), -EINVAL);
	assert_int_equal(vb_cpulist_parse("1 2", c, 16), -EINVAL);
	assert_int_equal(vb_cpulist_parse("-1", c, 16), -EINVAL);
	assert_int_equal(vb_cpulist_parse("99999", c, 16), -EINVAL);
	assert_int_equal(vb_cpulist_parse("0-20", c, 16), -E2BIG);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_slot_edges),
		cmocka_unit_test(test_bounds_cover_slots),
		cmocka_unit_test(test_bpf_slot_matches),
		cmocka_unit_test(test_percentiles),
		cmocka_unit_test(test_cpulist_online_check),
		cmocka_unit_test(test_lhist_print),
		cmocka_unit_test(test_print_bcc_style),
		cmocka_unit_test(test_cpulist),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
