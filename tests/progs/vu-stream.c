// SPDX-License-Identifier: GPL-2.0
/*
 * vu-stream - the guest end of the vhost-user-vsock checks: a vsock stream
 * whose every byte is verified.
 *
 *   vu-stream recv --port P [--expect-bytes N] [--seed S] [--recv-size N]
 *       accept one connection, read to EOF, check each byte against the
 *       stress stream (tests/lib/stress_verify.h, seed S, flow 0) that
 *       `vhost-user-vsock send` writes on the host; --close-after N closes
 *       the connection after N checked bytes, with the peer still sending
 *   vu-stream send --cid C --port P --bytes N [--buf-size N] [--seed S]
 *       connect and write that stream (for `vhost-user-vsock recv --verify`)
 * Both print bytes, seconds, Gbit/s and the CRC32C of the stream, which
 * must equal the host side's.  Exit 0 ok, 1 on a mismatch or error, 2 on
 * bad usage.  Only run inside a lab guest (AF_VSOCK).
 */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/socket.h>

#include "bench_util.h"
#include "bench_vsock.h"
#include "stress_verify.h"

#define PROG "vu-stream"

static void usage(FILE *f)
{
	fprintf(f,
"Usage: " PROG " recv --port P [--expect-bytes N] [--recv-size N] [--seed S]\n"
"                      [--close-after N]   (close mid-stream after N bytes)\n"
"                      [--delay-ms N]      (accept, then read nothing for N ms:\n"
"                                           a flood piles up in the socket)\n"
"       " PROG " send --cid C --port P --bytes N [--buf-size N] [--seed S]\n"
"A vsock stream of the stress pattern, every byte checked on receive.\n"
"Sizes take K, M, G suffixes.  Exit 0 ok, 1 mismatch/error, 2 bad usage.\n");
}

static int bad(const char *opt, const char *val)
{
	fprintf(stderr, PROG ": invalid value '%s' for --%s\n", val, opt);
	usage(stderr);
	return 2;
}

int main(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "port", required_argument, NULL, 'p' },
		{ "cid", required_argument, NULL, 'c' },
		{ "bytes", required_argument, NULL, 'b' },
		{ "expect-bytes", required_argument, NULL, 'e' },
		{ "buf-size", required_argument, NULL, 's' },
		{ "recv-size", required_argument, NULL, 'r' },
		{ "seed", required_argument, NULL, 'S' },
		{ "close-after", required_argument, NULL, 'C' },
		{ "delay-ms", required_argument, NULL, 'D' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	uint64_t port = 1234, cid = UINT64_MAX, bytes = UINT64_MAX, seed = 1;
	uint64_t expect = UINT64_MAX, bufsz = 64 << 10, total = 0, t0 = 0, t1, key;
	uint64_t close_after = UINT64_MAX, delay_ms = 0;
	uint8_t *buf, *want;
	uint32_t crc = 0;
	int sending, c, fd, lfd;

	if (argc < 2 || (strcmp(argv[1], "send") && strcmp(argv[1], "recv"))) {
		if (argc >= 2 && !strcmp(argv[1], "--help")) {
			usage(stdout);
			return 0;
		}
		usage(stderr);
		return 2;
	}
	sending = !strcmp(argv[1], "send");
	argc--;
	argv++;
	opterr = 0;
	while ((c = getopt_long(argc, argv, "", opts, NULL)) != -1) {
		switch (c) {
		case 'p':
			if (bench_parse_u64(optarg, UINT32_MAX, &port))
				return bad("port", optarg);
			break;
		case 'c':
			if (bench_parse_u64(optarg, UINT32_MAX, &cid))
				return bad("cid", optarg);
			break;
		case 'b':
			if (bench_parse_size(optarg, &bytes))
				return bad("bytes", optarg);
			break;
		case 'e':
			if (bench_parse_size(optarg, &expect))
				return bad("expect-bytes", optarg);
			break;
		case 's':
		case 'r':
			if (bench_parse_size(optarg, &bufsz) || !bufsz || bufsz > (16 << 20))
				return bad(c == 's' ? "buf-size" : "recv-size", optarg);
			break;
		case 'S':
			if (bench_parse_u64(optarg, UINT64_MAX, &seed))
				return bad("seed", optarg);
			break;
		case 'C':
			if (bench_parse_size(optarg, &close_after))
				return bad("close-after", optarg);
			break;
		case 'D':
			if (bench_parse_u64(optarg, 600000, &delay_ms))
				return bad("delay-ms", optarg);
			break;
		case 'h':
			usage(stdout);
			return 0;
		default:
			fprintf(stderr, PROG ": unknown option '%s'\n", argv[optind - 1]);
			usage(stderr);
			return 2;
		}
	}
	if (optind < argc || (sending && (cid == UINT64_MAX || bytes == UINT64_MAX))) {
		fprintf(stderr, PROG ": %s\n", optind < argc ? "unexpected argument" :
			"send needs --cid and --bytes");
		usage(stderr);
		return 2;
	}
	buf = malloc(bufsz);
	want = malloc(bufsz);
	if (!buf || !want) {
		fprintf(stderr, PROG ": out of memory\n");
		return 1;
	}
	key = stress_flow_key(seed, 0);

	if (sending) {
		fd = bench_vsock_connect(SOCK_STREAM, cid, port, -1U, 0, 30.0);
		if (fd < 0) {
			fprintf(stderr, PROG ": connect %llu:%llu: %s\n", (unsigned long long)cid,
				(unsigned long long)port, strerror(-fd));
			return 1;
		}
		t0 = bench_now_ns();
		while (total < bytes) {
			size_t n = bytes - total < bufsz ? bytes - total : bufsz;
			int err;

			stress_fill(key, total, buf, n);
			crc = stress_crc32c(crc, buf, n);
			err = bench_send_all(fd, buf, n, NULL, NULL);
			if (err) {
				fprintf(stderr, PROG ": send at byte %llu: %s\n",
					(unsigned long long)total, strerror(-err));
				return 1;
			}
			total += n;
		}
		t1 = bench_now_ns();
		close(fd);
	} else {
		lfd = bench_vsock_listen(SOCK_STREAM, port, 0);
		if (lfd < 0) {
			fprintf(stderr, PROG ": listen on port %llu: %s\n",
				(unsigned long long)port, strerror(-lfd));
			return 1;
		}
		printf("listening: %llu\n", (unsigned long long)port);
		fflush(stdout);
		fd = bench_vsock_accept(lfd);
		if (fd >= 0 && delay_ms)
			usleep(delay_ms * 1000);
		if (fd < 0) {
			fprintf(stderr, PROG ": accept: %s\n", strerror(-fd));
			return 1;
		}
		for (;;) {
			size_t want_n = bufsz;
			ssize_t n;

			if (total >= close_after)
				break;	/* close with the peer still sending */
			if (close_after - total < want_n)
				want_n = close_after - total;
			n = recv(fd, buf, want_n, 0);

			if (n < 0 && errno == EINTR)
				continue;
			if (n < 0) {
				fprintf(stderr, PROG ": recv after %llu bytes: %s\n",
					(unsigned long long)total, strerror(errno));
				return 1;
			}
			if (n == 0)
				break;
			if (!t0)
				t0 = bench_now_ns();
			stress_fill(key, total, want, n);
			if (memcmp(buf, want, n)) {
				ssize_t i = 0;

				while (buf[i] == want[i])
					i++;
				fprintf(stderr, PROG ": byte %llu differs from the stream (lost, duplicated, reordered or corrupted data)\n",
					(unsigned long long)(total + i));
				return 1;
			}
			crc = stress_crc32c(crc, buf, n);
			total += n;
		}
		t1 = bench_now_ns();
		close(fd);
		close(lfd);
	}
	printf("bytes: %llu\nseconds: %.6f\ngbps: %.4f\ncrc32c: 0x%08x\n",
	       (unsigned long long)total, t0 ? (t1 - t0) / 1e9 : 0.0,
	       t0 ? bench_gbps(total, t1 - t0) : 0.0, crc);
	if (!sending && expect != UINT64_MAX && total != expect) {
		fprintf(stderr, PROG ": got %llu bytes, expected %llu\n",
			(unsigned long long)total, (unsigned long long)expect);
		return 1;
	}
	return 0;
}
