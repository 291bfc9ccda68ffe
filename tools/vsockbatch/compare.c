// SPDX-License-Identifier: GPL-2.0
/*
 * compare.c - `vsockbatch compare`: baseline vs patched results files.
 *
 * First landing: the command exists so the loader links; the table and the
 * statistics arrive once the results-file loader (results.h) is in the tree.
 */
#include <stdio.h>
#include <string.h>

int cmd_compare(int argc, char **argv);

int cmd_compare(int argc, char **argv)
{
	if (argc > 1 && (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h"))) {
		printf("Usage: vsockbatch compare BASE PATCHED [--json]\n");
		return 0;
	}
	fprintf(stderr, "vsockbatch compare: not implemented yet in this build\n");
	return 1;
}
