/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Subcommands of the `vsockbatch` loader: what a user runs on a guest.
 * (The lab's own commands, summarize and corecheck, are tools/lab/.)
 * main.c dispatches on argv[1] (or runs cmd_top when started as
 * `vsockbatch-top`).  Each command gets
 * argv with argv[0] = the subcommand name and returns the process exit
 * status: 0 success, 1 runtime failure, 2 bad usage or bad input.
 */
#ifndef VSOCKBATCH_COMMANDS_H
#define VSOCKBATCH_COMMANDS_H

int cmd_record(int argc, char **argv);	/* record.c */
int cmd_report(int argc, char **argv);	/* report.c */
int cmd_compare(int argc, char **argv);	/* compare.c */
int cmd_top(int argc, char **argv);	/* top.c */
int cmd_probe(int argc, char **argv);	/* probe_cmd.c: hook availability */
int cmd_advise(int argc, char **argv);	/* advise.c: what limits a transfer */
/* export_exec.c: runs vsockbatch-export (export.c, linked dynamically) */
int cmd_export_exec(int argc, char **argv);

#include "exit_status.h"	/* VB_EXIT_*, shared with the lab */

#endif
