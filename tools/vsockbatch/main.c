// SPDX-License-Identifier: GPL-2.0
/*
 * main.c - `vsockbatch <command> ...` dispatcher.  Started as
 * `vsockbatch-top` (argv[0] basename, e.g. through the build/ symlink)
 * it runs `top` directly.
 */
#include <stdio.h>
#include <string.h>

#include "commands.h"
#include "dispatch.h"
#include "exit_status.h"
#include "version.h"	/* generated: scripts/gen-version.sh */

static const struct vb_command commands[] = {
	{ "record", cmd_record, "trace the vsock RX path, write a results file" },
	{ "report", cmd_report, "print a results file (text or --json)" },
	{ "compare", cmd_compare, "baseline vs patched results with CIs" },
	{ "advise", cmd_advise, "what limits a recorded transfer, what to change" },
	{ "top", cmd_top, "live per-flow view (or --replay FILE)" },
	{ "probe", cmd_probe, "show which hooks this kernel offers" },
	{ "export", cmd_export_exec, "serve live counts as Prometheus metrics" },
};

/*
 * The release, the tree it was built from and which BPF code it loads:
 * enough to tell two installed copies apart when their results differ.
 */
static int print_version(const char *prog)
{
	printf("%s %s\n"
	       "git: %s\n"
	       "bpf object: %s (sha256 of vsockbatch.bpf.o, first 16 hex digits)\n",
	       prog, VB_VERSION, VB_GIT_DESCRIBE, VB_BPF_BUILD_ID);
	return fflush(stdout) ? VB_EXIT_FAIL : VB_EXIT_OK;
}

int main(int argc, char **argv)
{
	const char *base = argv[0] ? strrchr(argv[0], '/') : NULL;

	base = base ? base + 1 : (argv[0] ? argv[0] : "vsockbatch");
	if (argc == 2 && (!strcmp(argv[1], "--version") ||
			  !strcmp(argv[1], "-V")))
		return print_version(strcmp(base, "vsockbatch-top") ?
				     "vsockbatch" : "vsockbatch-top");
	if (!strcmp(base, "vsockbatch-top")) {
		argv[0] = "top";
		return cmd_top(argc, argv);
	}
	return vb_commands_run("vsockbatch",
			       "       vsockbatch --version\n"
			       "       vsockbatch-top [ARGS...]\n\n"
			       "Measure virtio-vsock RX batching (lock windows, callbacks, CPU cost).\n",
			       commands, sizeof(commands) / sizeof(commands[0]),
			       argc, argv);
}
