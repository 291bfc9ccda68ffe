// SPDX-License-Identifier: GPL-2.0
/*
 * Unit tests for tools/lib/stats_opts.c: the --level, --noise,
 * --seed and --iters values compare and summarize accept and refuse, and
 * the unknown-option path.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <cmocka.h>

#include "../../tools/vsockbatch/commands.h"
#include "stats_opts.h"

static void test_defaults_and_good(void **state)
{
	struct stats_opts o = STATS_OPTS_DEFAULT;

	(void)state;
	assert_true(o.level == STATS_LEVEL_DEFAULT);
	assert_true(o.noise == 1.0);
	assert_true(o.seed == STATS_BOOT_SEED);
	assert_int_equal(o.iters, STATS_BOOT_ITERS);
	assert_int_equal(stats_opts_parse(&o, "t", NULL, STATS_O_LEVEL, "0.9", NULL), 0);
	assert_true(o.level == 0.9);
	assert_int_equal(stats_opts_parse(&o, "t", NULL, STATS_O_NOISE, "0", NULL), 0);
	assert_true(o.noise == 0.0);
	assert_int_equal(stats_opts_parse(&o, "t", NULL, STATS_O_SEED, "0x10", NULL), 0);
	assert_true(o.seed == 16);
	assert_int_equal(stats_opts_parse(&o, "t", NULL, STATS_O_SEED, "010", NULL), 0);
	assert_true(o.seed == 8);
	assert_int_equal(stats_opts_parse(&o, "t", NULL, STATS_O_ITERS, "100", NULL), 0);
	assert_int_equal(o.iters, 100);
	assert_int_equal(stats_opts_parse(&o, "t", NULL, STATS_O_ITERS, "10000000", NULL), 0);
	assert_int_equal(o.iters, 10000000);
}

static int usage_calls;

static void count_usage(FILE *f)
{
	(void)f;
	usage_calls++;
}

static void test_bad(void **state)
{
	static const struct { int c; const char *v; } bad[] = {
		{ STATS_O_LEVEL, "0.5" }, { STATS_O_LEVEL, "1" },
		{ STATS_O_LEVEL, "x" }, { STATS_O_LEVEL, "" },
		{ STATS_O_NOISE, "-1" }, { STATS_O_NOISE, "100" },
		{ STATS_O_NOISE, "1%" }, { STATS_O_SEED, "-1" },
		{ STATS_O_SEED, "" }, { STATS_O_SEED, "99999999999999999999" },
		{ STATS_O_ITERS, "99" }, { STATS_O_ITERS, "10000001" },
		{ STATS_O_ITERS, "0x100" }, { STATS_O_ITERS, "-200" },
	};
	struct stats_opts o = STATS_OPTS_DEFAULT;
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		assert_int_equal(stats_opts_parse(&o, "t", NULL, bad[i].c, bad[i].v, NULL),
				 VB_EXIT_USAGE);
	/* a refused --iters or --seed leaves the value alone */
	assert_int_equal(o.iters, STATS_BOOT_ITERS);
	assert_true(o.seed == STATS_BOOT_SEED);
	/* bad values print no usage; an unknown option does */
	assert_int_equal(usage_calls, 0);
	assert_int_equal(stats_opts_parse(&o, "t", count_usage, '?', NULL, "--x"),
			 VB_EXIT_USAGE);
	assert_int_equal(usage_calls, 1);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_defaults_and_good),
		cmocka_unit_test(test_bad),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
