// SPDX-License-Identifier: GPL-2.0
/*
 * vb-recv - the guest receiver of the throughput benchmarks.
 *
 * Unlike vsock_perf's receiver (poll() + read()) this is a single thread
 * in plain blocking recv() with an explicit recv() size, optionally pinned
 * to one CPU: the syscall count and size are part of the experiment and a
 * tracer can follow exactly one TID.  It accepts one connection, reads to
 * EOF and reports bytes, time (first byte to EOF and accept to EOF),
 * Gbit/s and the number of recv() calls (the call that returns 0 at EOF
 * included, so 64M in 64-byte recv()s counts 1048577).
 *
 * --epoll-et reads the way an edge-triggered event loop does: a
 * non-blocking socket in epoll with EPOLLET, drained with recv() until
 * EAGAIN after every readiness event.  Such a reader depends on a new
 * readable callback for data queued after its last drain; one that never
 * comes leaves it waiting with data queued, which --epoll-et reports as
 * a lost wake-up (exit 1) after --idle-timeout seconds without an event.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <fcntl.h>
#include <sys/epoll.h>
#include <sys/ioctl.h>
#include <sys/socket.h>

#include "bench_util.h"
#include "bench_vsock.h"
#include "insn_mark.h"

#define PROG "vb-recv"

static void usage(FILE *f)
{
	fprintf(f,
"Usage: " PROG " [options]\n"
"Accept one vsock connection and recv() until EOF, blocking (or --epoll-et).\n"
"\n"
"  --port PORT          listen port (default 1234)\n"
"  --tcp[=ADDR]         TCP on ADDR (IPv4, default 127.0.0.1) instead of vsock\n"
"  --seqpacket          a vsock SOCK_SEQPACKET socket: one message per recv();\n"
"                       a message longer than the recv() size is an error\n"
"  --recv-size SIZE     bytes per recv() call (default 64K), or 'match':\n"
"                       use the sender's write size given by --buf-size\n"
"  --buf-size SIZE      the sender's write size (needed with 'match')\n"
"  --rcvlowat SIZE      SO_RCVLOWAT on the connection (default: not set, 1)\n"
"  --epoll-et           non-blocking recv() until EAGAIN after each EPOLLET\n"
"                       readiness event (an edge-triggered event loop)\n"
"  --idle-timeout SEC   --epoll-et: fail (exit 1, a lost wake-up) after SEC\n"
"                       seconds without an event (default 10)\n"
"  --vsk-size SIZE      SO_VM_SOCKETS_BUFFER_(MAX_)SIZE (default: kernel's, 256K)\n"
"  --cpu N              pin to CPU N (sched_setaffinity)\n"
"  --expect-bytes SIZE  fail (exit 1) unless exactly SIZE bytes arrive\n"
"  --insn-mark ID       instruction-count marks (vb-mark): ID when accept()\n"
"                       returns, ID+1 at EOF (1..65534; see guest-run.sh -C)\n"
"  --help               this text\n"
"SIZE takes K, M, G, T suffixes (powers of 1024), e.g. 64K, 2G.\n"
"Output: 'key: value' lines, then one JSON line.\n"
"Exit: 0 ok, 1 runtime error, 2 bad arguments.\n");
}

static int seqpacket;		/* --seqpacket */

/* One recv(): on SOCK_SEQPACKET one whole message, or -1 with EMSGSIZE. */
static ssize_t recv_one(int fd, char *buf, uint64_t size)
{
	return seqpacket ? bench_recv_msg(fd, buf, size) : recv(fd, buf, size, 0);
}

/* Blocking recv() to EOF.  0, or 1 with the reason printed. */
static int recv_blocking(int fd, char *buf, uint64_t size, uint64_t *total,
			 uint64_t *calls, uint64_t *t_first)
{
	for (;;) {
		ssize_t n = recv_one(fd, buf, size);

		if (n < 0) {
			if (errno == EINTR)
				continue;
			fprintf(stderr, PROG ": recv() after %llu bytes: %s\n",
				(unsigned long long)*total, strerror(errno));
			return 1;
		}
		(*calls)++;
		if (n == 0)
			return 0;
		if (!*total)
			*t_first = bench_now_ns();
		*total += (uint64_t)n;
	}
}

/*
 * Edge-triggered: after each event, recv() until EAGAIN (or EOF).  An
 * idle timeout with the connection open is a lost wake-up if data is
 * queued (SIOCINQ where the kernel has it), else the sender stopped.
 */
static int recv_epoll_et(int fd, char *buf, uint64_t size, uint64_t idle_s,
			 uint64_t *total, uint64_t *calls, uint64_t *waits,
			 uint64_t *t_first)
{
	struct epoll_event ev = { .events = EPOLLIN | EPOLLRDHUP | EPOLLET };
	int ep, n, queued;

	if (fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK) < 0) {
		fprintf(stderr, PROG ": O_NONBLOCK: %s\n", strerror(errno));
		return 1;
	}
	ep = epoll_create1(EPOLL_CLOEXEC);
	if (ep < 0 || epoll_ctl(ep, EPOLL_CTL_ADD, fd, &ev) < 0) {
		fprintf(stderr, PROG ": epoll: %s\n", strerror(errno));
		return 1;
	}
	for (;;) {
		n = epoll_wait(ep, &ev, 1, (int)(idle_s * 1000));
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			fprintf(stderr, PROG ": epoll_wait(): %s\n", strerror(errno));
			break;
		}
		(*waits)++;
		if (n == 0) {
			queued = -1;
			if (ioctl(fd, FIONREAD, &queued) < 0)
				queued = -1;
			fprintf(stderr, PROG ": no readiness event for %llu s after %llu bytes (%s%d bytes queued): %s\n",
				(unsigned long long)idle_s,
				(unsigned long long)*total,
				queued < 0 ? "unknown: " : "", queued < 0 ? 0 : queued,
				queued > 0 ? "a lost wake-up" : "the sender stalled");
			break;
		}
		for (;;) {
			ssize_t r = recv_one(fd, buf, size);

			if (r < 0 && errno == EINTR)
				continue;
			if (r < 0 && errno == EAGAIN)
				break;
			if (r < 0) {
				fprintf(stderr, PROG ": recv() after %llu bytes: %s\n",
					(unsigned long long)*total, strerror(errno));
				close(ep);
				return 1;
			}
			(*calls)++;
			if (r == 0) {
				close(ep);
				return 0;
			}
			if (!*total)
				*t_first = bench_now_ns();
			*total += (uint64_t)r;
		}
	}
	close(ep);
	return 1;
}

int main(int argc, char **argv)
{
	enum { O_RECV = 1, O_BUF, O_LOWAT, O_EXPECT, O_MARK, O_EPOLLET, O_IDLE };
	static const struct option opts[] = {
		BENCH_OPT_PORT,
		{ "recv-size", required_argument, NULL, O_RECV },
		{ "buf-size", required_argument, NULL, O_BUF },
		{ "rcvlowat", required_argument, NULL, O_LOWAT },
		BENCH_OPT_VSK,
		BENCH_OPT_CPU,
		BENCH_OPT_TCP,
		BENCH_OPT_SEQPACKET,
		{ "expect-bytes", required_argument, NULL, O_EXPECT },
		{ "insn-mark", required_argument, NULL, O_MARK },
		{ "epoll-et", no_argument, NULL, O_EPOLLET },
		{ "idle-timeout", required_argument, NULL, O_IDLE },
		BENCH_OPT_HELP,
		{ NULL, 0, NULL, 0 },
	};
	uint64_t recv_size = 64 << 10, buf_size = 0, lowat = 0;
	uint64_t vsk_eff = 0, expect = 0, mark = 0, idle_s = 10, waits = 0;
	uint64_t total = 0, calls = 0, t_accept, t_first = 0, t_end, clock_step;
	struct bench_ctxsw cs, ce;
	int match = 0, have_lowat = 0, have_expect = 0, epoll_et = 0;
	struct bench_args a;
	int lfd, fd, err, c;
	struct bench_json j;
	char label[32];
	char *buf;

	bench_args_init(&a, PROG, usage, 1234);
	while ((c = bench_args_next(&a, argc, argv, opts)) != -1) {
		switch (c) {
		case O_RECV:
			if (!strcmp(optarg, "match")) {
				match = 1;
			} else {
				recv_size = bench_arg_size(&a, "recv-size", optarg,
							   1, 1ULL << 30);
				match = 0;
			}
			break;
		case O_BUF:
			buf_size = bench_arg_size(&a, "buf-size", optarg, 1, 1ULL << 30);
			break;
		case O_LOWAT:
			lowat = bench_arg_size(&a, "rcvlowat", optarg, 1, INT32_MAX);
			have_lowat = 1;
			break;
		case O_EXPECT:
			expect = bench_arg_size(&a, "expect-bytes", optarg, 0, UINT64_MAX);
			have_expect = 1;
			break;
		case O_EPOLLET:
			epoll_et = 1;
			break;
		case O_IDLE:
			if (bench_parse_u64(optarg, 3600, &idle_s) || !idle_s)
				bench_usage_error(&a, "--idle-timeout needs seconds 1..3600");
			break;
		case O_MARK:
			if (bench_parse_u64(optarg, 0xfffe, &mark) || !mark)
				bench_usage_error(&a, "--insn-mark needs a number 1..65534");
			break;
		}
	}
	seqpacket = a.seqpacket;
	if (match) {
		if (!buf_size)
			bench_usage_error(&a, "--recv-size match needs --buf-size (the sender's write size)");
		recv_size = buf_size;
	}

	if (bench_args_pin(&a))
		return 1;
	buf = malloc(recv_size);
	if (!buf) {
		fprintf(stderr, PROG ": cannot allocate a %llu-byte buffer\n",
			(unsigned long long)recv_size);
		return 1;
	}

	/* measured before the run: it spins for a few clock steps */
	clock_step = bench_clock_step_ns();
	lfd = bench_sock_listen_report(&a);
	if (lfd < 0)
		return 1;
	printf("Run as receiver\n");
	printf("Listen port %llu\n", (unsigned long long)a.port);
	printf("RX buffer %llu bytes\n", (unsigned long long)recv_size);
	/* Flushed now: a script may wait for this line before starting the
	 * sender. */
	fflush(stdout);

	fd = bench_sock_accept_report(PROG, lfd);
	/* The window of the transfer, for the instruction counter: from the
	 * connection to EOF, both ends' work included. */
	if (mark)
		vb_insn_mark((uint16_t)mark);
	t_accept = bench_now_ns();
	if (fd < 0)
		return 1;
	close(lfd);
	/* vsock_perf sets these on the accepted socket too; the listener's
	 * values were inherited already. */
	if (a.vsk_size && (err = bench_vsock_set_buffer(fd, a.vsk_size, NULL))) {
		fprintf(stderr, PROG ": set vsock buffer size: %s\n", strerror(-err));
		return 1;
	}
	if (have_lowat && (err = bench_set_rcvlowat(fd, lowat))) {
		fprintf(stderr, PROG ": SO_RCVLOWAT: %s\n", strerror(-err));
		return 1;
	}
	if (bench_sock_buffer_report(&a, fd, &vsk_eff))
		return 1;
	printf("%s %llu bytes\n", a.tcp ? "tcp SO_RCVBUF" : "vsock buffer",
	       (unsigned long long)vsk_eff);
	printf("SO_RCVLOWAT %llu bytes\n", (unsigned long long)(have_lowat ? lowat : 1));
	fflush(stdout);

	/* after the output above: a write to a 9p file may block too */
	bench_ctxsw_now(&cs);
	err = epoll_et ? recv_epoll_et(fd, buf, recv_size, idle_s, &total,
				       &calls, &waits, &t_first)
		       : recv_blocking(fd, buf, recv_size, &total, &calls,
				       &t_first);
	if (err)
		return 1;
	t_end = bench_now_ns();
	bench_ctxsw_now(&ce);
	if (mark)
		vb_insn_mark((uint16_t)(mark + 1));
	close(fd);
	if (!total)
		t_first = t_end;

	printf("total bytes received: %llu\n", (unsigned long long)total);
	printf("rx performance: %f Gbits/s\n", bench_gbps(total, t_end - t_first));
	printf("rx performance from accept: %f Gbits/s\n",
	       bench_gbps(total, t_end - t_accept));
	printf("time first byte to EOF: %f sec\n", (double)(t_end - t_first) / 1e9);
	printf("time accept to EOF: %f sec\n", (double)(t_end - t_accept) / 1e9);
	printf("recv() calls: %llu\n", (unsigned long long)calls);
	printf("average bytes per recv(): %f\n",
	       calls ? (double)total / (double)calls : 0.0);
	printf("clock step: %llu ns\n", (unsigned long long)clock_step);
	if (epoll_et)
		printf("epoll_wait() returns: %llu\n", (unsigned long long)waits);

	bench_json_begin_tool(&j, stdout, PROG);
	bench_json_str(&j, "transport", bench_transport_name(&a));
	bench_json_u64(&j, "port", a.port);
	bench_json_str(&j, "recv_mode", match ? "match" : "fixed");
	bench_json_str(&j, "reader", epoll_et ? "epoll-et" : "blocking");
	if (epoll_et)
		bench_json_u64(&j, "epoll_waits", waits);
	bench_json_str(&j, "recv_label", bench_size_label(recv_size, label, sizeof(label)));
	bench_json_u64(&j, "recv_size", recv_size);
	if (buf_size)
		bench_json_u64(&j, "sender_buf_size", buf_size);
	bench_json_u64(&j, "rcvlowat", have_lowat ? lowat : 1);
	bench_json_u64(&j, a.tcp ? "tcp_rcvbuf" : "vsk_size", vsk_eff);
	bench_json_u64(&j, "bytes", total);
	bench_json_u64(&j, "recv_calls", calls);
	bench_json_double(&j, "seconds", (double)(t_end - t_first) / 1e9);
	bench_json_double(&j, "seconds_from_accept", (double)(t_end - t_accept) / 1e9);
	bench_json_double(&j, "gbps", bench_gbps(total, t_end - t_first));
	bench_json_double(&j, "gbps_from_accept", bench_gbps(total, t_end - t_accept));
	bench_json_u64(&j, "clock_step_ns", clock_step);
	bench_json_ctxsw(&j, &cs, &ce);
	bench_json_end_cpu(&j, &a);
	free(buf);

	if (have_expect && total != expect) {
		fprintf(stderr, PROG ": received %llu bytes, expected %llu\n",
			(unsigned long long)total, (unsigned long long)expect);
		return 1;
	}
	return 0;
}
