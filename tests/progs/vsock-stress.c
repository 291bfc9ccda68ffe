// SPDX-License-Identifier: GPL-2.0
/*
 * vsock-stress - concurrent AF_VSOCK loopback flows with end-to-end
 * verification, for the RX-batching series.
 *
 * Every flow is one SOCK_STREAM connection to CID 1 (VMADDR_CID_LOCAL) with
 * one sender thread and one receiver thread.  The sender writes a
 * deterministic, checksummed, sequence-numbered stream (tools/lib/
 * stress_verify.h) in a per-flow write-size pattern (64 B .. 64 KiB); the
 * receiver checks every byte and its position.  Flows differ in what the
 * batching series could break:
 *   receiver  block  - blocking read() (SO_RCVTIMEO): the in-kernel wait
 *             lowat  - SO_RCVLOWAT > 1 + poll(): the watermark re-check at
 *                      the deferred readable callback; a POLLIN with fewer
 *                      than SO_RCVLOWAT bytes readable is an error
 *             epoll  - edge-triggered epoll (every other one with
 *                      SO_RCVLOWAT too): one lost edge = a hang
 *   sender    block  - blocking send() (SO_SNDTIMEO)
 *             poll   - non-blocking send() + poll(POLLOUT): write-space wake
 *   end       shutwr - SHUT_WR, receiver must see EOF after exactly the
 *                      bytes sent, then answers with a trailer
 *             close  - close() right after the last byte
 *             abort  - SO_LINGER 0 close in the middle of a chunk: the
 *                      receiver must see a correct prefix, then EOF/error
 *             rcvclose - the receiver closes with unread data; the sender
 *                      must get an error (EPIPE/ECONNRESET/ENOTCONN), not hang
 * and in receive buffer size (SO_VM_SOCKETS_BUFFER_SIZE: credit stalls) and
 * read size.  The flow matrix is a function of the flow index only, so runs
 * with the same options are comparable line by line across kernels.
 * --churn adds workers that run many short flows of the same matrix one
 * after the other, so that closes and resets keep landing inside RX runs.
 *
 * Every wait has a timeout (--timeout): a lost wake-up becomes a failure
 * naming the flow, the bytes received, what was awaited and whether data
 * was in fact readable.  A global deadline (--deadline) catches anything
 * else.  Output: one line per flow, a JSON summary line, and a final
 * PASS/FAIL line.  Exit 0 only if every flow ended as expected; 1 on
 * failure; 2 on bad usage.
 *
 * --transport unix runs the same flows over AF_UNIX socketpairs: that is
 * how the program checks itself on a host (never open AF_VSOCK outside a
 * lab guest).  --inject deliberately damages the receive side to show
 * that corruption, loss, duplication, reordering, a lost wake-up and a
 * hung reader are each caught.
 */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <inttypes.h>
#include <limits.h>
#include <math.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>
#include <linux/vm_sockets.h>

#include "stress_verify.h"

#define MAX_FLOWS	64
#define MAX_CHURN	16		/* churn workers */
#define MAX_CONNS	1000		/* connections per churn worker */
#define RBUF_SLACK	64		/* room for the "dup" injection */
#define TRAILER_MAGIC	0x52545356u	/* "VSTR" */
#define TRAILER_LEN	16

enum recv_kind { RK_BLOCK, RK_LOWAT, RK_EPOLL, RK_NR };
enum send_kind { SK_BLOCK, SK_POLL };
enum end_kind { END_SHUTWR, END_CLOSE, END_ABORT, END_RCVCLOSE };
enum transport { TR_VSOCK, TR_UNIX };
enum inject_kind { INJ_NONE, INJ_CORRUPT, INJ_DROP, INJ_DUP, INJ_REORDER,
		   INJ_LOSTWAKE, INJ_HANG };

static const char *const recv_names[] = { "block", "lowat", "epoll" };
static const char *const send_names[] = { "block", "poll" };
static const char *const end_names[] = { "shutwr", "close", "abort",
					 "rcvclose" };
static const char *const inject_names[] = { "none", "corrupt", "drop", "dup",
					    "reorder", "lostwake", "hang" };

static struct {
	unsigned int flows;
	uint64_t bytes;
	uint64_t seed;
	double duration;	/* 0: stop by bytes only */
	double deadline;
	double stall;		/* per-wait timeout */
	unsigned int port;
	enum transport tr;
	const char *json_path;
	enum inject_kind inj;
	unsigned int inj_flow;
	uint64_t inj_off;
	unsigned int churn;	/* churn workers */
	unsigned int conns;	/* connections per churn worker */
} opt = {
	.flows = 8,
	.bytes = 1 << 20,
	.seed = 1,
	.deadline = 100,
	.stall = 15,
	.port = 20000,
	.conns = 40,
};

struct flow_cfg {
	enum recv_kind recv;
	enum send_kind send;
	enum stress_pattern pat;
	enum end_kind end;
	bool server_sends;	/* else the connecting side sends */
	uint32_t buf;		/* receiver's buffer size */
	uint32_t rsize;		/* read() size */
	uint32_t lowat;		/* SO_RCVLOWAT (lowat receivers) */
	uint64_t cut;		/* abort: bytes before reset; rcvclose: bytes read */
};

struct flow {
	unsigned int id;
	struct flow_cfg cfg;
	int sfd, rfd;
	uint64_t seed;		/* stream seed (--seed; churn: per connection) */
	uint64_t bytes;		/* complete stream length */
	uint64_t key;
	uint64_t plan_bytes, plan_chunks;	/* complete stream per --bytes */
	pthread_barrier_t *start;	/* common start line; NULL for churn */
	bool sub;		/* a churn connection: its worker reports it */

	/* churn worker: connections one after the other on one listener */
	bool churn;
	int lfd;
	struct flow *conn;	/* opt.conns connections */
	_Atomic unsigned int cur;	/* connection in progress */
	unsigned int conns_ok;
	uint64_t churn_bytes, churn_chunks;

	/* progress, read by the main thread at the deadline */
	_Atomic uint64_t sent, rcvd;
	_Atomic(const char *) swait, rwait;	/* what each side waits for */

	/* sender results (published by the sender before it ends the stream) */
	_Atomic uint64_t final_bytes, final_chunks;
	_Atomic bool final_set;
	uint64_t sent_chunks;
	bool send_ok;
	const char *send_end;	/* "EOF", "EPIPE", ... how it ended */
	char send_msg[320];
	uint64_t pollout_waits;
	double send_secs;

	/* receiver results */
	struct stress_verifier v;
	bool recv_ok;
	const char *recv_end;
	char recv_msg[700];
	uint64_t waits;		/* poll/epoll returns */
	bool exact;		/* abort: got every byte the sender wrote */
	uint64_t unread;	/* rcvclose: bytes left unread (capped) */
	double connect_s;	/* connect() time (churn: the longest) */
	double recv_secs;

	bool done_s, done_r;	/* under done_lock */
};

static struct flow flows[MAX_FLOWS + MAX_CHURN];
static pthread_mutex_t done_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t done_cond;
static unsigned int done_count;
static pthread_barrier_t start_barrier;
static struct timespec t_start;

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (ts.tv_sec - t_start.tv_sec) + (ts.tv_nsec - t_start.tv_nsec) / 1e9;
}

static int stall_ms(void)
{
	return (int)(opt.stall * 1000);
}

static const char *errname(int err)
{
	switch (err) {
	case 0: return "EOF";
	case EPIPE: return "EPIPE";
	case ECONNRESET: return "ECONNRESET";
	case ENOTCONN: return "ENOTCONN";
	case EAGAIN: return "EAGAIN";
	case ENOBUFS: return "ENOBUFS";
	case ETIMEDOUT: return "ETIMEDOUT";
	case EINVAL: return "EINVAL";
	case EBADF: return "EBADF";
	default: return "error";
	}
}

static bool is_reset_err(int err)
{
	return err == EPIPE || err == ECONNRESET || err == ENOTCONN;
}

/* ---- flow matrix ---- */

static uint64_t rng_between(uint64_t seed, unsigned int flow, uint64_t salt,
			    uint64_t lo, uint64_t hi)
{
	uint64_t k = stress_flow_key(seed ^ salt, flow);

	return lo + k % (hi - lo + 1);
}

/*
 * Everything but the cut points depends on the index only: flow i has the
 * same shape for every seed, so two runs compare line by line.
 */
static void flow_config(unsigned int i, uint64_t bytes, uint64_t seed,
			struct flow_cfg *c)
{
	static const enum end_kind ends[8] = {
		END_SHUTWR, END_CLOSE, END_ABORT, END_SHUTWR,
		END_RCVCLOSE, END_CLOSE, END_SHUTWR, END_ABORT,
	};
	static const uint32_t bufs[4] = { 256 * 1024, 256 * 1024, 64 * 1024,
					  16 * 1024 };
	static const uint32_t rsizes[5] = { 65536, 4096, 1000, 333, 16384 };
	static const uint32_t lowats[3] = { 1024, 4096, 16384 };

	c->recv = i % RK_NR;
	c->pat = (i + i / STRESS_PAT_NR) % STRESS_PAT_NR;
	c->end = ends[i % 8];
	c->send = (i + i / 4) % 2;
	c->server_sends = (i / 2) % 2;
	c->buf = bufs[(i / 3) % 4];
	c->rsize = rsizes[i % 5];
	c->lowat = 0;
	/* poll receivers always, epoll (edge-triggered) ones every other time */
	if (c->recv == RK_LOWAT || (c->recv == RK_EPOLL && (i / 3) % 2)) {
		c->lowat = lowats[(i / 3) % 3];
		if (c->lowat > c->buf / 4)
			c->lowat = c->buf / 4;
		/* a read must be able to take SO_RCVLOWAT bytes at once */
		if (c->rsize < c->lowat)
			c->rsize = c->lowat;
	}
	/* Cut somewhere in the middle third or so, mid-chunk. */
	c->cut = rng_between(seed, i, 0xc07, bytes * 3 / 10, bytes * 7 / 10);
}

static const char *size_str(uint32_t b, char *buf, size_t len)
{
	if (b % 1024 == 0)
		snprintf(buf, len, "%uK", b / 1024);
	else
		snprintf(buf, len, "%u", b);
	return buf;
}

/* "flow 3 [lowat/poll fixed64k abort buf=64K rsize=16384 lowat=4096 c>s]" */
static void flow_desc(const struct flow *f, char *out, size_t len)
{
	const struct flow_cfg *c = &f->cfg;
	char b[16], lw[24] = "";

	if (c->lowat)
		snprintf(lw, sizeof(lw), " lowat=%u", c->lowat);
	snprintf(out, len, "flow %u [recv=%s send=%s %s %s buf=%s rsize=%u%s %s]",
		 f->id, recv_names[c->recv], send_names[c->send],
		 stress_pattern_name(c->pat), end_names[c->end],
		 size_str(c->buf, b, sizeof(b)), c->rsize, lw,
		 c->server_sends ? "s>c" : "c>s");
}

/* ---- completion ---- */

static void mark_done(struct flow *f, bool sender)
{
	if (f->sub)
		return;
	pthread_mutex_lock(&done_lock);
	if (sender)
		f->done_s = true;
	else
		f->done_r = true;
	done_count++;
	pthread_cond_signal(&done_cond);
	pthread_mutex_unlock(&done_lock);
}

/* ---- I/O helpers with timeouts ---- */

static int set_timeo(int fd, int which, double secs)
{
	struct timeval tv = {
		.tv_sec = (time_t)secs,
		.tv_usec = (suseconds_t)((secs - (time_t)secs) * 1e6),
	};

	return setsockopt(fd, SOL_SOCKET, which, &tv, sizeof(tv));
}

static int set_nonblock(int fd)
{
	int fl = fcntl(fd, F_GETFL);

	return fl < 0 ? -1 : fcntl(fd, F_SETFL, fl | O_NONBLOCK);
}

/*
 * Read up to @len bytes within the stall timeout, whatever the socket's
 * blocking mode: > 0 bytes, 0 EOF, -errno (-ETIMEDOUT on timeout).
 */
static ssize_t read_timeout(int fd, void *buf, size_t len)
{
	for (;;) {
		ssize_t r = recv(fd, buf, len, MSG_DONTWAIT);

		if (r >= 0)
			return r;
		if (errno == EINTR)
			continue;
		if (errno != EAGAIN)
			return -errno;
		struct pollfd p = { .fd = fd, .events = POLLIN };
		int n = poll(&p, 1, stall_ms());

		if (n == 0)
			return -ETIMEDOUT;
		if (n < 0 && errno != EINTR)
			return -errno;
	}
}

static int write_timeout(int fd, const void *buf, size_t len)
{
	const uint8_t *p = buf;

	while (len) {
		ssize_t r = send(fd, p, len, MSG_DONTWAIT | MSG_NOSIGNAL);

		if (r > 0) {
			p += r;
			len -= r;
			continue;
		}
		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0 && errno != EAGAIN)
			return -errno;
		struct pollfd pf = { .fd = fd, .events = POLLOUT };
		int n = poll(&pf, 1, stall_ms());

		if (n == 0)
			return -ETIMEDOUT;
		if (n < 0 && errno != EINTR)
			return -errno;
	}
	return 0;
}

/* ---- sender ---- */

/*
 * Send all of @buf as the flow's sender does.  0, -errno, or -ETIMEDOUT
 * after a wait of --timeout without progress (f->send_msg says which).
 */
static int send_chunk(struct flow *f, const uint8_t *buf, size_t len)
{
	while (len) {
		int flags = MSG_NOSIGNAL;
		ssize_t r;

		if (f->cfg.send == SK_POLL)
			flags |= MSG_DONTWAIT;
		atomic_store(&f->swait, f->cfg.send == SK_POLL ? "send(nonblocking)" :
			     "send() (blocking, SO_SNDTIMEO)");
		r = send(f->sfd, buf, len, flags);
		if (r > 0) {
			buf += r;
			len -= r;
			atomic_fetch_add(&f->sent, (uint64_t)r);
			continue;
		}
		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0 && errno == EAGAIN && f->cfg.send == SK_BLOCK) {
			snprintf(f->send_msg, sizeof(f->send_msg),
				 "sender: timeout: send() blocked %.1f s at "
				 "stream offset %" PRIu64 " (no credit/write-space "
				 "wake-up)", opt.stall, atomic_load(&f->sent));
			return -ETIMEDOUT;
		}
		if (r < 0 && errno != EAGAIN)
			return -errno;

		struct pollfd p = { .fd = f->sfd, .events = POLLOUT };
		int n;

		atomic_store(&f->swait, "poll(POLLOUT)");
		n = poll(&p, 1, stall_ms());
		f->pollout_waits++;
		if (n == 0) {
			snprintf(f->send_msg, sizeof(f->send_msg),
				 "sender: timeout: no POLLOUT for %.1f s at "
				 "stream offset %" PRIu64 " (write-space wake-up "
				 "lost?)", opt.stall, atomic_load(&f->sent));
			return -ETIMEDOUT;
		}
		if (n < 0 && errno != EINTR)
			return -errno;
	}
	return 0;
}

static void publish_final(struct flow *f, uint64_t bytes, uint64_t chunks)
{
	atomic_store(&f->final_bytes, bytes);
	atomic_store(&f->final_chunks, chunks);
	atomic_store(&f->final_set, true);
}

/* SHUT_WR end: the receiver answers with (bytes, chunks), then closes. */
static void sender_trailer(struct flow *f, uint64_t bytes, uint64_t chunks)
{
	uint8_t t[TRAILER_LEN];
	size_t got = 0;
	ssize_t r;

	atomic_store(&f->swait, "the receiver's trailer after SHUT_WR");
	while (got < TRAILER_LEN) {
		r = read_timeout(f->sfd, t + got, TRAILER_LEN - got);
		if (r <= 0) {
			snprintf(f->send_msg, sizeof(f->send_msg),
				 "sender: %s after SHUT_WR while waiting for the "
				 "receiver's trailer (%zu of %d bytes)",
				 r == -ETIMEDOUT ? "timeout" : errname((int)-r),
				 got, TRAILER_LEN);
			return;
		}
		got += r;
	}
	uint32_t magic = t[0] | t[1] << 8 | t[2] << 16 | (uint32_t)t[3] << 24;
	uint32_t tchunks = t[4] | t[5] << 8 | t[6] << 16 | (uint32_t)t[7] << 24;
	uint64_t tbytes = 0;

	for (int i = 15; i >= 8; i--)
		tbytes = tbytes << 8 | t[i];
	if (magic != TRAILER_MAGIC || tbytes != bytes ||
	    tchunks != (uint32_t)chunks) {
		snprintf(f->send_msg, sizeof(f->send_msg),
			 "sender: receiver reports %" PRIu64 " bytes / %" PRIu32
			 " chunks (magic 0x%08" PRIx32 "), sent %" PRIu64
			 " / %" PRIu64, tbytes, tchunks, magic, bytes, chunks);
		return;
	}
	atomic_store(&f->swait, "EOF after the trailer");
	r = read_timeout(f->sfd, t, 1);
	if (r != 0) {
		snprintf(f->send_msg, sizeof(f->send_msg),
			 "sender: expected EOF after the trailer, got %s",
			 r > 0 ? "data" : r == -ETIMEDOUT ? "a timeout" :
			 errname((int)-r));
		return;
	}
	f->send_end = "trailer+EOF";
	f->send_ok = true;
}

static void *sender_main(void *arg)
{
	struct flow *f = arg;
	const struct flow_cfg *c = &f->cfg;
	uint8_t *buf = malloc(STRESS_CHUNK_MAX);
	struct stress_plan pl;
	uint64_t off = 0, total, cut = UINT64_MAX;
	uint32_t seq = 0;
	int err = 0;

	f->send_end = "?";
	stress_plan_init(&pl, c->pat, f->seed, f->id);
	total = c->end == END_RCVCLOSE ? 0 : f->bytes;	/* 0: unbounded */
	if (c->end == END_ABORT)
		cut = c->cut;
	if (f->start)
		pthread_barrier_wait(f->start);
	double t0 = now_s();

	if (!buf) {
		snprintf(f->send_msg, sizeof(f->send_msg), "sender: out of memory");
		goto out;
	}

	for (;;) {
		uint64_t remaining = total ? total - off : 0;
		uint32_t n, len;
		uint16_t flags = 0;

		if (total && !remaining)
			break;
		if (opt.duration > 0 && total && now_s() - t0 >= opt.duration) {
			/* time is up: this chunk is the last (or the cut) */
			n = stress_plan_next(&pl, 0);
			total = off + n;
			if (c->end == END_ABORT && cut > off)
				cut = off + n / 2;
		} else {
			n = stress_plan_next(&pl, remaining);
		}
		if (total && off + n == total)
			flags = STRESS_FLAG_LAST;
		stress_chunk_build(f->key, f->id, seq, off, n, flags, buf);
		len = n;
		if (off + len > cut)
			len = (uint32_t)(cut - off);	/* abort mid-chunk */
		err = send_chunk(f, buf, len);
		if (err)
			break;
		off += len;
		if (len == n)
			seq++;
		if (off == cut)
			break;
		if (!total && off > f->bytes + (256ULL << 20)) {
			snprintf(f->send_msg, sizeof(f->send_msg),
				 "sender: %" PRIu64 " bytes sent and the "
				 "receiver that closed after %" PRIu64
				 " is still accepting data", off, c->cut);
			goto out;
		}
	}
	f->sent_chunks = seq;
	if (err == -ETIMEDOUT) {
		f->send_end = "timeout";
		goto out;	/* send_chunk said why */
	}
	if (c->end == END_RCVCLOSE) {
		f->send_end = errname(-err);
		if (is_reset_err(-err))
			f->send_ok = true;
		else
			snprintf(f->send_msg, sizeof(f->send_msg),
				 "sender: send() failed with %s (%s) after %"
				 PRIu64 " bytes; expected EPIPE/ECONNRESET/"
				 "ENOTCONN once the receiver closed",
				 errname(-err), strerror(-err), off);
		goto out;
	}
	if (err) {
		f->send_end = errname(-err);
		snprintf(f->send_msg, sizeof(f->send_msg),
			 "sender: send() failed: %s after %" PRIu64 " of %"
			 PRIu64 " bytes", strerror(-err), off,
			 c->end == END_ABORT ? cut : total);
		goto out;
	}
	publish_final(f, off, seq);
	switch (c->end) {
	case END_SHUTWR:
		if (shutdown(f->sfd, SHUT_WR)) {
			snprintf(f->send_msg, sizeof(f->send_msg),
				 "sender: shutdown(SHUT_WR): %s", strerror(errno));
			break;
		}
		sender_trailer(f, off, seq);
		break;
	case END_CLOSE:
		f->send_end = "close";
		f->send_ok = true;
		break;
	case END_ABORT: {
		struct linger l = { .l_onoff = 1, .l_linger = 0 };

		if (setsockopt(f->sfd, SOL_SOCKET, SO_LINGER, &l, sizeof(l))) {
			snprintf(f->send_msg, sizeof(f->send_msg),
				 "sender: SO_LINGER: %s", strerror(errno));
			break;
		}
		f->send_end = "linger0-close";
		f->send_ok = true;
		break;
	}
	case END_RCVCLOSE:
		break;
	}
out:
	atomic_store(&f->swait, "nothing (done)");
	close(f->sfd);
	f->send_secs = now_s() - t0;
	free(buf);
	mark_done(f, true);
	return NULL;
}

/* ---- receiver ---- */

struct rstate {
	struct flow *f;
	int ep;			/* epoll fd (RK_EPOLL) */
	bool ep_armed;		/* last read hit EAGAIN: wait for an edge */
	int never_fd;		/* lostwake injection: a pipe that never fires */
	uint8_t *buf;
	uint8_t *peek;		/* PEEK_MAX scratch for peek_avail() */
	bool inj_pending;
};

#define PEEK_MAX	(64 * 1024)

/* Bytes readable right now (up to PEEK_MAX), without consuming them. */
static ssize_t peek_avail(struct rstate *rs)
{
	ssize_t r = recv(rs->f->rfd, rs->peek, PEEK_MAX, MSG_PEEK | MSG_DONTWAIT);

	return r < 0 ? -errno : r;
}

static void timeout_msg(struct rstate *rs, const char *waited_in)
{
	struct flow *f = rs->f;
	char where[96], avail[160];
	ssize_t a = peek_avail(rs);

	stress_verify_where(&f->v, where, sizeof(where));
	if (a > 0)
		snprintf(avail, sizeof(avail), "%zd bytes were readable "
			 "(LOST WAKE-UP)", a);
	else if (a == 0)
		snprintf(avail, sizeof(avail), "EOF was pending (LOST WAKE-UP)");
	else if (a == -EAGAIN)
		snprintf(avail, sizeof(avail), "nothing was readable (sender "
			 "stalled? it is in %s at %" PRIu64 " bytes)",
			 atomic_load(&f->swait), atomic_load(&f->sent));
	else
		snprintf(avail, sizeof(avail), "peek: %s", strerror((int)-a));
	snprintf(f->recv_msg, sizeof(f->recv_msg),
		 "receiver: timeout: nothing for %.1f s in %s after %" PRIu64
		 " bytes, awaiting %s of a %s stream; %s", opt.stall, waited_in,
		 atomic_load(&f->rcvd), where,
		 f->cfg.end == END_RCVCLOSE ? "receiver-closed" :
		 f->cfg.end == END_ABORT ? "sender-reset" : "complete", avail);
}

/* The wait said readable, yet a read right after it found nothing. */
static ssize_t readiness_lie(struct rstate *rs, const char *how,
			     unsigned int revents)
{
	struct flow *f = rs->f;

	snprintf(f->recv_msg, sizeof(f->recv_msg),
		 "receiver: %s reported readable (events 0x%x) but the read "
		 "right after it found nothing (EAGAIN) after %" PRIu64
		 " bytes", how, revents, atomic_load(&f->rcvd));
	return -EPROTO;
}

/*
 * The read right after a wait that reported POLLIN/EPOLLIN returned @r:
 * with SO_RCVLOWAT set, readable means at least SO_RCVLOWAT bytes (or the
 * peer is done, and then everything it sent is already queued), so a
 * shorter read is a watermark violation.  Only vsock honours the watermark
 * in poll; with --duration the stream length is not known in advance.
 */
static ssize_t lowat_check(struct rstate *rs, const char *how,
			   unsigned int revents, ssize_t r, size_t want)
{
	struct flow *f = rs->f;
	const struct flow_cfg *c = &f->cfg;
	uint64_t rcvd = atomic_load(&f->rcvd);
	uint64_t left = (c->end == END_ABORT ? c->cut : f->bytes) - rcvd;
	uint64_t need = c->lowat;

	if (!c->lowat || opt.tr != TR_VSOCK || opt.duration > 0 || r <= 0)
		return r;
	if (c->end == END_RCVCLOSE)
		left = want;	/* the sender never stops first */
	if (need > want)
		need = want;
	if (need > left)
		need = left;
	if ((uint64_t)r >= need)
		return r;
	snprintf(f->recv_msg, sizeof(f->recv_msg),
		 "receiver: SO_RCVLOWAT=%u violated: %s said readable (events "
		 "0x%x) but only %zd bytes were there after %" PRIu64
		 " bytes (%" PRIu64 " more expected)", c->lowat, how, revents,
		 r, rcvd, left);
	return -EPROTO;
}

/*
 * One read by the flow's receiver kind: > 0 bytes, 0 EOF, -errno;
 * -ETIMEDOUT (f->recv_msg set) when its wait gave up; -EPROTO (recv_msg
 * set) on an SO_RCVLOWAT or readiness violation.
 */
static ssize_t recv_some(struct rstate *rs, size_t want)
{
	struct flow *f = rs->f;
	const struct flow_cfg *c = &f->cfg;
	ssize_t r;

	if (rs->never_fd >= 0) {
		/* injected lost wake-up: wait on something that never fires */
		struct pollfd p = { .fd = rs->never_fd, .events = POLLIN };

		atomic_store(&f->rwait, "poll() on the wrong fd (injected lost wake-up)");
		poll(&p, 1, stall_ms());
		timeout_msg(rs, "poll (injected lost wake-up)");
		return -ETIMEDOUT;
	}
	switch (c->recv) {
	case RK_BLOCK:
		atomic_store(&f->rwait, "read() (blocking, SO_RCVTIMEO)");
		do
			r = read(f->rfd, rs->buf, want);
		while (r < 0 && errno == EINTR);
		if (r < 0 && errno == EAGAIN) {
			timeout_msg(rs, "blocking read()");
			return -ETIMEDOUT;
		}
		return r < 0 ? -errno : r;

	case RK_LOWAT: {
		struct pollfd p = { .fd = f->rfd, .events = POLLIN };
		int n;

		atomic_store(&f->rwait, "poll(POLLIN) with SO_RCVLOWAT");
		do
			n = poll(&p, 1, stall_ms());
		while (n < 0 && errno == EINTR);
		if (n < 0)
			return -errno;
		f->waits++;
		if (n == 0) {
			timeout_msg(rs, "poll(POLLIN, SO_RCVLOWAT)");
			return -ETIMEDOUT;
		}
		r = recv(f->rfd, rs->buf, want, MSG_DONTWAIT);
		if (r < 0 && errno == EAGAIN && (p.revents & POLLIN))
			return readiness_lie(rs, "poll()", p.revents);
		if (r < 0)
			return -errno;
		if (p.revents & POLLIN)
			return lowat_check(rs, "poll()", p.revents, r, want);
		return r;
	}
	case RK_EPOLL:
	default:
		for (;;) {
			uint32_t evs = 0;

			if (rs->ep_armed) {
				struct epoll_event ev;
				int n;

				atomic_store(&f->rwait, "epoll_wait(EPOLLIN|EPOLLET)");
				n = epoll_wait(rs->ep, &ev, 1, stall_ms());
				if (n < 0 && errno == EINTR)
					continue;
				if (n < 0)
					return -errno;
				f->waits++;
				if (n == 0) {
					timeout_msg(rs, "epoll_wait(EPOLLIN|EPOLLET)");
					return -ETIMEDOUT;
				}
				evs = ev.events;
				rs->ep_armed = false;
			}
			r = recv(f->rfd, rs->buf, want, MSG_DONTWAIT);
			if (r >= 0)
				return evs & EPOLLIN ?
					lowat_check(rs, "epoll_wait()", evs, r, want) : r;
			if (errno == EINTR)
				continue;
			if (errno != EAGAIN)
				return -errno;
			if (evs & EPOLLIN)
				return readiness_lie(rs, "epoll_wait()", evs);
			rs->ep_armed = true;	/* drained: wait for an edge */
		}
	}
}

/*
 * --inject: damage what the receiver hands to the verifier, to prove that
 * the verifier and the timeouts catch it.  Returns the new length.
 */
static ssize_t inject(struct rstate *rs, uint64_t start, ssize_t r)
{
	uint8_t *b = rs->buf;
	uint64_t at = opt.inj_off;
	size_t i;

	if (!rs->inj_pending || r <= 0 || start + r <= at)
		return r;
	i = at > start ? at - start : 0;
	switch (opt.inj) {
	case INJ_CORRUPT:
		b[i] ^= 0x20;
		break;
	case INJ_DROP:
		memmove(b + i, b + i + 1, r - i - 1);
		r--;
		break;
	case INJ_DUP: {
		size_t n = r - i < 16 ? r - i : 16;

		memmove(b + i + n, b + i, r - i);
		r += n;
		break;
	}
	case INJ_REORDER: {
		uint8_t t[8];

		if (r < 16)
			return r;	/* try the next read */
		if (i + 16 > (size_t)r)
			i = r - 16;
		memcpy(t, b + i, 8);
		memcpy(b + i, b + i + 8, 8);
		memcpy(b + i + 8, t, 8);
		break;
	}
	default:
		return r;
	}
	fprintf(stderr, "vsock-stress: flow %u: injected %s at stream offset %"
		PRIu64 "\n", rs->f->id, inject_names[opt.inj], start + i);
	rs->inj_pending = false;
	return r;
}

static void receiver_trailer(struct flow *f)
{
	uint8_t t[TRAILER_LEN];
	uint64_t bytes = f->v.off;
	uint32_t chunks = (uint32_t)f->v.chunks;
	int err;

	for (int i = 0; i < 4; i++) {
		t[i] = (uint8_t)(TRAILER_MAGIC >> (8 * i));
		t[4 + i] = (uint8_t)(chunks >> (8 * i));
	}
	for (int i = 0; i < 8; i++)
		t[8 + i] = (uint8_t)(bytes >> (8 * i));
	atomic_store(&f->rwait, "writing the trailer");
	err = write_timeout(f->rfd, t, sizeof(t));
	if (err) {
		snprintf(f->recv_msg, sizeof(f->recv_msg),
			 "receiver: writing the trailer after EOF: %s",
			 err == -ETIMEDOUT ? "timeout" : strerror(-err));
		f->recv_ok = false;
	}
}

/* Judge how the stream ended (@r: 0 EOF or -errno) against the flow's end. */
static void receiver_verdict(struct flow *f, ssize_t r)
{
	const struct flow_cfg *c = &f->cfg;
	uint64_t rcvd = atomic_load(&f->rcvd);

	f->recv_end = errname((int)-r);
	switch (c->end) {
	case END_SHUTWR:
	case END_CLOSE: {
		uint64_t bytes = f->plan_bytes, chunks = f->plan_chunks;

		if (r != 0) {
			snprintf(f->recv_msg, sizeof(f->recv_msg),
				 "receiver: %s (%s) after %" PRIu64 " bytes, "
				 "expected EOF after %" PRIu64, errname((int)-r),
				 strerror((int)-r), rcvd, bytes);
			return;
		}
		if (atomic_load(&f->final_set)) {
			bytes = atomic_load(&f->final_bytes);
			chunks = atomic_load(&f->final_chunks);
		}
		if (stress_verify_complete(&f->v, bytes, chunks)) {
			snprintf(f->recv_msg, sizeof(f->recv_msg),
				 "receiver: %s", f->v.err);
			return;
		}
		f->recv_ok = true;
		if (c->end == END_SHUTWR)
			receiver_trailer(f);
		return;
	}
	case END_ABORT: {
		uint64_t max = c->cut;

		if (atomic_load(&f->final_set))
			max = atomic_load(&f->final_bytes);
		if (r != 0 && !is_reset_err((int)-r)) {
			snprintf(f->recv_msg, sizeof(f->recv_msg),
				 "receiver: %s (%s) after %" PRIu64 " bytes; "
				 "expected EOF or a reset after the sender's "
				 "SO_LINGER 0 close", errname((int)-r),
				 strerror((int)-r), rcvd);
			return;
		}
		if (stress_verify_prefix(&f->v, max)) {
			snprintf(f->recv_msg, sizeof(f->recv_msg),
				 "receiver: %s", f->v.err);
			return;
		}
		f->exact = f->v.off == max;
		f->recv_ok = true;
		return;
	}
	case END_RCVCLOSE:
		/* reached only if the stream ended before we closed */
		snprintf(f->recv_msg, sizeof(f->recv_msg),
			 "receiver: %s after %" PRIu64 " bytes, before the %"
			 PRIu64 " at which it was to close", errname((int)-r),
			 rcvd, c->cut);
		return;
	}
}

static void *receiver_main(void *arg)
{
	struct flow *f = arg;
	const struct flow_cfg *c = &f->cfg;
	struct rstate rs = { .f = f, .ep = -1, .never_fd = -1 };
	int pipefd[2] = { -1, -1 };
	bool at_cut = false;	/* rcvclose: read all it was to read */
	ssize_t r = 0;

	f->recv_end = "?";
	stress_verify_init(&f->v, f->seed, f->id);
	rs.buf = malloc(c->rsize + RBUF_SLACK);
	rs.peek = malloc(PEEK_MAX);
	rs.inj_pending = opt.inj != INJ_NONE && opt.inj_flow == f->id;
	if (!rs.buf || !rs.peek) {
		snprintf(f->recv_msg, sizeof(f->recv_msg), "receiver: out of memory");
		if (f->start)
			pthread_barrier_wait(f->start);
		goto out;
	}
	if (c->recv == RK_EPOLL) {
		struct epoll_event ev = {
			.events = EPOLLIN | EPOLLRDHUP | EPOLLET,
		};

		rs.ep = epoll_create1(EPOLL_CLOEXEC);
		if (rs.ep < 0 || epoll_ctl(rs.ep, EPOLL_CTL_ADD, f->rfd, &ev)) {
			snprintf(f->recv_msg, sizeof(f->recv_msg),
				 "receiver: epoll: %s", strerror(errno));
			if (f->start)
				pthread_barrier_wait(f->start);
			goto out;
		}
	}
	if (f->start)
		pthread_barrier_wait(f->start);
	double t0 = now_s();

	for (;;) {
		uint64_t rcvd = atomic_load(&f->rcvd);
		size_t want = c->rsize;

		if (c->end == END_RCVCLOSE) {
			if ((at_cut = rcvd >= c->cut))
				break;
			if (c->cut - rcvd < want)
				want = c->cut - rcvd;
		}
		if (rs.inj_pending && rcvd >= opt.inj_off) {
			if (opt.inj == INJ_HANG) {
				fprintf(stderr, "vsock-stress: flow %u: injected "
					"hang at stream offset %" PRIu64 "\n",
					f->id, rcvd);
				atomic_store(&f->rwait, "nothing: injected hang");
				for (;;)
					pause();
			}
			if (opt.inj == INJ_LOSTWAKE && pipe(pipefd) == 0) {
				fprintf(stderr, "vsock-stress: flow %u: injected "
					"lost wake-up at stream offset %" PRIu64
					"\n", f->id, rcvd);
				rs.never_fd = pipefd[0];
			}
		}
		r = recv_some(&rs, want);
		if (r <= 0)
			break;
		atomic_fetch_add(&f->rcvd, (uint64_t)r);
		r = inject(&rs, rcvd, r);
		if (stress_verify_feed(&f->v, rs.buf, r)) {
			snprintf(f->recv_msg, sizeof(f->recv_msg),
				 "receiver: %s", f->v.err);
			r = -EPROTO;
			break;
		}
	}
	if (r == -ETIMEDOUT || r == -EPROTO) {
		f->recv_end = r == -ETIMEDOUT ? "timeout" : "bad-data";
	} else if (at_cut) {
		/* read the planned amount: close with whatever is unread */
		ssize_t a = peek_avail(&rs);

		/* informational only: how much is unread is timing */
		f->unread = a > 0 ? (uint64_t)a : 0;
		f->recv_end = "closed";
		f->recv_ok = true;
	} else {
		receiver_verdict(f, r);
	}
	f->recv_secs = now_s() - t0;
out:
	atomic_store(&f->rwait, "nothing (done)");
	close(f->rfd);
	if (rs.ep >= 0)
		close(rs.ep);
	if (pipefd[0] >= 0) {
		close(pipefd[0]);
		close(pipefd[1]);
	}
	free(rs.buf);
	free(rs.peek);
	mark_done(f, false);
	return NULL;
}

/* ---- connection setup ---- */

static int vsock_set_buf(int fd, uint64_t size)
{
	/* the kernel clamps the size to the current maximum: max first */
	if (setsockopt(fd, AF_VSOCK, SO_VM_SOCKETS_BUFFER_MAX_SIZE, &size,
		       sizeof(size)))
		return -1;
	return setsockopt(fd, AF_VSOCK, SO_VM_SOCKETS_BUFFER_SIZE, &size,
			  sizeof(size));
}

static int vsock_listener(unsigned int id, unsigned int port)
{
	struct sockaddr_vm a = {
		.svm_family = AF_VSOCK,
		.svm_cid = VMADDR_CID_ANY,
		.svm_port = port,
	};
	int l = socket(AF_VSOCK, SOCK_STREAM | SOCK_CLOEXEC, 0);

	if (l < 0) {
		fprintf(stderr, "vsock-stress: socket(AF_VSOCK): %s (is the "
			"vsock_loopback module loaded?)\n", strerror(errno));
		return -1;
	}
	if (bind(l, (struct sockaddr *)&a, sizeof(a)) || listen(l, 4)) {
		fprintf(stderr, "vsock-stress: flow %u: bind/listen port %u: "
			"%s\n", id, port, strerror(errno));
		close(l);
		return -1;
	}
	return l;
}

/* One connection to CID 1 through listener @l (on @port), accepted. */
static int vsock_pair(struct flow *f, int l, unsigned int port, int *srv,
		      int *cli)
{
	struct sockaddr_vm a = {
		.svm_family = AF_VSOCK,
		.svm_cid = VMADDR_CID_LOCAL,
		.svm_port = port,
	};
	const bool srv_recv = !f->cfg.server_sends;
	struct pollfd p = { .fd = l, .events = POLLIN };
	int c, s;

	/*
	 * The receiver's buffer size: the accepted socket inherits the
	 * listener's when the connection request arrives.
	 */
	if (vsock_set_buf(l, srv_recv ? f->cfg.buf : 256 * 1024)) {
		fprintf(stderr, "vsock-stress: flow %u: buffer size %u: %s\n",
			f->id, f->cfg.buf, strerror(errno));
		return -1;
	}
	c = socket(AF_VSOCK, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (c < 0 || (!srv_recv && vsock_set_buf(c, f->cfg.buf))) {
		fprintf(stderr, "vsock-stress: flow %u: client socket: %s\n",
			f->id, strerror(errno));
		goto err;
	}
	/*
	 * The default connect timeout is 2 s; the loopback queue in front
	 * of the request can be longer than that on a debug kernel under
	 * TCG.  Connect gets the same patience as every other wait.
	 */
	struct timeval tv = { .tv_sec = (time_t)opt.stall };

	if (setsockopt(c, AF_VSOCK, SO_VM_SOCKETS_CONNECT_TIMEOUT, &tv,
		       sizeof(tv))) {
		fprintf(stderr, "vsock-stress: flow %u: connect timeout: %s\n",
			f->id, strerror(errno));
		goto err;
	}
	double t0 = now_s();

	if (connect(c, (struct sockaddr *)&a, sizeof(a))) {
		fprintf(stderr, "vsock-stress: flow %u: connect to 1:%u: %s "
			"after %.1f s\n", f->id, port, strerror(errno),
			now_s() - t0);
		goto err;
	}
	f->connect_s = now_s() - t0;
	errno = 0;
	if (poll(&p, 1, stall_ms()) != 1 ||
	    (s = accept4(l, NULL, NULL, SOCK_CLOEXEC)) < 0) {
		fprintf(stderr, "vsock-stress: flow %u: accept: %s\n", f->id,
			strerror(errno ? errno : ETIMEDOUT));
		goto err;
	}
	*srv = s;
	*cli = c;
	return 0;
err:
	if (c >= 0)
		close(c);
	return -1;
}

static int connect_vsock(struct flow *f, int *srv, int *cli)
{
	unsigned int port = opt.port + f->id;
	int l = vsock_listener(f->id, port), err;

	if (l < 0)
		return -1;
	err = vsock_pair(f, l, port, srv, cli);
	close(l);
	return err;
}

static int connect_unix(struct flow *f, int *srv, int *cli)
{
	int sv[2];
	int b = (int)f->cfg.buf;

	if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv)) {
		fprintf(stderr, "vsock-stress: socketpair: %s\n", strerror(errno));
		return -1;
	}
	/* closest AF_UNIX analogue of the receive buffer size */
	setsockopt(f->cfg.server_sends ? sv[1] : sv[0], SOL_SOCKET, SO_RCVBUF,
		   &b, sizeof(b));
	setsockopt(f->cfg.server_sends ? sv[0] : sv[1], SOL_SOCKET, SO_SNDBUF,
		   &b, sizeof(b));
	*srv = sv[0];
	*cli = sv[1];
	return 0;
}

/* Give a connected pair its roles and socket options. */
static int flow_prepare(struct flow *f, int srv, int cli)
{
	const struct flow_cfg *c = &f->cfg;

	f->sfd = c->server_sends ? srv : cli;
	f->rfd = c->server_sends ? cli : srv;
	f->key = stress_flow_key(f->seed, f->id);
	f->plan_bytes = f->bytes;
	f->plan_chunks = stress_plan_chunks(c->pat, f->seed, f->id, f->bytes);

	if (c->send == SK_BLOCK ? set_timeo(f->sfd, SO_SNDTIMEO, opt.stall) :
	    set_nonblock(f->sfd))
		goto err;
	if (c->recv == RK_BLOCK ? set_timeo(f->rfd, SO_RCVTIMEO, opt.stall) :
	    set_nonblock(f->rfd))
		goto err;
	if (c->lowat) {
		int lw = (int)c->lowat;

		if (setsockopt(f->rfd, SOL_SOCKET, SO_RCVLOWAT, &lw, sizeof(lw)))
			goto err;
	}
	return 0;
err:
	fprintf(stderr, "vsock-stress: flow %u: socket options: %s\n", f->id,
		strerror(errno));
	close(srv);
	close(cli);
	return -1;
}

static int flow_setup(struct flow *f)
{
	int srv, cli;

	if ((opt.tr == TR_VSOCK ? connect_vsock : connect_unix)(f, &srv, &cli))
		return -1;
	return flow_prepare(f, srv, cli);
}

/* ---- churn: short connections, one after the other ---- */

/*
 * A churn worker runs opt.conns short connections in sequence on one
 * listener, each a small flow of the matrix (many ended by a reset, a
 * close with unread data or a close right after the last byte), so that
 * socket close and reset land inside RX runs over and over.  Its verdict
 * is the first connection that did not end as expected.
 */
static void *churn_main(void *arg)
{
	struct flow *w = arg;
	double t0;

	pthread_barrier_wait(&start_barrier);
	t0 = now_s();
	for (unsigned int k = 0; k < opt.conns; k++) {
		struct flow *f = &w->conn[k];
		pthread_t rt, st;
		int srv, cli, err;

		f->id = w->id;
		f->sub = true;
		f->seed = stress_flow_key(opt.seed ^ 0xc4u, k);
		f->bytes = rng_between(f->seed, w->id, 0x5123, 8192, 131072);
		flow_config(w->id * 5 + k, f->bytes, f->seed, &f->cfg);
		atomic_store(&w->cur, k);
		err = opt.tr == TR_VSOCK ?
			vsock_pair(f, w->lfd, opt.port + w->id, &srv, &cli) :
			connect_unix(f, &srv, &cli);
		if (!err)
			err = flow_prepare(f, srv, cli);
		if (err) {
			snprintf(w->recv_msg, sizeof(w->recv_msg), "churn "
				 "connection %u: setup failed (see stderr)", k);
			break;
		}
		err = pthread_create(&rt, NULL, receiver_main, f);
		if (err) {
			close(f->rfd);
			close(f->sfd);
		} else if ((err = pthread_create(&st, NULL, sender_main, f))) {
			close(f->sfd);	/* the receiver sees EOF and ends */
			pthread_join(rt, NULL);
		} else {
			pthread_join(rt, NULL);
			pthread_join(st, NULL);
		}
		if (err) {
			snprintf(w->recv_msg, sizeof(w->recv_msg), "churn "
				 "connection %u: pthread_create: %s", k,
				 strerror(err));
			break;
		}
		if (!f->send_ok || !f->recv_ok) {
			char d[160];

			flow_desc(f, d, sizeof(d));
			snprintf(w->recv_msg, sizeof(w->recv_msg), "churn "
				 "connection %u of %s: %.300s%s%.200s", k,
				 strchr(d, '[') ? strchr(d, '[') : d, f->recv_msg,
				 f->recv_msg[0] && f->send_msg[0] ? "; " : "",
				 f->send_msg);
			break;
		}
		w->conns_ok++;
		if (f->connect_s > w->connect_s)
			w->connect_s = f->connect_s;
		w->churn_bytes += f->v.off;
		w->churn_chunks += f->v.chunks;
		atomic_fetch_add(&w->sent, atomic_load(&f->sent));
		atomic_fetch_add(&w->rcvd, f->v.off);
	}
	w->recv_ok = w->send_ok = w->conns_ok == opt.conns;
	w->recv_end = w->send_end = w->recv_ok ? "all-ok" : "failed";
	w->v.off = w->churn_bytes;
	w->v.chunks = w->churn_chunks;
	w->recv_secs = w->send_secs = now_s() - t0;
	if (w->lfd >= 0)
		close(w->lfd);
	mark_done(w, true);
	mark_done(w, false);
	return NULL;
}

/* ---- report ---- */

static void json_str(FILE *o, const char *s)
{
	fputc('"', o);
	for (; *s; s++) {
		if (*s == '"' || *s == '\\')
			fprintf(o, "\\%c", *s);
		else if ((unsigned char)*s < 0x20)
			fprintf(o, "\\u%04x", *s);
		else
			fputc(*s, o);
	}
	fputc('"', o);
}

/*
 * Results of one flow as reported.  A side still running at the deadline
 * gets a deadline message of its own: its thread may still write its
 * result fields, so they are not touched.
 */
struct flow_result {
	bool ok;
	const char *recv_end, *send_end;
	uint64_t bytes, chunks;
	char reason[1100];
};

static void flow_result(const struct flow *f, bool deadline,
			struct flow_result *res)
{
	bool rdone = !deadline || f->done_r, sdone = !deadline || f->done_s;
	char rmsg[200] = "", smsg[200] = "";
	const char *rm = f->recv_msg, *sm = f->send_msg;

	if (f->churn && !rdone) {
		unsigned int k = atomic_load(&f->cur);
		const struct flow *cf = &f->conn[k];

		res->ok = false;
		res->recv_end = res->send_end = "deadline";
		res->bytes = f->churn_bytes;
		res->chunks = f->churn_chunks;
		snprintf(res->reason, sizeof(res->reason), "global deadline "
			 "(%.0f s) hit in churn connection %u: receiver in %s "
			 "after %" PRIu64 " bytes, sender in %s after %" PRIu64
			 " bytes", opt.deadline, k, atomic_load(&cf->rwait),
			 atomic_load(&cf->rcvd), atomic_load(&cf->swait),
			 atomic_load(&cf->sent));
		return;
	}
	if (!rdone) {
		snprintf(rmsg, sizeof(rmsg), "receiver: global deadline "
			 "(%.0f s) hit in %s after %" PRIu64 " bytes",
			 opt.deadline, atomic_load(&f->rwait),
			 atomic_load(&f->rcvd));
		rm = rmsg;
	}
	if (!sdone) {
		snprintf(smsg, sizeof(smsg), "sender: global deadline "
			 "(%.0f s) hit in %s after %" PRIu64 " bytes",
			 opt.deadline, atomic_load(&f->swait),
			 atomic_load(&f->sent));
		sm = smsg;
	}
	res->ok = rdone && sdone && f->send_ok && f->recv_ok;
	res->recv_end = rdone ? f->recv_end : "deadline";
	res->send_end = sdone ? f->send_end : "deadline";
	res->bytes = rdone ? f->v.off : atomic_load(&f->rcvd);
	res->chunks = rdone ? f->v.chunks : 0;
	snprintf(res->reason, sizeof(res->reason), "%s%s%s", rm,
		 rm[0] && sm[0] ? "; " : "", sm);
}

static int report(double secs, bool deadline)
{
	unsigned int nok = 0;
	char *js = NULL;
	size_t jlen = 0;
	FILE *j = open_memstream(&js, &jlen);

	if (!j) {
		perror("vsock-stress: open_memstream");
		return 1;
	}
	fprintf(j, "{\"tool\":\"vsock-stress\",\"version\":1,\"transport\":\"%s\","
		"\"seed\":%" PRIu64 ",\"flows\":%u,\"bytes\":%" PRIu64 ","
		"\"churn\":%u,\"conns\":%u,"
		"\"duration\":%g,\"timeout\":%g,\"deadline\":%g,\"inject\":\"%s\","
		"\"flow\":[", opt.tr == TR_VSOCK ? "vsock" : "unix", opt.seed,
		opt.flows, opt.bytes, opt.churn, opt.conns, opt.duration,
		opt.stall, opt.deadline, inject_names[opt.inj]);
	for (unsigned int i = 0; i < opt.flows + opt.churn; i++) {
		struct flow *f = &flows[i];
		const struct flow_cfg *c = &f->cfg;
		struct flow_result res;
		char d[160];

		flow_result(f, deadline, &res);
		nok += res.ok;
		if (f->churn)
			snprintf(d, sizeof(d), "flow %u [churn: %u connections of "
				 "8K-128K, flow kinds %u..]", i, opt.conns, i * 5);
		else
			flow_desc(f, d, sizeof(d));
		if (res.ok && f->churn)
			printf("%s: ok: %u/%u connections as expected, %" PRIu64
			       " bytes, %" PRIu64 " chunks verified, slowest "
			       "connect %.2f s (%.1f s)\n", d, f->conns_ok,
			       opt.conns, res.bytes, res.chunks, f->connect_s,
			       f->recv_secs);
		else if (res.ok)
			printf("%s: ok: %" PRIu64 " bytes, %" PRIu64 " chunks "
			       "verified; receiver %s, sender %s%s (%.1f s)\n",
			       d, res.bytes, res.chunks, res.recv_end,
			       res.send_end, c->end == END_ABORT ?
			       (f->exact ? ", every byte before the reset" :
				", short of the reset point") : "",
			       f->recv_secs > f->send_secs ? f->recv_secs :
			       f->send_secs);
		else
			printf("%s: FAIL: %s\n", d, res.reason);
		const bool ch = f->churn;

		fprintf(j, "%s{\"flow\":%u,\"recv\":\"%s\",\"send\":\"%s\","
			"\"pattern\":\"%s\",\"end\":\"%s\",\"dir\":\"%s\","
			"\"buf\":%u,\"rsize\":%u,\"lowat\":%u,\"cut\":%" PRIu64 ","
			"\"bytes\":%" PRIu64 ",\"chunks\":%" PRIu64 ","
			"\"sent\":%" PRIu64 ",\"recv_end\":\"%s\","
			"\"send_end\":\"%s\",\"waits\":%" PRIu64 ","
			"\"pollout_waits\":%" PRIu64 ",\"exact\":%s,"
			"\"conns\":%u,\"conns_ok\":%u,\"connect_ms\":%.0f,"
			"\"unread\":%" PRIu64 ",\"verdict\":\"%s\","
			"\"reason\":", i ? "," : "", i,
			ch ? "churn" : recv_names[c->recv],
			ch ? "churn" : send_names[c->send],
			ch ? "mixed" : stress_pattern_name(c->pat),
			ch ? "churn" : end_names[c->end],
			ch ? "both" : c->server_sends ? "s>c" : "c>s",
			c->buf, c->rsize, c->lowat,
			c->end == END_ABORT || c->end == END_RCVCLOSE ? c->cut : 0,
			res.bytes, res.chunks, atomic_load(&f->sent),
			res.recv_end, res.send_end, f->waits, f->pollout_waits,
			f->exact ? "true" : "false", ch ? opt.conns : 1,
			ch ? f->conns_ok : res.ok, f->connect_s * 1000, f->unread,
			res.ok ? "ok" : "fail");
		json_str(j, res.reason);
		fputc('}', j);
	}
	const unsigned int all = opt.flows + opt.churn;

	fprintf(j, "],\"ok\":%u,\"failed\":%u,\"secs\":%.2f,\"verdict\":\"%s\"}",
		nok, all - nok, secs, nok == all ? "PASS" : "FAIL");
	fclose(j);
	printf("%s\n", js);
	if (opt.json_path) {
		FILE *o = fopen(opt.json_path, "w");

		if (!o || fprintf(o, "%s\n", js) < 0 || fclose(o)) {
			fprintf(stderr, "vsock-stress: writing %s: %s\n",
				opt.json_path, strerror(errno));
			nok = 0;
		}
	}
	free(js);
	if (nok == all)
		printf("PASS: %u/%u flows as expected (seed %" PRIu64 ", %" PRIu64
		       " bytes/flow, %s, %.1f s)\n", nok, all, opt.seed,
		       opt.bytes, opt.tr == TR_VSOCK ? "vsock" : "unix", secs);
	else
		printf("FAIL: %u/%u flows failed%s (seed %" PRIu64 ", %" PRIu64
		       " bytes/flow, %.1f s)\n", all - nok, all,
		       deadline ? ", global deadline hit" : "", opt.seed,
		       opt.bytes, secs);
	fflush(stdout);
	return nok == all ? 0 : 1;
}

/* ---- options ---- */

static void usage(FILE *o)
{
	fprintf(o,
"usage: vsock-stress [OPTIONS]\n"
"Concurrent AF_VSOCK loopback flows (CID 1) with every byte verified.\n"
"Run it inside a lab guest only (needs vsock_loopback).\n"
"  -n, --flows N        flows (1..%d, default 8)\n"
"  -b, --bytes N        stream bytes per flow, K/M/G suffixes (>= 4K,\n"
"                       default 1M); abort/rcvclose flows stop at 30..70%%\n"
"  -s, --seed N         data, random write sizes and cut points (default 1)\n"
"  -d, --duration S     also stop each sender after S seconds (0 = off;\n"
"                       byte counts then vary from run to run)\n"
"  -t, --timeout S      give up any single wait after S seconds (default 15)\n"
"  -D, --deadline S     global deadline (default 100)\n"
"  -c, --churn N        add N churn workers (0..%d, default 0): each runs\n"
"                       --conns short connections one after the other,\n"
"                       most ended by a reset or a close mid-stream\n"
"  -C, --conns M        connections per churn worker (default 40)\n"
"  -p, --port P         first vsock port; flow i uses P+i (default 20000)\n"
"  -T, --transport T    vsock (default) or unix (AF_UNIX socketpairs: to\n"
"                       check the program itself outside a guest)\n"
"  -j, --json FILE      also write the JSON summary line to FILE\n"
"  -i, --inject K:F:OFF damage flow F's receive side at stream offset OFF\n"
"                       to show detection; K = corrupt, drop, dup, reorder,\n"
"                       lostwake (wait on the wrong fd), hang (stop reading)\n"
"  -h, --help\n"
"Output: one line per flow, a JSON summary line, then PASS or FAIL.\n"
"Exit: 0 every flow as expected, 1 failure, 2 bad usage.\n", MAX_FLOWS,
		MAX_CHURN);
}

static int bad(const char *what, const char *arg)
{
	fprintf(stderr, "vsock-stress: invalid %s '%s' (see --help)\n", what, arg);
	exit(2);
}

static uint64_t parse_u64(const char *s, const char *what, bool suffix)
{
	char *end;
	unsigned long long v;

	errno = 0;
	if (*s == '-' || !*s)
		bad(what, s);
	v = strtoull(s, &end, 0);
	if (errno)
		bad(what, s);
	if (suffix && *end) {
		unsigned int shift = 0;

		switch (*end) {
		case 'k': case 'K': shift = 10; break;
		case 'm': case 'M': shift = 20; break;
		case 'g': case 'G': shift = 30; break;
		default: bad(what, s);
		}
		if (end[1] || v > (UINT64_MAX >> shift))
			bad(what, s);
		v <<= shift;
		end++;
	}
	if (*end)
		bad(what, s);
	return v;
}

static double parse_secs(const char *s, const char *what, bool zero_ok)
{
	char *end;
	double v;

	errno = 0;
	v = strtod(s, &end);
	if (errno || *end || !*s || !isfinite(v) || v < 0 || (!zero_ok && v == 0) ||
	    v > 86400)
		bad(what, s);
	return v;
}

static void parse_inject(const char *s)
{
	char kind[16];
	const char *p = strchr(s, ':');
	size_t n = p ? (size_t)(p - s) : strlen(s);
	int k;

	if (!p || n >= sizeof(kind))
		bad("--inject (want KIND:FLOW:OFFSET)", s);
	memcpy(kind, s, n);
	kind[n] = 0;
	for (k = 1; k < (int)(sizeof(inject_names) / sizeof(inject_names[0])); k++)
		if (!strcmp(kind, inject_names[k]))
			break;
	if (k == (int)(sizeof(inject_names) / sizeof(inject_names[0])))
		bad("--inject kind", kind);
	opt.inj = k;

	const char *q = strchr(p + 1, ':');
	char fl[16];

	if (!q || (size_t)(q - p - 1) >= sizeof(fl) || q == p + 1)
		bad("--inject (want KIND:FLOW:OFFSET)", s);
	memcpy(fl, p + 1, q - p - 1);
	fl[q - p - 1] = 0;
	opt.inj_flow = (unsigned int)parse_u64(fl, "--inject flow", false);
	opt.inj_off = parse_u64(q + 1, "--inject offset", true);
}

static void parse_args(int argc, char **argv)
{
	static const struct option lo[] = {
		{ "flows", required_argument, NULL, 'n' },
		{ "bytes", required_argument, NULL, 'b' },
		{ "seed", required_argument, NULL, 's' },
		{ "duration", required_argument, NULL, 'd' },
		{ "timeout", required_argument, NULL, 't' },
		{ "deadline", required_argument, NULL, 'D' },
		{ "port", required_argument, NULL, 'p' },
		{ "churn", required_argument, NULL, 'c' },
		{ "conns", required_argument, NULL, 'C' },
		{ "transport", required_argument, NULL, 'T' },
		{ "json", required_argument, NULL, 'j' },
		{ "inject", required_argument, NULL, 'i' },
		{ "help", no_argument, NULL, 'h' },
		{ 0 }
	};
	int c;
	uint64_t v;

	opterr = 0;
	while ((c = getopt_long(argc, argv, ":n:b:s:d:t:D:p:c:C:T:j:i:h", lo,
				NULL)) != -1) {
		switch (c) {
		case 'n':
			v = parse_u64(optarg, "--flows", false);
			if (v < 1 || v > MAX_FLOWS)
				bad("--flows", optarg);
			opt.flows = (unsigned int)v;
			break;
		case 'b':
			opt.bytes = parse_u64(optarg, "--bytes", true);
			if (opt.bytes < 4096 || opt.bytes > (1ULL << 40))
				bad("--bytes", optarg);
			break;
		case 's':
			opt.seed = parse_u64(optarg, "--seed", false);
			break;
		case 'd':
			opt.duration = parse_secs(optarg, "--duration", true);
			break;
		case 't':
			opt.stall = parse_secs(optarg, "--timeout", false);
			break;
		case 'D':
			opt.deadline = parse_secs(optarg, "--deadline", false);
			break;
		case 'p':
			v = parse_u64(optarg, "--port", false);
			if (v < 1 || v > UINT32_MAX - 1 - MAX_FLOWS - MAX_CHURN)
				bad("--port", optarg);
			opt.port = (unsigned int)v;
			break;
		case 'c':
			v = parse_u64(optarg, "--churn", false);
			if (v > MAX_CHURN)
				bad("--churn", optarg);
			opt.churn = (unsigned int)v;
			break;
		case 'C':
			v = parse_u64(optarg, "--conns", false);
			if (v < 1 || v > MAX_CONNS)
				bad("--conns", optarg);
			opt.conns = (unsigned int)v;
			break;
		case 'T':
			if (!strcmp(optarg, "vsock"))
				opt.tr = TR_VSOCK;
			else if (!strcmp(optarg, "unix"))
				opt.tr = TR_UNIX;
			else
				bad("--transport", optarg);
			break;
		case 'j':
			opt.json_path = optarg;
			break;
		case 'i':
			parse_inject(optarg);
			break;
		case 'h':
			usage(stdout);
			exit(0);
		case ':':
			fprintf(stderr, "vsock-stress: option '%s' needs an "
				"argument (see --help)\n", argv[optind - 1]);
			exit(2);
		default:
			fprintf(stderr, "vsock-stress: unknown option '%s' "
				"(see --help)\n", argv[optind - 1]);
			exit(2);
		}
	}
	if (optind < argc) {
		fprintf(stderr, "vsock-stress: unexpected argument '%s' (see "
			"--help)\n", argv[optind]);
		exit(2);
	}
	if (opt.inj != INJ_NONE && opt.inj_flow >= opt.flows + opt.churn) {
		fprintf(stderr, "vsock-stress: --inject flow %u does not exist "
			"(--flows %u, --churn %u)\n", opt.inj_flow, opt.flows,
			opt.churn);
		exit(2);
	}
	if (opt.stall >= opt.deadline) {
		fprintf(stderr, "vsock-stress: --timeout must be shorter than "
			"--deadline\n");
		exit(2);
	}
}

int main(int argc, char **argv)
{
	pthread_t th[2 * MAX_FLOWS + MAX_CHURN];
	unsigned int nth = 0, all;
	pthread_condattr_t ca;
	struct timespec dl;
	bool deadline = false;
	int err;

	parse_args(argc, argv);
	all = opt.flows + opt.churn;
	signal(SIGPIPE, SIG_IGN);
	setvbuf(stdout, NULL, _IOLBF, 0);
	clock_gettime(CLOCK_MONOTONIC, &t_start);

	pthread_condattr_init(&ca);
	pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
	pthread_cond_init(&done_cond, &ca);

	printf("vsock-stress: transport=%s flows=%u bytes=%" PRIu64 " seed=%"
	       PRIu64 " churn=%ux%u duration=%g timeout=%g deadline=%g "
	       "port=%u%s%s\n", opt.tr == TR_VSOCK ? "vsock" : "unix",
	       opt.flows, opt.bytes, opt.seed, opt.churn, opt.conns,
	       opt.duration, opt.stall, opt.deadline, opt.port,
	       opt.inj ? " inject=" : "", opt.inj ? inject_names[opt.inj] : "");
	pthread_barrier_init(&start_barrier, NULL, 2 * opt.flows + opt.churn + 1);
	for (unsigned int i = 0; i < opt.flows; i++) {
		struct flow *f = &flows[i];

		f->id = i;
		f->seed = opt.seed;
		f->bytes = opt.bytes;
		f->start = &start_barrier;
		flow_config(i, f->bytes, f->seed, &f->cfg);
		if (flow_setup(f))
			return 1;
	}
	for (unsigned int i = opt.flows; i < all; i++) {
		struct flow *w = &flows[i];

		w->id = i;
		w->churn = true;
		w->lfd = -1;
		w->conn = calloc(opt.conns, sizeof(*w->conn));
		if (!w->conn) {
			fprintf(stderr, "vsock-stress: out of memory\n");
			return 1;
		}
		if (opt.tr == TR_VSOCK &&
		    (w->lfd = vsock_listener(i, opt.port + i)) < 0)
			return 1;
	}
	for (unsigned int i = 0; i < all; i++) {
		if (flows[i].churn) {
			err = pthread_create(&th[nth++], NULL, churn_main,
					     &flows[i]);
		} else {
			err = pthread_create(&th[nth++], NULL, receiver_main,
					     &flows[i]);
			if (!err)
				err = pthread_create(&th[nth++], NULL,
						     sender_main, &flows[i]);
		}
		if (err) {
			fprintf(stderr, "vsock-stress: pthread_create: %s\n",
				strerror(err));
			return 1;
		}
	}
	clock_gettime(CLOCK_MONOTONIC, &t_start);
	dl = t_start;
	dl.tv_sec += (time_t)opt.deadline;
	dl.tv_nsec += (long)((opt.deadline - (time_t)opt.deadline) * 1e9);
	if (dl.tv_nsec >= 1000000000L) {
		dl.tv_sec++;
		dl.tv_nsec -= 1000000000L;
	}
	pthread_barrier_wait(&start_barrier);

	pthread_mutex_lock(&done_lock);
	while (done_count < 2 * all) {
		if (pthread_cond_timedwait(&done_cond, &done_lock, &dl) ==
		    ETIMEDOUT) {
			deadline = true;
			break;
		}
	}
	if (deadline) {
		/* stuck threads stay stuck: report under the lock and leave */
		err = report(now_s(), true);
		_exit(err);
	}
	pthread_mutex_unlock(&done_lock);
	for (unsigned int i = 0; i < nth; i++)
		pthread_join(th[i], NULL);
	return report(now_s(), false);
}
