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
#include <getopt.h>
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
"Connect to a vsock listener and send a fixed number of bytes.\n"
"\n"
"  --cid CID          peer context id (1 = loopback, 2 = host); also --sender\n"
"  --port PORT        peer port (default 1234)\n"
"  --bytes SIZE       total bytes to send (default 64M)\n"
"  --buf-size SIZE    bytes per send() call (default 128K)\n"
"  --vsk-size SIZE    SO_VM_SOCKETS_BUFFER_(MAX_)SIZE (default: kernel's, 256K)\n"
"  --cpu N            pin to CPU N\n"
"  --retry SECONDS    retry the connect while the peer is not listening (default 5)\n"
"  --help             this text\n"
"SIZE takes K, M, G, T suffixes (powers of 1024), e.g. 64K, 2G.\n"
"Output: vsock_perf-style 'key: value' lines, then one JSON line.\n"
"Exit: 0 ok, 1 runtime error, 2 bad arguments.\n");
}

static void bad_arg(const char *opt, const char *val)
{
	fprintf(stderr, PROG ": invalid value '%s' for --%s\n", val, opt);
	usage(stderr);
	exit(2);
}

int main(int argc, char **argv)
{
	enum { O_CID = 1, O_PORT, O_BYTES, O_BUF, O_VSK, O_CPU, O_RETRY, O_HELP };
	static const struct option opts[] = {
		{ "cid", required_argument, NULL, O_CID },
		{ "sender", required_argument, NULL, O_CID },
		{ "port", required_argument, NULL, O_PORT },
		{ "bytes", required_argument, NULL, O_BYTES },
		{ "buf-size", required_argument, NULL, O_BUF },
		{ "vsk-size", required_argument, NULL, O_VSK },
		{ "cpu", required_argument, NULL, O_CPU },
		{ "retry", required_argument, NULL, O_RETRY },
		{ "help", no_argument, NULL, O_HELP },
		{ NULL, 0, NULL, 0 },
	};
	uint64_t cid = 0, port = 1234, bytes = 64ULL << 20, buf_size = 128 << 10;
	uint64_t vsk_size = 0, vsk_eff = 0, cpu = 0, calls = 0, ns_send = 0;
	uint64_t sent = 0, t0, t1, clock_step;
	double retry = 5.0;
	int have_cid = 0, have_cpu = 0, fd, err, c;
	struct bench_json j;
	char label[32];
	char *buf;

	opterr = 0;
	while ((c = getopt_long(argc, argv, "", opts, NULL)) != -1) {
		switch (c) {
		case O_CID:
			if (bench_parse_u64(optarg, UINT32_MAX, &cid))
				bad_arg("cid", optarg);
			have_cid = 1;
			break;
		case O_PORT:
			if (bench_parse_u64(optarg, UINT32_MAX, &port))
				bad_arg("port", optarg);
			break;
		case O_BYTES:
			if (bench_parse_size(optarg, &bytes) || !bytes)
				bad_arg("bytes", optarg);
			break;
		case O_BUF:
			if (bench_parse_size(optarg, &buf_size) || !buf_size ||
			    buf_size > (1ULL << 30))
				bad_arg("buf-size", optarg);
			break;
		case O_VSK:
			if (bench_parse_size(optarg, &vsk_size) || !vsk_size)
				bad_arg("vsk-size", optarg);
			break;
		case O_CPU:
			if (bench_parse_u64(optarg, 4095, &cpu))
				bad_arg("cpu", optarg);
			have_cpu = 1;
			break;
		case O_RETRY:
			if (bench_parse_seconds(optarg, &retry))
				bad_arg("retry", optarg);
			break;
		case O_HELP:
			usage(stdout);
			return 0;
		default:
			fprintf(stderr, PROG ": unknown option or missing value: %s\n",
				argv[optind - 1]);
			usage(stderr);
			return 2;
		}
	}
	if (optind < argc) {
		fprintf(stderr, PROG ": unexpected argument '%s'\n", argv[optind]);
		usage(stderr);
		return 2;
	}
	if (!have_cid) {
		fprintf(stderr, PROG ": --cid is required\n");
		usage(stderr);
		return 2;
	}

	if (have_cpu && (err = bench_pin_cpu((int)cpu))) {
		fprintf(stderr, PROG ": cannot pin to CPU %llu: %s\n",
			(unsigned long long)cpu, strerror(-err));
		return 1;
	}
	buf = malloc(buf_size);
	if (!buf) {
		fprintf(stderr, PROG ": cannot allocate a %llu-byte buffer\n",
			(unsigned long long)buf_size);
		return 1;
	}
	memset(buf, 'v', buf_size);

	fd = bench_vsock_connect((unsigned int)cid, (unsigned int)port, vsk_size, retry);
	if (fd < 0) {
		fprintf(stderr, PROG ": connect to %llu:%llu: %s\n",
			(unsigned long long)cid, (unsigned long long)port,
			strerror(-fd));
		return 1;
	}
	err = bench_vsock_get_buffer(fd, &vsk_eff);
	if (err) {
		fprintf(stderr, PROG ": getsockopt(SO_VM_SOCKETS_BUFFER_SIZE): %s\n",
			strerror(-err));
		return 1;
	}

	printf("Run as sender\n");
	printf("Connect to %llu:%llu\n", (unsigned long long)cid,
	       (unsigned long long)port);
	printf("Send %llu bytes\n", (unsigned long long)bytes);
	printf("TX buffer %llu bytes\n", (unsigned long long)buf_size);
	printf("vsock buffer %llu bytes\n", (unsigned long long)vsk_eff);
	fflush(stdout);

	/* measured before the run: it spins for a few clock steps */
	clock_step = bench_clock_step_ns();
	t0 = bench_now_ns();
	while (sent < bytes) {
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

	bench_json_begin(&j, stdout);
	bench_json_str(&j, "tool", PROG);
	bench_json_u64(&j, "format", BENCH_JSON_FORMAT);
	bench_json_u64(&j, "cid", cid);
	bench_json_u64(&j, "port", port);
	bench_json_str(&j, "payload", bench_size_label(buf_size, label, sizeof(label)));
	bench_json_u64(&j, "buf_size", buf_size);
	bench_json_u64(&j, "vsk_size", vsk_eff);
	bench_json_u64(&j, "bytes", sent);
	bench_json_u64(&j, "send_calls", calls);
	bench_json_double(&j, "seconds_loop", (double)(t1 - t0) / 1e9);
	bench_json_double(&j, "seconds_in_send", (double)ns_send / 1e9);
	bench_json_double(&j, "gbps_loop", bench_gbps(sent, t1 - t0));
	bench_json_double(&j, "gbps_in_send", bench_gbps(sent, ns_send));
	bench_json_u64(&j, "clock_step_ns", clock_step);
	if (have_cpu)
		bench_json_i64(&j, "cpu", (int64_t)cpu);
	bench_json_end(&j);
	free(buf);
	return 0;
}
