// SPDX-License-Identifier: GPL-2.0
/* dispatch.c - `PROG COMMAND [ARGS...]` (see dispatch.h). */
#include <string.h>

#include "dispatch.h"
#include "exit_status.h"

void vb_commands_usage(FILE *f, const char *prog, const char *extra,
		       const struct vb_command *cmds, size_t n)
{
	size_t i;

	fprintf(f, "Usage: %s COMMAND [ARGS...]\n%s\nCommands:\n", prog, extra);
	for (i = 0; i < n; i++)
		fprintf(f, "  %-10s %s\n", cmds[i].name, cmds[i].summary);
	fprintf(f, "\n'%s COMMAND --help' shows the options of a command.\n",
		prog);
}

int vb_commands_run(const char *prog, const char *extra,
		    const struct vb_command *cmds, size_t n, int argc,
		    char **argv)
{
	size_t i;

	if (argc < 2) {
		vb_commands_usage(stderr, prog, extra, cmds, n);
		return VB_EXIT_USAGE;
	}
	if (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h") ||
	    !strcmp(argv[1], "help")) {
		vb_commands_usage(stdout, prog, extra, cmds, n);
		return VB_EXIT_OK;
	}
	for (i = 0; i < n; i++)
		if (!strcmp(argv[1], cmds[i].name))
			return cmds[i].fn(argc - 1, argv + 1);
	fprintf(stderr, "%s: unknown command '%s' (try --help)\n", prog,
		argv[1]);
	return VB_EXIT_USAGE;
}
