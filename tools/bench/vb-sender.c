// SPDX-License-Identifier: GPL-2.0
/*
 * vb-sender - the sending side of a vsock stream benchmark: the role
 * `vsock_perf --sender` plays.  Connects to CID:PORT and send()s --bytes
 * in writes of --buf-size bytes, then closes (the receiver sees EOF).
 *
 * Prints vsock_perf's sender lines (so scripts that parse vsock_perf keep
 * working) and one JSON line for the experiment scripts.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "bench_util.h"
#include "bench_vsock.h"

#define PROG "vb-sender"

static void usage(FILE *f)
{
	fprintf(f,
"Usage: " PROG " --cid CID [options]\n"
"       " PROG " --tcp[=ADDR] [options]\n"
"Connect to a vsock (or TCP) listener and send a fixed number of bytes.\n"
"\n"
"  --cid CID          peer context id (1 = loopback, 2 = host); also --sender\n"
"  --tcp[=ADDR]       TCP over IPv4 to ADDR (default 127.0.0.1) instead of vsock\n"
"  --seqpacket        a vsock SOCK_SEQPACKET socket: each send() one message\n"
"  --port PORT        peer port (default 1234)\n"
"  --src-port PORT    bind the local end to PORT first (vsock only)\n"
"  --bytes SIZE       total bytes to send (default 64M)\n"
"  --seconds T        instead: send whole writes until T seconds have passed\n"
"                     (like iperf -t; the transfer lasts >= T at any rate)\n"
"  --buf-size SIZE    bytes per send() call (default 128K)\n"
"  --vsk-size SIZE    SO_VM_SOCKETS_BUFFER_(MAX_)SIZE (default: kernel's, 256K)\n"
"  --cpu N            pin to CPU N\n"
"  --retry SECONDS    retry the connect while the peer is not listening (default 5)\n"
"  --help             this text\n"
"SIZE takes K, M, G, T suffixes (powers of 1024), e.g. 64K, 2G.\n"
"Output: vsock_perf-style 'key: value' lines, then one JSON line.\n"
"Exit: 0 ok, 1 runtime error, 2 bad arguments.\n");
}

int main(int argc, char **argv)
{
	enum { O_CID = 1, O_BYTES, O_BUF, O_SECONDS, O_SRC_PORT };
	static const struct option opts[] = {
		{ "cid", required_argument, NULL, O_CID },
		{ "sender", required_argument, NULL, O_CID },
		BENCH_OPT_PORT,
		{ "bytes", required_argument, NULL, O_BYTES },
		{ "buf-size", required_argument, NULL, O_BUF },
		{ "seconds", required_argument, NULL, O_SECONDS },
		{ "src-port", required_argument, NULL, O_SRC_PORT },
		BENCH_OPT_VSK,
		BENCH_OPT_CPU,
		BENCH_OPT_RETRY,
		BENCH_OPT_TCP,
		BENCH_OPT_SEQPACKET,
		BENCH_OPT_HELP,
		{ NULL, 0, NULL, 0 },
	};
	uint64_t cid = 0, bytes = 64ULL << 20, buf_size = 128 << 10;
	uint64_t vsk_eff = 0, calls = 0, ns_send = 0;
	uint64_t sent = 0, t0, t1, clock_step;
	struct bench_ctxsw cs, ce;
	int have_cid = 0, have_bytes = 0, fd, err, c;
	double seconds = 0;
	struct bench_args a;
	struct bench_json j;
	char label[32];
	char *buf;

	bench_args_init(&a, PROG, usage, 1234);
	while ((c = bench_args_next(&a, argc, argv, opts)) != -1) {
		switch (c) {
		case O_CID:
			cid = bench_arg_u64(&a, "cid", optarg, UINT32_MAX);
			have_cid = 1;
			break;
		case O_BYTES:
			bytes = bench_arg_size(&a, "bytes", optarg, 1, UINT64_MAX);
			have_bytes = 1;
			break;
		case O_SECONDS:
			if (bench_parse_seconds(optarg, &seconds) || seconds <= 0 ||
			    seconds > 86400)
				bench_bad_arg(&a, "seconds", optarg);
			break;
		case O_BUF:
			buf_size = bench_arg_size(&a, "buf-size", optarg, 1, 1ULL << 30);
			break;
		case O_SRC_PORT:
			/* VMADDR_PORT_ANY (-1U) is "any": not a port */
			a.src_port = bench_arg_u64(&a, "src-port", optarg,
						   UINT32_MAX - 1);
			break;
		}
	}
	if (!have_cid && !a.tcp)
		bench_usage_error(&a, "--cid (or --tcp) is required");
	if (have_cid && a.tcp)
		bench_usage_error(&a, "--cid is the vsock peer: not with --tcp");
	if (a.tcp && a.src_port != -1U)
		bench_usage_error(&a, "--src-port is for vsock: not with --tcp");
	if (have_bytes && seconds > 0)
		bench_usage_error(&a, "give --bytes or --seconds, not both");
	if (seconds > 0)
		bytes = UINT64_MAX;

	if (bench_args_pin(&a))
		return 1;
	buf = malloc(buf_size);
	if (!buf) {
		fprintf(stderr, PROG ": cannot allocate a %llu-byte buffer\n",
			(unsigned long long)buf_size);
		return 1;
	}
	memset(buf, 'v', buf_size);

	fd = bench_sock_connect_report(&a, cid);
	if (fd < 0)
		return 1;
	if (bench_sock_buffer_report(&a, fd, &vsk_eff))
		return 1;

	printf("Run as sender\n");
	printf("Connect to %llu:%llu (%s)\n", (unsigned long long)cid,
	       (unsigned long long)a.port, bench_transport_name(&a));
	if (seconds > 0)
		printf("Send for %g seconds\n", seconds);
	else
		printf("Send %llu bytes\n", (unsigned long long)bytes);
	printf("TX buffer %llu bytes\n", (unsigned long long)buf_size);
	printf("%s %llu bytes\n", a.tcp ? "tcp SO_RCVBUF" : "vsock buffer",
	       (unsigned long long)vsk_eff);
	fflush(stdout);

	/* measured before the run: it spins for a few clock steps */
	clock_step = bench_clock_step_ns();
	bench_ctxsw_now(&cs);
	t0 = bench_now_ns();
	while (sent < bytes) {
		/* time-bounded: whole writes until the deadline */
		if (seconds > 0 && bench_now_ns() - t0 >= (uint64_t)(seconds * 1e9))
			break;
		size_t n = bytes - sent < buf_size ? (size_t)(bytes - sent) : buf_size;

		err = bench_send_all(fd, buf, n, &calls, &ns_send);
		if (err) {
			fprintf(stderr, PROG ": send() after %llu bytes: %s\n",
				(unsigned long long)sent, strerror(-err));
			return 1;
		}
		sent += n;
	}
	t1 = bench_now_ns();
	bench_ctxsw_now(&ce);
	if (close(fd)) {
		fprintf(stderr, PROG ": close: %s\n", strerror(errno));
		return 1;
	}

	printf("total bytes sent: %llu\n", (unsigned long long)sent);
	/* Like vsock_perf: tx performance counts the time inside send(). */
	printf("tx performance: %f Gbits/s\n", bench_gbps(sent, ns_send));
	printf("total time in tx loop: %f sec\n", (double)(t1 - t0) / 1e9);
	printf("time in 'send()': %f sec\n", (double)ns_send / 1e9);
	printf("send() calls: %llu\n", (unsigned long long)calls);
	printf("clock step: %llu ns\n", (unsigned long long)clock_step);

	bench_json_begin_tool(&j, stdout, PROG);
	bench_json_str(&j, "transport", bench_transport_name(&a));
	if (!a.tcp)
		bench_json_u64(&j, "cid", cid);
	bench_json_u64(&j, "port", a.port);
	bench_json_str(&j, "payload", bench_size_label(buf_size, label, sizeof(label)));
	bench_json_u64(&j, "buf_size", buf_size);
	bench_json_u64(&j, a.tcp ? "tcp_rcvbuf" : "vsk_size", vsk_eff);
	bench_json_u64(&j, "bytes", sent);
	if (seconds > 0)
		bench_json_double(&j, "seconds_target", seconds);
	bench_json_u64(&j, "send_calls", calls);
	bench_json_double(&j, "seconds_loop", (double)(t1 - t0) / 1e9);
	bench_json_double(&j, "seconds_in_send", (double)ns_send / 1e9);
	bench_json_double(&j, "gbps_loop", bench_gbps(sent, t1 - t0));
	bench_json_double(&j, "gbps_in_send", bench_gbps(sent, ns_send));
	bench_json_u64(&j, "clock_step_ns", clock_step);
	bench_json_ctxsw(&j, &cs, &ce);
	bench_json_end_cpu(&j, &a);
	free(buf);
	return 0;
}
