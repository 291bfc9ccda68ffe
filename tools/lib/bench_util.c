// SPDX-License-Identifier: GPL-2.0
/*
 * bench_util.c - parsing, clocks, pinning and JSON lines for tools/bench/.
 */
#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <sched.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>
#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/resource.h>

#include "bench_util.h"

/* Digits only, no sign, no spaces: strtoull alone accepts "-1" and " 1".
 * NULL is -EINVAL too. */
static int parse_digits(const char **sp, uint64_t *out)
{
	const char *s = *sp;
	uint64_t v = 0;

	if (!s || !isdigit((unsigned char)*s))
		return -EINVAL;
	for (; isdigit((unsigned char)*s); s++) {
		unsigned int d = (unsigned int)(*s - '0');

		if (v > (UINT64_MAX - d) / 10)
			return -ERANGE;
		v = v * 10 + d;
	}
	*sp = s;
	*out = v;
	return 0;
}

int bench_parse_size(const char *s, uint64_t *out)
{
	unsigned int shift = 0;
	uint64_t v;
	int err;

	err = parse_digits(&s, &v);
	if (err)
		return err;
	switch (*s) {
	case 'k': case 'K': shift = 10; s++; break;
	case 'm': case 'M': shift = 20; s++; break;
	case 'g': case 'G': shift = 30; s++; break;
	case 't': case 'T': shift = 40; s++; break;
	default: break;
	}
	/* "64KiB", "64KB", "4096B" are all the same thing. */
	if (shift && (*s == 'i' || *s == 'I')) {
		if (s[1] != 'b' && s[1] != 'B')
			return -EINVAL;
		s++;
	}
	if (*s == 'b' || *s == 'B')
		s++;
	if (*s)
		return -EINVAL;
	if (shift && v > (UINT64_MAX >> shift))
		return -ERANGE;
	*out = v << shift;
	return 0;
}

int bench_parse_u64(const char *s, uint64_t max, uint64_t *out)
{
	uint64_t v;
	int err;

	err = parse_digits(&s, &v);
	if (err)
		return err;
	if (*s)
		return -EINVAL;
	if (v > max)
		return -ERANGE;
	*out = v;
	return 0;
}

int bench_parse_seconds(const char *s, double *out)
{
	char *end;
	double v;

	if (!s || !(isdigit((unsigned char)*s) || *s == '.'))
		return -EINVAL;
	errno = 0;
	v = strtod(s, &end);
	if (errno || *end || !isfinite(v) || v < 0)
		return -EINVAL;
	*out = v;
	return 0;
}

const char *bench_size_label(uint64_t v, char *buf, size_t len)
{
	static const char units[] = "KMGT";
	int u = -1;

	while (v && !(v & 1023) && u < 3) {
		v >>= 10;
		u++;
	}
	if (u < 0)
		snprintf(buf, len, "%llu", (unsigned long long)v);
	else
		snprintf(buf, len, "%llu%c", (unsigned long long)v, units[u]);
	return buf;
}

uint64_t bench_now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ULL + (uint64_t)ts.tv_nsec;
}

/* Next clock value different from t; 0 after too many reads. */
static uint64_t next_tick(uint64_t t)
{
	unsigned long i;
	uint64_t n;

	/* 2^26 reads: seconds even for a slow emulated clock read, far
	 * beyond any tick */
	for (i = 0; i < (1UL << 26); i++) {
		n = bench_now_ns();
		if (n != t)
			return n;
	}
	return 0;
}

uint64_t bench_clock_step_ns(void)
{
	uint64_t best = 0, a, b;
	int k;

	for (k = 0; k < 3; k++) {
		a = next_tick(bench_now_ns());
		b = a ? next_tick(a) : 0;
		if (!b)
			return 0;
		if (!best || b - a < best)
			best = b - a;
	}
	return best;
}

double bench_gbps(uint64_t bytes, uint64_t ns)
{
	if (!ns)
		return 0.0;
	/* bits per ns == Gbit per s */
	return (double)bytes * 8.0 / (double)ns;
}

int bench_pin_cpu(int cpu)
{
	cpu_set_t set;

	if (cpu < 0 || cpu >= CPU_SETSIZE)
		return -EINVAL;
	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	if (sched_setaffinity(0, sizeof(set), &set))
		return -errno;
	return 0;
}

/* --- JSON line writer ------------------------------------------------------- */

static void json_string(FILE *f, const char *s)
{
	fputc('"', f);
	for (; *s; s++) {
		unsigned char c = (unsigned char)*s;

		if (c == '"' || c == '\\')
			fprintf(f, "\\%c", c);
		else if (c < 0x20)
			fprintf(f, "\\u%04x", c);
		else
			fputc(c, f);
	}
	fputc('"', f);
}

static void json_key(struct bench_json *j, const char *key)
{
	if (j->fields++)
		fputc(',', j->f);
	json_string(j->f, key);
	fputc(':', j->f);
}

void bench_json_begin(struct bench_json *j, FILE *f)
{
	j->f = f;
	j->fields = 0;
	fputc('{', f);
}

void bench_json_str(struct bench_json *j, const char *key, const char *val)
{
	json_key(j, key);
	json_string(j->f, val);
}

void bench_json_u64(struct bench_json *j, const char *key, uint64_t val)
{
	json_key(j, key);
	fprintf(j->f, "%llu", (unsigned long long)val);
}

void bench_json_i64(struct bench_json *j, const char *key, int64_t val)
{
	json_key(j, key);
	fprintf(j->f, "%lld", (long long)val);
}

void bench_json_double(struct bench_json *j, const char *key, double val)
{
	json_key(j, key);
	if (isfinite(val))
		fprintf(j->f, "%.9g", val);
	else
		fputs("null", j->f);
}

void bench_json_bool(struct bench_json *j, const char *key, int val)
{
	json_key(j, key);
	fputs(val ? "true" : "false", j->f);
}

void bench_json_end(struct bench_json *j)
{
	fputs("}\n", j->f);
	fflush(j->f);
}

void bench_json_begin_tool(struct bench_json *j, FILE *f, const char *tool)
{
	bench_json_begin(j, f);
	bench_json_str(j, "tool", tool);
	bench_json_u64(j, "format", BENCH_JSON_FORMAT);
}

/* --- command line ----------------------------------------------------------- */

void bench_args_init(struct bench_args *a, const char *prog,
		     void (*usage)(FILE *f), uint64_t port)
{
	memset(a, 0, sizeof(*a));
	a->prog = prog;
	a->usage = usage;
	a->port = port;
	a->retry = 5.0;
	a->src_port = -1U;	/* VMADDR_PORT_ANY */
}

void bench_usage_error(const struct bench_args *a, const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "%s: ", a->prog);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	a->usage(stderr);
	exit(2);
}

void bench_bad_arg(const struct bench_args *a, const char *opt, const char *val)
{
	bench_usage_error(a, "invalid value '%s' for --%s", val, opt);
}

uint64_t bench_arg_u64(const struct bench_args *a, const char *opt,
		       const char *val, uint64_t max)
{
	uint64_t v;

	if (bench_parse_u64(val, max, &v))
		bench_bad_arg(a, opt, val);
	return v;
}

uint64_t bench_arg_size(const struct bench_args *a, const char *opt,
			const char *val, uint64_t min, uint64_t max)
{
	uint64_t v;

	if (bench_parse_size(val, &v) || v < min || v > max)
		bench_bad_arg(a, opt, val);
	return v;
}

int bench_args_next(struct bench_args *a, int argc, char **argv,
		    const struct option *opts)
{
	int c;

	/* our own one-line reasons instead of getopt's */
	opterr = 0;
	for (;;) {
		c = getopt_long(argc, argv, "", opts, NULL);
		switch (c) {
		case -1:
			if (optind < argc)
				bench_usage_error(a, "unexpected argument '%s'",
						  argv[optind]);
			if (a->tcp && a->vsk_size)
				bench_usage_error(a, "--vsk-size is a vsock option, not one of --tcp");
			if (a->tcp && a->seqpacket)
				bench_usage_error(a, "--seqpacket is a vsock socket type, not one of --tcp");
			return -1;
		case BENCH_O_PORT:
			a->port = bench_arg_u64(a, "port", optarg, UINT32_MAX);
			break;
		case BENCH_O_VSK:
			a->vsk_size = bench_arg_size(a, "vsk-size", optarg, 1,
						     UINT64_MAX);
			break;
		case BENCH_O_CPU:
			a->cpu = bench_arg_u64(a, "cpu", optarg, 4095);
			a->have_cpu = 1;
			break;
		case BENCH_O_RETRY:
			if (bench_parse_seconds(optarg, &a->retry))
				bench_bad_arg(a, "retry", optarg);
			a->have_retry = 1;
			break;
		case BENCH_O_TCP:
			a->tcp = 1;
			a->tcp_addr = htonl(INADDR_LOOPBACK);
			if (optarg && inet_pton(AF_INET, optarg, &a->tcp_addr) != 1)
				bench_bad_arg(a, "tcp", optarg);
			break;
		case BENCH_O_SEQPACKET:
			a->seqpacket = 1;
			break;
		case BENCH_O_HELP:
			a->usage(stdout);
			exit(0);
		case '?':
		case ':':
			bench_usage_error(a, "unknown option or missing value: %s",
					  argv[optind - 1]);
		default:
			return c;
		}
	}
}

const char *bench_transport_name(const struct bench_args *a)
{
	if (a->tcp)
		return "tcp";
	return a->seqpacket ? "vsock-seqpacket" : "vsock";
}

int bench_args_pin(const struct bench_args *a)
{
	int err;

	if (!a->have_cpu)
		return 0;
	err = bench_pin_cpu((int)a->cpu);
	if (err)
		fprintf(stderr, "%s: cannot pin to CPU %llu: %s\n", a->prog,
			(unsigned long long)a->cpu, strerror(-err));
	return err;
}

void bench_ctxsw_now(struct bench_ctxsw *c)
{
	struct rusage ru;

	memset(c, 0, sizeof(*c));
	if (getrusage(RUSAGE_SELF, &ru))
		return;
	c->nvcsw = ru.ru_nvcsw;
	c->nivcsw = ru.ru_nivcsw;
}

void bench_json_ctxsw(struct bench_json *j, const struct bench_ctxsw *from,
		      const struct bench_ctxsw *to)
{
	bench_json_i64(j, "nvcsw", (int64_t)(to->nvcsw - from->nvcsw));
	bench_json_i64(j, "nivcsw", (int64_t)(to->nivcsw - from->nivcsw));
}

void bench_json_end_cpu(struct bench_json *j, const struct bench_args *a)
{
	if (a->have_cpu)
		bench_json_i64(j, "cpu", (int64_t)a->cpu);
	bench_json_end(j);
}
