/* SPDX-License-Identifier: GPL-2.0 */
/*
 * dispatch.h - `PROG COMMAND [ARGS...]` for the tracer (vsockbatch) and
 * the lab program (vsockbatch-lab): one table of commands, --help, and
 * one line for an unknown command.
 */
#ifndef VSOCKBATCH_DISPATCH_H
#define VSOCKBATCH_DISPATCH_H

#include <stddef.h>
#include <stdio.h>

struct vb_command {
	const char *name;
	int (*fn)(int argc, char **argv);	/* argv[0] = name */
	const char *summary;
};

/*
 * "Usage: PROG COMMAND [ARGS...]", extra (may be ""), the command list,
 * and how to get a command's options.
 */
void vb_commands_usage(FILE *f, const char *prog, const char *extra,
		       const struct vb_command *cmds, size_t n);
/*
 * Run argv[1] with argv + 1; no command: usage on stderr, exit 2;
 * --help/-h/help: usage on stdout, 0; unknown: one line, 2.
 */
int vb_commands_run(const char *prog, const char *extra,
		    const struct vb_command *cmds, size_t n, int argc,
		    char **argv);

#endif
