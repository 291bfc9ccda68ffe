// SPDX-License-Identifier: GPL-2.0
/*
 * vb-pingpong - vsock request/response latency.
 *
 * Server: accept one connection and echo every byte back until EOF.
 * Client: --count round trips of --size bytes (send the request, recv()
 * the whole echo), each timed with CLOCK_MONOTONIC; prints mean, p50,
 * p99, p99.9 (and min/max) round-trip time in microseconds plus one JSON line.
 * --warmup round trips run first and are not counted.  --tcp: the same
 * over TCP (IPv4); then --client takes the server's address.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <arpa/inet.h>
#include <sys/socket.h>

#include "bench_pingpong.h"
#include "bench_util.h"
#include "bench_vsock.h"

#define PROG "vb-pingpong"

static void usage(FILE *f)
{
	fprintf(f,
"Usage: " PROG " --server [options]\n"
"       " PROG " --client CID [options]\n"
"       " PROG " --tcp[=ADDR] --server | --tcp --client ADDR [options]\n"
"vsock ping-pong: the server echoes, the client times round trips.\n"
"\n"
"  --server           accept one connection and echo until EOF\n"
"  --client CID       connect to CID (1 = loopback, 2 = host); with --tcp,\n"
"                     the server's IPv4 address\n"
"  --tcp[=ADDR]       TCP instead of vsock; a server listens on ADDR\n"
"                     (default 127.0.0.1)\n"
"  --port PORT        port (default 1235)\n"
"  --size SIZE        client: request = response size (default 64)\n"
"  --count N          client: timed round trips (default 10000)\n"
"  --warmup N         client: untimed round trips first (default 100)\n"
"  --vsk-size SIZE    SO_VM_SOCKETS_BUFFER_(MAX_)SIZE (default: kernel's)\n"
"  --cpu N            pin to CPU N\n"
"  --retry SECONDS    client: retry the connect while the server is not\n"
"                     listening yet (default 5)\n"
"  --help             this text\n"
"SIZE takes K, M, G suffixes (powers of 1024).\n"
"Output: 'key: value' lines, then one JSON line (both modes).\n"
"Exit: 0 ok, 1 runtime error, 2 bad arguments.\n");
}

static int run_server(const struct bench_args *a)
{
	const size_t bufsz = 64 << 10;
	uint64_t echoed = 0, calls = 0;
	struct bench_json j;
	int lfd, fd, err;
	char *buf;

	buf = malloc(bufsz);
	if (!buf) {
		fprintf(stderr, PROG ": out of memory\n");
		return 1;
	}
	lfd = bench_sock_listen_report(a);
	if (lfd < 0)
		return 1;
	printf("Run as ping-pong server\n");
	printf("Listen port %llu\n", (unsigned long long)a->port);
	fflush(stdout);
	fd = bench_sock_accept_report(PROG, lfd);
	if (fd < 0)
		return 1;
	close(lfd);
	for (;;) {
		ssize_t n = recv(fd, buf, bufsz, 0);

		if (n < 0) {
			if (errno == EINTR)
				continue;
			fprintf(stderr, PROG ": recv() after %llu bytes: %s\n",
				(unsigned long long)echoed, strerror(errno));
			return 1;
		}
		calls++;
		if (n == 0)
			break;
		err = bench_send_all(fd, buf, (size_t)n, NULL, NULL);
		if (err) {
			fprintf(stderr, PROG ": send() after %llu bytes: %s\n",
				(unsigned long long)echoed, strerror(-err));
			return 1;
		}
		echoed += (uint64_t)n;
	}
	close(fd);
	printf("total bytes echoed: %llu\n", (unsigned long long)echoed);
	printf("recv() calls: %llu\n", (unsigned long long)calls);

	bench_json_begin_tool(&j, stdout, PROG);
	bench_json_str(&j, "mode", "server");
	bench_json_str(&j, "transport", bench_transport_name(a));
	bench_json_u64(&j, "port", a->port);
	bench_json_u64(&j, "bytes", echoed);
	bench_json_u64(&j, "recv_calls", calls);
	bench_json_end_cpu(&j, a);
	free(buf);
	return 0;
}

static int run_client(const struct bench_args *a, uint64_t cid, uint64_t size,
		      uint64_t count, uint64_t warmup)
{
	struct bench_rtt r;
	struct bench_json j;
	double *rtt_us;
	char *req, *resp, label[32];
	uint64_t i, step = bench_clock_step_ns();
	int fd, err;

	req = malloc(size);
	resp = malloc(size);
	rtt_us = malloc(count * sizeof(*rtt_us));
	if (!req || !resp || !rtt_us) {
		fprintf(stderr, PROG ": out of memory\n");
		return 1;
	}
	memset(req, 'p', size);
	fd = bench_sock_connect_report(a, cid);
	if (fd < 0)
		return 1;
	printf("Run as ping-pong client\n");
	printf("Connect to %llu:%llu (%s)\n", (unsigned long long)cid,
	       (unsigned long long)a->port, bench_transport_name(a));
	printf("Payload %llu bytes, %llu round trips (+%llu warm-up)\n",
	       (unsigned long long)size, (unsigned long long)count,
	       (unsigned long long)warmup);
	printf("clock step: %llu ns\n", (unsigned long long)step);
	fflush(stdout);
	/* Not fatal (the counts are still right), but say it loudly: a
	 * jiffies clocksource turns every RTT into 0 or one tick. */
	if (!step || step > BENCH_CLOCK_STEP_OK_NS)
		fprintf(stderr, PROG ": warning: CLOCK_MONOTONIC moves in steps of %llu ns: RTTs are quantized to it\n",
			(unsigned long long)step);

	err = bench_pingpong_run(fd, req, resp, size, warmup, count, rtt_us, &i);
	if (err) {
		fprintf(stderr, PROG ": round trip %llu: %s\n",
			(unsigned long long)i, strerror(-err));
		return 1;
	}
	close(fd);
	if (memcmp(req, resp, size)) {
		fprintf(stderr, PROG ": echo does not match the request\n");
		return 1;
	}
	if (bench_rtt_summarize(rtt_us, count, &r)) {
		fprintf(stderr, PROG ": percentile computation failed\n");
		return 1;
	}
	printf("rtt mean: %.3f us\n", r.mean);
	printf("rtt p50: %.3f us\n", r.p50);
	printf("rtt p99: %.3f us\n", r.p99);
	printf("rtt p99.9: %.3f us\n", r.p999);
	printf("rtt min: %.3f us\n", r.min);
	printf("rtt max: %.3f us\n", r.max);

	bench_json_begin_tool(&j, stdout, PROG);
	bench_json_str(&j, "mode", "client");
	bench_json_str(&j, "transport", bench_transport_name(a));
	if (!a->tcp)
		bench_json_u64(&j, "cid", cid);
	bench_json_u64(&j, "port", a->port);
	bench_json_str(&j, "payload", bench_size_label(size, label, sizeof(label)));
	bench_json_u64(&j, "size", size);
	bench_json_u64(&j, "count", count);
	bench_json_u64(&j, "warmup", warmup);
	bench_json_u64(&j, "bytes", 2 * size * (count + warmup));
	bench_json_double(&j, "rtt_us_mean", r.mean);
	bench_json_double(&j, "rtt_us_p50", r.p50);
	bench_json_double(&j, "rtt_us_p99", r.p99);
	bench_json_double(&j, "rtt_us_p999", r.p999);
	bench_json_double(&j, "rtt_us_min", r.min);
	bench_json_double(&j, "rtt_us_max", r.max);
	bench_json_u64(&j, "clock_step_ns", step);
	bench_json_end_cpu(&j, a);
	free(req);
	free(resp);
	free(rtt_us);
	return 0;
}

int main(int argc, char **argv)
{
	enum { O_SERVER = 1, O_CLIENT, O_SIZE, O_COUNT, O_WARMUP };
	static const struct option opts[] = {
		{ "server", no_argument, NULL, O_SERVER },
		{ "client", required_argument, NULL, O_CLIENT },
		BENCH_OPT_PORT,
		{ "size", required_argument, NULL, O_SIZE },
		{ "count", required_argument, NULL, O_COUNT },
		{ "warmup", required_argument, NULL, O_WARMUP },
		BENCH_OPT_VSK,
		BENCH_OPT_CPU,
		BENCH_OPT_RETRY,
		BENCH_OPT_TCP,
		BENCH_OPT_HELP,
		{ NULL, 0, NULL, 0 },
	};
	uint64_t cid = 0, size = 64, count = 10000, warmup = 100;
	int server = 0, client = 0, client_only = 0, c;
	const char *peer = NULL;
	struct bench_args a;

	bench_args_init(&a, PROG, usage, 1235);
	while ((c = bench_args_next(&a, argc, argv, opts)) != -1) {
		switch (c) {
		case O_SERVER:
			server = 1;
			break;
		case O_CLIENT:
			peer = optarg;	/* a CID, or with --tcp an address */
			client = 1;
			break;
		case O_SIZE:
			size = bench_arg_size(&a, "size", optarg, 1, 64ULL << 20);
			client_only = 1;
			break;
		case O_COUNT:
			count = bench_arg_u64(&a, "count", optarg, 100000000);
			if (!count)
				bench_bad_arg(&a, "count", optarg);
			client_only = 1;
			break;
		case O_WARMUP:
			warmup = bench_arg_u64(&a, "warmup", optarg, 100000000);
			client_only = 1;
			break;
		}
	}
	if (server == client)
		bench_usage_error(&a, "give exactly one of --server and --client CID");
	if (client && a.tcp && inet_pton(AF_INET, peer, &a.tcp_addr) != 1)
		bench_bad_arg(&a, "client", peer);
	if (client && !a.tcp)
		cid = bench_arg_u64(&a, "client", peer, UINT32_MAX);
	/* --retry is shared with vb-sender but means nothing to a server */
	if (server && (client_only || a.have_retry))
		bench_usage_error(&a, "--size/--count/--warmup/--retry are client options");
	if (bench_args_pin(&a))
		return 1;
	if (server)
		return run_server(&a);
	return run_client(&a, cid, size, count, warmup);
}
