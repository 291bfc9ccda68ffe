// SPDX-License-Identifier: GPL-2.0
/*
 * main.c - `vsockbatch <command> ...` dispatcher.  Started as
 * `vsockbatch-top` (argv[0] basename, e.g. through the build/ symlink)
 * it runs `top` directly.
 */
#include <stdio.h>
#include <string.h>

#include "commands.h"

struct command {
	const char *name;
	int (*fn)(int argc, char **argv);
	const char *summary;
};

static const struct command commands[] = {
	{ "record", cmd_record, "trace the vsock RX path, write a results file" },
	{ "report", cmd_report, "print a results file (text or --json)" },
	{ "compare", cmd_compare, "baseline vs patched results with CIs" },
	{ "advise", cmd_advise, "what limits a recorded transfer, what to change" },
	{ "top", cmd_top, "live per-flow view (or --replay FILE)" },
	{ "probe", cmd_probe, "show which hooks this kernel offers" },
};

static void usage(FILE *f)
{
	size_t i;

	fprintf(f, "Usage: vsockbatch COMMAND [ARGS...]\n"
		   "       vsockbatch-top [ARGS...]\n\n"
		   "Measure virtio-vsock RX batching (lock windows, callbacks, CPU cost).\n\n"
		   "Commands:\n");
	for (i = 0; i < sizeof(commands) / sizeof(commands[0]); i++)
		fprintf(f, "  %-10s %s\n", commands[i].name, commands[i].summary);
	fprintf(f, "\n'vsockbatch COMMAND --help' shows the options of a command.\n");
}

int main(int argc, char **argv)
{
	const char *base = argv[0] ? strrchr(argv[0], '/') : NULL;
	size_t i;

	base = base ? base + 1 : (argv[0] ? argv[0] : "vsockbatch");
	if (!strcmp(base, "vsockbatch-top")) {
		argv[0] = "top";
		return cmd_top(argc, argv);
	}
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
	fprintf(stderr, "vsockbatch: unknown command '%s' (try --help)\n",
		argv[1]);
	return VB_EXIT_USAGE;
}
