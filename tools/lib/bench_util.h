/* SPDX-License-Identifier: GPL-2.0 */
/*
 * bench_util.h - pure helpers shared by the benchmark programs in
 * tools/bench/: argument parsing, clocks, CPU pinning, size labels and a
 * tiny one-line JSON writer.  Nothing here opens a socket (see
 * bench_vsock.h), so all of it is unit tested on the host.
 */
#ifndef VSOCKBATCH_BENCH_UTIL_H
#define VSOCKBATCH_BENCH_UTIL_H

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

#endif /* VSOCKBATCH_BENCH_UTIL_H */
