/* SPDX-License-Identifier: GPL-2.0 */
/*
 * stats_opts.h - the statistics options `vsockbatch compare` and
 * `vsockbatch-lab summarize` share: --level, --noise, --seed, --iters.
 * Same meaning, same limits and same messages in both commands.
 */
#ifndef VSOCKBATCH_STATS_OPTS_H
#define VSOCKBATCH_STATS_OPTS_H

#include <getopt.h>
#include <stdint.h>
#include <stdio.h>

#include "stats.h"

struct stats_opts {
	double level;		/* confidence level, 0.5 < level < 1 */
	double noise;		/* verdict only beyond +-noise %, [0, 100) */
	uint64_t seed;		/* bootstrap seed */
	unsigned int iters;	/* bootstrap resamples, 100..10000000 */
};

#define STATS_OPTS_DEFAULT {						\
	.level = STATS_LEVEL_DEFAULT, .noise = 1.0,			\
	.seed = STATS_BOOT_SEED, .iters = STATS_BOOT_ITERS,		\
}

/* getopt_long() codes, clear of the callers' short options and own codes. */
enum {
	STATS_O_LEVEL = 0x200,
	STATS_O_NOISE,
	STATS_O_SEED,
	STATS_O_ITERS,
};

/* The four struct option entries, in this order. */
#define STATS_OPTS_LONG							\
	{ "level", required_argument, NULL, STATS_O_LEVEL },		\
	{ "noise", required_argument, NULL, STATS_O_NOISE },		\
	{ "seed", required_argument, NULL, STATS_O_SEED },		\
	{ "iters", required_argument, NULL, STATS_O_ITERS }

/*
 * The default: branch of both commands' getopt_long() loop.  Stores
 * option c (one of STATS_O_*) with value arg in *o and returns 0.  Bad
 * value: a one-line "PROG: reason" on stderr, VB_EXIT_USAGE.  Any other
 * c (getopt's '?' or ':'): "PROG: unknown option or missing value: ARGV"
 * (argv_opt, the argv element getopt stopped at), usage(stderr),
 * VB_EXIT_USAGE.
 */
int stats_opts_parse(struct stats_opts *o, const char *prog,
		     void (*usage)(FILE *f), int c, const char *arg,
		     const char *argv_opt);

#endif /* VSOCKBATCH_STATS_OPTS_H */
