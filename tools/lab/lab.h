/* SPDX-License-Identifier: GPL-2.0 */
/*
 * lab.h - commands of `vsockbatch-lab`, the lab's program: what the
 * experiment scripts and the build run on the host, never what a user of
 * the tracer runs on a guest.  Same conventions as the tracer's commands:
 * argv[0] = the command name, the return value is the exit status
 * (exit_status.h).
 */
#ifndef VSOCKBATCH_LAB_H
#define VSOCKBATCH_LAB_H

#include "exit_status.h"

/* summarize.c: statistics of an AB/BA set written by scripts/experiment.sh */
int cmd_summarize(int argc, char **argv);
/* corecheck.c: the tracer's CO-RE relocations against a kernel's BTF */
int cmd_corecheck(int argc, char **argv);
/* abstat.c: paired AB/BA statistics of any A/B pairs (advise-ab.sh) */
int cmd_abstat(int argc, char **argv);

#endif /* VSOCKBATCH_LAB_H */
