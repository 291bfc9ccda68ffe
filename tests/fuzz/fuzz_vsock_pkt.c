// SPDX-License-Identifier: GPL-2.0
/*
 * libFuzzer target for the back-end's virtio-vsock protocol (vsock.c):
 * what a guest puts in the TX queue, and what the device answers in RX.
 *
 * The harness is the guest driver and the host at once, around the real
 * code: the device is a struct backend with its own epoll loop (the steps
 * of main.c's serve()), guest memory is one region of this process with
 * split rings in it, and the host side is real Unix sockets in a temporary
 * directory: the device's listener UDS (host -> guest "CONNECT" lines),
 * UDS_1024 (accepted at once), UDS_1025 (backlog 1, accepted only when the
 * input says so) and no listener for any other port.
 *
 * An input is a config byte, then operations, one selector byte each:
 *   guest TX packet (structured: flow, op, flags, payload length, header
 *     length that may disagree with the buffer, buf_alloc, fwd_cnt, the
 *     descriptor split; or with raw ports/op/flags/credit fields),
 *   guest posts RX buffers (44 bytes ... 64 KiB + header, split),
 *   host connects with a CONNECT line, writes, reads, shuts down, closes,
 *   accepts on the lazy listener, device stop (all connections closed).
 * Consecutive TX packets are one batch (one kick); a REQUEST ends one.
 *
 * Checked, beyond ASan/UBSan/LSan: the device touches only buffers it
 * owns (everything else in guest memory is ASan-poisoned), returns every
 * TX chain, writes well-formed packets whose used length matches; it never
 * sends more than the guest's buf_alloc - (sent - fwd_cnt) allows; data
 * it sends is the host socket's bytes, in order, only on a connection the
 * guest opened or accepted and has not reset, closed or shut for reading;
 * SHUTDOWN(SEND) comes only after the host shut down and all its bytes
 * arrived; the host reads "OK <port>" then the guest's bytes, in order;
 * the connection table holds no dead entry after a loop pass and at most
 * one live connection per (host port, guest port); pending bytes match
 * the counters; and after a device stop nothing is left: no connection,
 * no fd, no memory.  Every socket the device holds is non-blocking (a
 * blocking read would stall the whole single-threaded device; libFuzzer's
 * SIGALRM would only turn it into EINTR and a slow run, not a report).
 *
 * Seeds: tests/fuzz/corpus-vsock-pkt/, one scenario each (file name).
 * VB_FUZZ_LOG=1 build/tests/fuzz_vsock_pkt FILE prints what an input does,
 * with the device's own log lines.
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sanitizer/asan_interface.h>
#include <sys/epoll.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/un.h>

#include "backend.h"

#define GUEST_CID	3u
#define RAM_GPA		0x100000ull
#define RAM_UVA		0x7f0000000000ull
#define QSZ		256u
#define SLOTS		32u		/* buffers per queue */
#define SEGS		8u		/* descriptors per buffer */
#define SLOT_SIZE	(72u << 10)
#define RING_SIZE	0x4000u		/* desc; avail at +0x1000; used at +0x2000 */
#define SLOT_BASE	(2 * RING_SIZE)
#define RAM_SIZE	(SLOT_BASE + 2 * SLOTS * SLOT_SIZE)
#define CHAIN_MAX	(SLOT_SIZE - 2 * 16 * SEGS)
#define NO_FD		(1 << 29)	/* "a kick fd", never a real one */
#define MAX_OPS		400
#define MAX_HS		(MAX_OPS + 1)	/* at most one host socket per operation */
#define MAX_FLOWS	256
#define PORT_AUTO	1024u		/* host listener, accepted at once */
#define PORT_LAZY	1025u		/* host listener, backlog 1, accept on demand */

#define CHECK(cond, ...)						\
	do {								\
		if (!(cond)) {						\
			fprintf(stderr, "fuzz_vsock_pkt: " __VA_ARGS__);	\
			fputc('\n', stderr);				\
			abort();					\
		}							\
	} while (0)

static uint8_t ram[RAM_SIZE] __attribute__((aligned(4096)));
static uint8_t lin[SLOT_SIZE];

struct slot {
	int busy;
	unsigned int nseg;
	uint32_t off[SEGS], len[SEGS];
	uint32_t total;
};

struct hsock {
	int fd;
	int connected;		/* 1: host -> guest (CONNECT line); 0: accepted */
	unsigned int id;
	uint32_t hp, gp;	/* the flow (host port, guest port) */
	uint64_t written;	/* host -> guest bytes written */
	uint64_t to_guest;	/* of those, seen by the guest */
	uint64_t from_guest;	/* guest -> host bytes read */
	char line[48];
	unsigned int linelen;
	int ok_seen, shut_wr, closed;
};

enum { F_NONE, F_PENDING, F_OPEN };

/* The guest's view of one (host port, guest port) flow. */
struct flow {
	uint32_t hp, gp;
	uint32_t buf_alloc, fwd_cnt;	/* its last well-formed header */
	uint32_t recv;			/* payload bytes received on the connection */
	uint32_t gsent;			/* payload bytes sent on it */
	int phase, rcv_shut;
	unsigned int gen;		/* bumped whenever the connection ends */
	struct hsock *hs;		/* the host end, once known */
};

struct lazy_ent {
	unsigned int flow, gen;
	uint32_t hp, gp;
};

static struct {
	struct backend b;
	struct slot slot[2][SLOTS];
	uint16_t avail[2], used[2];
	struct hsock hs[MAX_HS];
	unsigned int nhs;
	struct flow flow[MAX_FLOWS];
	unsigned int nflow;
	int model_lost;			/* flow table full: stop the stream checks */
	struct lazy_ent lazy[64];
	unsigned int lazy_head, lazy_len;
	uint32_t hp_tab[8];
	unsigned int hp_next;
	unsigned int npend, rx_size_sel, rx_repost;
	unsigned int sockets;		/* connections made either way */
	const uint8_t *in;
	size_t inlen;
} S;

static char dir[64], uds[96];		/* sun_path holds 108 bytes */
static int lazy_fd = -1, auto_fd = -1, dev_listen_fd = -1;
static int log_on;

static const uint32_t gp_tab[8] = {
	1, 2, 1234, 0xffffffffu, 0, 80, (1u << 30) + 1, 5000,
};

/* The harness's own trace lines, and the device's (log.c's log_sink). */
static void trace(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static void trace(const char *fmt, ...)
{
	va_list ap;

	if (!log_on)
		return;
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
}

static void device_log(const char *line)
{
	if (log_on)
		fprintf(stderr, "device: %s\n", line);
}

static unsigned int u8(void)
{
	if (!S.inlen)
		return 0;
	S.inlen--;
	return *S.in++;
}

static uint32_t u16(void)
{
	return u8() | u8() << 8;
}

static uint32_t u32(void)
{
	return u16() | u16() << 16;
}

static uint8_t gpat(uint32_t hp, uint32_t gp, uint32_t off)
{
	return (uint8_t)((off * 2654435761u >> 11) ^ (hp * 7) ^ (gp * 13) ^ (off >> 16));
}

static uint8_t hpat(unsigned int id, uint64_t off)
{
	return (uint8_t)(((uint32_t)off * 40503u >> 7) ^ (id * 29) ^ (uint32_t)(off >> 13));
}

static uint8_t *ring(unsigned int q)
{
	return ram + q * RING_SIZE;
}

static uint8_t *slot_mem(unsigned int q, unsigned int s)
{
	return ram + SLOT_BASE + (q * SLOTS + s) * SLOT_SIZE;
}

/* ---- host side ---- */

static int listen_at(const char *path, int backlog)
{
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);

	snprintf(sa.sun_path, sizeof(sa.sun_path), "%s", path);
	unlink(path);
	if (fd < 0 || bind(fd, (struct sockaddr *)&sa, sizeof(sa)) ||
	    listen(fd, backlog)) {
		perror(path);
		abort();
	}
	return fd;
}

static void cleanup_dir(void)
{
	char p[128];

	unlink(uds);
	snprintf(p, sizeof(p), "%s_%u", uds, PORT_AUTO);
	unlink(p);
	snprintf(p, sizeof(p), "%s_%u", uds, PORT_LAZY);
	unlink(p);
	rmdir(dir);
}

static void init_once(void)
{
	struct rlimit rl;
	const char *tmp;
	char p[128];

	if (dev_listen_fd >= 0)
		return;
	signal(SIGPIPE, SIG_IGN);
	/* Two fds per connection, up to one connection per operation. */
	if (!getrlimit(RLIMIT_NOFILE, &rl) && rl.rlim_cur < 4 * MAX_OPS) {
		rl.rlim_cur = rl.rlim_max < 4 * MAX_OPS ? rl.rlim_max : 4 * MAX_OPS;
		setrlimit(RLIMIT_NOFILE, &rl);
	}
	log_on = getenv("VB_FUZZ_LOG") != NULL;
	log_sink = device_log;
	/* Under $TMPDIR: a crash skips atexit(), fuzz-vhost-user.sh cleans up. */
	tmp = getenv("TMPDIR");
	if (!tmp || !*tmp || strlen(tmp) > 40)
		tmp = "/tmp";
	snprintf(dir, sizeof(dir), "%s/vb-fuzz-vsock.XXXXXX", tmp);
	if (!mkdtemp(dir)) {
		perror("mkdtemp");
		abort();
	}
	snprintf(uds, sizeof(uds), "%s/u", dir);
	atexit(cleanup_dir);
	dev_listen_fd = listen_at(uds, 64);
	snprintf(p, sizeof(p), "%s_%u", uds, PORT_AUTO);
	auto_fd = listen_at(p, 64);
	snprintf(p, sizeof(p), "%s_%u", uds, PORT_LAZY);
	lazy_fd = listen_at(p, 1);
}

static struct hsock *hs_new(int fd, int connected, uint32_t hp, uint32_t gp)
{
	struct hsock *h;

	CHECK(S.nhs < MAX_HS, "host socket table full");
	h = &S.hs[S.nhs];
	memset(h, 0, sizeof(*h));
	h->fd = fd;
	h->connected = connected;
	h->id = S.nhs++;
	h->hp = hp;
	h->gp = gp;
	return h;
}

static void hs_close(struct hsock *h)
{
	if (h->closed)
		return;
	close(h->fd);
	h->fd = -1;
	h->closed = h->shut_wr = 1;
}

/* ---- the guest's model ---- */

static struct flow *flow_get(uint32_t hp, uint32_t gp, int add)
{
	unsigned int i;
	struct flow *f;

	for (i = 0; i < S.nflow; i++)
		if (S.flow[i].hp == hp && S.flow[i].gp == gp)
			return &S.flow[i];
	if (!add)
		return NULL;
	if (S.nflow == MAX_FLOWS) {
		S.model_lost = 1;
		return NULL;
	}
	f = &S.flow[S.nflow++];
	memset(f, 0, sizeof(*f));
	f->hp = hp;
	f->gp = gp;
	return f;
}

static void flow_end(struct flow *f)
{
	f->phase = F_NONE;
	f->hs = NULL;
	f->gen++;
}

/*
 * What a TX packet does to the guest's view, mirroring only what the spec
 * (and the device's documented checks) make certain: a connection is over
 * after RST, close, REQUEST/RESPONSE on a live flow, an unknown op or a
 * non-stream packet; a new one starts with REQUEST (if the host accepts)
 * or with RESPONSE to the device's REQUEST.
 */
static void model_tx(const struct vsock_hdr *h, uint64_t chain_len)
{
	struct flow *f;

	if (chain_len < VSOCK_HDR_SIZE || h->len > chain_len - VSOCK_HDR_SIZE ||
	    h->src_cid != GUEST_CID || h->dst_cid != VSOCK_HOST_CID)
		return;		/* dropped unseen */
	f = flow_get(h->dst_port, h->src_port, 1);
	if (!f)
		return;
	if (h->type != VSOCK_TYPE_STREAM) {
		flow_end(f);
		return;
	}
	f->buf_alloc = h->buf_alloc;
	f->fwd_cnt = h->fwd_cnt;
	switch (h->op) {
	case VSOCK_OP_REQUEST:
		flow_end(f);
		f->recv = f->gsent = 0;
		f->rcv_shut = 0;
		break;
	case VSOCK_OP_RESPONSE:
		if (f->phase == F_PENDING) {
			f->phase = F_OPEN;
			f->recv = f->gsent = 0;
			f->rcv_shut = 0;
		} else {
			flow_end(f);
		}
		break;
	case VSOCK_OP_RW:
		if (f->phase == F_PENDING)
			flow_end(f);
		f->gsent += h->len;
		break;
	case VSOCK_OP_SHUTDOWN:
		if (h->flags & VSOCK_SHUTDOWN_RCV)
			f->rcv_shut = 1;
		if ((h->flags & 3) == 3 || (h->flags & ~3u))
			flow_end(f);
		break;
	case VSOCK_OP_CREDIT_UPDATE:
	case VSOCK_OP_CREDIT_REQUEST:
		break;
	default:		/* RST, INVALID, unknown */
		flow_end(f);
		break;
	}
}

/* ---- rings ---- */

static void setup_device(unsigned int pkt_max)
{
	struct vu_region r = {
		.gpa = RAM_GPA, .size = RAM_SIZE, .uva = RAM_UVA, .host = ram,
	};
	struct epoll_event ev = { .events = EPOLLIN };
	struct backend *b = &S.b;
	char why[256];
	unsigned int q;

	memset(b, 0, sizeof(*b));
	b->epfd = epoll_create1(EPOLL_CLOEXEC);
	CHECK(b->epfd >= 0, "epoll_create1");
	b->vu_listen_fd = b->vu_fd = -1;
	b->uds_listen_fd = dev_listen_fd;
	b->uds_path = uds;
	b->uds_tag.kind = T_UDS_LISTEN;
	ev.data.ptr = &b->uds_tag;
	CHECK(epoll_ctl(b->epfd, EPOLL_CTL_ADD, dev_listen_fd, &ev) == 0, "epoll_ctl");
	b->next_host_port = 1u << 30;
	b->rx_pkt_max = pkt_max;
	vsock_init(b);
	vu_dev_init(&b->dev, GUEST_CID);
	CHECK(vu_mem_set(&b->dev.mem, &r, 1, why, sizeof(why)) == 0, "%s", why);
	for (q = 0; q < VU_NR_VQS; q++) {
		struct vu_vq *vq = &b->dev.vq[q];

		vq->num = QSZ;
		vq->addr.desc = RAM_UVA + q * RING_SIZE;
		vq->addr.avail = vq->addr.desc + 0x1000;
		vq->addr.used = vq->addr.desc + 0x2000;
		vq->addr_set = 1;
		CHECK(vu_vq_map(vq, &b->dev.mem, why, sizeof(why)) == 0 && vq->desc,
		      "ring map");
		vq->kick_fd = NO_FD;
		vq->enabled = 1;
	}
}

/*
 * Lay out a chain of @total bytes in @nseg descriptors of slot @s, 16-byte
 * poisoned gaps between them, and offer it to the device.  @data: what a
 * TX chain holds; RX chains are left as they are.
 */
static void post(unsigned int q, unsigned int s, const uint8_t *data,
		 uint32_t total, unsigned int nseg, const uint8_t *cuts)
{
	struct slot *sl = &S.slot[q][s];
	uint8_t *avail = ring(q) + 0x1000, *base = slot_mem(q, s);
	uint32_t off = 0, rem = total, k;

	sl->busy = 1;
	sl->nseg = nseg;
	sl->total = total;
	for (k = 0; k < nseg; k++) {
		uint32_t l = k == nseg - 1 ? rem : (uint32_t)((uint64_t)rem * cuts[k] / 255);
		uint8_t *d = ring(q) + 16 * (s * SEGS + k);

		if (cuts[k] == 1 && rem >= VSOCK_HDR_SIZE && k == 0 && nseg > 1)
			l = VSOCK_HDR_SIZE;	/* the header alone, as Linux does */
		off = (off + 15) & ~15u;
		sl->off[k] = off;
		sl->len[k] = l;
		ASAN_UNPOISON_MEMORY_REGION(base + off, l);
		if (data)
			memcpy(base + off, data + (total - rem), l);
		vu_put64(d, RAM_GPA + (base + off - ram));
		vu_put32(d + 8, l);
		vu_put16(d + 12, (q == VU_VQ_RX ? VRING_DESC_F_WRITE : 0) |
			 (k < nseg - 1 ? VRING_DESC_F_NEXT : 0));
		vu_put16(d + 14, s * SEGS + k + 1);
		off += l + 16;
		rem -= l;
	}
	vu_put16(avail + 4 + 2 * (S.avail[q] % QSZ), s * SEGS);
	S.avail[q]++;
	__atomic_store_n((uint16_t *)(avail + 2), S.avail[q], __ATOMIC_RELEASE);
}

static void slot_free(unsigned int q, unsigned int s)
{
	S.slot[q][s].busy = 0;
	ASAN_POISON_MEMORY_REGION(slot_mem(q, s), SLOT_SIZE);
}

/* Gather the first @len bytes of a slot's chain into lin[]. */
static void gather(unsigned int q, unsigned int s, uint32_t len)
{
	const struct slot *sl = &S.slot[q][s];
	uint32_t done = 0, k;

	for (k = 0; k < sl->nseg && done < len; k++) {
		uint32_t l = sl->len[k] < len - done ? sl->len[k] : len - done;

		memcpy(lin + done, slot_mem(q, s) + sl->off[k], l);
		done += l;
	}
}

static const uint32_t rx_sizes[8] = {
	4096 + VSOCK_HDR_SIZE, VSOCK_HDR_SIZE, VSOCK_HDR_SIZE + 1, 64,
	300, 4096, 65536 + VSOCK_HDR_SIZE, 0,
};

static void post_rx(unsigned int sel, unsigned int nseg, const uint8_t *cuts)
{
	uint32_t size = rx_sizes[sel & 7];
	unsigned int s;

	if (!size)
		size = (sel >> 3) * 97 % CHAIN_MAX;
	for (s = 0; s < SLOTS && S.slot[VU_VQ_RX][s].busy; s++)
		;
	if (s < SLOTS)
		post(VU_VQ_RX, s, NULL, size, nseg, cuts);
	trace("guest posts a %u-byte RX buffer (%u segs)%s", size, nseg,
	       s < SLOTS ? "" : ": no free slot");
}

static void check_rx_pkt(const struct vsock_hdr *h, const uint8_t *payload)
{
	struct flow *f = flow_get(h->src_port, h->dst_port, 0);
	struct hsock *hs = f ? f->hs : NULL;
	uint32_t inflight, k;

	CHECK(h->src_cid == VSOCK_HOST_CID && h->dst_cid == GUEST_CID &&
	      h->type == VSOCK_TYPE_STREAM, "RX packet with bad CIDs/type");
	CHECK(h->op == VSOCK_OP_RW || !h->len, "%s with payload", vsock_op_name(h->op));
	switch (h->op) {
	case VSOCK_OP_RW:
		CHECK(h->len, "empty RW");
		if (S.model_lost)
			break;
		CHECK(f && f->phase == F_OPEN && !f->rcv_shut,
		      "data on %u->%u: no open connection (phase %d, rcv_shut %d)",
		      h->src_port, h->dst_port, f ? f->phase : -1, f ? f->rcv_shut : -1);
		CHECK(hs, "data on %u->%u before the host end exists", h->src_port,
		      h->dst_port);
		inflight = f->recv - f->fwd_cnt;
		CHECK(inflight < f->buf_alloc && h->len <= f->buf_alloc - inflight,
		      "credit overrun on %u->%u: %u bytes, recv %u, guest fwd_cnt %u buf_alloc %u",
		      h->src_port, h->dst_port, h->len, f->recv, f->fwd_cnt, f->buf_alloc);
		f->recv += h->len;
		CHECK(hs->to_guest + h->len <= hs->written,
		      "%u->%u: guest got more than the host wrote", h->src_port, h->dst_port);
		for (k = 0; k < h->len; k++)
			CHECK(payload[k] == hpat(hs->id, hs->to_guest + k),
			      "%u->%u: wrong byte at host offset %llu", h->src_port,
			      h->dst_port, (unsigned long long)(hs->to_guest + k));
		hs->to_guest += h->len;
		break;
	case VSOCK_OP_SHUTDOWN:
		CHECK(h->flags == VSOCK_SHUTDOWN_SEND, "device SHUTDOWN flags %u", h->flags);
		if (S.model_lost)
			break;
		CHECK(f && f->phase == F_OPEN && !f->rcv_shut && hs,
		      "SHUTDOWN on %u->%u: no open connection", h->src_port, h->dst_port);
		CHECK(hs->shut_wr && hs->to_guest == hs->written,
		      "SHUTDOWN on %u->%u but the host did not finish (shut %d, %llu of %llu bytes)",
		      h->src_port, h->dst_port, hs->shut_wr,
		      (unsigned long long)hs->to_guest, (unsigned long long)hs->written);
		break;
	case VSOCK_OP_REQUEST:
		for (k = 0; k < S.nhs; k++)
			if (S.hs[k].connected && S.hs[k].hp == h->src_port &&
			    S.hs[k].gp == h->dst_port)
				break;
		CHECK(k < S.nhs, "REQUEST %u->%u nobody asked for", h->src_port, h->dst_port);
		/* fall through */
	case VSOCK_OP_RESPONSE:
	case VSOCK_OP_RST:
	case VSOCK_OP_CREDIT_UPDATE:
		CHECK(!h->flags, "%s with flags", vsock_op_name(h->op));
		break;
	default:
		CHECK(0, "device sent op %u", h->op);
	}
}

/* The guest driver's RX interrupt: take every used buffer. */
static void consume_rx(void)
{
	uint8_t *used = ring(VU_VQ_RX) + 0x2000;
	uint16_t idx = __atomic_load_n((uint16_t *)(used + 2), __ATOMIC_ACQUIRE);

	while (S.used[VU_VQ_RX] != idx) {
		uint8_t *e = used + 4 + 8 * (S.used[VU_VQ_RX] % QSZ);
		uint32_t id = vu_le32(e), len = vu_le32(e + 4), s = id / SEGS;
		struct slot *sl;
		struct vsock_hdr h;

		S.used[VU_VQ_RX]++;
		CHECK(id % SEGS == 0 && s < SLOTS && S.slot[VU_VQ_RX][s].busy,
		      "RX used id %u is not a buffer we posted", id);
		sl = &S.slot[VU_VQ_RX][s];
		CHECK(len <= sl->total, "RX used len %u > buffer %u", len, sl->total);
		if (len) {
			CHECK(len >= VSOCK_HDR_SIZE, "RX used len %u < header", len);
			gather(VU_VQ_RX, s, len);
			vsock_hdr_decode(lin, &h);
			trace("guest RX %s %u->%u len %u flags %u buf_alloc %u fwd_cnt %u",
			       vsock_op_name(h.op), h.src_port, h.dst_port, h.len, h.flags,
			       h.buf_alloc, h.fwd_cnt);
			CHECK(h.len == len - VSOCK_HDR_SIZE, "RX hdr len %u, used len %u",
			      h.len, len);
			check_rx_pkt(&h, lin + VSOCK_HDR_SIZE);
		}
		slot_free(VU_VQ_RX, s);
		if (S.rx_repost) {
			static const uint8_t cuts[SEGS] = { 1, 128, 128, 128, 128, 128, 128 };

			post_rx(S.rx_size_sel, S.rx_repost, cuts);
		}
	}
}

/* Free the TX slots the device returned. */
static void tx_reclaim(void)
{
	uint8_t *used = ring(VU_VQ_TX) + 0x2000;
	unsigned int s;

	while (S.used[VU_VQ_TX] != __atomic_load_n((uint16_t *)(used + 2), __ATOMIC_ACQUIRE)) {
		uint8_t *e = used + 4 + 8 * (S.used[VU_VQ_TX] % QSZ);

		s = vu_le32(e) / SEGS;
		CHECK(vu_le32(e) % SEGS == 0 && s < SLOTS && S.slot[VU_VQ_TX][s].busy &&
		      vu_le32(e + 4) == 0, "bad TX used entry");
		slot_free(VU_VQ_TX, s);
		S.used[VU_VQ_TX]++;
	}
}

/* One pass of main.c's serve() loop (loop.c), without blocking. */
static void loop_step(void)
{
	struct epoll_event evs[64];
	struct backend *b = &S.b;
	int n, i;

	n = epoll_wait(b->epfd, evs, 64, 0);
	for (i = 0; i < n; i++) {
		struct ep_tag *t = evs[i].data.ptr;

		CHECK(t->kind == T_UDS_LISTEN || t->kind == T_CONN, "epoll tag %d", t->kind);
	}
	backend_dispatch(b, evs, n);
	tx_reclaim();	/* what a throttled TX took after RX drained */
}

static int findable(const struct conn *c)
{
	return c->state == C_HOST_CONNECTING || c->state == C_ESTABLISHED;
}

static void check_table(void)
{
	const struct backend *b = &S.b;
	const struct conn *c, *d;
	unsigned int n = 0;

	unsigned int zombies = 0;

	for (c = b->conns; c; c = c->next) {
		if (c->state == C_DEAD) {
			/* Only while its RST is owed to the guest. */
			CHECK(c->ctrl == CTRL_RST && c->on_ctrl && c->fd < 0,
			      "dead connection left after a loop pass (owes 0x%x)", c->ctrl);
			zombies++;
			n++;
			continue;
		}
		CHECK(c->fd >= 0, "live connection without a socket");
		/* One thread, one epoll loop: a blocking call stalls every guest. */
		CHECK(fcntl(c->fd, F_GETFL) & O_NONBLOCK,
		      "connection %u<->%u has a blocking socket", c->host_port, c->guest_port);
		CHECK(c->pend_off + c->pend_len <= CONN_BUF_ALLOC && (!c->pend_len || c->pend),
		      "pending buffer %u+%u", c->pend_off, c->pend_len);
		if (c->state == C_ESTABLISHED || c->state == C_DRAINING)
			CHECK(c->rx_cnt - c->fwd_cnt == c->pend_len,
			      "rx_cnt %u - fwd_cnt %u != pending %u", c->rx_cnt,
			      c->fwd_cnt, c->pend_len);
		if (findable(c))
			for (d = c->next; d; d = d->next)
				CHECK(!findable(d) || d->host_port != c->host_port ||
				      d->guest_port != c->guest_port,
				      "two live connections %u<->%u", c->host_port, c->guest_port);
		n++;
	}
	CHECK(n <= S.sockets, "%u connections from %u sockets", n, S.sockets);
	CHECK(zombies == b->nzombie, "%u closed connections owe an RST, counted %u",
	      zombies, b->nzombie);
	CHECK(b->rst_len <= REPLY_MAX, "RST ring %u", b->rst_len);
	CHECK(b->nopen[0] <= b->max_open[0] && b->nopen[1] <= b->max_open[1],
	      "open connections %u/%u over the quotas", b->nopen[0], b->nopen[1]);
}

/* ---- operations ---- */

static void kick_tx(void)
{
	vsock_on_tx_kick(&S.b);
	tx_reclaim();
	/* All back, unless the device holds TX while RSTs are owed. */
	CHECK(S.used[VU_VQ_TX] == S.avail[VU_VQ_TX] || S.b.tx_throttled,
	      "TX chains not returned");
	S.npend = 0;
}

static void accept_lazy(void)
{
	struct lazy_ent e;
	struct hsock *h;
	struct flow *f;
	int fd = accept4(lazy_fd, NULL, NULL, SOCK_NONBLOCK | SOCK_CLOEXEC);

	if (fd < 0)
		return;
	CHECK(S.lazy_len, "a connection on UDS_%u nobody made", PORT_LAZY);
	e = S.lazy[S.lazy_head];
	S.lazy_head = (S.lazy_head + 1) % 64;
	S.lazy_len--;
	h = hs_new(fd, 0, e.hp, e.gp);
	f = e.flow < S.nflow ? &S.flow[e.flow] : NULL;
	if (f && f->gen == e.gen && f->phase == F_OPEN && !f->hs)
		f->hs = h;
}

static const uint32_t alloc_tab[8] = {
	65536, 0, 1, 4096, CONN_BUF_ALLOC, 0xffffffffu, 1u << 20, 0,
};

static void op_tx(int raw)
{
	static uint8_t pkt[CHAIN_MAX];
	struct conn *head = S.b.conns;
	unsigned int b1 = u8(), b2 = u8(), b5, b7, b8, nseg, k;
	uint8_t cuts[SEGS];
	struct vsock_hdr h = { 0 };
	uint32_t payload, total;
	struct flow *f;

	h.src_cid = b1 & 0x40 ? (b1 & 1 ? VSOCK_HOST_CID : GUEST_CID + 1) : GUEST_CID;
	h.dst_cid = b1 & 0x40 && !(b1 & 1) ? GUEST_CID : VSOCK_HOST_CID;
	if (raw) {
		h.src_port = u32();
		h.dst_port = u32();
		h.len = u32();
		h.type = u16();
		h.op = u16();
		h.flags = u32();
		h.buf_alloc = u32();
		h.fwd_cnt = u32();
		payload = u16() % (CHAIN_MAX - VSOCK_HDR_SIZE);
		total = VSOCK_HDR_SIZE + payload;
	} else {
		static const uint16_t ops[8] = {
			VSOCK_OP_RW, VSOCK_OP_REQUEST, VSOCK_OP_RESPONSE, VSOCK_OP_RST,
			VSOCK_OP_SHUTDOWN, VSOCK_OP_RW, VSOCK_OP_CREDIT_UPDATE,
			VSOCK_OP_CREDIT_REQUEST,
		};
		static const uint32_t shut[8] = { 3, 1, 2, 3, 0, 4, 7, 2 };
		unsigned int b6;

		h.src_port = gp_tab[b1 & 7];
		h.dst_port = S.hp_tab[(b1 >> 3) & 7];
		h.type = b1 & 0x80 ? 2 : VSOCK_TYPE_STREAM;
		h.op = (b2 & 0x18) == 0x18 ? (b2 & 0x20 ? 0 : 8 + (b2 >> 6)) : ops[b2 & 7];
		if (h.op == VSOCK_OP_SHUTDOWN)
			h.flags = shut[b2 >> 5];
		payload = u16();
		b5 = u8();
		b6 = u8();
		if (b5 & 1)
			payload += 65536;
		if (h.op != VSOCK_OP_RW && !(b5 & 2))
			payload = 0;
		if (payload > CHAIN_MAX - VSOCK_HDR_SIZE)
			payload = CHAIN_MAX - VSOCK_HDR_SIZE;
		total = VSOCK_HDR_SIZE + payload;
		switch ((b5 >> 2) & 3) {
		case 0:
			h.len = payload;
			break;
		case 1:		/* claims more than the buffer holds */
			h.len = payload + 1 + b6;
			break;
		case 2:		/* the buffer holds more than it claims */
			h.len = payload - (b6 < payload ? b6 : payload);
			break;
		default:
			h.len = u32();
			break;
		}
		if (b5 & 0x10)		/* a chain shorter than a header */
			total = b6 % VSOCK_HDR_SIZE;
		b7 = u8();
		h.buf_alloc = (b7 & 7) == 7 ? u32() : alloc_tab[b7 & 7];
		f = flow_get(h.dst_port, h.src_port, 0);
		h.fwd_cnt = f ? f->recv : 0;
		switch ((b7 >> 3) & 3) {
		case 1:
			h.fwd_cnt -= (b7 >> 5) * 100;
			break;
		case 2:
			h.fwd_cnt += 1000;
			break;
		case 3:
			h.fwd_cnt = u32();
			break;
		}
	}
	/* The payload: this flow's stream at the guest's offset. */
	f = flow_get(h.dst_port, h.src_port, 0);
	for (k = 0; k + VSOCK_HDR_SIZE < total; k++)
		pkt[VSOCK_HDR_SIZE + k] = gpat(h.dst_port, h.src_port, (f ? f->gsent : 0) + k);
	vsock_hdr_encode(&h, pkt);
	b8 = u8();
	nseg = 1 + (b8 & 7);
	for (k = 0; k < SEGS; k++)
		cuts[k] = k + 1 < nseg ? u8() : 0;
	trace("guest TX %s %u->%u len %u (chain %u, %u segs) type %u flags %u buf_alloc %u fwd_cnt %u",
	       vsock_op_name(h.op), h.src_port, h.dst_port, h.len, total, nseg, h.type,
	       h.flags, h.buf_alloc, h.fwd_cnt);
	post(VU_VQ_TX, S.npend, pkt, total, nseg, cuts);
	S.npend++;
	model_tx(&h, total);
	if (!(b8 & 0x80) && h.op != VSOCK_OP_REQUEST && S.npend < SLOTS)
		return;		/* the batch goes on */
	kick_tx();
	if (h.op != VSOCK_OP_REQUEST || S.b.conns == head)
		return;
	/* A new connection: the device connected to UDS_<dst_port>. */
	f = flow_get(h.dst_port, h.src_port, 1);
	CHECK(S.b.conns->host_port == h.dst_port && S.b.conns->guest_port == h.src_port &&
	      S.b.conns->state == C_ESTABLISHED, "REQUEST made an unexpected connection");
	CHECK(h.dst_port == PORT_AUTO || h.dst_port == PORT_LAZY,
	      "connected to port %u, nobody listens there", h.dst_port);
	S.sockets++;
	if (f)
		f->phase = F_OPEN;
	if (h.dst_port == PORT_AUTO) {
		int fd = accept4(auto_fd, NULL, NULL, SOCK_NONBLOCK | SOCK_CLOEXEC);
		struct hsock *hs;

		CHECK(fd >= 0, "REQUEST connected, but nothing to accept");
		hs = hs_new(fd, 0, h.dst_port, h.src_port);
		if (f)
			f->hs = hs;
	} else if (S.lazy_len < 64) {
		S.lazy[(S.lazy_head + S.lazy_len++) % 64] = (struct lazy_ent){
			.flow = f ? (unsigned int)(f - S.flow) : MAX_FLOWS,
			.gen = f ? f->gen : 0, .hp = h.dst_port, .gp = h.src_port,
		};
	} else {
		S.model_lost = 1;
	}
}

static void op_rx_post(void)
{
	unsigned int sel = u8(), n = 1 + u8() % 8, nseg = 1 + (sel >> 5), k;
	uint8_t cuts[SEGS];

	for (k = 0; k < SEGS; k++)
		cuts[k] = k + 1 < nseg ? u8() : 0;
	while (n--)
		post_rx(sel, nseg, cuts);
}

static void op_host_connect(void)
{
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	unsigned int mode = u8(), k, i;
	uint32_t before = S.b.next_host_port;
	char line[64];
	struct hsock *h;
	struct conn *c;
	int fd, n;

	fd = socket(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	snprintf(sa.sun_path, sizeof(sa.sun_path), "%s", uds);
	if (fd < 0 || connect(fd, (struct sockaddr *)&sa, sizeof(sa))) {
		if (fd >= 0)
			close(fd);
		return;
	}
	S.sockets++;
	h = hs_new(fd, 1, 0, 0);
	switch (mode & 3) {
	case 0:
	case 1:
		n = snprintf(line, sizeof(line), "CONNECT %u%s\n", gp_tab[(mode >> 2) & 7],
			     mode & 1 ? "\r" : "");
		break;
	case 2:		/* the lab's per-connection packet cap */
		n = snprintf(line, sizeof(line), "CONNECT %u %u\n", gp_tab[(mode >> 2) & 7],
			     u16() + (mode >> 7));
		break;
	default:	/* anything, one line */
		n = u8() % 44;
		for (k = 0; k < (unsigned int)n; k++) {
			line[k] = (char)u8();
			if (line[k] == '\n')
				line[k] = ' ';
		}
		line[n++] = '\n';
		break;
	}
	CHECK(send(fd, line, n, MSG_NOSIGNAL) == n, "writing the CONNECT line");
	trace("host %u connects: %.*s", h->id, n - 1, line);
	for (i = 0; i < 3 && S.b.next_host_port == before; i++)
		loop_step();
	if (S.b.next_host_port == before) {
		hs_close(h);	/* refused, or no line yet: give up */
		return;
	}
	for (c = S.b.conns; c && c->host_port != S.b.next_host_port; c = c->next)
		;
	CHECK(c && c->state == C_HOST_CONNECTING, "no connection for host port %u",
	      S.b.next_host_port);
	h->hp = c->host_port;
	h->gp = c->guest_port;
	S.hp_tab[4 + S.hp_next++ % 4] = h->hp;
	{
		struct flow *f = flow_get(h->hp, h->gp, 1);

		if (f) {
			flow_end(f);
			f->phase = F_PENDING;
			f->hs = h;
		}
	}
}

static struct hsock *pick_hs(void)
{
	unsigned int k = u8();

	return S.nhs ? &S.hs[k % S.nhs] : NULL;
}

static void op_host_write(void)
{
	static uint8_t buf[96 << 10];
	struct hsock *h = pick_hs();
	uint32_t n = u16() * 3 / 2, k;
	ssize_t w;

	if (!h || h->shut_wr || (!h->hp && !h->gp))
		return;
	if (n > sizeof(buf))
		n = sizeof(buf);
	for (k = 0; k < n; k++)
		buf[k] = hpat(h->id, h->written + k);
	w = send(h->fd, buf, n, MSG_NOSIGNAL | MSG_DONTWAIT);
	if (w > 0)
		h->written += w;
	trace("host %u (%u<->%u) writes %u: %zd", h->id, h->hp, h->gp, n, w);
}

static void op_host_read(void)
{
	static uint8_t buf[96 << 10];
	struct hsock *h = pick_hs();
	uint32_t want = u16() * 3 / 2 + 1;
	ssize_t n, i = 0;

	if (!h || h->closed)
		return;
	if (want > sizeof(buf))
		want = sizeof(buf);
	n = recv(h->fd, buf, want, MSG_DONTWAIT);
	trace("host %u (%u<->%u) reads %u: %zd", h->id, h->hp, h->gp, want, n);
	if (n <= 0)
		return;
	if (h->connected) {
		for (; i < n && !h->ok_seen; i++) {
			CHECK(h->linelen < sizeof(h->line) - 1, "host got a long line");
			h->line[h->linelen++] = buf[i];
			if (buf[i] == '\n') {
				char want_line[32];

				snprintf(want_line, sizeof(want_line), "OK %u\n", h->hp);
				h->line[h->linelen] = 0;
				CHECK(!strcmp(h->line, want_line), "host got '%s', want '%s'",
				      h->line, want_line);
				h->ok_seen = 1;
			}
		}
	}
	for (; i < n; i++, h->from_guest++)
		CHECK(buf[i] == gpat(h->hp, h->gp, h->from_guest),
		      "host %u<->%u: wrong byte at guest offset %llu", h->hp, h->gp,
		      (unsigned long long)h->from_guest);
}

static void op_host_end(int how)
{
	struct hsock *h = pick_hs();

	if (!h || h->closed)
		return;
	trace("host %u (%u<->%u) %s", h->id, h->hp, h->gp, how ? "closes" : "shuts down");
	if (how) {
		hs_close(h);
	} else {
		shutdown(h->fd, SHUT_WR);
		h->shut_wr = 1;
	}
}

static void device_stop(void)
{
	unsigned int i;

	consume_rx();		/* what the device sent before it stopped */
	vsock_close_all(&S.b);
	vsock_reap(&S.b);	/* frees come after the batch, as in loop.c */
	CHECK(!S.b.conns && !S.b.rst_len && !S.b.ctrl_head && !S.b.nzombie,
	      "connections left after a device stop");
	for (i = 0; i < S.nflow; i++)
		flow_end(&S.flow[i]);
}

static int lowest_free_fd(void)
{
	int fd = open("/dev/null", O_RDONLY | O_CLOEXEC);

	if (fd >= 0)
		close(fd);
	return fd;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const uint32_t pkt_max[4] = { CONN_MAX_PKT, 64, 1, 4000 };
	static const uint8_t cuts[SEGS] = { 1 };
	unsigned int cfg, ops = 0, i;
	int fd0;

	init_once();
	fd0 = lowest_free_fd();
	memset(&S, 0, sizeof(S));
	S.in = data;
	S.inlen = size;
	for (i = 0; i < 4; i++)
		S.hp_tab[4 + i] = (1u << 30) + 1 + i;
	S.hp_tab[0] = PORT_AUTO;
	S.hp_tab[1] = PORT_LAZY;
	S.hp_tab[2] = PORT_LAZY + 1;
	S.hp_tab[3] = 0xffffffffu;
	ASAN_UNPOISON_MEMORY_REGION(ram, RAM_SIZE);
	memset(ram, 0, 2 * RING_SIZE);
	ASAN_POISON_MEMORY_REGION(ram + SLOT_BASE, RAM_SIZE - SLOT_BASE);

	cfg = u8();
	setup_device(pkt_max[cfg & 3]);
	/* The driver refills what it consumes, in buffers of one size... */
	S.rx_size_sel = (cfg >> 2) & 7;
	S.rx_repost = cfg & 0x20 ? 0 : 1 + ((cfg >> 6) & 1);
	/* ...and starts with eight of them. */
	for (i = 0; i < 8; i++)
		post_rx(S.rx_size_sel, 1, cuts);

	while (S.inlen && ops++ < MAX_OPS) {
		unsigned int op = u8() % 16;

		if (op > 6 && S.npend) {
			kick_tx();	/* any other event ends the TX batch */
			consume_rx();
		}
		switch (op) {
		case 0 ... 5:
			op_tx(0);
			break;
		case 6:
			op_tx(1);
			break;
		case 7:
		case 8:
			op_rx_post();
			break;
		case 9:
			op_host_connect();
			break;
		case 10:
		case 11:
			op_host_write();
			break;
		case 12:
			op_host_read();
			break;
		case 13:
			op_host_end(u8() & 1);
			break;
		case 14:
			accept_lazy();
			break;
		default:
			if (u8() == 0xd5)
				device_stop();
			else
				loop_step();
			break;
		}
		if (S.npend)
			continue;	/* the guest is still filling TX */
		loop_step();
		consume_rx();
		check_table();
	}
	if (S.npend)
		kick_tx();
	for (i = 0; i < 4; i++)
		loop_step();
	consume_rx();
	check_table();

	/* The device stops: nothing may be left behind. */
	device_stop();
	close(S.b.epfd);
	for (i = 0; i < S.nhs; i++)
		hs_close(&S.hs[i]);
	for (;;) {
		int fd = accept4(lazy_fd, NULL, NULL, SOCK_CLOEXEC);

		if (fd < 0)
			fd = accept4(auto_fd, NULL, NULL, SOCK_CLOEXEC);
		if (fd < 0)
			fd = accept4(dev_listen_fd, NULL, NULL, SOCK_CLOEXEC);
		if (fd < 0)
			break;
		close(fd);
	}
	CHECK(lowest_free_fd() == fd0, "file descriptors leaked (lowest free %d, was %d)",
	      lowest_free_fd(), fd0);
	/* Only the table we installed: nothing to unmap. */
	memset(&S.b.dev.mem, 0, sizeof(S.b.dev.mem));
	return 0;
}
