// SPDX-License-Identifier: GPL-2.0
/*
 * main.c - `vsockbatch-lab <command> ...`: the lab's commands, kept out of
 * the user's `vsockbatch` so its command list holds only what a user runs
 * on a guest.
 */
#include "dispatch.h"
#include "lab.h"

static const struct vb_command commands[] = {
	{ "summarize", cmd_summarize, "statistics of an experiment set (scripts/experiment.sh)" },
	{ "corecheck", cmd_corecheck, "check the tracer's CO-RE relocations against a BTF" },
	{ "abstat", cmd_abstat, "paired AB/BA statistics of A/B pairs (scripts/advise-ab.sh)" },
};

int main(int argc, char **argv)
{
	return vb_commands_run("vsockbatch-lab", "\n"
			       "The lab's commands (run on the host by the experiment scripts and\n"
			       "the tests); the tracer a user runs is `vsockbatch`.\n",
			       commands, sizeof(commands) / sizeof(commands[0]),
			       argc, argv);
}
