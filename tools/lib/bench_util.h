/* SPDX-License-Identifier: GPL-2.0 */
/*
 * bench_util.h - pure helpers shared by the benchmark programs in
 * tools/bench/: argument parsing, clocks, CPU pinning, size labels and a
 * tiny one-line JSON writer.  Nothing here opens a socket (see
 * bench_vsock.h), so all of it is unit tested on the host.
 */
#ifndef VSOCKBATCH_BENCH_UTIL_H
#define VSOCKBATCH_BENCH_UTIL_H

#include <getopt.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

/*
 * Parse a byte count: decimal digits with an optional K, M, G or T suffix
 * (either case, powers of 1024, like vsock_perf's memparse), optionally
 * followed by "B" or "iB" ("64K", "64KiB", "1g", "4096").  Returns 0,
 * -EINVAL for anything else (empty, sign, junk, fraction) or -ERANGE when
 * the value does not fit in 64 bits.
 */
int bench_parse_size(const char *s, uint64_t *out);

/* Plain unsigned decimal in [0, max]; 0, -EINVAL or -ERANGE. */
int bench_parse_u64(const char *s, uint64_t max, uint64_t *out);

/* Non-negative decimal seconds ("2", "0.5"); 0 or -EINVAL. */
int bench_parse_seconds(const char *s, double *out);

/*
 * Shortest exact label of a size: 65536 -> "64K", 1073741824 -> "1G",
 * 1536 -> "1536".  Returns buf.
 */
const char *bench_size_label(uint64_t v, char *buf, size_t len);

/* CLOCK_MONOTONIC in ns. */
uint64_t bench_now_ns(void);

/*
 * Smallest step CLOCK_MONOTONIC actually takes, measured: read the clock
 * until it changes, twice, and keep the second difference (the first one
 * starts mid-step); the minimum of three tries.  Tens of ns on a TSC
 * clocksource; the tick (4 ms at HZ=250) when the kernel fell back to
 * jiffies, as a guest without a usable TSC/HPET does: then durations are
 * quantized and sub-ms latencies cannot be measured.  clock_getres() is
 * no help here: it reports the hrtimer resolution (the tick whenever
 * high-res mode is off, even on a TSC).  Spins for at most ~3 steps.
 * Returns 0 if the clock never moved.
 */
uint64_t bench_clock_step_ns(void);
/* Above this, timings of single round trips are meaningless. */
#define BENCH_CLOCK_STEP_OK_NS	1000

/* bytes * 8 / ns = Gbit/s (10^9 bits); 0 when ns == 0. */
double bench_gbps(uint64_t bytes, uint64_t ns);

/* Pin the calling thread to one CPU; 0 or -errno. */
int bench_pin_cpu(int cpu);

/*
 * One JSON object on one line, written field by field:
 *   struct bench_json j; bench_json_begin(&j, stdout);
 *   bench_json_str(&j, "tool", "vb-recv"); bench_json_u64(&j, "bytes", n);
 *   bench_json_end(&j);   -> {"tool":"vb-recv","bytes":123}\n
 * Non-finite doubles are written as null (JSON has no NaN).
 */
struct bench_json {
	FILE *f;
	int fields;
};

void bench_json_begin(struct bench_json *j, FILE *f);
void bench_json_str(struct bench_json *j, const char *key, const char *val);
void bench_json_u64(struct bench_json *j, const char *key, uint64_t val);
void bench_json_i64(struct bench_json *j, const char *key, int64_t val);
void bench_json_double(struct bench_json *j, const char *key, double val);
void bench_json_bool(struct bench_json *j, const char *key, int val);
void bench_json_end(struct bench_json *j);

/* Version of the JSON lines the benchmark programs print ("format"). */
#define BENCH_JSON_FORMAT 1

/* bench_json_begin() and the fields every program's line starts with:
 * "tool" and "format". */
void bench_json_begin_tool(struct bench_json *j, FILE *f, const char *tool);

/*
 * Command line of the benchmark programs.  The options they all take the
 * same way (--port, --vsk-size, --cpu, --retry, --tcp, --seqpacket, --help)
 * are parsed here;
 * each program lists the ones it has in its struct option table with
 * these entries, keeps its own usage() text and handles its own options.
 * Every usage error is one "PROG: reason" line on stderr, then usage()
 * on stderr and exit(2).
 */
enum {
	BENCH_O_PORT = 0x100,
	BENCH_O_VSK,
	BENCH_O_CPU,
	BENCH_O_RETRY,
	BENCH_O_TCP,
	BENCH_O_SEQPACKET,
	BENCH_O_HELP,
};
#define BENCH_OPT_PORT	{ "port", required_argument, NULL, BENCH_O_PORT }
#define BENCH_OPT_VSK	{ "vsk-size", required_argument, NULL, BENCH_O_VSK }
#define BENCH_OPT_CPU	{ "cpu", required_argument, NULL, BENCH_O_CPU }
#define BENCH_OPT_RETRY	{ "retry", required_argument, NULL, BENCH_O_RETRY }
#define BENCH_OPT_HELP	{ "help", no_argument, NULL, BENCH_O_HELP }
/* --tcp[=ADDR]: TCP over IPv4 instead of AF_VSOCK, the comparison a user
 * would otherwise pick (reviewers asked for it); ADDR, default 127.0.0.1,
 * is the peer of a sender/client and the bind address of a listener. */
#define BENCH_OPT_TCP	{ "tcp", optional_argument, NULL, BENCH_O_TCP }
/* --seqpacket: an AF_VSOCK SOCK_SEQPACKET socket instead of SOCK_STREAM
 * (each send() one message, each recv() one message). */
#define BENCH_OPT_SEQPACKET { "seqpacket", no_argument, NULL, BENCH_O_SEQPACKET }

struct bench_args {
	const char *prog;
	void (*usage)(FILE *f);
	uint64_t port;		/* --port PORT, <= UINT32_MAX */
	uint64_t vsk_size;	/* --vsk-size SIZE, 0 = not given */
	uint64_t cpu;		/* --cpu N, <= 4095, if have_cpu */
	int have_cpu;
	double retry;		/* --retry SECONDS (default 5) */
	int have_retry;
	int tcp;		/* --tcp given */
	uint32_t tcp_addr;	/* its IPv4 address, network order */
	int seqpacket;		/* --seqpacket given (vsock only) */
	unsigned int src_port;	/* vsock local port, -1U: the kernel's */
};

/* Defaults: the given port, retry 5 s, vsock, nothing else set. */
void bench_args_init(struct bench_args *a, const char *prog,
		     void (*usage)(FILE *f), uint64_t port);

/* "PROG: <fmt...>", usage(stderr), exit(2). */
void bench_usage_error(const struct bench_args *a, const char *fmt, ...)
	__attribute__((noreturn, format(printf, 2, 3)));

/* "PROG: invalid value 'VAL' for --OPT", usage(stderr), exit(2). */
void bench_bad_arg(const struct bench_args *a, const char *opt, const char *val)
	__attribute__((noreturn));

/* bench_parse_u64() of --opt's value, or bench_bad_arg(). */
uint64_t bench_arg_u64(const struct bench_args *a, const char *opt,
		       const char *val, uint64_t max);

/* bench_parse_size() of --opt's value in [min, max], or bench_bad_arg(). */
uint64_t bench_arg_size(const struct bench_args *a, const char *opt,
			const char *val, uint64_t min, uint64_t max);

/*
 * getopt_long() over argv that handles the shared options itself: stores
 * them in *a, prints usage() on stdout and exits 0 for --help, exits 2 for
 * an unknown option, a missing or bad value, a non-option argument
 * left at the end, or --vsk-size or --seqpacket with --tcp (vsock options).  Returns the next option code of the program's own
 * (any val in opts other than BENCH_O_*, '?' and ':'), or -1 when argv is
 * done.
 */
int bench_args_next(struct bench_args *a, int argc, char **argv,
		    const struct option *opts);

/* "vsock", "vsock-seqpacket" or "tcp": the JSON lines' "transport" field. */
const char *bench_transport_name(const struct bench_args *a);

/* Pin to --cpu if given; 0, or -errno after "PROG: cannot pin to CPU N: reason". */
int bench_args_pin(const struct bench_args *a);

/* A process's context switch counts at one instant (getrusage). */
struct bench_ctxsw {
	long nvcsw;	/* voluntary: it blocked */
	long nivcsw;	/* involuntary: it was preempted */
};

/* The counts now; zeros if getrusage fails (it cannot for RUSAGE_SELF). */
void bench_ctxsw_now(struct bench_ctxsw *c);

/*
 * "nvcsw" and "nivcsw": this process's voluntary and involuntary context
 * switches from @from to @to.  A blocking receiver's voluntary switches
 * are its sleeps in recv(), each ended by a wake-up; a sender's, its
 * waits for credit or buffer space.  Untraced mechanism counts.
 */
void bench_json_ctxsw(struct bench_json *j, const struct bench_ctxsw *from,
		      const struct bench_ctxsw *to);

/* "cpu" (if --cpu was given) and bench_json_end(): how every line ends. */
void bench_json_end_cpu(struct bench_json *j, const struct bench_args *a);

#endif /* VSOCKBATCH_BENCH_UTIL_H */
