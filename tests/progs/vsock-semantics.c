// SPDX-License-Identifier: GPL-2.0
/*
 * vsock-semantics - loopback vsock stream behaviours that newer upstream
 * vsock_test checks and 6.12's does not, written for this project:
 *
 *   credit        TX credit bounds.  The receiver's buffer is
 *                 SO_VM_SOCKETS_BUFFER_SIZE = 32 KiB and it does not read;
 *                 a non-blocking sender must be stopped (EAGAIN) after at
 *                 most 32 KiB.  After the receiver reads 16 KiB, the
 *                 sender may send more, but never more than the receiver
 *                 has room for: sent - read <= 32 KiB at every point.
 *   peek          MSG_PEEK after a partial recv(): 1000 bytes queued, 300
 *                 received, then MSG_PEEK must return bytes 300..999
 *                 (all of them, and a shorter peek a prefix of them), and
 *                 the next recv() the same bytes again, then nothing.
 *   backpressure  Many writes below 576 bytes (129..575: too big to be
 *                 merged into the previous skb, small enough that the
 *                 rx_queue skb budget, not the credit, is what fills up)
 *                 to a reader that reads in small pieces with pauses: the
 *                 queue collapse path runs under load.  Every byte must
 *                 arrive in order, the connection must not be reset.
 *   enobufs       The ENOBUFS reset: a receiver with a 2 MiB buffer that
 *                 is not reading shrinks it to 4 KiB while the sender is
 *                 streaming, so packets sent under the old credit overrun
 *                 the new one and the transport resets the connection
 *                 (virtio_transport_recv_connected(), inside an RX batch
 *                 on the patched kernel).  Both ends must see the reset
 *                 (an error or EOF, never a hang), and what was received
 *                 must be a correct prefix of what was sent.  Not part of
 *                 "all".
 *
 * Every wait has a timeout (--timeout seconds, default 20).  Output: one
 * line per case, then PASS or FAIL.  Exit 0 if all cases passed, 1 if
 * one failed, 2 on bad usage.  Run it only in a lab guest (it opens
 * AF_VSOCK sockets).
 */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <inttypes.h>
#include <poll.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>
#include <linux/vm_sockets.h>

#include "byte_pattern.h"

#define SALT 0xa5

static unsigned int timeout_s = 20;
static unsigned int base_port = 5300;
static char why[256];

#define FAIL(...) (snprintf(why, sizeof(why), __VA_ARGS__), -1)

static int set_timeouts(int fd)
{
	struct timeval tv = { .tv_sec = timeout_s };

	return setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv)) ||
	       setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof(tv));
}

/* A connected pair over loopback: *tx connected to CID 1, *rx accepted.
 * @rx_buf: SO_VM_SOCKETS_BUFFER_SIZE of the receiving side, 0 = default.
 */
static int pair(unsigned int port, unsigned long long rx_buf, int *tx,
		int *rx)
{
	struct sockaddr_vm sa = { .svm_family = AF_VSOCK,
				  .svm_cid = VMADDR_CID_ANY,
				  .svm_port = port };
	int lfd;

	*tx = *rx = -1;
	lfd = socket(AF_VSOCK, SOCK_STREAM, 0);
	if (lfd < 0)
		return FAIL("socket: %s", strerror(errno));
	if (rx_buf &&
	    (setsockopt(lfd, AF_VSOCK, SO_VM_SOCKETS_BUFFER_MIN_SIZE, &rx_buf,
			sizeof(rx_buf)) ||
	     setsockopt(lfd, AF_VSOCK, SO_VM_SOCKETS_BUFFER_SIZE, &rx_buf,
			sizeof(rx_buf)))) {
		close(lfd);
		return FAIL("SO_VM_SOCKETS_BUFFER_SIZE: %s", strerror(errno));
	}
	if (bind(lfd, (struct sockaddr *)&sa, sizeof(sa)) || listen(lfd, 1)) {
		close(lfd);
		return FAIL("listen on %u: %s", port, strerror(errno));
	}
	*tx = socket(AF_VSOCK, SOCK_STREAM, 0);
	sa.svm_cid = VMADDR_CID_LOCAL;
	if (*tx < 0 || set_timeouts(*tx) ||
	    connect(*tx, (struct sockaddr *)&sa, sizeof(sa))) {
		close(lfd);
		return FAIL("connect: %s", strerror(errno));
	}
	*rx = accept(lfd, NULL, NULL);
	close(lfd);
	if (*rx < 0 || set_timeouts(*rx))
		return FAIL("accept: %s", strerror(errno));
	return 0;
}

static void close_pair(int tx, int rx)
{
	if (tx >= 0)
		close(tx);
	if (rx >= 0)
		close(rx);
}

/* Non-blocking sends of @piece bytes until EAGAIN; returns bytes sent. */
static long long fill(int fd, uint64_t *off, size_t piece)
{
	uint8_t buf[1024];
	long long n = 0;

	for (;;) {
		ssize_t w;

		byte_pattern_fill(buf, piece, *off, SALT);
		w = send(fd, buf, piece, MSG_DONTWAIT | MSG_NOSIGNAL);
		if (w < 0)
			return errno == EAGAIN ? n : -1;
		*off += w;
		n += w;
	}
}

/* Read exactly @len bytes and check them against the pattern at *off. */
static int read_exact(int fd, uint64_t *off, size_t len)
{
	uint8_t buf[4096];

	while (len) {
		size_t want = len < sizeof(buf) ? len : sizeof(buf);
		ssize_t r = recv(fd, buf, want, 0);
		size_t i;

		if (r <= 0)
			return FAIL("recv at byte %" PRIu64 ": %s", *off,
				    r ? strerror(errno) : "EOF");
		i = byte_pattern_check(buf, r, *off, SALT);
		if (i < (size_t)r)
			return FAIL("byte %" PRIu64 " wrong", *off + i);
		*off += r;
		len -= r;
	}
	return 0;
}

static int case_credit(void)
{
	const unsigned long long bufsz = 32 << 10;
	uint64_t sent = 0, got = 0;
	long long n, n2;
	int tx, rx, ret = -1;

	if (pair(base_port + 1, bufsz, &tx, &rx))
		goto out;
	n = fill(tx, &sent, 1024);
	if (n < 0) {
		ret = FAIL("send: %s", strerror(errno));
		goto out;
	}
	/* The credit update of our reads comes back asynchronously: give
	 * the sender a moment, then fill again.
	 */
	if (n == 0 || n > (long long)bufsz) {
		ret = FAIL("sender queued %lld bytes to a %llu-byte receiver",
			   n, bufsz);
		goto out;
	}
	if (read_exact(rx, &got, 16 << 10))
		goto out;
	usleep(200 * 1000);
	n2 = fill(tx, &sent, 1024);
	if (n2 < 0) {
		ret = FAIL("send: %s", strerror(errno));
		goto out;
	}
	if (sent - got > bufsz) {
		ret = FAIL("after reading %" PRIu64 " of %" PRIu64
			   " bytes, %" PRIu64 " are in flight to a %llu-byte receiver",
			   got, sent, sent - got, bufsz);
		goto out;
	}
	if (n2 == 0) {
		ret = FAIL("no credit returned after the receiver read %" PRIu64
			   " bytes", got);
		goto out;
	}
	if (read_exact(rx, &got, sent - got))
		goto out;
	printf("credit: first fill %lld bytes, after reading 16 KiB %lld more "
	       "(receiver buffer %llu)\n", n, n2, bufsz);
	ret = 0;
out:
	close_pair(tx, rx);
	return ret;
}

static int case_peek(void)
{
	uint8_t buf[4096], exp[1000];
	int tx, rx, ret = -1, lowat = 1000;
	uint64_t off = 0;
	ssize_t r;

	byte_pattern_fill(exp, sizeof(exp), 0, SALT);
	if (pair(base_port + 2, 0, &tx, &rx))
		goto out;
	if (send(tx, exp, sizeof(exp), MSG_NOSIGNAL) != sizeof(exp)) {
		ret = FAIL("send: %s", strerror(errno));
		goto out;
	}
	/* Wait until all 1000 bytes are queued. */
	if (setsockopt(rx, SOL_SOCKET, SO_RCVLOWAT, &lowat, sizeof(lowat))) {
		ret = FAIL("SO_RCVLOWAT: %s", strerror(errno));
		goto out;
	}
	{
		struct pollfd p = { .fd = rx, .events = POLLIN };

		if (poll(&p, 1, timeout_s * 1000) != 1) {
			ret = FAIL("1000 bytes never became readable");
			goto out;
		}
	}
	lowat = 1;
	setsockopt(rx, SOL_SOCKET, SO_RCVLOWAT, &lowat, sizeof(lowat));
	if (read_exact(rx, &off, 300))
		goto out;
	r = recv(rx, buf, sizeof(buf), MSG_PEEK);
	if (r != 700 || memcmp(buf, exp + 300, 700)) {
		ret = FAIL("MSG_PEEK after a 300-byte recv returned %zd bytes%s",
			   r, r == 700 ? " with the wrong content" : ", not 700");
		goto out;
	}
	r = recv(rx, buf, 100, MSG_PEEK);
	if (r != 100 || memcmp(buf, exp + 300, 100)) {
		ret = FAIL("a 100-byte MSG_PEEK returned %zd bytes%s", r,
			   r == 100 ? " with the wrong content" : "");
		goto out;
	}
	r = recv(rx, buf, sizeof(buf), 0);
	if (r != 700 || memcmp(buf, exp + 300, 700)) {
		ret = FAIL("recv after MSG_PEEK returned %zd bytes, not the 700 peeked",
			   r);
		goto out;
	}
	r = recv(rx, buf, sizeof(buf), MSG_DONTWAIT);
	if (r != -1 || errno != EAGAIN) {
		ret = FAIL("data left after reading all 1000 bytes (%zd)", r);
		goto out;
	}
	printf("peek: 300 received, 700 peeked, 100 peeked, 700 received\n");
	ret = 0;
out:
	close_pair(tx, rx);
	return ret;
}

struct bp_sender {
	int fd;
	uint64_t total;
	uint64_t writes;
	int err;
};

static void *bp_send(void *arg)
{
	struct bp_sender *s = arg;
	uint64_t off = 0;
	uint8_t buf[576];
	size_t n = 129;

	while (off < s->total) {
		ssize_t w;

		if (n > s->total - off)
			n = s->total - off;
		byte_pattern_fill(buf, n, off, SALT);
		w = send(s->fd, buf, n, MSG_NOSIGNAL);
		if (w < 0) {
			s->err = errno;
			break;
		}
		off += w;
		s->writes++;
		/* 129..575, every size once per cycle */
		n = 129 + (n - 129 + 97) % 447;
	}
	shutdown(s->fd, SHUT_WR);
	return NULL;
}

static int case_backpressure(uint64_t total)
{
	struct bp_sender s = { .total = total };
	uint64_t got = 0, pieces = 0;
	int tx, rx, ret = -1;
	uint8_t buf[700];
	pthread_t t;
	bool started = false;

	if (pair(base_port + 3, 0, &tx, &rx))
		goto out;
	s.fd = tx;
	if (pthread_create(&t, NULL, bp_send, &s)) {
		ret = FAIL("pthread_create");
		goto out;
	}
	started = true;
	/* Let the queue fill before the first read. */
	usleep(300 * 1000);
	for (;;) {
		ssize_t r = recv(rx, buf, sizeof(buf), 0);
		size_t i;

		if (r == 0)
			break;
		if (r < 0) {
			ret = FAIL("recv at byte %" PRIu64 ": %s", got,
				   strerror(errno));
			goto out;
		}
		i = byte_pattern_check(buf, r, got, SALT);
		if (i < (size_t)r) {
			ret = FAIL("byte %" PRIu64 " wrong", got + i);
			goto out;
		}
		got += r;
		/* A slow reader: pause every 64 reads. */
		if (++pieces % 64 == 0)
			usleep(2000);
	}
	pthread_join(t, NULL);
	started = false;
	if (s.err) {
		ret = FAIL("sender: %s after %" PRIu64 " writes", strerror(s.err),
			   s.writes);
		goto out;
	}
	if (got != total) {
		ret = FAIL("EOF after %" PRIu64 " of %" PRIu64 " bytes", got,
			   total);
		goto out;
	}
	printf("backpressure: %" PRIu64 " writes of 129..575 bytes, %" PRIu64
	       " bytes, all delivered in order\n", s.writes, got);
	ret = 0;
out:
	if (started) {
		/* Unblock the sender, then wait for it. */
		close(rx);
		rx = -1;
		pthread_join(t, NULL);
	}
	close_pair(tx, rx);
	return ret;
}

struct en_sender {
	int fd;
	uint64_t sent;
	int err;
};

static void *en_send(void *arg)
{
	struct en_sender *s = arg;
	uint8_t buf[4096];

	for (;;) {
		ssize_t w;

		byte_pattern_fill(buf, sizeof(buf), s->sent, SALT);
		w = send(s->fd, buf, sizeof(buf), MSG_NOSIGNAL);
		if (w < 0) {
			s->err = errno;
			break;
		}
		s->sent += w;
	}
	return NULL;
}

static int case_enobufs(void)
{
	unsigned long long big = 2 << 20, small = 4096;
	struct en_sender s = { 0 };
	uint64_t got = 0;
	int tx = -1, rx = -1, lfd, ret = -1, rerr = 0, rounds;
	struct sockaddr_vm sa = { .svm_family = AF_VSOCK,
				  .svm_cid = VMADDR_CID_ANY,
				  .svm_port = base_port + 4 };
	uint8_t buf[4096];
	pthread_t t;

	lfd = socket(AF_VSOCK, SOCK_STREAM, 0);
	if (lfd < 0 ||
	    setsockopt(lfd, AF_VSOCK, SO_VM_SOCKETS_BUFFER_MAX_SIZE, &big,
		       sizeof(big)) ||
	    setsockopt(lfd, AF_VSOCK, SO_VM_SOCKETS_BUFFER_SIZE, &big,
		       sizeof(big)) ||
	    bind(lfd, (struct sockaddr *)&sa, sizeof(sa)) || listen(lfd, 1)) {
		ret = FAIL("listener with a 2 MiB buffer: %s", strerror(errno));
		goto out;
	}
	/* The sender's own buffer bounds its bytes in flight too. */
	tx = socket(AF_VSOCK, SOCK_STREAM, 0);
	sa.svm_cid = VMADDR_CID_LOCAL;
	if (tx < 0 || set_timeouts(tx) ||
	    setsockopt(tx, AF_VSOCK, SO_VM_SOCKETS_BUFFER_MAX_SIZE, &big,
		       sizeof(big)) ||
	    setsockopt(tx, AF_VSOCK, SO_VM_SOCKETS_BUFFER_SIZE, &big,
		       sizeof(big)) ||
	    connect(tx, (struct sockaddr *)&sa, sizeof(sa))) {
		ret = FAIL("connect: %s", strerror(errno));
		goto out;
	}
	rx = accept(lfd, NULL, NULL);
	if (rx < 0 || set_timeouts(rx)) {
		ret = FAIL("accept: %s", strerror(errno));
		goto out;
	}
	s.fd = tx;
	if (pthread_create(&t, NULL, en_send, &s)) {
		ret = FAIL("pthread_create");
		goto out;
	}
	/* The sender streams under 2 MiB of credit; nobody reads.  Shrink
	 * once 256 KiB are queued, while the sender still has credit.
	 */
	{
		struct pollfd p = { .fd = rx, .events = POLLIN };
		int lowat = 256 << 10;

		setsockopt(rx, SOL_SOCKET, SO_RCVLOWAT, &lowat, sizeof(lowat));
		if (poll(&p, 1, timeout_s * 1000) != 1) {
			ret = FAIL("256 KiB never queued");
			pthread_cancel(t);
			goto join;
		}
		lowat = 1;
		setsockopt(rx, SOL_SOCKET, SO_RCVLOWAT, &lowat, sizeof(lowat));
	}
	/* Shrink the buffer, give packets sent under the old credit time to
	 * arrive, and grow it again so that the sender resumes, until the
	 * transport resets the connection.  Whether a packet is in flight at
	 * the moment of a shrink is a race, so it takes a few rounds.  Each
	 * round also reads up to 256 KiB: a sender that used up all 2 MiB
	 * before the first shrink (a slow receiver on a busy host) gets
	 * credit again with the next grow's credit update, and streams
	 * into the next shrink.  Without it such a sender never resumed and
	 * no round could see a packet in flight.
	 */
	for (rounds = 1; rounds <= 500; rounds++) {
		struct pollfd p = { .fd = rx, .events = POLLIN };
		uint64_t drained = 0;

		if (setsockopt(rx, AF_VSOCK, SO_VM_SOCKETS_BUFFER_SIZE, &small,
			       sizeof(small)))
			break;
		usleep(2000);
		if (poll(&p, 1, 0) == 1 && (p.revents & (POLLERR | POLLHUP)))
			break;
		if (setsockopt(rx, AF_VSOCK, SO_VM_SOCKETS_BUFFER_SIZE, &big,
			       sizeof(big)))
			break;
		usleep(2000);
		while (drained < (256 << 10)) {
			ssize_t r = recv(rx, buf, sizeof(buf), MSG_DONTWAIT);
			size_t i;

			if (r <= 0)
				break;
			i = byte_pattern_check(buf, r, got, SALT);
			if (i < (size_t)r) {
				ret = FAIL("byte %" PRIu64
					   " wrong before the reset", got + i);
				pthread_cancel(t);
				goto join;
			}
			got += r;
			drained += r;
		}
	}
	for (;;) {
		ssize_t r = recv(rx, buf, sizeof(buf), 0);
		size_t i;

		if (r <= 0) {
			rerr = r ? errno : 0;
			break;
		}
		i = byte_pattern_check(buf, r, got, SALT);
		if (i < (size_t)r) {
			ret = FAIL("byte %" PRIu64 " wrong before the reset",
				   got + i);
			pthread_cancel(t);
			goto join;
		}
		got += r;
		if (got > (64 << 20)) {
			ret = FAIL("no reset after %" PRIu64 " bytes", got);
			pthread_cancel(t);
			goto join;
		}
	}
	if (rerr == EAGAIN) {
		ret = FAIL("the receiver timed out after %" PRIu64
			   " bytes: no reset, no data", got);
		pthread_cancel(t);
		goto join;
	}
	ret = 0;
join:
	/* Unblock a sender still waiting for credit. */
	close(rx);
	rx = -1;
	pthread_join(t, NULL);
	if (!ret && s.err == EAGAIN)
		ret = FAIL("the sender timed out instead of seeing the reset");
	if (!ret && !s.err)
		ret = FAIL("the sender saw no error");
	if (!ret)
		printf("enobufs: reset in shrink round %d, after %" PRIu64
		       " of %" PRIu64 " bytes sent; receiver: %s, sender: %s\n",
		       rounds, got, s.sent, rerr ? strerror(rerr) : "EOF",
		       strerror(s.err));
out:
	if (lfd >= 0)
		close(lfd);
	close_pair(tx, rx);
	return ret;
}

static void usage(FILE *f)
{
	fprintf(f, "usage: vsock-semantics [--case credit|peek|backpressure|enobufs|all]\n"
		   "                       [--bytes N] [--timeout S] [--port P]\n");
}

int main(int argc, char **argv)
{
	static const struct option lo[] = {
		{ "case", required_argument, NULL, 'c' },
		{ "bytes", required_argument, NULL, 'b' },
		{ "timeout", required_argument, NULL, 't' },
		{ "port", required_argument, NULL, 'p' },
		{ "help", no_argument, NULL, 'h' },
		{ 0 }
	};
	const char *which = "all";
	uint64_t bytes = 2 << 20;
	int c, fails = 0;
	char *end;

	while ((c = getopt_long(argc, argv, "", lo, NULL)) != -1) {
		switch (c) {
		case 'c':
			which = optarg;
			if (strcmp(which, "credit") && strcmp(which, "peek") &&
			    strcmp(which, "backpressure") &&
			    strcmp(which, "enobufs") && strcmp(which, "all"))
				goto bad;
			break;
		case 'b':
			bytes = strtoull(optarg, &end, 10);
			if (*end || !bytes)
				goto bad;
			break;
		case 't':
			timeout_s = strtoul(optarg, &end, 10);
			if (*end || !timeout_s || timeout_s > 3600)
				goto bad;
			break;
		case 'p':
			base_port = strtoul(optarg, &end, 10);
			if (*end || !base_port || base_port > 0xfffffff0u)
				goto bad;
			break;
		case 'h':
			usage(stdout);
			return 0;
		default:
			usage(stderr);
			return 2;
		}
	}
	if (optind != argc) {
		fprintf(stderr, "vsock-semantics: unexpected argument '%s'\n",
			argv[optind]);
		return 2;
	}

#define RUN(name, call)							\
	do {								\
		if (!strcmp(which, "all") || !strcmp(which, name)) {	\
			why[0] = '\0';					\
			if (call) {					\
				printf("FAIL %s: %s\n", name, why);	\
				fails++;				\
			}						\
		}							\
	} while (0)
	RUN("credit", case_credit());
	RUN("peek", case_peek());
	RUN("backpressure", case_backpressure(bytes));
	if (!strcmp(which, "enobufs")) {
		why[0] = '\0';
		if (case_enobufs()) {
			printf("FAIL enobufs: %s\n", why);
			fails++;
		}
	}
	if (fails)
		return 1;
	printf("PASS\n");
	return 0;
bad:
	fprintf(stderr, "vsock-semantics: bad value '%s' for --%s\n", optarg,
		c == 'c' ? "case" : c == 'b' ? "bytes" : c == 't' ? "timeout" :
		"port");
	return 2;
}
