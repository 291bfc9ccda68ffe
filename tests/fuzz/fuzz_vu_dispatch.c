// SPDX-License-Identifier: GPL-2.0
/*
 * libFuzzer target for the back-end's event loop (loop.c, what main.c
 * runs): vhost-user messages from the front-end mixed, within one epoll
 * batch, with host socket events, guest kicks and RX refills.
 *
 * The harness is a front-end (a socketpair attached with
 * backend_attach(), messages with real fds: a memfd as guest memory,
 * eventfds for the queues), a guest driver (split rings in that memfd)
 * and host programs (Unix sockets to the host endpoint and from a
 * listener at UDS_1024).  Each operation of the input adds to the next
 * batch: a vhost-user message from a menu (device stop, RESET_OWNER, new
 * kick or call fds, enable/disable, EVENT_IDX on or off, a raw message,
 * half a message), a host connect, write or close, a guest TX packet or
 * RX buffers; an "end of batch" operation runs one epoll_wait() and
 * backend_dispatch() over everything pending, so a device stop and
 * events on the connections it closes come in the same batch (the
 * use-after-free of issue #14).  A front-end the back-end drops (a
 * refused message) is replaced, as with --reconnect.
 *
 * Checked, beyond ASan/UBSan/LSan: after every batch the connection
 * table holds no dead entry that owes nothing, every live one has a non-
 * blocking socket, the counters match the table; TX chains come back
 * unless TX is held for owed RSTs; at the end no fd is left open.
 *
 * Input: a config byte (bit 0: EVENT_IDX), then operations, one selector
 * byte each, arguments after it.
 * VB_FUZZ_LOG=1 build/tests/fuzz_vu_dispatch FILE prints the device log.
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/un.h>

#include "backend.h"
#include "vu_io.h"

#define GUEST_CID	3u
#define RAM_SIZE	(256u << 10)
#define QSZ		64u
#define RING(q)		(0x1000u + (q) * 0x2000u)	/* desc; avail +0x400; used +0x800 */
#define BUF_BASE	0x8000u
#define BUF_SIZE	0x1000u				/* 56 buffers of 4 KiB */
#define NBUF		56u
#define MAX_OPS		300
#define MAX_HOST	64
#define LISTEN_PORT	1024u

#define CHECK(cond, ...)						\
	do {								\
		if (!(cond)) {						\
			fprintf(stderr, "fuzz_vu_dispatch: " __VA_ARGS__);	\
			fputc('\n', stderr);				\
			abort();					\
		}							\
	} while (0)

static struct {
	struct backend b;
	const uint8_t *in;
	size_t inlen;
	int fe;				/* our end of the front-end socket */
	int memfd, kick[2], call[2];
	uint8_t *mem;
	uint16_t avail[2];		/* next avail index we publish */
	uint16_t used[2];		/* next used entry we read */
	uint16_t base[2];		/* what GET_VRING_BASE said */
	int stopped[2];			/* GET_VRING_BASE sent (1), answered (2) */
	int busy[NBUF];			/* buffer handed to queue busy - 1 */
	int host[MAX_HOST];
	unsigned int nhost;
	uint8_t partial[64];		/* a message we sent half of */
	size_t partial_len, partial_sent;
} S;

static char dir[64], uds[96];
static int listen_fd = -1, log_on;

static unsigned int u8(void)
{
	if (!S.inlen)
		return 0;
	S.inlen--;
	return *S.in++;
}

static void device_log(const char *line)
{
	if (log_on)
		fprintf(stderr, "device: %s\n", line);
}

static void cleanup_dir(void)
{
	char p[128];

	unlink(uds);
	snprintf(p, sizeof(p), "%s_%u", uds, LISTEN_PORT);
	unlink(p);
	rmdir(dir);
}

static int listen_at(const char *path)
{
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);

	snprintf(sa.sun_path, sizeof(sa.sun_path), "%s", path);
	unlink(path);
	CHECK(fd >= 0 && bind(fd, (struct sockaddr *)&sa, sizeof(sa)) == 0 &&
	      listen(fd, 64) == 0, "listen %s: %s", path, strerror(errno));
	return fd;
}

static void init_once(void)
{
	const char *tmp = getenv("TMPDIR");

	if (listen_fd >= 0)
		return;
	signal(SIGPIPE, SIG_IGN);
	log_on = getenv("VB_FUZZ_LOG") != NULL;
	log_sink = device_log;
	if (!tmp || !*tmp || strlen(tmp) > 40)
		tmp = "/tmp";
	snprintf(dir, sizeof(dir), "%s/vb-fuzz-disp.XXXXXX", tmp);
	CHECK(mkdtemp(dir), "mkdtemp");
	snprintf(uds, sizeof(uds), "%s/u", dir);
	atexit(cleanup_dir);
	{
		char p[128];

		snprintf(p, sizeof(p), "%s_%u", uds, LISTEN_PORT);
		listen_fd = listen_at(p);
	}
}

static int lowest_free_fd(void)
{
	int fd = open("/dev/null", O_RDONLY | O_CLOEXEC);

	if (fd >= 0)
		close(fd);
	return fd;
}

/* ---- the front-end ---- */

static void fe_send(uint32_t req, const void *p, uint32_t size, const int *fds, int nfds)
{
	uint8_t buf[VU_HDR_SIZE + VU_MAX_PAYLOAD];
	union { char b[CMSG_SPACE(8 * sizeof(int))]; struct cmsghdr a; } ctl;
	struct iovec iov = { buf, VU_HDR_SIZE + size };
	struct msghdr mh = { .msg_iov = &iov, .msg_iovlen = 1 };

	if (S.fe < 0)
		return;
	vu_put32(buf, req);
	vu_put32(buf + 4, VU_VERSION);
	vu_put32(buf + 8, size);
	if (size)
		memcpy(buf + VU_HDR_SIZE, p, size);
	if (nfds) {
		struct cmsghdr *cm;

		mh.msg_control = ctl.b;
		mh.msg_controllen = CMSG_SPACE(nfds * sizeof(int));
		cm = CMSG_FIRSTHDR(&mh);
		cm->cmsg_level = SOL_SOCKET;
		cm->cmsg_type = SCM_RIGHTS;
		cm->cmsg_len = CMSG_LEN(nfds * sizeof(int));
		memcpy(CMSG_DATA(cm), fds, nfds * sizeof(int));
	}
	if (sendmsg(S.fe, &mh, MSG_NOSIGNAL | MSG_DONTWAIT) < 0) {
		/* the back-end dropped us; the next batch notices */
	}
}

static void fe_state(uint32_t req, uint32_t idx, uint32_t num)
{
	uint8_t p[8];

	vu_put32(p, idx);
	vu_put32(p + 4, num);
	fe_send(req, p, 8, NULL, 0);
}

static void fe_queue_fd(uint32_t req, unsigned int q, int *slot)
{
	uint8_t p[8];

	if (*slot >= 0)
		close(*slot);
	*slot = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
	vu_put64(p, q);
	fe_send(req, p, 8, slot, 1);
}

/*
 * Read the back-end's replies (each written whole before we get here);
 * remember what GET_VRING_BASE said.
 */
static void fe_replies(void)
{
	uint8_t buf[VU_HDR_SIZE + VU_MAX_PAYLOAD];
	uint32_t len;

	while (S.fe >= 0 && recv(S.fe, buf, VU_HDR_SIZE, MSG_DONTWAIT) == VU_HDR_SIZE) {
		len = vu_le32(buf + 8);
		CHECK(len <= VU_MAX_PAYLOAD &&
		      recv(S.fe, buf + VU_HDR_SIZE, len, MSG_WAITALL) == (ssize_t)len,
		      "a reply of %u bytes cut short", len);
		if (vu_le32(buf) == VU_GET_VRING_BASE && len == 8 &&
		    vu_le32(buf + VU_HDR_SIZE) < 2) {
			unsigned int q = vu_le32(buf + VU_HDR_SIZE);

			S.base[q] = (uint16_t)vu_le32(buf + VU_HDR_SIZE + 4);
			if (S.stopped[q])
				S.stopped[q] = 2;	/* stopped there: may restart */
		}
	}
}

/* QEMU's handshake and queue set-up, over a new front-end socket. */
static void fe_connect(uint64_t features)
{
	uint8_t p[8 + 32];
	int sv[2];
	unsigned int q;

	CHECK(socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv) == 0, "socketpair");
	CHECK(fcntl(sv[1], F_SETFL, O_NONBLOCK) == 0, "fcntl");
	S.fe = sv[0];
	CHECK(backend_attach(&S.b, sv[1]) == 0, "backend_attach");
	vu_put64(p, features);
	fe_send(VU_SET_FEATURES, p, 8, NULL, 0);
	memset(p, 0, sizeof(p));
	vu_put32(p, 1);
	vu_put64(p + 16, RAM_SIZE);
	vu_put64(p + 24, (uintptr_t)S.mem);
	fe_send(VU_SET_MEM_TABLE, p, sizeof(p), &S.memfd, 1);
	for (q = 0; q < 2; q++) {
		uint8_t a[40] = { 0 };

		fe_state(VU_SET_VRING_NUM, q, QSZ);
		fe_state(VU_SET_VRING_BASE, q, S.avail[q]);
		S.used[q] = S.avail[q];
		vu_put32(a, q);
		vu_put64(a + 8, (uintptr_t)S.mem + RING(q));
		vu_put64(a + 16, (uintptr_t)S.mem + RING(q) + 0x800);
		vu_put64(a + 24, (uintptr_t)S.mem + RING(q) + 0x400);
		fe_send(VU_SET_VRING_ADDR, a, 40, NULL, 0);
		fe_queue_fd(VU_SET_VRING_KICK, q, &S.kick[q]);
		fe_queue_fd(VU_SET_VRING_CALL, q, &S.call[q]);
		fe_state(VU_SET_VRING_ENABLE, q, 1);
	}
}

/* ---- the guest driver ---- */

static void avail_push(unsigned int q, uint16_t head)
{
	uint8_t *av = S.mem + RING(q) + 0x400;

	vu_put16(av + 4 + 2 * (S.avail[q] % QSZ), head);
	S.avail[q]++;
	__atomic_store_n((uint16_t *)(av + 2), S.avail[q], __ATOMIC_RELEASE);
	/* used_event: interrupt us for every buffer (with EVENT_IDX). */
	vu_put16(av + 4 + 2 * QSZ, (uint16_t)(S.used[q]));
}

static void kick(unsigned int q)
{
	uint64_t one = 1;

	if (S.kick[q] >= 0 && write(S.kick[q], &one, 8) < 0) {
		/* saturated: the device has a kick anyway */
	}
}

static int buf_get(unsigned int q)
{
	unsigned int i;

	for (i = 0; i < NBUF; i++)
		if (!S.busy[i])
			return S.busy[i] = q + 1, (int)i;
	return -1;
}

static void put_desc(unsigned int q, unsigned int i, uint64_t addr, uint32_t len,
		     uint16_t flags, uint16_t next)
{
	uint8_t *d = S.mem + RING(q) + 16 * i;

	vu_put64(d, addr);
	vu_put32(d + 8, len);
	vu_put16(d + 12, flags);
	vu_put16(d + 14, next);
}

/* Take back what the device used; every entry must name a buffer of ours. */
static void reclaim(unsigned int q)
{
	uint8_t *used = S.mem + RING(q) + 0x800;
	uint16_t idx = __atomic_load_n((uint16_t *)(used + 2), __ATOMIC_ACQUIRE);

	while (S.used[q] != idx) {
		uint32_t id = vu_le32(used + 4 + 8 * (S.used[q] % QSZ));

		CHECK(id < NBUF && S.busy[id] == (int)q + 1, "queue %u: used id %u is not ours", q, id);
		S.busy[id] = 0;
		S.used[q]++;
	}
}

static const uint32_t port_tab[8] = { LISTEN_PORT, 1025, 5000, 1, 80, 0xffffffffu, 7, 1u << 30 };

static void op_tx(void)
{
	static const uint16_t ops[8] = {
		VSOCK_OP_REQUEST, VSOCK_OP_RW, VSOCK_OP_RESPONSE, VSOCK_OP_RST,
		VSOCK_OP_SHUTDOWN, VSOCK_OP_CREDIT_UPDATE, VSOCK_OP_CREDIT_REQUEST, 0,
	};
	unsigned int a = u8(), bb = u8(), len = u8() * 8;
	struct vsock_hdr h = {
		.src_cid = GUEST_CID, .dst_cid = VSOCK_HOST_CID, .type = VSOCK_TYPE_STREAM,
		.buf_alloc = bb & 1 ? 65536 : 0, .fwd_cnt = 0,
	};
	int d = buf_get(1);

	if (d < 0)
		return;
	h.op = ops[a & 7];
	h.src_port = a & 0x40 ? port_tab[(a >> 3) & 7] : 40000 + ((a >> 3) & 7);
	/* The back-end's host ports start at 2^30 + 1. */
	h.dst_port = bb & 2 ? (1u << 30) + 1 + ((bb >> 2) & 7) : port_tab[(bb >> 2) & 7];
	h.flags = h.op == VSOCK_OP_SHUTDOWN ? (bb >> 5) & 3 : 0;
	if (len > BUF_SIZE - VSOCK_HDR_SIZE)
		len = BUF_SIZE - VSOCK_HDR_SIZE;
	h.len = h.op == VSOCK_OP_RW ? len : 0;
	vsock_hdr_encode(&h, S.mem + BUF_BASE + d * BUF_SIZE);
	memset(S.mem + BUF_BASE + d * BUF_SIZE + VSOCK_HDR_SIZE, 'g', h.len);
	put_desc(1, d, BUF_BASE + d * BUF_SIZE, VSOCK_HDR_SIZE + h.len, 0, 0);
	avail_push(1, d);
	kick(1);
}

static void op_rx(void)
{
	unsigned int n = 1 + u8() % 8, i;
	uint32_t len = u8() & 1 ? VSOCK_HDR_SIZE : BUF_SIZE;

	for (i = 0; i < n; i++) {
		int d = buf_get(0);

		if (d < 0)
			break;
		put_desc(0, d, BUF_BASE + d * BUF_SIZE, len, VRING_DESC_F_WRITE, 0);
		avail_push(0, d);
	}
	kick(0);
}

/* ---- host programs ---- */

static void op_host_connect(void)
{
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	unsigned int a = u8();
	char line[48];
	int fd, n;

	if (S.nhost == MAX_HOST)
		return;
	snprintf(sa.sun_path, sizeof(sa.sun_path), "%s", uds);
	fd = socket(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	CHECK(fd >= 0, "socket");
	if (connect(fd, (struct sockaddr *)&sa, sizeof(sa)) < 0 && errno != EAGAIN) {
		close(fd);
		return;
	}
	if (a & 1) {
		n = snprintf(line, sizeof(line), "CONNECT %u\n", port_tab[(a >> 1) & 7]);
		if (write(fd, line, n) < 0) {
			/* refused meanwhile */
		}
	}
	S.host[S.nhost++] = fd;
}

static int *pick_host(void)
{
	unsigned int a = u8();

	return S.nhost ? &S.host[a % S.nhost] : NULL;
}

static void op_host_write(void)
{
	static const char data[512] = "host";
	int *fd = pick_host();

	if (fd && *fd >= 0 && write(*fd, data, 1 + u8() * 2) < 0) {
		/* closed by the device */
	}
}

static void op_host_close(void)
{
	int *fd = pick_host();

	if (fd && *fd >= 0) {
		close(*fd);
		*fd = -1;
	}
}

/* A guest -> host connection waiting at UDS_1024: accept it, or refuse it. */
static void op_host_accept(void)
{
	int fd = accept4(listen_fd, NULL, NULL, SOCK_NONBLOCK | SOCK_CLOEXEC);

	if (fd < 0)
		return;
	if (S.nhost < MAX_HOST && u8() & 1)
		S.host[S.nhost++] = fd;
	else
		close(fd);
}

/* ---- the front-end's messages ---- */

static void op_vu(void)
{
	unsigned int a = u8(), q = a >> 7, i;
	uint8_t p[VU_MAX_PAYLOAD];

	if (S.fe < 0)
		return;
	switch (a & 15) {
	case 0:	/* device stop: the use-after-free of issue #14 */
		fe_state(VU_GET_VRING_BASE, q, 0);
		S.stopped[q] = 1;
		break;
	case 1:
		fe_send(VU_RESET_OWNER, NULL, 0, NULL, 0);
		break;
	case 2:	/* restart a stopped queue, as QEMU does */
		if (S.stopped[q] != 2)
			break;
		S.stopped[q] = 0;
		fe_state(VU_SET_VRING_BASE, q, S.base[q]);
		/*
		 * The driver starts the ring afresh there: what the device
		 * had not taken is lost with the old one.
		 */
		S.avail[q] = S.used[q] = S.base[q];
		vu_put16(S.mem + RING(q) + 0x400 + 2, S.base[q]);
		vu_put16(S.mem + RING(q) + 0x800 + 2, S.base[q]);
		for (i = 0; i < NBUF; i++)
			if (S.busy[i] == (int)q + 1)
				S.busy[i] = 0;
		fe_queue_fd(VU_SET_VRING_KICK, q, &S.kick[q]);
		break;
	case 3:
		fe_queue_fd(VU_SET_VRING_CALL, q, &S.call[q]);
		break;
	case 4:
		fe_state(VU_SET_VRING_ENABLE, q, (a >> 4) & 1);
		break;
	case 5:
		vu_put64(p, (1ull << VIRTIO_F_VERSION_1) | (1ull << VU_F_PROTOCOL_FEATURES) |
			 ((a >> 4) & 1 ? 1ull << VIRTIO_RING_F_EVENT_IDX : 0));
		fe_send(VU_SET_FEATURES, p, 8, NULL, 0);
		break;
	case 6:
		memset(p, 0, 12);
		vu_put32(p + 4, 8);
		fe_send(VU_GET_CONFIG, p, 20, NULL, 0);
		break;
	case 7:	/* the first part of a message; the rest comes with case 8 */
		if (S.partial_len)
			break;
		vu_put32(S.partial, VU_GET_FEATURES);
		vu_put32(S.partial + 4, VU_VERSION);
		vu_put32(S.partial + 8, 0);
		S.partial_len = VU_HDR_SIZE;
		S.partial_sent = 1 + (a >> 4) % (VU_HDR_SIZE - 1);
		if (send(S.fe, S.partial, S.partial_sent, MSG_NOSIGNAL | MSG_DONTWAIT) < 0)
			S.partial_len = 0;
		break;
	case 8:
		if (!S.partial_len)
			break;
		if (send(S.fe, S.partial + S.partial_sent, S.partial_len - S.partial_sent,
			 MSG_NOSIGNAL | MSG_DONTWAIT) < 0) {
			/* gone */
		}
		S.partial_len = 0;
		break;
	case 9: {	/* raw bytes, of a wrong version: refused, the front-end dropped */
		unsigned int n = u8() % 32;

		for (i = 0; i < n; i++)
			p[i] = u8();
		if (n > 4)
			p[4] = 2;
		if (S.partial_len) {
			/* would interleave with the half message: finish that */
			break;
		}
		if (send(S.fe, p, n, MSG_NOSIGNAL | MSG_DONTWAIT) < 0) {
			/* gone */
		}
		break;
	}
	default:
		fe_send(VU_GET_FEATURES, NULL, 0, NULL, 0);
		break;
	}
}

/* ---- one batch ---- */

static void check_table(void)
{
	const struct backend *b = &S.b;
	const struct conn *c;
	unsigned int zombies = 0, open[2] = { 0, 0 };

	for (c = b->conns; c; c = c->next) {
		if (c->state == C_DEAD) {
			CHECK(c->ctrl == CTRL_RST && c->fd < 0,
			      "dead connection left after a batch (owes 0x%x)", c->ctrl);
			zombies++;
			continue;
		}
		CHECK(c->fd >= 0 && (fcntl(c->fd, F_GETFL) & O_NONBLOCK),
		      "connection %u<->%u: no socket or a blocking one",
		      c->host_port, c->guest_port);
		open[c->from_host]++;
	}
	CHECK(zombies == b->nzombie, "%u closed connections owe an RST, counted %u",
	      zombies, b->nzombie);
	CHECK(open[0] == b->nopen[0] && open[1] == b->nopen[1],
	      "open connections %u/%u, counted %u/%u", open[0], open[1],
	      b->nopen[0], b->nopen[1]);
	CHECK(b->rst_len <= REPLY_MAX, "RST ring %u", b->rst_len);
}

static void batch(void)
{
	struct epoll_event evs[64];
	int n = epoll_wait(S.b.epfd, evs, 64, 0);

	backend_dispatch(&S.b, evs, n);
	fe_replies();
	reclaim(0);
	reclaim(1);
	check_table();
	if (S.b.vu_fd < 0) {
		/* Dropped (a refused message): the next front-end, as with --reconnect. */
		S.b.fe_gone = 0;
		if (S.fe >= 0)
			close(S.fe);
		S.fe = -1;
		S.partial_len = 0;
		S.stopped[0] = S.stopped[1] = 0;
		memset(S.busy, 0, sizeof(S.busy));
		S.avail[0] = S.avail[1] = 0;
		memset(S.mem, 0, BUF_BASE);
		fe_connect((1ull << VIRTIO_F_VERSION_1) | (1ull << VU_F_PROTOCOL_FEATURES));
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct backend *b = &S.b;
	struct epoll_event ev = { .events = EPOLLIN };
	unsigned int ops = 0, i;
	int fd0;

	init_once();
	fd0 = lowest_free_fd();
	memset(&S, 0, sizeof(S));
	S.in = data;
	S.inlen = size;
	S.fe = S.kick[0] = S.kick[1] = S.call[0] = S.call[1] = -1;
	S.memfd = memfd_create("fuzz-guest", MFD_CLOEXEC);
	CHECK(S.memfd >= 0 && ftruncate(S.memfd, RAM_SIZE) == 0, "memfd");
	S.mem = mmap(NULL, RAM_SIZE, PROT_READ | PROT_WRITE, MAP_SHARED, S.memfd, 0);
	CHECK(S.mem != MAP_FAILED, "mmap");

	b->epfd = epoll_create1(EPOLL_CLOEXEC);
	b->vu_listen_fd = -1;
	b->vu_fd = -1;
	b->sig_fd = -1;
	b->kick_registered[0] = b->kick_registered[1] = -1;
	b->uds_path = uds;
	b->uds_listen_fd = listen_at(uds);
	b->uds_tag.kind = T_UDS_LISTEN;
	ev.data.ptr = &b->uds_tag;
	CHECK(epoll_ctl(b->epfd, EPOLL_CTL_ADD, b->uds_listen_fd, &ev) == 0, "epoll_ctl");
	b->next_host_port = 1u << 30;
	b->rx_pkt_max = CONN_MAX_PKT;
	b->max_open[0] = b->max_open[1] = 16;	/* reached within an input */
	vsock_init(b);
	vu_dev_init(&b->dev, GUEST_CID);
	/* The first byte: EVENT_IDX or not. */
	fe_connect((1ull << VIRTIO_F_VERSION_1) | (1ull << VU_F_PROTOCOL_FEATURES) |
		   (u8() & 1 ? 1ull << VIRTIO_RING_F_EVENT_IDX : 0));
	batch();
	op_rx();

	while (S.inlen && ops++ < MAX_OPS) {
		switch (u8() % 12) {
		case 0:
		case 1:
			op_vu();
			break;
		case 2:
			op_host_connect();
			break;
		case 3:
			op_host_write();
			break;
		case 4:
			op_host_close();
			break;
		case 5:
			op_host_accept();
			break;
		case 6:
		case 7:
			op_tx();
			break;
		case 8:
			op_rx();
			break;
		default:
			batch();
			break;
		}
	}
	batch();

	/* The front-end goes: nothing may be left behind. */
	backend_detach(b);
	vsock_reap(b);
	CHECK(!b->conns && !b->nzombie && !b->rst_len, "connections left after the front-end went");
	for (i = 0; i < S.nhost; i++)
		if (S.host[i] >= 0)
			close(S.host[i]);
	for (;;) {
		int fd = accept4(listen_fd, NULL, NULL, SOCK_CLOEXEC);

		if (fd < 0)
			fd = accept4(b->uds_listen_fd, NULL, NULL, SOCK_CLOEXEC);
		if (fd < 0)
			break;
		close(fd);
	}
	close(b->uds_listen_fd);
	close(b->epfd);
	if (S.fe >= 0)
		close(S.fe);
	for (i = 0; i < 2; i++) {
		if (S.kick[i] >= 0)
			close(S.kick[i]);
		if (S.call[i] >= 0)
			close(S.call[i]);
	}
	munmap(S.mem, RAM_SIZE);
	close(S.memfd);
	CHECK(lowest_free_fd() == fd0, "file descriptors leaked (lowest free %d, was %d)",
	      lowest_free_fd(), fd0);
	return 0;
}
