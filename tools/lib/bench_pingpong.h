/* SPDX-License-Identifier: GPL-2.0 */
/*
 * bench_pingpong.h - the timed half of a ping-pong client, on any stream
 * fd: used by vb-pingpong (guest, AF_VSOCK) and by the lab back-end's
 * host-side client (`vhost-user-vsock pingpong`, a Unix socket).
 */
#ifndef VSOCKBATCH_BENCH_PINGPONG_H
#define VSOCKBATCH_BENCH_PINGPONG_H

#include <stddef.h>
#include <stdint.h>

struct bench_rtt {
	double mean, p50, p99, p999, min, max;	/* microseconds */
};

/*
 * @warmup + @count round trips on @fd: send the @size bytes of @req,
 * receive the whole echo into @resp, time it with CLOCK_MONOTONIC; the
 * last @count round trips go to @rtt_us (microseconds).  Returns 0 or
 * -errno, with the failing round trip's index in *@failed_at.
 */
int bench_pingpong_run(int fd, const void *req, void *resp, size_t size,
		       uint64_t warmup, uint64_t count, double *rtt_us,
		       uint64_t *failed_at);

/*
 * Mean, p50, p99, p99.9, min and max of @n > 0 round-trip times; -EINVAL
 * if not.  p99.9 needs 1000 round trips or more to be more than the max.
 */
int bench_rtt_summarize(const double *rtt_us, size_t n, struct bench_rtt *out);

#endif
