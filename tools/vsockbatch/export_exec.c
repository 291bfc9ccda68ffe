// SPDX-License-Identifier: GPL-2.0
/*
 * export_exec.c - `vsockbatch export` in the static vsockbatch: runs
 * vsockbatch-export, the exporter proper.
 *
 * The exporter serves HTTP with libmicrohttpd, whose Debian build needs
 * GnuTLS and p11-kit, and p11-kit has no static library: the exporter is
 * linked dynamically (build/dyn/), the rest of vsockbatch stays static
 * for the lab's initramfs.  Like git's subcommands, this one is a
 * program of its own, found beside this one.
 */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "commands.h"

int cmd_export_exec(int argc, char **argv)
{
	static const char *const rel[] = { "vsockbatch-export", "dyn/vsockbatch-export" };
	char self[PATH_MAX], path[PATH_MAX + 64], *slash;
	ssize_t n;
	size_t i;

	(void)argc;
	n = readlink("/proc/self/exe", self, sizeof(self) - 1);
	if (n <= 0) {
		fprintf(stderr, "vsockbatch export: cannot find this program's directory: %s\n",
			strerror(errno));
		return VB_EXIT_FAIL;
	}
	self[n] = 0;
	slash = strrchr(self, '/');
	if (slash)
		*slash = 0;
	for (i = 0; i < sizeof(rel) / sizeof(rel[0]); i++) {
		snprintf(path, sizeof(path), "%s/%s", self, rel[i]);
		if (access(path, X_OK))
			continue;
		argv[0] = path;
		execv(path, argv);
		fprintf(stderr, "vsockbatch export: cannot run %s: %s\n", path,
			strerror(errno));
		return VB_EXIT_FAIL;
	}
	fprintf(stderr, "vsockbatch export: vsockbatch-export (the exporter, linked with libmicrohttpd) is not in %s or %s/dyn\n",
		self, self);
	return VB_EXIT_FAIL;
}
