// SPDX-License-Identifier: GPL-2.0
/*
 * summarize_core.c - pairing, plan checks and cell formatting for
 * `vsockbatch-lab summarize` (see summarize.h).  Pure: no I/O.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "summarize.h"

const struct sum_metric_info sum_metrics[SUM_M_NR] = {
	[SUM_M_TPUT_FIXED]  = { "tput_fixed_gbps", "Gbit/s",
				"RX throughput, 64 KiB recv()", false },
	[SUM_M_TPUT_MATCH]  = { "tput_match_gbps", "Gbit/s",
				"RX throughput, recv() size = write size", false },
	[SUM_M_RECV_FIXED]  = { "recv_calls_fixed", "calls",
				"recv() calls, 64 KiB recv()", false },
	[SUM_M_RECV_MATCH]  = { "recv_calls_match", "calls",
				"recv() calls, matched recv()", false },
	[SUM_M_RTT_MEAN]    = { "rtt_mean_us", "us", "ping-pong RTT, mean", false },
	[SUM_M_RTT_P50]     = { "rtt_p50_us", "us", "ping-pong RTT, p50", false },
	[SUM_M_RTT_P99]     = { "rtt_p99_us", "us", "ping-pong RTT, p99", false },
	[SUM_M_TPUT_TRACED] = { "tput_traced_gbps", "Gbit/s",
				"RX throughput under the tracer, 64 KiB recv()", true },
	[SUM_M_BATCH_PKTS]  = { "batch_pkts", "pkts",
				"mean packets per lock window", true, true },
	[SUM_M_HOLD_MEAN]   = { "hold_mean_ns", "ns",
				"mean window time (full mode) or lock hold (light) per batch", true, true },
	[SUM_M_DR_PER_PKT]  = { "dr_per_pkt", "calls/pkt",
				"data-ready calls per packet", true, true },
	[SUM_M_WS_PER_PKT]  = { "ws_per_pkt", "calls/pkt",
				"write-space calls per packet", true, true },
	[SUM_M_LOOKUPS_PER_PKT] = { "lookups_per_pkt", "calls/pkt",
				"socket lookups per packet", true, true },
	[SUM_M_COST_PER_BYTE] = { "cost_per_byte", "cpu-clock-ns/byte",
				"CPU cost per received byte, all vCPUs", true, true },
	[SUM_M_WORKER_NS_PER_BYTE] = { "worker_ns_per_byte", "ns/byte",
				"time inside RX workers per byte", true, true },
	[SUM_M_COST_RX_CPU] = { "cost_per_byte_rx_cpu", "cpu-clock-ns/byte",
				"CPU cost per received byte, RX worker vCPU", true, true },
	[SUM_M_STAT_NS_PER_BYTE] = { "stat_ns_per_byte", "ns/byte",
				"busy CPU time per received byte, all vCPUs, untraced (/proc/stat)", false },
	[SUM_M_STAT_RX_NS_PER_BYTE] = { "stat_ns_per_byte_rx_cpu", "ns/byte",
				"busy CPU time per received byte, RX worker vCPU, untraced (/proc/stat)", false },
	[SUM_M_INSN_PER_BYTE] = { "insn_per_byte", "insns/byte",
				"guest instructions per received byte, all vCPUs, untraced (icount)", false },
	[SUM_M_INSN_KERNEL] = { "insn_kernel_per_byte", "insns/byte",
				"kernel-mode guest instructions per received byte, untraced (icount)", false },
	[SUM_M_INSN_CPU0] = { "insn_cpu0_per_byte", "insns/byte",
				"guest instructions per received byte on vCPU 0, untraced (icount)", false },
	[SUM_M_INSN_CPU1] = { "insn_cpu1_per_byte", "insns/byte",
				"guest instructions per received byte on vCPU 1, untraced (icount)", false },
	[SUM_M_INSN_MATCH] = { "insn_per_byte_match", "insns/byte",
				"guest instructions per received byte, recv() size = write size, untraced (icount)", false },
	[SUM_M_INSN_TRACED] = { "insn_per_byte_traced", "insns/byte",
				"guest instructions per received byte under vsockbatch record (icount)", true },
	[SUM_M_WARP_PCT] = { "icount_warp_pct", "%",
				"idle (warped) share of the transfer's guest time (icount)", false },
	[SUM_M_TPUT_TCP] = { "tput_tcp_gbps", "Gbit/s",
				"RX throughput of the same transfer over TCP on 127.0.0.1, 64 KiB recv(), untraced", false },
	[SUM_M_STAT_TCP_NS_PER_BYTE] = { "stat_ns_per_byte_tcp", "ns/byte",
				"busy CPU time per received byte over TCP, all vCPUs, untraced (/proc/stat)", false },
	[SUM_M_EFF] = { "eff_gbps_per_vcpu", "Gbit/s per busy vCPU",
				"throughput per busy vCPU, all vCPUs, 64 KiB recv(), untraced (/proc/stat)", false },
	[SUM_M_EFF_RX] = { "eff_gbps_per_rx_vcpu", "Gbit/s per busy vCPU",
				"throughput per busy RX worker vCPU, untraced (/proc/stat)", false },
	[SUM_M_EFF_TCP] = { "eff_tcp_gbps_per_vcpu", "Gbit/s per busy vCPU",
				"TCP throughput per busy vCPU, all vCPUs, untraced (/proc/stat)", false },
	[SUM_M_RTT_TCP_MEAN] = { "rtt_tcp_mean_us", "us",
				"ping-pong RTT over TCP on 127.0.0.1, mean", false },
	[SUM_M_RX_NVCSW] = { "rx_nvcsw_per_mib", "sleeps/MiB",
				"receiver's voluntary context switches (sleeps in recv(), each ended by a wake-up) per MiB, 64 KiB recv(), untraced", false },
	[SUM_M_TX_NVCSW] = { "tx_nvcsw_per_mib", "sleeps/MiB",
				"sender's voluntary context switches (waits for credit) per MiB, loopback, untraced", false },
	[SUM_M_RTT_P999] = { "rtt_p999_us", "us", "ping-pong RTT, p99.9", false },
};

bool sum_xfer_excluded(double other_cores, double steal_pct,
		       double max_other, double max_steal)
{
	/* NaN compares false both ways: an unmeasured value or an unset
	 * limit never excludes. */
	return other_cores > max_other || steal_pct > max_steal;
}

int sum_metric_find(const char *name)
{
	int i;

	for (i = 0; i < SUM_M_NR; i++)
		if (!strcmp(sum_metrics[i].name, name))
			return i;
	return -1;
}

int sum_check_plan(const struct sum_run *runs, size_t nruns,
		   unsigned int nstates, unsigned int *nrounds,
		   char *err, size_t errlen)
{
	unsigned int maxr = 0, r, st;
	unsigned char *seen_state, *seen_pos;
	size_t i;

	if (!nruns || !nstates) {
		snprintf(err, errlen, "no runs or no kernel states in the plan");
		return -EINVAL;
	}
	for (i = 0; i < nruns; i++) {
		if (runs[i].state >= nstates || runs[i].pos >= nstates) {
			snprintf(err, errlen,
				 "run %zu: state %u / position %u out of range (%u states)",
				 i, runs[i].state, runs[i].pos, nstates);
			return -EINVAL;
		}
		if (runs[i].round > maxr)
			maxr = runs[i].round;
	}
	if (nruns != (size_t)(maxr + 1) * nstates) {
		snprintf(err, errlen,
			 "%zu runs for %u rounds of %u states: rounds are incomplete",
			 nruns, maxr + 1, nstates);
		return -EINVAL;
	}
	seen_state = calloc((size_t)(maxr + 1) * nstates * 2, 1);
	if (!seen_state) {
		snprintf(err, errlen, "out of memory");
		return -ENOMEM;
	}
	seen_pos = seen_state + (size_t)(maxr + 1) * nstates;
	for (i = 0; i < nruns; i++) {
		r = runs[i].round;
		st = runs[i].state;
		if (seen_state[r * nstates + st]++ ||
		    seen_pos[r * nstates + runs[i].pos]++) {
			snprintf(err, errlen,
				 "round %u: state %u or position %u planned twice",
				 r, st, runs[i].pos);
			free(seen_state);
			return -EINVAL;
		}
	}
	free(seen_state);
	*nrounds = maxr + 1;
	return 0;
}

static const struct sum_run *find_run(const struct sum_run *runs, size_t nruns,
				      unsigned int round, unsigned int state)
{
	size_t i;

	for (i = 0; i < nruns; i++)
		if (runs[i].round == round && runs[i].state == state)
			return &runs[i];
	return NULL;
}

int sum_check_samples(const struct sum_sample *s, size_t n,
		      const struct sum_run *runs, size_t nruns,
		      char *err, size_t errlen)
{
	const struct sum_run *run;
	size_t i, j;

	for (i = 0; i < n; i++) {
		if ((unsigned int)s[i].metric >= SUM_M_NR) {
			snprintf(err, errlen, "sample %zu: unknown metric", i);
			return -EINVAL;
		}
		run = find_run(runs, nruns, s[i].round, s[i].state);
		if (!run || run->pos != s[i].pos) {
			snprintf(err, errlen,
				 "sample %zu (round %u, state %u, position %u) matches no planned run",
				 i, s[i].round, s[i].state, s[i].pos);
			return -EINVAL;
		}
		if (!isfinite(s[i].value)) {
			snprintf(err, errlen, "round %u state %u payload %u %s: value is not a number",
				 s[i].round, s[i].state, s[i].payload,
				 sum_metrics[s[i].metric].name);
			return -EINVAL;
		}
	}
	/* Duplicates: quadratic, but sets are a few thousand samples. */
	for (i = 0; i < n; i++)
		for (j = i + 1; j < n; j++)
			if (s[i].round == s[j].round && s[i].state == s[j].state &&
			    s[i].payload == s[j].payload &&
			    s[i].metric == s[j].metric) {
				snprintf(err, errlen,
					 "round %u state %u payload %u %s: measured twice",
					 s[i].round, s[i].state, s[i].payload,
					 sum_metrics[s[i].metric].name);
				return -EINVAL;
			}
	return 0;
}

static const struct sum_sample *find_sample(const struct sum_sample *s,
					     size_t n, unsigned int round,
					     unsigned int state,
					     unsigned int payload,
					     enum sum_metric metric)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (s[i].round == round && s[i].state == state &&
		    s[i].payload == payload && s[i].metric == metric)
			return &s[i];
	return NULL;
}

void sum_pairs_free(struct sum_pairs *p)
{
	free(p->a);
	free(p->b);
	free(p->ab);
	memset(p, 0, sizeof(*p));
}

int sum_pair(const struct sum_sample *s, size_t n, unsigned int nrounds,
	     unsigned int a, unsigned int b, unsigned int payload,
	     enum sum_metric metric, bool allow_missing,
	     struct sum_pairs *out, char *err, size_t errlen)
{
	const struct sum_sample *sa, *sb;
	unsigned int r;

	memset(out, 0, sizeof(*out));
	if (a == b) {
		snprintf(err, errlen, "a state cannot be paired with itself");
		return -EINVAL;
	}
	out->a = calloc(nrounds ? nrounds : 1, sizeof(double));
	out->b = calloc(nrounds ? nrounds : 1, sizeof(double));
	out->ab = calloc(nrounds ? nrounds : 1, sizeof(int));
	if (!out->a || !out->b || !out->ab) {
		sum_pairs_free(out);
		snprintf(err, errlen, "out of memory");
		return -ENOMEM;
	}
	for (r = 0; r < nrounds; r++) {
		sa = find_sample(s, n, r, a, payload, metric);
		sb = find_sample(s, n, r, b, payload, metric);
		if (!sa && !sb)
			continue;
		if (!sa || !sb) {
			if (!allow_missing) {
				snprintf(err, errlen,
					 "round %u payload %u %s: state %u has a value, state %u has none",
					 r, payload, sum_metrics[metric].name,
					 sa ? a : b, sa ? b : a);
				sum_pairs_free(out);
				return -EINVAL;
			}
			out->dropped++;
			continue;
		}
		out->a[out->n] = sa->value;
		out->b[out->n] = sb->value;
		out->ab[out->n] = sa->pos < sb->pos;
		out->n_ab += out->ab[out->n];
		out->n++;
	}
	return 0;
}

void sum_row_free(struct sum_row *row)
{
	sum_pairs_free(&row->pairs);
}

int sum_row_compute(struct sum_row *row, const struct sum_sample *s,
		    size_t n, unsigned int nrounds, unsigned int a,
		    unsigned int b, unsigned int payload,
		    enum sum_metric metric, bool allow_missing, double level,
		    unsigned int iters, uint64_t seed, double noise_pct,
		    char *err, size_t errlen)
{
	size_t i;
	int ret;

	memset(row, 0, sizeof(*row));
	row->payload = payload;
	row->metric = metric;
	ret = sum_pair(s, n, nrounds, a, b, payload, metric, allow_missing,
		       &row->pairs, err, errlen);
	if (ret)
		return ret;
	row->mean_a = stats_mean(row->pairs.a, row->pairs.n);
	row->mean_b = stats_mean(row->pairs.b, row->pairs.n);
	if (!row->pairs.n) {
		snprintf(row->why, sizeof(row->why), "no complete pair");
		return 0;
	}
	for (i = 0; i < row->pairs.n; i++)
		if (!(row->pairs.a[i] > 0) || !(row->pairs.b[i] > 0)) {
			snprintf(row->why, sizeof(row->why),
				 "a value <= 0 has no log ratio");
			return 0;
		}
	if (stats_paired(row->pairs.a, row->pairs.b, row->pairs.n, level,
			 &row->st)) {
		snprintf(row->why, sizeof(row->why), "statistics refused the values");
		return 0;
	}
	row->ok = 1;
	row->verdict = stats_paired_verdict(&row->st, noise_pct);
	if (row->pairs.n >= 2 &&
	    !stats_bootstrap_pairs(row->pairs.a, row->pairs.b, row->pairs.n,
				   level, iters, seed, &row->boot))
		row->has_boot = 1;
	if (!stats_order_check(row->pairs.a, row->pairs.b, row->pairs.ab,
			       row->pairs.n, level, &row->order))
		row->has_order = 1;
	return 0;
}

const char *sum_payload_label(unsigned int payload, char *buf, size_t len)
{
	if (payload && !(payload % (1024u * 1024)))
		snprintf(buf, len, "%uM", payload / (1024u * 1024));
	else if (payload && !(payload % 1024))
		snprintf(buf, len, "%uK", payload / 1024);
	else
		snprintf(buf, len, "%uB", payload);
	return buf;
}

const char *sum_fmt_value(double v, char *buf, size_t len)
{
	if (!isfinite(v))
		snprintf(buf, len, "-");
	else if (fabs(v) >= 1 && fabs(v - round(v)) < 1e-9)
		snprintf(buf, len, "%.0f", v);
	else if (fabs(v) >= 1000)
		snprintf(buf, len, "%.1f", v);
	else
		snprintf(buf, len, "%.4g", v);
	return buf;
}

const char *sum_fmt_change(const struct sum_row *row, char *buf, size_t len)
{
	if (!row->ok)
		snprintf(buf, len, "n/a (%s)", row->why[0] ? row->why : "no data");
	else if (!row->st.has_ci)
		snprintf(buf, len, "%+.2f%% (n=%zu, no CI)", row->st.change_pct,
			 row->st.n);
	else
		snprintf(buf, len, "%+.2f%% [%+.2f%%, %+.2f%%]",
			 row->st.change_pct, row->st.ci_lo_pct,
			 row->st.ci_hi_pct);
	return buf;
}
