// SPDX-License-Identifier: GPL-2.0
/*
 * Unit tests for tools/lib/bench_util.c: the pure parts of the benchmark
 * programs (size parsing, labels, throughput arithmetic, JSON lines, the
 * shared command-line options).
 */
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <arpa/inet.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <cmocka.h>

#include "bench_pingpong.h"
#include "bench_util.h"

static void test_parse_size(void **state)
{
	static const struct {
		const char *in;
		uint64_t want;
	} ok[] = {
		{ "0", 0 }, { "64", 64 }, { "4096", 4096 }, { "64K", 65536 },
		{ "64k", 65536 }, { "64KiB", 65536 }, { "64KB", 65536 },
		{ "4096B", 4096 }, { "1M", 1048576 }, { "256M", 268435456 },
		{ "2G", 2147483648ULL }, { "1T", 1ULL << 40 },
		{ "16777215T", 16777215ULL << 40 },
		{ "18446744073709551615", UINT64_MAX },
	};
	static const char *const bad[] = {
		"", "K", "-1", "+1", " 1", "1 ", "1.5K", "1KK", "1X", "0x10",
		"64Ki", "1P", "1iB",
	};
	uint64_t v;
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(ok) / sizeof(ok[0]); i++) {
		v = 12345;
		if (bench_parse_size(ok[i].in, &v) || v != ok[i].want) {
			print_error("parse_size(\"%s\") = %llu\n", ok[i].in,
				    (unsigned long long)v);
			fail();
		}
	}
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		v = 12345;
		if (bench_parse_size(bad[i], &v) != -EINVAL || v != 12345) {
			print_error("parse_size(\"%s\") accepted\n", bad[i]);
			fail();
		}
	}
	assert_int_equal(bench_parse_size(NULL, &v), -EINVAL);
	/* overflow: 2^24 T = 2^64 */
	assert_int_equal(bench_parse_size("16777216T", &v), -ERANGE);
	assert_int_equal(bench_parse_size("18446744073709551616", &v), -ERANGE);
}

static void test_parse_u64_seconds(void **state)
{
	uint64_t v;
	double s;

	(void)state;
	assert_int_equal(bench_parse_u64("1234", 65535, &v), 0);
	assert_int_equal(v, 1234);
	assert_int_equal(bench_parse_u64("65536", 65535, &v), -ERANGE);
	assert_int_equal(bench_parse_u64("12K", UINT64_MAX, &v), -EINVAL);
	assert_int_equal(bench_parse_u64("-3", UINT64_MAX, &v), -EINVAL);
	assert_int_equal(bench_parse_u64("", UINT64_MAX, &v), -EINVAL);
	assert_int_equal(bench_parse_seconds("0.5", &s), 0);
	assert_true(s == 0.5);
	assert_int_equal(bench_parse_seconds("3", &s), 0);
	assert_true(s == 3.0);
	assert_int_equal(bench_parse_seconds("-1", &s), -EINVAL);
	assert_int_equal(bench_parse_seconds("1s", &s), -EINVAL);
	assert_int_equal(bench_parse_seconds("inf", &s), -EINVAL);
	assert_int_equal(bench_parse_seconds("nan", &s), -EINVAL);
}

static void test_size_label(void **state)
{
	char b[32];

	(void)state;
	assert_string_equal(bench_size_label(64, b, sizeof(b)), "64");
	assert_string_equal(bench_size_label(1024, b, sizeof(b)), "1K");
	assert_string_equal(bench_size_label(65536, b, sizeof(b)), "64K");
	assert_string_equal(bench_size_label(1536, b, sizeof(b)), "1536");
	assert_string_equal(bench_size_label(256ULL << 20, b, sizeof(b)), "256M");
	assert_string_equal(bench_size_label(2ULL << 30, b, sizeof(b)), "2G");
	assert_string_equal(bench_size_label(1ULL << 50, b, sizeof(b)), "1024T");
	assert_string_equal(bench_size_label(0, b, sizeof(b)), "0");
	/* labels parse back to the same value */
	{
		uint64_t v;

		assert_int_equal(bench_parse_size(bench_size_label(3ULL << 40, b,
								   sizeof(b)), &v), 0);
		assert_true(v == 3ULL << 40);
	}
}

static void test_gbps_clock(void **state)
{
	uint64_t a, b;

	(void)state;
	/* 1 GB (10^9 bytes) in 1 s = 8 Gbit/s; 64 MiB in 0.5 s */
	assert_true(fabs(bench_gbps(1000000000ULL, 1000000000ULL) - 8.0) < 1e-12);
	assert_true(fabs(bench_gbps(64ULL << 20, 500000000ULL) -
			 (double)(64ULL << 20) * 16.0 / 1e9) < 1e-12);
	assert_true(bench_gbps(100, 0) == 0.0);
	a = bench_now_ns();
	b = bench_now_ns();
	assert_true(b >= a);
	/* the build host reads a TSC-class clock: steps well under 1 us */
	assert_true(bench_clock_step_ns() > 0);
	assert_true(bench_clock_step_ns() <= BENCH_CLOCK_STEP_OK_NS);
	assert_int_equal(bench_pin_cpu(-1), -EINVAL);
}

static void test_json_line(void **state)
{
	struct bench_json j;
	char *out = NULL;
	size_t len = 0;
	FILE *f;

	(void)state;
	f = open_memstream(&out, &len);
	assert_non_null(f);
	bench_json_begin(&j, f);
	bench_json_str(&j, "tool", "vb-\"x\"\n");
	bench_json_u64(&j, "bytes", 18446744073709551615ULL);
	bench_json_i64(&j, "cpu", -1);
	bench_json_double(&j, "gbps", 0.25);
	bench_json_double(&j, "bad", NAN);
	bench_json_bool(&j, "ok", 1);
	bench_json_end(&j);
	fclose(f);
	assert_string_equal(out,
		"{\"tool\":\"vb-\\\"x\\\"\\u000a\",\"bytes\":18446744073709551615,"
		"\"cpu\":-1,\"gbps\":0.25,\"bad\":null,\"ok\":true}\n");
	free(out);
}

static void test_json_tool_cpu(void **state)
{
	struct bench_args a;
	struct bench_json j;
	char *out = NULL;
	size_t len = 0;
	FILE *f;

	(void)state;
	bench_args_init(&a, "vb-x", NULL, 1);
	f = open_memstream(&out, &len);
	assert_non_null(f);
	bench_json_begin_tool(&j, f, "vb-x");
	bench_json_end_cpu(&j, &a);
	a.have_cpu = 1;
	a.cpu = 3;
	bench_json_begin_tool(&j, f, "vb-x");
	bench_json_u64(&j, "bytes", 5);
	bench_json_end_cpu(&j, &a);
	fclose(f);
	assert_string_equal(out,
		"{\"tool\":\"vb-x\",\"format\":1}\n"
		"{\"tool\":\"vb-x\",\"format\":1,\"bytes\":5,\"cpu\":3}\n");
	free(out);
}

/*
 * Context switches between two snapshots: a sleep is a voluntary one
 * (at least one, whatever else the test runner did), printed as a delta.
 */
static void test_json_ctxsw(void **state)
{
	struct bench_ctxsw a, b;
	struct bench_json j;
	char *out = NULL;
	size_t len = 0;
	long v = -1, iv = -1;
	FILE *f;

	(void)state;
	bench_ctxsw_now(&a);
	usleep(2000);
	bench_ctxsw_now(&b);
	assert_true(b.nvcsw >= a.nvcsw + 1);
	assert_true(b.nivcsw >= a.nivcsw);
	f = open_memstream(&out, &len);
	assert_non_null(f);
	bench_json_begin_tool(&j, f, "vb-x");
	bench_json_ctxsw(&j, &a, &b);
	bench_json_end(&j);
	fclose(f);
	assert_int_equal(sscanf(out, "{\"tool\":\"vb-x\",\"format\":1,\"nvcsw\":%ld,\"nivcsw\":%ld}",
				&v, &iv), 2);
	assert_int_equal(v, b.nvcsw - a.nvcsw);
	assert_int_equal(iv, b.nivcsw - a.nivcsw);
	free(out);
}

/* The good paths only: every bad one exits 2 (checked by running the
 * programs with bad arguments). */
static void test_args_next(void **state)
{
	static const struct option opts[] = {
		BENCH_OPT_PORT,
		{ "own", required_argument, NULL, 1 },
		BENCH_OPT_VSK,
		BENCH_OPT_CPU,
		BENCH_OPT_RETRY,
		BENCH_OPT_HELP,
		{ NULL, 0, NULL, 0 },
	};
	char *argv[] = { "vb-x", "--port", "7", "--own", "v", "--vsk-size", "1M",
			 "--cpu", "1", "--retry", "0.5", "--own=w", NULL };
	struct bench_args a;

	(void)state;
	bench_args_init(&a, "vb-x", NULL, 1234);
	assert_int_equal(a.port, 1234);
	assert_true(a.retry == 5.0);
	assert_int_equal(a.have_cpu, 0);
	optind = 0;
	assert_int_equal(bench_args_next(&a, 12, argv, opts), 1);
	assert_string_equal(optarg, "v");
	assert_int_equal(bench_args_next(&a, 12, argv, opts), 1);
	assert_string_equal(optarg, "w");
	assert_int_equal(bench_args_next(&a, 12, argv, opts), -1);
	assert_int_equal(a.port, 7);
	assert_int_equal(a.vsk_size, 1 << 20);
	assert_int_equal(a.have_cpu, 1);
	assert_int_equal(a.cpu, 1);
	assert_int_equal(a.have_retry, 1);
	assert_true(a.retry == 0.5);
	assert_int_equal(bench_arg_size(&a, "x", "64K", 1, 1 << 20), 64 << 10);
	assert_int_equal(bench_arg_u64(&a, "x", "0", 0), 0);
}

/* --tcp alone is the loopback address; --tcp=ADDR that address. */
static void test_args_tcp(void **state)
{
	static const struct option opts[] = {
		BENCH_OPT_PORT,
		BENCH_OPT_TCP,
		{ NULL, 0, NULL, 0 },
	};
	char *argv1[] = { "vb-x", "--tcp", "--port", "9", NULL };
	char *argv2[] = { "vb-x", "--tcp=10.0.2.2", NULL };
	struct bench_args a;

	(void)state;
	bench_args_init(&a, "vb-x", NULL, 1);
	assert_int_equal(a.tcp, 0);
	assert_string_equal(bench_transport_name(&a), "vsock");
	optind = 0;
	assert_int_equal(bench_args_next(&a, 4, argv1, opts), -1);
	assert_int_equal(a.tcp, 1);
	assert_int_equal(a.port, 9);
	assert_int_equal(a.tcp_addr, htonl(0x7f000001));
	assert_string_equal(bench_transport_name(&a), "tcp");
	bench_args_init(&a, "vb-x", NULL, 1);
	optind = 0;
	assert_int_equal(bench_args_next(&a, 2, argv2, opts), -1);
	assert_int_equal(a.tcp_addr, htonl(0x0a000202));
}

/* Round trips against an echoing child over a socketpair, then a reset. */
static void test_pingpong_run(void **state)
{
	char req[100], resp[100], buf[256];
	double rtt[5];
	uint64_t at = 0;
	int sv[2];
	pid_t pid;

	(void)state;
	assert_int_equal(socketpair(AF_UNIX, SOCK_STREAM, 0, sv), 0);
	pid = fork();
	if (pid == 0) {
		ssize_t n, echoed = 0;

		close(sv[0]);
		/* Echo 7 requests' worth (2 warm-up + 5), then hang up. */
		while (echoed < 7 * 100 && (n = read(sv[1], buf, sizeof(buf))) > 0)
			echoed += write(sv[1], buf, n);
		_exit(0);
	}
	close(sv[1]);
	memset(req, 'x', sizeof(req));
	assert_int_equal(bench_pingpong_run(sv[0], req, resp, sizeof(req), 2, 5, rtt, &at), 0);
	assert_memory_equal(req, resp, sizeof(req));
	assert_true(rtt[0] > 0 && rtt[4] > 0);
	/* The peer is gone now: the next round trip fails and says which. */
	assert_true(bench_pingpong_run(sv[0], req, resp, sizeof(req), 0, 1, rtt, &at) < 0);
	assert_int_equal(at, 0);
	close(sv[0]);
	waitpid(pid, NULL, 0);
}

static void test_rtt_summarize(void **state)
{
	const double v[] = { 5, 1, 4, 2, 3 };
	struct bench_rtt r;

	(void)state;
	assert_int_equal(bench_rtt_summarize(v, 5, &r), 0);
	assert_float_equal(r.mean, 3.0, 1e-9);
	assert_float_equal(r.p50, 3.0, 1e-9);
	assert_float_equal(r.min, 1.0, 1e-9);
	assert_float_equal(r.max, 5.0, 1e-9);
	assert_true(r.p99 > 4.9 && r.p99 <= 5.0);
	assert_int_equal(bench_rtt_summarize(v, 0, &r), -EINVAL);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_parse_size),
		cmocka_unit_test(test_parse_u64_seconds),
		cmocka_unit_test(test_size_label),
		cmocka_unit_test(test_gbps_clock),
		cmocka_unit_test(test_json_line),
		cmocka_unit_test(test_json_tool_cpu),
		cmocka_unit_test(test_json_ctxsw),
		cmocka_unit_test(test_args_next),
		cmocka_unit_test(test_args_tcp),
		cmocka_unit_test(test_pingpong_run),
		cmocka_unit_test(test_rtt_summarize),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
