// SPDX-License-Identifier: GPL-2.0
/*
 * Unit tests of `vsockbatch top`'s layout (tools/vsockbatch/top_frame.c):
 * every line within the width, flow columns left out in the stated
 * order (never the sort column, DR/B or %DEF), the "N more" line and
 * scrolling, the sort column's highlight span, numeric flow order; and
 * the interval CPU cost (cost.c) that once wrapped on an idle interval.
 */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <cmocka.h>

#include "../../tools/vsockbatch/cost.h"
#include "../../tools/vsockbatch/top.h"

#define MAX_LINES 64

struct screen {
	char line[MAX_LINES][512];
	int attr[MAX_LINES];
	int hl_at, hl_len;	/* of the column-title line */
	int n;
};

static void grab(void *ctx, int idx, const char *text, int attr, int hl_at,
		 int hl_len)
{
	struct screen *s = ctx;

	assert_int_equal(idx, s->n);
	assert_true(s->n < MAX_LINES);
	snprintf(s->line[s->n], sizeof(s->line[0]), "%s", text);
	s->attr[s->n] = attr;
	if (attr == 2) {
		s->hl_at = hl_at;
		s->hl_len = hl_len;
	}
	s->n++;
}

/* nflows flows with 32-bit ephemeral ports, 12-character addresses. */
static void make_frame(struct vb_top_frame *f, size_t nflows)
{
	size_t i;

	memset(f, 0, sizeof(*f));
	f->interval_s = 1;
	f->stamp_unix_ns = 1700000000000000000ULL;
	f->mode = VB_MODE_BATCHED;
	snprintf(f->kernel, sizeof(f->kernel), "6.12.117+");
	f->total.pkts_s = 123456;
	f->total.mb_s = 7.9;
	f->total.batches_s = 2000;
	f->total.mean_batch = 61.7;
	f->total.batch_max = 64;
	f->total.hold_mean_ns = 2680000;
	f->total.dr_per_batch = 1;
	f->total.pct_deferred = 100;
	f->cost_measured = true;
	f->cost_unit = VB_COST_CPU_CLOCK_NS;
	f->cost_per_s = 1.5e9;
	f->cost_per_byte = 190;
	f->ncpus = 2;
	f->rows = calloc(nflows, sizeof(*f->rows));
	assert_non_null(f->rows);
	f->nrows = nflows;
	for (i = 0; i < nflows; i++) {
		struct vb_top_row *r = &f->rows[i];

		r->key.src_cid = 1;
		r->key.src_port = 3846758489u - (uint32_t)i;
		r->key.dst_cid = 3;
		r->key.dst_port = 3846758400u;
		r->pkts_s = 1000.0 * (double)(nflows - i);
		r->mb_s = r->pkts_s * 64 / 1e6;
		r->batches_s = r->pkts_s / 40;
		r->mean_batch = 40;
		r->batch_max = 64;
		r->hold_mean_ns = 2680000;
		r->dr_per_batch = 1;
		r->pct_deferred = 100;
	}
	vb_top_frame_sort(f, VB_SORT_PKTS, false);
}

static int title_line(const struct screen *s)
{
	int i;

	for (i = 0; i < s->n; i++)
		if (s->attr[i] == 2)
			return i;
	fail_msg("no column-title line");
	return -1;
}

static bool has_col(const struct screen *s, const char *title)
{
	char want[32];
	const char *t = s->line[title_line(s)], *p;
	size_t n = strlen(title);

	/* a whole word of the title line */
	snprintf(want, sizeof(want), "%s", title);
	for (p = strstr(t, want); p; p = strstr(p + 1, want))
		if ((p == t || p[-1] == ' ') && (p[n] == ' ' || !p[n]))
			return true;
	return false;
}

static void format(struct screen *s, const struct vb_top_frame *f, int width,
		   int first_row, int max_lines)
{
	int n;

	memset(s, 0, sizeof(*s));
	s->hl_at = -1;
	n = vb_top_format(f, width, first_row, max_lines, NULL, grab, s);
	assert_int_equal(n, s->n);
	if (getenv("TEST_TOP_SHOW"))
		for (n = 0; n < s->n; n++)
			printf("%3d| %s\n", width, s->line[n]);
}

static void test_every_line_fits_80(void **state)
{
	struct vb_top_frame f;
	struct screen s;
	int i;

	(void)state;
	make_frame(&f, 3);
	format(&s, &f, 0, 0, 0);
	/* unlimited: every column, the row is wider than 80 */
	assert_true(has_col(&s, "BATCH/s"));
	assert_true(strlen(s.line[title_line(&s)]) > 80);

	format(&s, &f, 80, 0, 0);
	for (i = 0; i < s.n; i++)
		assert_true(strlen(s.line[i]) <= 80);
	/* only BATCH/s had to go; what shows the series working stays */
	assert_false(has_col(&s, "BATCH/s"));
	assert_true(has_col(&s, "MAXB"));
	assert_true(has_col(&s, "DR/B"));
	assert_true(has_col(&s, "%DEF"));
	assert_true(has_col(&s, "SRC"));
	assert_true(has_col(&s, "DST"));
	/* and the frame says a column is left out */
	assert_non_null(strstr(s.line[s.n - 1], "1 column left out at 80 columns"));
	/* the header lines were never cut: each fits on its own */
	format(&s, &f, 0, 0, 0);
	for (i = 0; i < title_line(&s); i++)
		assert_true(strlen(s.line[i]) <= 80);
	vb_top_frame_free(&f);
}

static void test_drop_order(void **state)
{
	static const char *const order[] = {
		"BATCH/s", "MAXB", "MB/s", "PKTS/s", "HOLD", "PKT/B",
	};
	struct vb_top_frame f;
	struct screen s;
	int width, gone, i, last = 0;

	(void)state;
	make_frame(&f, 2);
	/* sorted by %DEF, which stays anyway, so all six can go */
	vb_top_frame_sort(&f, VB_SORT_DEFERRED, false);
	/* narrower and narrower: the columns go in the stated order */
	/* down to SRC DST DR/B %DEF, 12 + 1 + 12 + 1 + 5 + 1 + 4 wide */
	for (width = 100; width >= 36; width--) {
		format(&s, &f, width, 0, 0);
		for (gone = 0; gone < 6 && !has_col(&s, order[gone]); gone++)
			;
		for (i = gone; i < 6; i++)
			assert_true(has_col(&s, order[i]));
		assert_true(gone >= last);
		last = gone;
		assert_true(has_col(&s, "DR/B"));
		assert_true(has_col(&s, "%DEF"));
	}
	assert_int_equal(last, 6);
	vb_top_frame_free(&f);
}

static void test_sort_column_kept_and_lit(void **state)
{
	struct vb_top_frame f;
	struct screen s;
	const char *t;

	(void)state;
	make_frame(&f, 2);
	vb_top_frame_sort(&f, VB_SORT_BATCHES, false);
	format(&s, &f, 80, 0, 0);
	/* sorted by BATCH/s at 80: it stays and MAXB goes instead */
	assert_true(has_col(&s, "BATCH/s"));
	assert_false(has_col(&s, "MAXB"));
	t = s.line[title_line(&s)];
	assert_true(s.hl_at >= 0);
	assert_true(s.hl_len >= (int)strlen("BATCH/s"));
	/* the lit span holds the sort column's title */
	assert_non_null(strstr(t + s.hl_at, "BATCH/s"));
	assert_true(strstr(t + s.hl_at, "BATCH/s") - (t + s.hl_at) < s.hl_len);
	vb_top_frame_free(&f);
}

static void test_more_line_and_scrolling(void **state)
{
	struct vb_top_frame f;
	struct screen s;
	int t;

	(void)state;
	make_frame(&f, 30);
	/* 6 header lines, 1 note, 10 for flows: 9 rows, the "N more" line */
	format(&s, &f, 80, 0, 17);
	t = title_line(&s);
	assert_int_equal(t, 5);
	assert_int_equal(s.n, 17);
	assert_non_null(strstr(s.line[t + 10], "flows 1-9 of 30: 21 more"));
	assert_int_equal(s.attr[t + 10], 3);
	assert_non_null(strstr(s.line[t + 1], ":3846758489 "));	/* most pkts */
	/* scrolled to the end */
	format(&s, &f, 80, 25, 17);
	t = title_line(&s);
	assert_non_null(strstr(s.line[t + 1], ":3846758464 "));	/* row 26 */
	assert_non_null(strstr(s.line[t + 6], "flows 26-30 of 30: 25 more"));
	/* everything fits: no such line */
	format(&s, &f, 80, 0, 50);
	assert_null(strstr(s.line[s.n - 2], "more"));
	vb_top_frame_free(&f);
}

static void test_numeric_flow_order(void **state)
{
	static const uint32_t ports[] = { 257, 1, 256, 0 };
	struct vb_top_frame f;
	size_t i;

	(void)state;
	make_frame(&f, 4);
	for (i = 0; i < 4; i++) {
		f.rows[i].key.src_port = ports[i];
		f.rows[i].pkts_s = 5;	/* equal: the key decides */
	}
	vb_top_frame_sort(&f, VB_SORT_PKTS, false);
	/* 0, 1, 256, 257 - not memcmp's little-endian 0, 256, 1, 257 */
	assert_int_equal(f.rows[0].key.src_port, 0);
	assert_int_equal(f.rows[1].key.src_port, 1);
	assert_int_equal(f.rows[2].key.src_port, 256);
	assert_int_equal(f.rows[3].key.src_port, 257);
	vb_top_frame_free(&f);
}

/* record -i's line: titles, then time and the totals, within 80. */
static void test_totals_line(void **state)
{
	struct vb_top_frame f;
	char *buf = NULL, *line;
	size_t len = 0;
	FILE *m;

	(void)state;
	make_frame(&f, 1);
	m = open_memstream(&buf, &len);
	assert_non_null(m);
	vb_top_print_totals_line(m, &f, true);
	f.cost_unit = VB_COST_CYCLES;
	vb_top_print_totals_line(m, &f, true);
	fclose(m);
	assert_non_null(strstr(buf, "TIME      PKTS/s   MB/s BATCH/s  PKT/B    MAXB    HOLD  DR/B %DEF     CPU%\n"));
	/* 1.5e9 busy ns/s on 2 CPUs = 75 % */
	assert_non_null(strstr(buf, "22:13:20  123.5k  7.900    2000  61.70      64  2.68ms  1.00  100     75.0\n"));
	assert_non_null(strstr(buf, " CYCLES/s\n"));
	assert_non_null(strstr(buf, "  100    1.50G\n"));
	for (line = buf; *line; line = strchr(line, '\n') + 1)
		assert_true(strchr(line, '\n') - line <= 80);
	free(buf);
	vb_top_frame_free(&f);
}

static void test_interval_cost(void **state)
{
	(void)state;
	/* half of the ticks busy: half of the cpu-clock time */
	assert_int_equal(vb_cost_interval(VB_COST_CPU_CLOCK_NS, 1e9, 50, 100),
			 500000000);
	/* an idle interval costs 0 (it once printed 925978877674% busy) */
	assert_int_equal(vb_cost_interval(VB_COST_CPU_CLOCK_NS, 1e9, 0, 100), 0);
	assert_int_equal(vb_cost_interval(VB_COST_CPU_CLOCK_NS, 1e9, 0, 0), 0);
	/* a counter that went backwards is no huge unsigned number */
	assert_int_equal(vb_cost_interval(VB_COST_CPU_CLOCK_NS, -5, 1, 1), 0);
	assert_int_equal(vb_cost_interval(VB_COST_CYCLES, -5, 0, 0), 0);
	assert_int_equal(vb_cost_interval(VB_COST_CYCLES, 12345, 0, 0), 12345);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_every_line_fits_80),
		cmocka_unit_test(test_drop_order),
		cmocka_unit_test(test_sort_column_kept_and_lit),
		cmocka_unit_test(test_more_line_and_scrolling),
		cmocka_unit_test(test_numeric_flow_order),
		cmocka_unit_test(test_totals_line),
		cmocka_unit_test(test_interval_cost),
	};

	/* frames show local time: make it the same wherever this runs */
	setenv("TZ", "UTC", 1);
	tzset();
	return cmocka_run_group_tests(tests, NULL, NULL);
}
