// SPDX-License-Identifier: GPL-2.0
/*
 * main.c - `vsockbatch-lab <command> ...`: the lab's commands, kept out of
 * the user's `vsockbatch` so its command list holds only what a user runs
 * on a guest.
 */
#include <stdio.h>
#include <string.h>

#include "lab.h"

struct command {
	const char *name;
	int (*fn)(int argc, char **argv);
	const char *summary;
};

static const struct command commands[] = {
	{ "summarize", cmd_summarize, "statistics of an experiment set (scripts/experiment.sh)" },
	{ "corecheck", cmd_corecheck, "check the tracer's CO-RE relocations against a BTF" },
	{ "abstat", cmd_abstat, "paired AB/BA statistics of A/B pairs (scripts/advise-ab.sh)" },
};

static void usage(FILE *f)
{
	size_t i;

	fprintf(f, "Usage: vsockbatch-lab COMMAND [ARGS...]\n\n"
		   "The lab's commands (run on the host by the experiment scripts and\n"
		   "the tests); the tracer a user runs is `vsockbatch`.\n\n"
		   "Commands:\n");
	for (i = 0; i < sizeof(commands) / sizeof(commands[0]); i++)
		fprintf(f, "  %-10s %s\n", commands[i].name, commands[i].summary);
	fprintf(f, "\n'vsockbatch-lab COMMAND --help' shows the options of a command.\n");
}

int main(int argc, char **argv)
{
	size_t i;

	if (argc < 2) {
		usage(stderr);
		return VB_EXIT_USAGE;
	}
	if (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h") ||
	    !strcmp(argv[1], "help")) {
		usage(stdout);
		return VB_EXIT_OK;
	}
	for (i = 0; i < sizeof(commands) / sizeof(commands[0]); i++)
		if (!strcmp(argv[1], commands[i].name))
			return commands[i].fn(argc - 1, argv + 1);
	fprintf(stderr, "vsockbatch-lab: unknown command '%s' (try --help)\n",
		argv[1]);
	return VB_EXIT_USAGE;
}
