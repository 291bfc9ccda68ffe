// SPDX-License-Identifier: GPL-2.0
/*
 * stats_opts.c - parse the statistics options of `vsockbatch compare` and
 * `vsockbatch-lab summarize`.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>

#include "exit_status.h"
#include "stats_opts.h"

int stats_opts_parse(struct stats_opts *o, const char *prog,
		     void (*usage)(FILE *f), int c, const char *arg,
		     const char *argv_opt)
{
	unsigned long long u;
	char *end;

	switch (c) {
	case STATS_O_LEVEL:
		o->level = strtod(arg, &end);
		if (*end || end == arg || !(o->level > 0.5 && o->level < 1)) {
			fprintf(stderr, "%s: --level must be between 0.5 and 1, not '%s'\n",
				prog, arg);
			return VB_EXIT_USAGE;
		}
		return 0;
	case STATS_O_NOISE:
		o->noise = strtod(arg, &end);
		if (*end || end == arg || !(o->noise >= 0 && o->noise < 100)) {
			fprintf(stderr, "%s: --noise must be a percentage >= 0, not '%s'\n",
				prog, arg);
			return VB_EXIT_USAGE;
		}
		return 0;
	case STATS_O_SEED:
		errno = 0;
		u = strtoull(arg, &end, 0);
		if (errno || *end || end == arg || *arg == '-') {
			fprintf(stderr, "%s: bad --seed '%s'\n", prog, arg);
			return VB_EXIT_USAGE;
		}
		o->seed = u;
		return 0;
	case STATS_O_ITERS:
		errno = 0;
		u = strtoull(arg, &end, 10);
		if (errno || *end || end == arg || *arg == '-' ||
		    u < 100 || u > 10000000) {
			fprintf(stderr, "%s: --iters must be 100..10000000, not '%s'\n",
				prog, arg);
			return VB_EXIT_USAGE;
		}
		o->iters = (unsigned int)u;
		return 0;
	}
	fprintf(stderr, "%s: unknown option or missing value: %s\n", prog,
		argv_opt);
	usage(stderr);
	return VB_EXIT_USAGE;
}
