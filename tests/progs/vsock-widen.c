// SPDX-License-Identifier: GPL-2.0
/*
 * vsock-widen - hold a race window open in a lab guest: attach
 * tests/bpf/widen.bpf.c (a kprobe that busy-waits) to each --func that
 * this kernel has, wait until SIGINT/SIGTERM or --seconds, then print how
 * often the probes ran (one count for all):
 *
 *   vsock-widen --us 2000 --func __vsock_connectible_recvmsg \
 *               --func vsock_connectible_recvmsg_locked &
 *
 * A --func the kernel does not have is reported and skipped (the fixed
 * and the unfixed kernel have different functions); none attached is an
 * error.  Prints "attached NAME..." once ready, "hits N (delay U us)" at
 * the end.  Exit 0, 1 on a runtime error, 2 on bad usage.  Only for lab
 * guests: it slows every call of the probed functions.
 */
#include <errno.h>
#include <stdint.h>
#include <getopt.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <bpf/libbpf.h>

#include "bench_util.h"

#include "widen.skel.h"

#define MAX_FUNCS 4

static volatile sig_atomic_t stop;

static void on_signal(int sig)
{
	(void)sig;
	stop = 1;
}

static void usage(FILE *f)
{
	fprintf(f, "usage: vsock-widen --us MICROSECONDS --func NAME [--func NAME]... [--seconds N]\n");
}

/* 1..max, decimal (the bench tools' parser; 0 is refused here). */
static int parse_count(const char *s, uint64_t max, uint64_t *out)
{
	return bench_parse_u64(s, max, out) || !*out ? -1 : 0;
}

int main(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "us", required_argument, NULL, 'u' },
		{ "func", required_argument, NULL, 'f' },
		{ "seconds", required_argument, NULL, 's' },
		{ "help", no_argument, NULL, 'h' },
		{ 0 }
	};
	struct bpf_link *links[MAX_FUNCS] = { 0 };
	const char *funcs[MAX_FUNCS];
	uint64_t us = 0, secs = 0;
	struct widen_bpf *skel = NULL;
	int nfuncs = 0, attached = 0, c, i, err = 1;

	while ((c = getopt_long(argc, argv, "", longopts, NULL)) != -1) {
		switch (c) {
		case 'u':
			if (parse_count(optarg, 100000, &us)) {
				fprintf(stderr, "vsock-widen: --us needs 1..100000, not '%s'\n", optarg);
				return 2;
			}
			break;
		case 'f':
			if (nfuncs == MAX_FUNCS) {
				fprintf(stderr, "vsock-widen: at most %d --func\n", MAX_FUNCS);
				return 2;
			}
			funcs[nfuncs++] = optarg;
			break;
		case 's':
			if (parse_count(optarg, 86400, &secs)) {
				fprintf(stderr, "vsock-widen: --seconds needs 1..86400, not '%s'\n", optarg);
				return 2;
			}
			break;
		case 'h':
			usage(stdout);
			return 0;
		default:
			usage(stderr);
			return 2;
		}
	}
	if (optind < argc || !us || !nfuncs) {
		fprintf(stderr, "vsock-widen: --us and at least one --func are required\n");
		return 2;
	}

	skel = widen_bpf__open();
	if (!skel) {
		fprintf(stderr, "vsock-widen: cannot open the BPF object: %s\n", strerror(errno));
		return 1;
	}
	skel->rodata->delay_ns = us * 1000;
	if (widen_bpf__load(skel)) {
		fprintf(stderr, "vsock-widen: cannot load the BPF program: %s\n", strerror(errno));
		goto cleanup;
	}
	printf("attached");
	for (i = 0; i < nfuncs; i++) {
		links[i] = bpf_program__attach_kprobe(skel->progs.widen, false, funcs[i]);
		if (!links[i]) {
			fprintf(stderr, "vsock-widen: %s: not attached (%s), skipped\n",
				funcs[i], strerror(errno));
			continue;
		}
		attached++;
		printf(" %s", funcs[i]);
	}
	printf("\n");
	fflush(stdout);
	if (!attached) {
		fprintf(stderr, "vsock-widen: none of the functions could be probed\n");
		goto cleanup;
	}

	signal(SIGINT, on_signal);
	signal(SIGTERM, on_signal);
	signal(SIGALRM, on_signal);
	if (secs)
		alarm(secs);
	while (!stop)
		pause();
	printf("hits %llu (delay %llu us)\n", (unsigned long long)skel->bss->hits,
	       (unsigned long long)us);
	err = 0;
cleanup:
	for (i = 0; i < nfuncs; i++)
		bpf_link__destroy(links[i]);
	widen_bpf__destroy(skel);
	return err;
}
