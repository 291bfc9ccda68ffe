// SPDX-License-Identifier: GPL-2.0
/* bench_pingpong.c - timed round trips and their summary (see the header). */
#include <errno.h>
#include <math.h>

#include "bench_pingpong.h"
#include "bench_util.h"
#include "bench_vsock.h"
#include "stats.h"

int bench_pingpong_run(int fd, const void *req, void *resp, size_t size,
		       uint64_t warmup, uint64_t count, double *rtt_us,
		       uint64_t *failed_at)
{
	uint64_t i;
	int err;

	for (i = 0; i < warmup + count; i++) {
		uint64_t t0 = bench_now_ns();

		err = bench_send_all(fd, req, size, NULL, NULL);
		if (!err)
			err = bench_recv_exact(fd, resp, size);
		if (err) {
			*failed_at = i;
			return err;
		}
		if (i >= warmup)
			rtt_us[i - warmup] = (double)(bench_now_ns() - t0) / 1e3;
	}
	return 0;
}

int bench_rtt_summarize(const double *rtt_us, size_t n, struct bench_rtt *out)
{
	size_t i;

	if (!n || stats_percentile(rtt_us, n, 50, &out->p50) ||
	    stats_percentile(rtt_us, n, 99, &out->p99) ||
	    stats_percentile(rtt_us, n, 99.9, &out->p999))
		return -EINVAL;
	out->mean = stats_mean(rtt_us, n);
	out->min = out->max = rtt_us[0];
	for (i = 1; i < n; i++) {
		out->min = fmin(out->min, rtt_us[i]);
		out->max = fmax(out->max, rtt_us[i]);
	}
	return 0;
}
