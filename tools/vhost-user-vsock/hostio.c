// SPDX-License-Identifier: GPL-2.0
/*
 * `vhost-user-vsock send`: the host-side sender (what vsock_perf --sender
 * was on a vhost-vsock host): connect to the back-end's Unix socket, ask
 * for a guest port with "CONNECT <port>\n", then write --bytes in
 * --buf-size writes and close.  The bytes are the stress-test stream of
 * tools/lib/stress_verify.h for (--seed, flow 0), so a receiver can check
 * every byte; the CRC32C of the whole stream is printed too.
 *
 * `vhost-user-vsock recv`: the host end of guest->host connections:
 * listen on PATH (the back-end's UDS_PATH_<port>), accept one connection,
 * read to EOF, print bytes and CRC32C, optionally check the stream.
 */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/socket.h>
#include <sys/un.h>

#include "bench_util.h"
#include "hostio.h"
#include "stress_verify.h"

#define PROG "vhost-user-vsock"

static void io_usage(FILE *f)
{
	fprintf(f,
"Usage: " PROG " send --uds PATH --port PORT --bytes SIZE [--buf-size SIZE] [--seed N]\n"
"       " PROG " recv --listen PATH [--expect-bytes SIZE] [--seed N] [--verify]\n"
"send: connect to the back-end's host endpoint PATH, 'CONNECT PORT', write\n"
"      SIZE bytes of the checked stream in --buf-size writes (default 64K), close.\n"
"recv: accept one connection on PATH (the back-end's <uds>_<port>), read to\n"
"      EOF; --verify checks every byte against the stream of --seed.\n"
"Both print 'key: value' lines (bytes, seconds, gbps, crc32c).\n"
"Exit: 0 ok, 1 runtime error or mismatch, 2 bad arguments.\n");
}

static int bad(const char *opt, const char *val)
{
	fprintf(stderr, PROG ": invalid value '%s' for --%s\n", val, opt);
	io_usage(stderr);
	return 2;
}

static int unix_addr(const char *path, struct sockaddr_un *sa)
{
	memset(sa, 0, sizeof(*sa));
	sa->sun_family = AF_UNIX;
	if (strlen(path) >= sizeof(sa->sun_path)) {
		fprintf(stderr, PROG ": socket path '%s' too long\n", path);
		return -1;
	}
	strcpy(sa->sun_path, path);
	return 0;
}

static int write_all(int fd, const uint8_t *p, size_t len)
{
	while (len) {
		ssize_t n = send(fd, p, len, MSG_NOSIGNAL);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return -1;
		p += n;
		len -= n;
	}
	return 0;
}

int hostio_send(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "uds", required_argument, NULL, 'u' },
		{ "port", required_argument, NULL, 'p' },
		{ "bytes", required_argument, NULL, 'b' },
		{ "buf-size", required_argument, NULL, 's' },
		{ "seed", required_argument, NULL, 'S' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	uint64_t port = UINT64_MAX, bytes = UINT64_MAX, bufsz = 64 << 10, seed = 1;
	uint64_t off = 0, t0, t1, key;
	const char *path = NULL;
	struct sockaddr_un sa;
	char line[64];
	unsigned int ll = 0;
	uint32_t crc = 0;
	uint8_t *buf;
	int fd, c;

	opterr = 0;
	while ((c = getopt_long(argc, argv, "", opts, NULL)) != -1) {
		switch (c) {
		case 'u': path = optarg; break;
		case 'p':
			if (bench_parse_u64(optarg, UINT32_MAX, &port))
				return bad("port", optarg);
			break;
		case 'b':
			if (bench_parse_size(optarg, &bytes))
				return bad("bytes", optarg);
			break;
		case 's':
			if (bench_parse_size(optarg, &bufsz) || !bufsz || bufsz > (64 << 20))
				return bad("buf-size", optarg);
			break;
		case 'S':
			if (bench_parse_u64(optarg, UINT64_MAX, &seed))
				return bad("seed", optarg);
			break;
		case 'h':
			io_usage(stdout);
			return 0;
		default:
			fprintf(stderr, PROG " send: unknown option '%s'\n", argv[optind - 1]);
			io_usage(stderr);
			return 2;
		}
	}
	if (optind < argc || !path || port == UINT64_MAX || bytes == UINT64_MAX) {
		fprintf(stderr, PROG " send: --uds, --port and --bytes are required\n");
		io_usage(stderr);
		return 2;
	}
	if (unix_addr(path, &sa))
		return 2;
	buf = malloc(bufsz);
	fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (!buf || fd < 0 || connect(fd, (struct sockaddr *)&sa, sizeof(sa)) < 0) {
		fprintf(stderr, PROG " send: connect %s: %s\n", path, strerror(errno));
		return 1;
	}
	ll = snprintf(line, sizeof(line), "CONNECT %llu\n", (unsigned long long)port);
	if (write_all(fd, (uint8_t *)line, ll)) {
		fprintf(stderr, PROG " send: writing CONNECT: %s\n", strerror(errno));
		return 1;
	}
	/* The answer, byte by byte: the stream may follow it directly. */
	for (ll = 0; ll < sizeof(line) - 1; ll++) {
		ssize_t n = read(fd, line + ll, 1);

		if (n <= 0) {
			fprintf(stderr, PROG " send: guest port %llu: connection refused or reset\n",
				(unsigned long long)port);
			return 1;
		}
		if (line[ll] == '\n')
			break;
	}
	line[ll] = 0;
	if (strncmp(line, "OK ", 3)) {
		fprintf(stderr, PROG " send: back-end answered '%s'\n", line);
		return 1;
	}
	key = stress_flow_key(seed, 0);
	t0 = bench_now_ns();
	while (off < bytes) {
		size_t n = bytes - off < bufsz ? bytes - off : bufsz;

		stress_fill(key, off, buf, n);
		crc = stress_crc32c(crc, buf, n);
		if (write_all(fd, buf, n)) {
			fprintf(stderr, PROG " send: write at byte %llu: %s\n",
				(unsigned long long)off, strerror(errno));
			return 1;
		}
		off += n;
	}
	t1 = bench_now_ns();
	close(fd);
	printf("host_port: %s\nbytes: %llu\nseconds: %.6f\ngbps: %.4f\ncrc32c: 0x%08x\n",
	       line + 3, (unsigned long long)off, (t1 - t0) / 1e9,
	       bench_gbps(off, t1 - t0), crc);
	free(buf);
	return 0;
}

int hostio_recv(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "listen", required_argument, NULL, 'l' },
		{ "expect-bytes", required_argument, NULL, 'e' },
		{ "seed", required_argument, NULL, 'S' },
		{ "verify", no_argument, NULL, 'V' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	uint64_t expect = UINT64_MAX, seed = 1, total = 0, t0 = 0, t1, key;
	static uint8_t buf[64 << 10], want[64 << 10];
	const char *path = NULL;
	struct sockaddr_un sa;
	int lfd, fd, c, verify = 0;
	uint32_t crc = 0;

	opterr = 0;
	while ((c = getopt_long(argc, argv, "", opts, NULL)) != -1) {
		switch (c) {
		case 'l': path = optarg; break;
		case 'e':
			if (bench_parse_size(optarg, &expect))
				return bad("expect-bytes", optarg);
			break;
		case 'S':
			if (bench_parse_u64(optarg, UINT64_MAX, &seed))
				return bad("seed", optarg);
			break;
		case 'V': verify = 1; break;
		case 'h':
			io_usage(stdout);
			return 0;
		default:
			fprintf(stderr, PROG " recv: unknown option '%s'\n", argv[optind - 1]);
			io_usage(stderr);
			return 2;
		}
	}
	if (optind < argc || !path) {
		fprintf(stderr, PROG " recv: --listen is required\n");
		io_usage(stderr);
		return 2;
	}
	if (unix_addr(path, &sa))
		return 2;
	unlink(path);
	lfd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (lfd < 0 || bind(lfd, (struct sockaddr *)&sa, sizeof(sa)) < 0 ||
	    listen(lfd, 1) < 0) {
		fprintf(stderr, PROG " recv: listen %s: %s\n", path, strerror(errno));
		return 1;
	}
	fd = accept(lfd, NULL, NULL);
	if (fd < 0) {
		fprintf(stderr, PROG " recv: accept: %s\n", strerror(errno));
		return 1;
	}
	close(lfd);
	unlink(path);
	key = stress_flow_key(seed, 0);
	for (;;) {
		ssize_t n = read(fd, buf, sizeof(buf));

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			fprintf(stderr, PROG " recv: read after %llu bytes: %s\n",
				(unsigned long long)total, strerror(errno));
			return 1;
		}
		if (n == 0)
			break;
		if (!t0)
			t0 = bench_now_ns();
		if (verify) {
			stress_fill(key, total, want, n);
			if (memcmp(buf, want, n)) {
				ssize_t i = 0;

				while (buf[i] == want[i])
					i++;
				fprintf(stderr, PROG " recv: byte %llu differs from the stream\n",
					(unsigned long long)(total + i));
				return 1;
			}
		}
		crc = stress_crc32c(crc, buf, n);
		total += n;
	}
	t1 = bench_now_ns();
	printf("bytes: %llu\nseconds: %.6f\ngbps: %.4f\ncrc32c: 0x%08x\n",
	       (unsigned long long)total, t0 ? (t1 - t0) / 1e9 : 0.0,
	       t0 ? bench_gbps(total, t1 - t0) : 0.0, crc);
	if (expect != UINT64_MAX && total != expect) {
		fprintf(stderr, PROG " recv: got %llu bytes, expected %llu\n",
			(unsigned long long)total, (unsigned long long)expect);
		return 1;
	}
	return 0;
}
