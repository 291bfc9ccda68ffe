/* SPDX-License-Identifier: GPL-2.0 */
/*
 * summarize.h - the pure half of `vsockbatch-lab summarize`: the samples of
 * an AB/BA experiment (scripts/experiment.sh), pairing by round, order
 * bookkeeping and the formatting of CI cells.  No I/O here, so the unit
 * tests can feed hand-made sample sets.
 *
 * A sample is one number measured in one run: (round, position of the run
 * inside its round, kernel state, payload, metric, value).  A round runs
 * every state once, on a fresh guest each, in alternating order (round i
 * forward, round i+1 reversed), so any two states form one AB or BA pair
 * per round.
 */
#ifndef VSOCKBATCH_SUMMARIZE_H
#define VSOCKBATCH_SUMMARIZE_H

#include <stdbool.h>
#include <stddef.h>

#include "stats.h"

enum sum_metric {
	SUM_M_TPUT_FIXED = 0,	/* receiver Gbit/s, 64 KiB recv() */
	SUM_M_TPUT_MATCH,	/* receiver Gbit/s, recv() size = write size */
	SUM_M_RECV_FIXED,	/* recv() calls, fixed 64 KiB */
	SUM_M_RECV_MATCH,	/* recv() calls, matched */
	SUM_M_RTT_MEAN,		/* ping-pong RTT, us */
	SUM_M_RTT_P50,
	SUM_M_RTT_P99,
	SUM_M_TPUT_TRACED,	/* Gbit/s of the traced run (fixed 64 KiB) */
	SUM_M_BATCH_PKTS,	/* tracer: mean packets per lock window */
	SUM_M_HOLD_MEAN,	/* tracer: mean lock hold per batch, ns */
	SUM_M_DR_PER_PKT,	/* data-ready calls per packet */
	SUM_M_WS_PER_PKT,	/* write-space calls per packet */
	SUM_M_LOOKUPS_PER_PKT,	/* socket lookups per packet */
	SUM_M_COST_PER_BYTE,	/* CPU cost per byte (cycles or cpu-clock ns) */
	SUM_M_WORKER_NS_PER_BYTE, /* time inside RX workers per byte */
	SUM_M_COST_RX_CPU,	/* CPU cost per byte on the RX worker's vCPU */
	SUM_M_STAT_NS_PER_BYTE,	/* untraced: busy ns per byte, all vCPUs (/proc/stat) */
	SUM_M_STAT_RX_NS_PER_BYTE, /* untraced: the same on the RX worker's vCPU */
	SUM_M_INSN_PER_BYTE,	/* icount: guest instructions per byte, all vCPUs */
	SUM_M_INSN_KERNEL,	/* icount: the kernel-mode part of it */
	SUM_M_INSN_CPU0,	/* icount: on vCPU 0 (the receiver's) */
	SUM_M_INSN_CPU1,	/* icount: on vCPU 1 (h2g: the RX worker's) */
	SUM_M_INSN_MATCH,	/* icount: all vCPUs, recv() size = write size */
	SUM_M_INSN_TRACED,	/* icount: all vCPUs, under vsockbatch record */
	SUM_M_WARP_PCT,		/* icount: idle (warped) share of guest time, % */
	SUM_M_TPUT_TCP,		/* the fixed transfer over TCP on 127.0.0.1, Gbit/s */
	SUM_M_STAT_TCP_NS_PER_BYTE, /* its busy ns per byte, all vCPUs (/proc/stat) */
	SUM_M_EFF,		/* untraced: Gbit/s per busy vCPU, all vCPUs */
	SUM_M_EFF_RX,		/* untraced: Gbit/s per busy RX worker vCPU (h2g) */
	SUM_M_EFF_TCP,		/* TCP: Gbit/s per busy vCPU */
	SUM_M_RTT_TCP_MEAN,	/* ping-pong RTT over TCP, us */
	SUM_M_RX_NVCSW,		/* receiver's sleeps (voluntary switches) per MiB */
	SUM_M_TX_NVCSW,		/* loopback sender's sleeps per MiB */
	SUM_M_RTT_P999,		/* ping-pong RTT p99.9, us (1000+ round trips) */
	SUM_M_NR
};

struct sum_metric_info {
	const char *name;	/* samples.jsonl / summary.json key */
	const char *unit;	/* SUM_M_COST_PER_BYTE: set from the files */
	const char *desc;
	bool traced;		/* measured in a `vsockbatch record` run */
	bool from_results;	/* derived from its results file, never a sample line */
};

extern const struct sum_metric_info sum_metrics[SUM_M_NR];

/* Metric by name, or -1. */
int sum_metric_find(const char *name);

struct sum_sample {
	unsigned int round;
	unsigned int pos;	/* position of the run in its round, 0-based */
	unsigned int state;	/* index into the experiment's states */
	unsigned int payload;	/* bytes */
	enum sum_metric metric;
	double value;
};

/*
 * One planned run of the manifest: which state ran in which round at
 * which position, and whether the guest run succeeded.
 */
struct sum_run {
	unsigned int round;
	unsigned int pos;
	unsigned int state;
	int status;		/* guest-run.sh exit status */
};

/*
 * Check the run plan: every round holds every state exactly once at the
 * positions 0..nstates-1, rounds are 0..nrounds-1 without gaps.  Returns
 * 0, or -EINVAL with a one-line reason in err.  *nrounds is set on success.
 */
int sum_check_plan(const struct sum_run *runs, size_t nruns,
		   unsigned int nstates, unsigned int *nrounds,
		   char *err, size_t errlen);

/*
 * Check that samples agree with the plan: each sample's (round, state)
 * is a planned run at the same position, and no (round, state, payload,
 * metric) appears twice.  Returns 0 or -EINVAL with a reason.
 */
int sum_check_samples(const struct sum_sample *s, size_t n,
		      const struct sum_run *runs, size_t nruns,
		      char *err, size_t errlen);

struct sum_pairs {
	size_t n;		/* complete pairs */
	size_t dropped;		/* rounds where only one side had a value */
	size_t n_ab;		/* pairs where state a ran first */
	double *a, *b;		/* values, n each */
	int *ab;		/* 1 when a ran before b in that pair */
};

/*
 * Pair the values of (payload, metric) between states a and b by round.
 * A round where exactly one of the two has a value is incomplete: refused
 * (-EINVAL, reason in err) unless allow_missing, then counted in dropped.
 * Rounds where neither has one are skipped.  Arrays are malloc'ed (free
 * with sum_pairs_free); n may be 0.  Returns 0, -EINVAL or -ENOMEM.
 */
int sum_pair(const struct sum_sample *s, size_t n, unsigned int nrounds,
	     unsigned int a, unsigned int b, unsigned int payload,
	     enum sum_metric metric, bool allow_missing,
	     struct sum_pairs *out, char *err, size_t errlen);
void sum_pairs_free(struct sum_pairs *p);

/* The analysis of one table row. */
struct sum_row {
	unsigned int payload;
	enum sum_metric metric;
	struct sum_pairs pairs;
	double mean_a, mean_b;		/* arithmetic means of the pairs (NaN: none) */
	int ok;				/* stats computed */
	struct stats_paired st;
	int has_boot;
	struct stats_boot boot;
	int has_order;
	struct stats_order order;
	enum stats_verdict verdict;
	char why[96];			/* when !ok: why no statistics */
};

/*
 * Pair and analyse: stats_paired (t-interval on log ratios), the pair
 * bootstrap (n >= 2) and the order check.  Values <= 0 cannot be
 * log-ratioed: the row is kept with ok = 0 and a reason.  Returns 0, or
 * the error of sum_pair().
 */
int sum_row_compute(struct sum_row *row, const struct sum_sample *s,
		    size_t n, unsigned int nrounds, unsigned int a,
		    unsigned int b, unsigned int payload,
		    enum sum_metric metric, bool allow_missing, double level,
		    unsigned int iters, uint64_t seed, double noise_pct,
		    char *err, size_t errlen);
void sum_row_free(struct sum_row *row);

/*
 * The exclusion rule of a wall-clock set (manifest experiment.exclusion):
 * a transfer is excluded when the host's other load during it exceeded
 * max_other cores or the steal time max_steal %.  A NaN limit is off; a
 * NaN measurement never trips a limit (no host record: kept, counted).
 */
bool sum_xfer_excluded(double other_cores, double steal_pct,
		       double max_other, double max_steal);

/* "64B", "512B", "1K", "64K", "1M" (exact multiples of 1024 only). */
const char *sum_payload_label(unsigned int payload, char *buf, size_t len);

/* A value with 4 significant digits ("0.005419", "224.1", "1048577"). */
const char *sum_fmt_value(double v, char *buf, size_t len);

/*
 * The change cell of a row, cover-letter style:
 *   "+92.91% [+89.31%, +96.58%]"  (n >= 2)
 *   "+92.91% (n=1, no CI)"         (one pair)
 *   "n/a (REASON)"                 (no statistics)
 */
const char *sum_fmt_change(const struct sum_row *row, char *buf, size_t len);

#endif /* VSOCKBATCH_SUMMARIZE_H */
