// SPDX-License-Identifier: GPL-2.0
/*
 * vsock-sockmap - a loopback vsock stream whose receiving socket is in a
 * BPF SOCKMAP, read with blocking recv(): every byte must arrive, in
 * order, with no EAGAIN and no stall.
 *
 * One process, two threads.  The sender connects to CID 1 and writes
 * --bytes in --write pieces of a position-dependent pattern, then closes.
 * The receiver accepts and, depending on --map, puts the accepted socket
 * in a SOCKMAP before the transfer (pre), after a quarter of it has been
 * read (during: the transfer is in full flow, so RX batches are open on
 * the patched kernel), or not at all (none).  --verdict pass attaches an
 * SK_SKB program as BPF_SK_SKB_VERDICT that counts packets and bytes and
 * returns SK_PASS; --verdict none leaves the psock without a program (its
 * socket keeps the default callbacks).  The receiver then reads with
 * blocking recv() to EOF and checks every byte.
 *
 * Failures: a blocking recv() returning EAGAIN (or any error), a wrong
 * byte, EOF before --bytes, no progress for --stall seconds (a lost
 * wake-up or a deadlock: the program says how far it got), and with
 * --verdict pass a verdict program that never ran.  --inject checks the
 * checker: "corrupt" flips one received byte, "stall" expects one byte
 * more than is sent; both must FAIL.
 *
 * The program is built from raw instructions with libbpf's low-level API:
 * it has no ELF object, so it runs in the lab's busybox initramfs without
 * a BTF-dependent loader.  --settle MS waits MS before the mid-transfer
 * insert, so the transport still holds data when the psock takes over;
 * --rcvbuf sets the receiver's vsock buffer.  Output: one summary line,
 * then PASS or FAIL.
 * Exit 0 on PASS, 1 on FAIL, 2 on bad usage.  Run it only in a lab guest.
 */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>
#include <linux/bpf.h>
#include <linux/vm_sockets.h>
#include <bpf/bpf.h>

#include "byte_pattern.h"

#define SALT 0x5a

enum map_mode { MAP_NONE, MAP_PRE, MAP_DURING };
enum inject { INJECT_NONE, INJECT_CORRUPT, INJECT_STALL };

struct opts {
	enum map_mode map;
	bool verdict;
	uint64_t bytes;
	size_t write_size;
	unsigned int port;
	unsigned int stall_s;
	unsigned int settle_ms;
	uint64_t rcvbuf;
	enum inject inject;
};

struct state {
	const struct opts *o;
	int lfd;		/* listening socket */
	int map_fd;		/* SOCKMAP */
	_Atomic uint64_t received;
	_Atomic bool done;
	char failure[256];
	uint64_t sent;
	int send_errno;
};

static int parse_size(const char *s, uint64_t *out)
{
	char *end;
	unsigned long long v;

	errno = 0;
	v = strtoull(s, &end, 10);
	if (errno || end == s)
		return -1;
	switch (*end) {
	case 'K': v <<= 10; end++; break;
	case 'M': v <<= 20; end++; break;
	case '\0': break;
	default: return -1;
	}
	if (*end || v == 0)
		return -1;
	*out = v;
	return 0;
}

static void usage(FILE *f)
{
	fprintf(f,
		"usage: vsock-sockmap [--map none|pre|during] [--verdict pass|none]\n"
		"                     [--bytes N[K|M]] [--write N[K]] [--port P]\n"
		"                     [--stall SECONDS] [--inject corrupt|stall]\n"
		"                     [--settle MS] [--rcvbuf N[K|M]]\n");
}

static int parse_opts(int argc, char **argv, struct opts *o)
{
	static const struct option longopts[] = {
		{ "map", required_argument, NULL, 'm' },
		{ "verdict", required_argument, NULL, 'v' },
		{ "bytes", required_argument, NULL, 'b' },
		{ "write", required_argument, NULL, 'w' },
		{ "port", required_argument, NULL, 'p' },
		{ "stall", required_argument, NULL, 's' },
		{ "settle", required_argument, NULL, 'S' },
		{ "rcvbuf", required_argument, NULL, 'r' },
		{ "inject", required_argument, NULL, 'i' },
		{ "help", no_argument, NULL, 'h' },
		{ 0 }
	};
	uint64_t v;
	int c;

	*o = (struct opts){ .map = MAP_PRE, .verdict = true,
			    .bytes = 256 << 10, .write_size = 64,
			    .port = 5210, .stall_s = 20 };
	while ((c = getopt_long(argc, argv, "", longopts, NULL)) != -1) {
		switch (c) {
		case 'm':
			if (!strcmp(optarg, "none"))
				o->map = MAP_NONE;
			else if (!strcmp(optarg, "pre"))
				o->map = MAP_PRE;
			else if (!strcmp(optarg, "during"))
				o->map = MAP_DURING;
			else
				goto bad;
			break;
		case 'v':
			if (!strcmp(optarg, "pass"))
				o->verdict = true;
			else if (!strcmp(optarg, "none"))
				o->verdict = false;
			else
				goto bad;
			break;
		case 'b':
			if (parse_size(optarg, &o->bytes))
				goto bad;
			break;
		case 'w':
			if (parse_size(optarg, &v) || v > (1 << 20))
				goto bad;
			o->write_size = v;
			break;
		case 'p':
			if (parse_size(optarg, &v) || v > UINT32_MAX - 1)
				goto bad;
			o->port = v;
			break;
		case 's':
			if (parse_size(optarg, &v) || v > 3600)
				goto bad;
			o->stall_s = v;
			break;
		case 'S':
			if (parse_size(optarg, &v) || v > 10000)
				goto bad;
			o->settle_ms = v;
			break;
		case 'r':
			if (parse_size(optarg, &v) || v > (64 << 20))
				goto bad;
			o->rcvbuf = v;
			break;
		case 'i':
			if (!strcmp(optarg, "corrupt"))
				o->inject = INJECT_CORRUPT;
			else if (!strcmp(optarg, "stall"))
				o->inject = INJECT_STALL;
			else
				goto bad;
			break;
		case 'h':
			usage(stdout);
			exit(0);
		default:
			usage(stderr);
			return -1;
		}
	}
	if (optind != argc) {
		fprintf(stderr, "vsock-sockmap: unexpected argument '%s'\n",
			argv[optind]);
		return -1;
	}
	return 0;
bad:
	for (v = 0; longopts[v].val != c; v++)
		;
	fprintf(stderr, "vsock-sockmap: bad value '%s' for --%s\n", optarg,
		longopts[v].name);
	return -1;
}

/* counts[key] += src, through bpf_map_lookup_elem().  r1 is 1 just before
 * the add, so src = BPF_REG_1 counts calls; r0-r5 are clobbered.
 */
#define COUNT_INSNS(key, src)						\
	{ BPF_ST | BPF_MEM | BPF_W, BPF_REG_10, 0, -4, key },		\
	{ BPF_ALU64 | BPF_MOV | BPF_X, BPF_REG_2, BPF_REG_10, 0, 0 },	\
	{ BPF_ALU64 | BPF_ADD | BPF_K, BPF_REG_2, 0, 0, -4 },		\
	{ BPF_LD | BPF_DW | BPF_IMM, BPF_REG_1, BPF_PSEUDO_MAP_FD, 0,	\
	  counts_fd },							\
	{ 0, 0, 0, 0, 0 },						\
	{ BPF_JMP | BPF_CALL, 0, 0, 0, BPF_FUNC_map_lookup_elem },	\
	{ BPF_JMP | BPF_JEQ | BPF_K, BPF_REG_0, 0, 2, 0 },		\
	{ BPF_ALU64 | BPF_MOV | BPF_K, BPF_REG_1, 0, 0, 1 },		\
	{ BPF_STX | BPF_ATOMIC | BPF_DW, BPF_REG_0, src, 0, BPF_ADD }

/* counts[0]: verdicts run, counts[1]: bytes they saw. */
static int load_verdict(int counts_fd)
{
	const struct bpf_insn insns[] = {
		/* r6 = skb->len */
		{ BPF_LDX | BPF_MEM | BPF_W, BPF_REG_6, BPF_REG_1,
		  offsetof(struct __sk_buff, len), 0 },
		COUNT_INSNS(0, BPF_REG_1),
		COUNT_INSNS(1, BPF_REG_6),
		/* return SK_PASS */
		{ BPF_ALU64 | BPF_MOV | BPF_K, BPF_REG_0, 0, 0, SK_PASS },
		{ BPF_JMP | BPF_EXIT, 0, 0, 0, 0 },
	};
	static char log[4096];
	LIBBPF_OPTS(bpf_prog_load_opts, lo, .log_buf = log,
		    .log_size = sizeof(log), .log_level = 1);
	int fd;

	fd = bpf_prog_load(BPF_PROG_TYPE_SK_SKB, "vb_sockmap_pass", "GPL",
			   insns, sizeof(insns) / sizeof(insns[0]), &lo);
	if (fd < 0)
		fprintf(stderr, "vsock-sockmap: loading the verdict program: %s\n%s",
			strerror(errno), log);
	return fd;
}

static uint64_t now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

static void *sender(void *arg)
{
	struct state *st = arg;
	const struct opts *o = st->o;
	struct sockaddr_vm sa = {
		.svm_family = AF_VSOCK,
		.svm_cid = VMADDR_CID_LOCAL,
		.svm_port = o->port,
	};
	uint8_t *buf;
	int fd;

	buf = malloc(o->write_size);
	fd = socket(AF_VSOCK, SOCK_STREAM, 0);
	if (!buf || fd < 0 || connect(fd, (struct sockaddr *)&sa, sizeof(sa))) {
		st->send_errno = errno;
		goto out;
	}
	while (st->sent < o->bytes) {
		size_t n = o->write_size;
		ssize_t w;

		if (n > o->bytes - st->sent)
			n = o->bytes - st->sent;
		byte_pattern_fill(buf, n, st->sent, SALT);
		w = send(fd, buf, n, MSG_NOSIGNAL);
		if (w < 0) {
			if (errno == EINTR)
				continue;
			st->send_errno = errno;
			break;
		}
		/* A short send leaves the rest for the next round. */
		st->sent += w;
	}
out:
	if (fd >= 0)
		close(fd);
	free(buf);
	return NULL;
}

static int insert(struct state *st, int cfd)
{
	int key = 0;

	if (bpf_map_update_elem(st->map_fd, &key, &cfd, BPF_ANY)) {
		snprintf(st->failure, sizeof(st->failure),
			 "inserting the socket into the sockmap: %s",
			 strerror(errno));
		return -1;
	}
	return 0;
}

static void *receiver(void *arg)
{
	struct state *st = arg;
	const struct opts *o = st->o;
	uint64_t expect = o->bytes + (o->inject == INJECT_STALL);
	bool inserted = false;
	static uint8_t buf[65536];
	int cfd;

	cfd = accept(st->lfd, NULL, NULL);
	if (cfd < 0) {
		snprintf(st->failure, sizeof(st->failure), "accept: %s",
			 strerror(errno));
		goto out;
	}
	/* --rcvbuf: a receive buffer (vsock credit) larger than what the
	 * sender fills during --settle, so that it still sends while the
	 * transport holds data after the insert.
	 */
	if (o->rcvbuf &&
	    (setsockopt(cfd, AF_VSOCK, SO_VM_SOCKETS_BUFFER_MAX_SIZE,
			&o->rcvbuf, sizeof(o->rcvbuf)) ||
	     setsockopt(cfd, AF_VSOCK, SO_VM_SOCKETS_BUFFER_SIZE,
			&o->rcvbuf, sizeof(o->rcvbuf)))) {
		snprintf(st->failure, sizeof(st->failure),
			 "SO_VM_SOCKETS_BUFFER_SIZE: %s", strerror(errno));
		goto out;
	}
	if (o->map == MAP_PRE) {
		if (insert(st, cfd))
			goto out;
		inserted = true;
	}
	while (st->received < expect) {
		uint64_t off = st->received;
		ssize_t r, i;

		if (o->map == MAP_DURING && !inserted &&
		    off >= o->bytes / 4) {
			/* --settle: let the sender fill the receive queue
			 * first, so that the psock takes over with data still
			 * in the transport (the case the reader must keep in
			 * order with what the verdict program moves).
			 */
			if (o->settle_ms)
				usleep(o->settle_ms * 1000);
			if (insert(st, cfd))
				goto out;
			inserted = true;
		}
		r = recv(cfd, buf, sizeof(buf), 0);
		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0) {
			snprintf(st->failure, sizeof(st->failure),
				 "blocking recv() failed with %s after %" PRIu64
				 " of %" PRIu64 " bytes", strerror(errno), off,
				 expect);
			goto out;
		}
		if (r == 0) {
			snprintf(st->failure, sizeof(st->failure),
				 "EOF after %" PRIu64 " of %" PRIu64 " bytes",
				 off, expect);
			goto out;
		}
		if (o->inject == INJECT_CORRUPT && off == 0)
			buf[r / 2] ^= 1;
		i = byte_pattern_check(buf, r, off, SALT);
		if (i < r) {
			snprintf(st->failure, sizeof(st->failure),
				 "byte %" PRIu64 " is 0x%02x, expected 0x%02x",
				 off + i, buf[i], byte_pattern(off + i, SALT));
			goto out;
		}
		st->received = off + r;
	}
	/* The sender closes after the last byte: then comes EOF. */
	if (recv(cfd, buf, 1, 0) != 0)
		snprintf(st->failure, sizeof(st->failure),
			 "more data or an error instead of EOF after %" PRIu64
			 " bytes", (uint64_t)st->received);
out:
	st->done = true;
	if (cfd >= 0)
		close(cfd);
	return NULL;
}

int main(int argc, char **argv)
{
	static const char *map_names[] = { "none", "pre", "during" };
	struct sockaddr_vm sa = { .svm_family = AF_VSOCK,
				  .svm_cid = VMADDR_CID_ANY };
	uint64_t counts[2] = { 0, 0 }, last = 0, last_ms;
	int counts_fd = -1, prog_fd = -1, key;
	pthread_t rx, tx;
	struct state st;
	struct opts o;
	bool stalled = false;

	if (parse_opts(argc, argv, &o))
		return 2;
	memset(&st, 0, sizeof(st));
	st.o = &o;
	st.map_fd = -1;
	sa.svm_port = o.port;

	if (o.map != MAP_NONE) {
		st.map_fd = bpf_map_create(BPF_MAP_TYPE_SOCKMAP, "vb_sockmap",
					   sizeof(int), sizeof(int), 1, NULL);
		counts_fd = bpf_map_create(BPF_MAP_TYPE_ARRAY, "vb_counts",
					   sizeof(int), sizeof(uint64_t), 2,
					   NULL);
		if (st.map_fd < 0 || counts_fd < 0) {
			fprintf(stderr, "vsock-sockmap: creating maps: %s\n",
				strerror(errno));
			return 1;
		}
		if (o.verdict) {
			prog_fd = load_verdict(counts_fd);
			if (prog_fd < 0)
				return 1;
			if (bpf_prog_attach(prog_fd, st.map_fd,
					    BPF_SK_SKB_VERDICT, 0)) {
				fprintf(stderr,
					"vsock-sockmap: attaching the verdict: %s\n",
					strerror(errno));
				return 1;
			}
		}
	}

	st.lfd = socket(AF_VSOCK, SOCK_STREAM, 0);
	if (st.lfd < 0 || bind(st.lfd, (struct sockaddr *)&sa, sizeof(sa)) ||
	    listen(st.lfd, 1)) {
		fprintf(stderr, "vsock-sockmap: listening on port %u: %s\n",
			o.port, strerror(errno));
		return 1;
	}
	if (pthread_create(&rx, NULL, receiver, &st) ||
	    pthread_create(&tx, NULL, sender, &st)) {
		fprintf(stderr, "vsock-sockmap: pthread_create failed\n");
		return 1;
	}

	/* Watch progress: the receiver blocks in recv() without a timeout,
	 * as the reproducer did, so a lost wake-up shows up here.
	 */
	last_ms = now_ms();
	while (!st.done) {
		uint64_t r = st.received;

		usleep(100 * 1000);
		if (r != last) {
			last = r;
			last_ms = now_ms();
		} else if (now_ms() - last_ms > o.stall_s * 1000ULL) {
			stalled = true;
			break;
		}
	}

	if (counts_fd >= 0) {
		for (key = 0; key < 2; key++)
			bpf_map_lookup_elem(counts_fd, &key, &counts[key]);
	}
	printf("map=%s verdict=%s write=%zu bytes=%" PRIu64 " sent=%" PRIu64
	       " received=%" PRIu64 " verdicts=%" PRIu64
	       " verdict_bytes=%" PRIu64 "\n",
	       map_names[o.map], o.verdict ? "pass" : "none", o.write_size,
	       o.bytes, st.sent, (uint64_t)st.received, counts[0], counts[1]);
	if (stalled) {
		printf("FAIL no data for %u s after %" PRIu64 " of %" PRIu64
		       " bytes (sender at %" PRIu64 "): lost wake-up or stuck RX\n",
		       o.stall_s, (uint64_t)st.received, o.bytes, st.sent);
		fflush(stdout);
		/* The receiver may be stuck in the kernel; exit kills it. */
		_exit(1);
	}
	pthread_join(rx, NULL);
	pthread_join(tx, NULL);
	if (!st.failure[0] && st.send_errno)
		snprintf(st.failure, sizeof(st.failure), "sender: %s after %"
			 PRIu64 " bytes", strerror(st.send_errno), st.sent);
	if (!st.failure[0] && o.map != MAP_NONE && o.verdict && !counts[0])
		snprintf(st.failure, sizeof(st.failure),
			 "the verdict program never ran");
	if (st.failure[0]) {
		printf("FAIL %s\n", st.failure);
		return 1;
	}
	printf("PASS every byte delivered\n");
	return 0;
}
