// SPDX-License-Identifier: GPL-2.0
/*
 * probe_cmd.c - `vsockbatch probe [--btf FILE]`: which hooks the running
 * kernel (or a BTF file) offers and whether it carries the batching
 * series.  On the running kernel the hooks are checked by loading their
 * programs (attach_check.h); with --btf nothing is loaded.
 */
#include <errno.h>
#include <getopt.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include <bpf/libbpf.h>

#include "commands.h"
#include "probe.h"

static void usage(FILE *f)
{
	fprintf(f,
"Usage: vsockbatch probe [--btf FILE]\n"
"\n"
"List the tracer's hooks (use = will be attached, alt = available but a\n"
"preferred alternative is used, no = missing and why), and the kernel\n"
"mode (batched or baseline) with how it was detected.  On the running\n"
"kernel each hook found in BTF is loaded and attached once (root needed),\n"
"its kprobe/kretprobe twins where fentry/fexit fail.\n"
"\n"
"  -b, --btf FILE  probe a vmlinux BTF file instead of the running kernel\n"
"                  (no module BTF, tracefs, kallsyms or loading then)\n"
"  -h, --help      this help\n"
"\n"
"Exit status: 0 the tracer can run, 1 it cannot (reason on stderr),\n"
"2 bad usage or a --btf FILE that is not BTF.\n");
}

/* libbpf's messages about the user's file would repeat our one line. */
static int quiet(enum libbpf_print_level level, const char *fmt, va_list ap)
{
	(void)level;
	(void)fmt;
	(void)ap;
	return 0;
}

/*
 * A --btf FILE must be raw BTF (magic 0xeb9f, either byte order) or an
 * ELF file (a vmlinux with .BTF).  0, or -1 with the reason in err.
 */
static int check_btf_file(const char *path, char *err, size_t len)
{
	unsigned char m[4];
	FILE *f = fopen(path, "rb");
	size_t n;

	if (!f) {
		snprintf(err, len, "cannot read BTF from %s: %s", path,
			 strerror(errno));
		return -1;
	}
	n = fread(m, 1, sizeof(m), f);
	fclose(f);
	if (n == sizeof(m) && ((m[0] == 0x9f && m[1] == 0xeb) ||
			       (m[0] == 0xeb && m[1] == 0x9f) ||
			       !memcmp(m, "\x7f" "ELF", 4)))
		return 0;
	snprintf(err, len, "%s is not BTF: neither raw BTF (magic 0xeb9f) nor an ELF vmlinux",
		 path);
	return -1;
}

int cmd_probe(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "btf", required_argument, NULL, 'b' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	const char *btf = NULL;
	struct vb_probe p;
	char err[256];
	int opt;

	optind = 1;
	opterr = 0;	/* one line of our own instead of getopt's */
	while ((opt = getopt_long(argc, argv, "b:h", longopts, NULL)) != -1) {
		switch (opt) {
		case 'b':
			btf = optarg;
			break;
		case 'h':
			usage(stdout);
			return VB_EXIT_OK;
		default:
			fprintf(stderr, "vsockbatch probe: unknown option or missing argument '%s' (try --help)\n",
				argv[optind - 1]);
			return VB_EXIT_USAGE;
		}
	}
	if (optind != argc) {
		fprintf(stderr, "vsockbatch probe: unexpected argument '%s'\n",
			argv[optind]);
		return VB_EXIT_USAGE;
	}
	if (btf) {
		/* the user's file: bad content is bad input (exit 2) */
		if (check_btf_file(btf, err, sizeof(err))) {
			fprintf(stderr, "vsockbatch probe: %s\n", err);
			return VB_EXIT_USAGE;
		}
	}
	libbpf_set_print(quiet);	/* reasons are ours, one line each */
	if (vb_probe_kernel(&p, btf, err, sizeof(err))) {
		fprintf(stderr, "vsockbatch probe: %s\n", err);
		return btf ? VB_EXIT_USAGE : VB_EXIT_FAIL;
	}
	if (!btf)
		vb_probe_load(&p, false);
	vb_probe_print(&p, stdout);
	if (vb_probe_usable(&p, err, sizeof(err))) {
		fprintf(stderr, "vsockbatch probe: %s\n", err);
		return VB_EXIT_FAIL;
	}
	return VB_EXIT_OK;
}
