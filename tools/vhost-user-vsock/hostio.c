// SPDX-License-Identifier: GPL-2.0
/*
 * `vhost-user-vsock send`: the host-side sender (what vsock_perf --sender
 * was on a vhost-vsock host): connect to the back-end's Unix socket, ask
 * for a guest port with "CONNECT <port> <packet size>\n", then write
 * --bytes in --buf-size writes and close.  The packet size announced is
 * the write size (at most 64 KiB), so the guest gets one packet per write
 * as from vhost-vsock.  The bytes are the stress-test stream of
 * tools/lib/stress_verify.h for (--seed, flow 0), so a receiver can check
 * every byte; the CRC32C of the whole stream is printed too.
 *
 * `vhost-user-vsock pingpong`: the host-side client of a guest echo
 * server (vb-pingpong --server): --count timed round trips of --size
 * bytes, RTT mean/p50/p99/p99.9 on the host's clock.
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
#include <time.h>
#include <unistd.h>
#include <sys/socket.h>
#include <sys/un.h>

#include "bench_pingpong.h"
#include "bench_util.h"
#include "bench_vsock.h"
#include "hostio.h"
#include "stress_verify.h"

#define PROG "vhost-user-vsock"
/* The largest packet vhost-vsock sends, and what the back-end accepts. */
#define HOSTIO_PKT_MAX	(64u << 10)
/* send: stream bytes generated per fill (see hostio_send()). */
#define SEND_CHUNK	(64u << 10)

static void io_usage(FILE *f)
{
	fprintf(f,
"Usage: " PROG " send --uds PATH --port PORT (--bytes SIZE | --seconds T)\n"
"            [--buf-size SIZE] [--pkt-size SIZE] [--rate SIZE] [--seed N]\n"
"            [--retry SECONDS]\n"
"       " PROG " pingpong --uds PATH --port PORT [--size SIZE] [--count N]\n"
"            [--warmup N] [--retry SECONDS]\n"
"       " PROG " recv --listen PATH [--expect-bytes SIZE] [--seed N] [--verify]\n"
"            [--close-after SIZE]\n"
"send: connect to the back-end's host endpoint PATH, 'CONNECT PORT PKT', write\n"
"      SIZE bytes of the checked stream in --buf-size writes (default 64K), close;\n"
"      --seconds: whole writes until T seconds have passed (checked every 64K).\n"
"      --pkt-size caps each packet to the guest (default: the write size, at\n"
"      most 64K: one packet per write, as vhost-vsock does; 0: no cap asked).\n"
"      --rate paces the writes to at most SIZE bytes per second.\n"
"pingpong: --count round trips (default 10000, after --warmup 100 untimed) of\n"
"      --size bytes (default 64) with a guest echo server (vb-pingpong --server).\n"
"recv: accept one connection on PATH (the back-end's <uds>_<port>), read to\n"
"      EOF; --verify checks every byte against the stream of --seed;\n"
"      --close-after: close mid-stream once SIZE bytes arrived (the guest's\n"
"      sender should then get a reset).\n"
"--retry: keep trying while the guest refuses the port (not listening yet),\n"
"      for at most SECONDS (default 0: one try).\n"
"All print 'key: value' lines, send and pingpong one JSON line too.\n"
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
	return bench_send_all(fd, p, len, NULL, NULL) ? -1 : 0;
}

/*
 * One try: connect to the back-end's host endpoint, send the CONNECT line
 * and read the answer byte by byte (the stream follows it directly).
 * Returns the fd, -ECONNRESET if the guest refused the port (the back-end
 * closes without an answer), another -errno otherwise.
 */
static int host_connect_once(const struct sockaddr_un *sa, const char *req,
			     uint32_t *host_port)
{
	char line[64];
	unsigned int i;
	char *end;
	int fd, err;

	fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return -errno;
	if (connect(fd, (const struct sockaddr *)sa, sizeof(*sa)) < 0 ||
	    write_all(fd, (const uint8_t *)req, strlen(req))) {
		err = -errno;
		close(fd);
		return err;
	}
	for (i = 0; i < sizeof(line) - 1; i++) {
		ssize_t n = read(fd, line + i, 1);

		if (n < 0 && errno == EINTR) {
			i--;
			continue;
		}
		if (n <= 0) {
			close(fd);
			return -ECONNRESET;
		}
		if (line[i] == '\n')
			break;
	}
	line[i] = 0;
	if (strncmp(line, "OK ", 3) || (*host_port = strtoul(line + 3, &end, 10), *end)) {
		fprintf(stderr, PROG ": back-end answered '%s'\n", line);
		close(fd);
		return -EPROTO;
	}
	return fd;
}

/*
 * Connect to guest port @port through the back-end at @path, asking for
 * packets of at most @pkt bytes (0: no cap).  While the guest refuses
 * (its listener is not up yet) retry every 20 ms for @retry_s seconds.
 * Returns the stream's fd or -1 (reason printed).
 */
static int host_connect(const char *path, uint64_t port, uint64_t pkt,
			double retry_s, uint32_t *host_port)
{
	uint64_t deadline = bench_now_ns() + (uint64_t)(retry_s * 1e9);
	struct sockaddr_un sa;
	char req[64];
	int fd;

	if (unix_addr(path, &sa))
		return -1;
	if (pkt)
		snprintf(req, sizeof(req), "CONNECT %llu %llu\n",
			 (unsigned long long)port, (unsigned long long)pkt);
	else
		snprintf(req, sizeof(req), "CONNECT %llu\n", (unsigned long long)port);
	for (;;) {
		fd = host_connect_once(&sa, req, host_port);
		if (fd >= 0)
			return fd;
		if (fd != -ECONNRESET || bench_now_ns() >= deadline)
			break;
		usleep(20000);
	}
	if (fd == -ECONNRESET)
		fprintf(stderr, PROG ": guest port %llu: connection refused or reset\n",
			(unsigned long long)port);
	else if (fd != -EPROTO)
		fprintf(stderr, PROG ": connect %s: %s\n", path, strerror(-fd));
	return -1;
}

/* Where send and pingpong connect: --uds, --port, --retry. */
struct host_target {
	const char *path;
	uint64_t port;
	double retry;
};

#define OPT_TAKEN	(-1)

/*
 * The options send and pingpong share, and the end of every option
 * switch (getopt_long with ":" reports a missing value as ':'): OPT_TAKEN when @c was --uds, --port or --retry, else the exit
 * status (0 after --help, 2 for a bad value or an unknown option).
 */
static int target_opt(int c, struct host_target *t, const char *cmd,
		      char **argv)
{
	switch (c) {
	case 'u':
		t->path = optarg;
		return OPT_TAKEN;
	case 'p':
		return bench_parse_u64(optarg, UINT32_MAX, &t->port) ?
			bad("port", optarg) : OPT_TAKEN;
	case 'r':
		return bench_parse_seconds(optarg, &t->retry) ?
			bad("retry", optarg) : OPT_TAKEN;
	case 'h':
		io_usage(stdout);
		return 0;
	case ':':
		fprintf(stderr, PROG " %s: option '%s' needs a value\n", cmd, argv[optind - 1]);
		io_usage(stderr);
		return 2;
	default:
		fprintf(stderr, PROG " %s: unknown option '%s'\n", cmd, argv[optind - 1]);
		io_usage(stderr);
		return 2;
	}
}

/*
 * --rate: sleep until @done bytes are due at @rate bytes/s since @t0, so
 * that the sender, not the guest, limits the transfer (advise's rx-idle
 * scenario in the lab).
 */
static void pace(uint64_t t0, uint64_t done, uint64_t rate)
{
	uint64_t due = t0 + (uint64_t)((double)done * 1e9 / (double)rate);
	uint64_t now = bench_now_ns();
	struct timespec ts;

	if (due <= now)
		return;
	ts.tv_sec = (time_t)((due - now) / 1000000000ULL);
	ts.tv_nsec = (long)((due - now) % 1000000000ULL);
	nanosleep(&ts, NULL);
}

int hostio_send(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "uds", required_argument, NULL, 'u' },
		{ "port", required_argument, NULL, 'p' },
		{ "bytes", required_argument, NULL, 'b' },
		{ "seconds", required_argument, NULL, 'T' },
		{ "buf-size", required_argument, NULL, 's' },
		{ "pkt-size", required_argument, NULL, 'P' },
		{ "rate", required_argument, NULL, 'R' },
		{ "seed", required_argument, NULL, 'S' },
		{ "retry", required_argument, NULL, 'r' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	struct host_target t = { .port = UINT64_MAX };
	uint64_t bytes = UINT64_MAX, bufsz = 64 << 10, seed = 1, rate = 0;
	uint64_t pkt = UINT64_MAX, off = 0, chunk, t0, t1, key, limit_ns = 0;
	double seconds = 0;
	struct bench_json j;
	uint32_t crc = 0, host_port;
	uint8_t *buf;
	int fd, c, r;

	opterr = 0;
	while ((c = getopt_long(argc, argv, ":", opts, NULL)) != -1) {
		switch (c) {
		case 'b':
			if (bench_parse_size(optarg, &bytes))
				return bad("bytes", optarg);
			break;
		case 'T':
			if (bench_parse_seconds(optarg, &seconds) || seconds <= 0 ||
			    seconds > 86400)
				return bad("seconds", optarg);
			break;
		case 's':
			if (bench_parse_size(optarg, &bufsz) || !bufsz || bufsz > (64 << 20))
				return bad("buf-size", optarg);
			break;
		case 'P':
			if (bench_parse_size(optarg, &pkt) || pkt > HOSTIO_PKT_MAX)
				return bad("pkt-size", optarg);
			break;
		case 'R':
			if (bench_parse_size(optarg, &rate) || !rate)
				return bad("rate", optarg);
			break;
		case 'S':
			if (bench_parse_u64(optarg, UINT64_MAX, &seed))
				return bad("seed", optarg);
			break;
		default:
			r = target_opt(c, &t, "send", argv);
			if (r != OPT_TAKEN)
				return r;
		}
	}
	if (optind < argc || !t.path || t.port == UINT64_MAX ||
	    (bytes == UINT64_MAX && seconds == 0)) {
		fprintf(stderr, PROG " send: --uds, --port and --bytes or --seconds are required\n");
		io_usage(stderr);
		return 2;
	}
	if (bytes != UINT64_MAX && seconds > 0) {
		fprintf(stderr, PROG " send: give --bytes or --seconds, not both\n");
		return 2;
	}
	if (seconds > 0)
		limit_ns = (uint64_t)(seconds * 1e9);
	if (pkt == UINT64_MAX)
		pkt = bufsz < HOSTIO_PKT_MAX ? bufsz : HOSTIO_PKT_MAX;
	/*
	 * The stream is generated and checksummed a whole chunk (>= 64 KiB) at
	 * a time and written in --buf-size pieces: at 64-byte writes the host
	 * shares its two cores with the guest's vCPUs, and the sender should
	 * cost a write() per write, not a fill and a CRC as well.
	 */
	chunk = bufsz >= SEND_CHUNK ? bufsz : SEND_CHUNK / bufsz * bufsz;
	buf = malloc(chunk);
	if (!buf) {
		fprintf(stderr, PROG " send: out of memory\n");
		return 1;
	}
	fd = host_connect(t.path, t.port, pkt, t.retry, &host_port);
	if (fd < 0) {
		free(buf);
		return 1;
	}
	key = stress_flow_key(seed, 0);
	t0 = bench_now_ns();
	while (off < bytes) {
		size_t len = bytes - off < chunk ? bytes - off : chunk, i;

		/*
		 * Time-bounded: stop at a chunk boundary (whole writes) once
		 * the time is up; one clock read per chunk, not per write.
		 */
		if (limit_ns && bench_now_ns() - t0 >= limit_ns)
			break;

		stress_fill(key, off, buf, len);
		crc = stress_crc32c(crc, buf, len);
		for (i = 0; i < len; i += bufsz) {
			size_t n = len - i < bufsz ? len - i : bufsz;

			if (write_all(fd, buf + i, n)) {
				fprintf(stderr, PROG " send: write at byte %llu: %s\n",
					(unsigned long long)(off + i), strerror(errno));
				close(fd);
				free(buf);
				return 1;
			}
			if (rate)
				pace(t0, off + i + n, rate);
		}
		off += len;
	}
	t1 = bench_now_ns();
	close(fd);
	free(buf);
	printf("host_port: %u\nbytes: %llu\nseconds: %.6f\ngbps: %.4f\ncrc32c: 0x%08x\n",
	       host_port, (unsigned long long)off, (t1 - t0) / 1e9,
	       bench_gbps(off, t1 - t0), crc);
	bench_json_begin_tool(&j, stdout, PROG "-send");
	bench_json_u64(&j, "port", t.port);
	bench_json_u64(&j, "host_port", host_port);
	bench_json_u64(&j, "buf_size", bufsz);
	bench_json_u64(&j, "pkt_size", pkt);
	bench_json_u64(&j, "bytes", off);
	if (limit_ns)
		bench_json_double(&j, "seconds_target", seconds);
	bench_json_double(&j, "seconds", (t1 - t0) / 1e9);
	bench_json_double(&j, "gbps", bench_gbps(off, t1 - t0));
	bench_json_end(&j);
	return 0;
}

int hostio_pingpong(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "uds", required_argument, NULL, 'u' },
		{ "port", required_argument, NULL, 'p' },
		{ "size", required_argument, NULL, 's' },
		{ "count", required_argument, NULL, 'n' },
		{ "warmup", required_argument, NULL, 'w' },
		{ "retry", required_argument, NULL, 'r' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	struct host_target t = { .port = UINT64_MAX };
	uint64_t size = 64, count = 10000, warmup = 100, i;
	uint8_t *req = NULL, *resp = NULL;
	double *rtt_us = NULL;
	struct bench_json j;
	struct bench_rtt r;
	uint32_t host_port;
	int fd = -1, c, err, rc = 1;

	opterr = 0;
	while ((c = getopt_long(argc, argv, ":", opts, NULL)) != -1) {
		switch (c) {
		case 's':
			if (bench_parse_size(optarg, &size) || !size || size > (16 << 20))
				return bad("size", optarg);
			break;
		case 'n':
			if (bench_parse_u64(optarg, 100000000, &count) || !count)
				return bad("count", optarg);
			break;
		case 'w':
			if (bench_parse_u64(optarg, 100000000, &warmup))
				return bad("warmup", optarg);
			break;
		default:
			err = target_opt(c, &t, "pingpong", argv);
			if (err != OPT_TAKEN)
				return err;
		}
	}
	if (optind < argc || !t.path || t.port == UINT64_MAX) {
		fprintf(stderr, PROG " pingpong: --uds and --port are required\n");
		io_usage(stderr);
		return 2;
	}
	req = malloc(size);
	resp = malloc(size);
	rtt_us = malloc(count * sizeof(*rtt_us));
	if (!req || !resp || !rtt_us) {
		fprintf(stderr, PROG " pingpong: out of memory\n");
		goto out;
	}
	memset(req, 'p', size);
	/* One request goes out as one packet, as a vsock client's send(). */
	fd = host_connect(t.path, t.port, size < HOSTIO_PKT_MAX ? size : HOSTIO_PKT_MAX,
			  t.retry, &host_port);
	if (fd < 0)
		goto out;
	err = bench_pingpong_run(fd, req, resp, size, warmup, count, rtt_us, &i);
	if (err) {
		fprintf(stderr, PROG " pingpong: round trip %llu: %s\n",
			(unsigned long long)i, strerror(-err));
		goto out;
	}
	if (memcmp(req, resp, size)) {
		fprintf(stderr, PROG " pingpong: echo does not match the request\n");
		goto out;
	}
	if (bench_rtt_summarize(rtt_us, count, &r)) {
		fprintf(stderr, PROG " pingpong: percentile computation failed\n");
		goto out;
	}
	printf("host_port: %u\nsize: %llu\ncount: %llu\n", host_port,
	       (unsigned long long)size, (unsigned long long)count);
	printf("rtt mean: %.3f us\nrtt p50: %.3f us\nrtt p99: %.3f us\nrtt p99.9: %.3f us\n",
	       r.mean, r.p50, r.p99, r.p999);
	printf("rtt min: %.3f us\nrtt max: %.3f us\n", r.min, r.max);
	bench_json_begin_tool(&j, stdout, PROG "-pingpong");
	bench_json_u64(&j, "port", t.port);
	bench_json_u64(&j, "size", size);
	bench_json_u64(&j, "count", count);
	bench_json_u64(&j, "warmup", warmup);
	bench_json_double(&j, "rtt_us_mean", r.mean);
	bench_json_double(&j, "rtt_us_p50", r.p50);
	bench_json_double(&j, "rtt_us_p99", r.p99);
	bench_json_double(&j, "rtt_us_p999", r.p999);
	bench_json_double(&j, "rtt_us_min", r.min);
	bench_json_double(&j, "rtt_us_max", r.max);
	bench_json_end(&j);
	rc = 0;
out:
	if (fd >= 0)
		close(fd);
	free(req);
	free(resp);
	free(rtt_us);
	return rc;
}

int hostio_recv(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "listen", required_argument, NULL, 'l' },
		{ "expect-bytes", required_argument, NULL, 'e' },
		{ "seed", required_argument, NULL, 'S' },
		{ "verify", no_argument, NULL, 'V' },
		{ "close-after", required_argument, NULL, 'C' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	uint64_t expect = UINT64_MAX, seed = 1, total = 0, t0 = 0, t1, key;
	uint64_t close_after = UINT64_MAX;
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
		case 'C':
			if (bench_parse_size(optarg, &close_after) || !close_after)
				return bad("close-after", optarg);
			break;
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
		size_t want_n = sizeof(buf);
		ssize_t n;

		if (total == close_after)
			break;	/* the abort: close with the rest unread */
		if (close_after - total < want_n)
			want_n = close_after - total;
		n = read(fd, buf, want_n);
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
