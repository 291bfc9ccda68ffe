// SPDX-License-Identifier: GPL-2.0
/*
 * export_main.c - build/dyn/vsockbatch-export: `vsockbatch export` as a
 * program of its own (see export_exec.c for why it is one).
 */
#include "export.h"

int main(int argc, char **argv)
{
	return cmd_export(argc, argv);
}
