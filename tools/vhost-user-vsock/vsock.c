// SPDX-License-Identifier: GPL-2.0
/*
 * virtio-vsock on the device side, bridged to host Unix sockets in the
 * hybrid-vsock convention (Firecracker, rust-vmm vhost-device-vsock):
 *
 *   host -> guest  connect to UDS_PATH, write "CONNECT <port>\n"; once
 *                  the guest accepts, read "OK <host_port>\n", then the
 *                  socket is the stream.  A refused connection is closed.
 *   guest -> host  the guest connects to CID 2 port P; we connect to the
 *                  Unix socket UDS_PATH_P and bridge the two.
 *
 * Flow control is virtio-vsock's credit scheme: we never send the guest
 * more than buf_alloc - (tx_cnt - fwd_cnt) it advertised, and we advertise
 * CONN_BUF_ALLOC for our side, buffering what the host socket has not
 * taken yet and telling the guest (CREDIT_UPDATE) as it drains.  A guest
 * that overruns its credit or breaks the protocol gets its connection
 * reset, with a logged reason.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/epoll.h>
#include <sys/socket.h>
#include <sys/un.h>

#include "backend.h"

void vsock_init(struct backend *b)
{
	b->ctrl_head = NULL;
	b->ctrl_tail = &b->ctrl_head;
	if (!b->max_open[0])
		b->max_open[0] = CONN_MAX_GUEST;
	if (!b->max_open[1])
		b->max_open[1] = CONN_MAX_HOST;
	if (!b->line_timeout_ms)
		b->line_timeout_ms = LINE_TIMEOUT_MS;
	if (!b->request_timeout_ms)
		b->request_timeout_ms = REQUEST_TIMEOUT_MS;
}

static struct conn *conn_find(struct backend *b, uint32_t host_port,
			      uint32_t guest_port)
{
	struct conn *c;

	for (c = b->conns; c; c = c->next)
		if (c->state != C_DEAD && c->state != C_HOST_LINE &&
		    c->state != C_DRAINING &&
		    c->host_port == host_port && c->guest_port == guest_port)
			return c;
	return NULL;
}

static struct conn *conn_new(struct backend *b, int fd, enum conn_state st,
			     int from_host)
{
	struct conn *c;

	/*
	 * Each connection holds an fd and up to CONN_BUF_ALLOC of guest data
	 * the host has not read: bounded per direction, so a guest (or host
	 * program) that opens connections without end exhausts neither, nor
	 * locks the other side out.
	 */
	if (b->nopen[from_host] >= b->max_open[from_host]) {
		logmsg_rl("%u %s-initiated connections open: refusing another",
			  b->nopen[from_host], from_host ? "host" : "guest");
		close(fd);
		return NULL;
	}
	c = calloc(1, sizeof(*c));
	if (!c) {
		logmsg_rl("out of memory for a connection");
		close(fd);
		return NULL;
	}
	b->nconns++;
	b->nopen[from_host]++;
	c->fd = fd;
	c->state = st;
	c->from_host = from_host;
	c->guest_knows = !from_host;
	c->tag.kind = T_CONN;
	c->tag.p = c;
	c->next = b->conns;
	b->conns = c;
	return c;
}

/* @c owes the guest @what (CTRL_*): on the FIFO unless it is already. */
static void ctrl_owe(struct backend *b, struct conn *c, unsigned int what)
{
	c->ctrl |= what;
	if (c->on_ctrl)
		return;
	c->on_ctrl = 1;
	c->ctrl_next = NULL;
	*b->ctrl_tail = c;
	b->ctrl_tail = &c->ctrl_next;
}

static struct conn *ctrl_pop(struct backend *b)
{
	struct conn *c = b->ctrl_head;

	if (!c)
		return NULL;
	b->ctrl_head = c->ctrl_next;
	if (!b->ctrl_head)
		b->ctrl_tail = &b->ctrl_head;
	c->on_ctrl = 0;
	c->ctrl_next = NULL;
	return c;
}

/* Take @c off the FIFO (it owes nothing any more and is about to go). */
static void ctrl_unlink(struct backend *b, struct conn *c)
{
	struct conn **pp;

	for (pp = &b->ctrl_head; *pp; pp = &(*pp)->ctrl_next) {
		if (*pp != c)
			continue;
		*pp = c->ctrl_next;
		if (!*pp)
			b->ctrl_tail = pp;
		break;
	}
	c->on_ctrl = 0;
	c->ctrl_next = NULL;
}

/* The first connection on the FIFO that still owes something. */
static struct conn *ctrl_peek(struct backend *b)
{
	while (b->ctrl_head && !b->ctrl_head->ctrl)
		ctrl_pop(b);
	return b->ctrl_head;
}

/*
 * An RST for a connection we do not have.  The caller made sure there is
 * room: TX is not processed while the ring is full (tx_must_wait()).
 */
static void reply_rst(struct backend *b, uint32_t host_port, uint32_t guest_port)
{
	struct ctrl_pkt *p;

	if (b->rst_len == REPLY_MAX) {
		/* Cannot happen: one TX packet owes at most one of these. */
		logmsg_rl("RST ring full: RST for %u->%u not sent", host_port, guest_port);
		return;
	}
	p = &b->rst[(b->rst_head + b->rst_len++) % REPLY_MAX];
	p->host_port = host_port;
	p->guest_port = guest_port;
}

/* Answers are owed that the guest has not taken: leave TX in its ring. */
static int tx_must_wait(const struct backend *b)
{
	return b->rst_len >= REPLY_MAX || b->nzombie >= REPLY_MAX;
}

static void conn_close_fd(struct backend *b, struct conn *c)
{
	if (c->fd < 0)
		return;
	if (c->registered)
		epoll_ctl(b->epfd, EPOLL_CTL_DEL, c->fd, NULL);
	c->registered = 0;
	close(c->fd);
	c->fd = -1;
	free(c->pend);
	c->pend = NULL;
	c->pend_len = c->pend_off = 0;
	b->nopen[c->from_host]--;
}

/*
 * Close the host side; tell the guest with RST (@rst) if it knows the
 * connection and has not told us it is gone.  Whatever else was owed is
 * void: a REQUEST not yet sent is never sent (the guest never hears of
 * the connection), a RESPONSE not yet sent becomes the RST.
 */
static uint32_t conn_credit(const struct conn *c)
{
	uint32_t inflight = c->tx_cnt - c->peer_fwd_cnt;

	return inflight >= c->peer_buf_alloc ? 0 : c->peer_buf_alloc - inflight;
}

/*
 * --flow-stats: the host -> guest flow's account, at its end.  Between
 * the flow's first data packet and its last packet or credit update,
 * whichever came later, it splits the host sender's time by what held
 * it back, measured where it happens, with nothing running in the guest:
 * - without credit: the guest had granted none (its reader is behind);
 * - without RX buffers: it had credit and host data, but the guest's RX
 *   queue had no buffer (the guest's RX worker is behind);
 * the rest is the back-end moving data.  A wait still open at the end
 * (credit the guest never needed to return) is not counted.  The number
 * of guest packets that advanced fwd_cnt says how often credit came back.
 */
static void flow_stats_log(const struct conn *c)
{
	double span, nocredit, nobuf;

	if (!c->h2g_bytes)
		return;
	span = (c->h2g_last_ns - c->h2g_first_ns) / 1e9;
	nocredit = c->nocredit_ns / 1e9;
	nobuf = c->nobuf_ns / 1e9;
	logmsg("flow host %u -> guest %u: %llu bytes in %.6f s, without credit %.6f s (%.2f %%) in %llu spans, without RX buffers %.6f s (%.2f %%), fwd_cnt advanced by %llu packets",
	       c->host_port, c->guest_port, (unsigned long long)c->h2g_bytes,
	       span, nocredit, span > 0 ? 100.0 * nocredit / span : 0.0,
	       (unsigned long long)c->nocredit_spans, nobuf,
	       span > 0 ? 100.0 * nobuf / span : 0.0,
	       (unsigned long long)c->fwd_advances);
}

/* A packet to the guest carried @n bytes of @c. */
static void flow_sent(struct backend *b, struct conn *c, uint32_t n)
{
	uint64_t now;

	c->h2g_bytes += n;
	if (!b->flow_stats)
		return;
	now = now_ns();
	if (!c->h2g_first_ns)
		c->h2g_first_ns = now;
	c->h2g_last_ns = now;
	if (c->nobuf_since_ns) {
		c->nobuf_ns += now - c->nobuf_since_ns;
		c->nobuf_since_ns = 0;
	}
	if (!conn_credit(c) && !c->nocredit_since_ns)
		c->nocredit_since_ns = now;
}

/* @c could send, but the guest's RX queue has no buffer for it. */
static void flow_nobuf(struct backend *b, struct conn *c)
{
	if (b->flow_stats && c->h2g_first_ns && !c->nobuf_since_ns)
		c->nobuf_since_ns = now_ns();
}

/* The guest's header just updated @c's credit. */
static void flow_credit(struct conn *c)
{
	uint64_t now;

	if (!c->nocredit_since_ns || !conn_credit(c))
		return;
	now = now_ns();
	c->nocredit_ns += now - c->nocredit_since_ns;
	c->nocredit_spans++;
	c->nocredit_since_ns = 0;
	/* The flow lasts until the credit its last packets waited for. */
	c->h2g_last_ns = now;
}

static void conn_kill(struct backend *b, struct conn *c, int rst,
		      const char *why)
{
	if (c->state == C_DEAD)
		return;
	if (b->flow_stats)
		flow_stats_log(c);
	if (why)
		logmsg_rl("connection host %u <-> guest %u: %s", c->host_port,
			  c->guest_port, why);
	conn_close_fd(b, c);
	c->ctrl &= CTRL_RST;
	if (rst && c->guest_knows && c->state != C_HOST_LINE && c->state != C_DRAINING)
		ctrl_owe(b, c, CTRL_RST);
	c->state = C_DEAD;
	c->deadline_ms = 0;
	if (c->ctrl)
		b->nzombie++;
}


static int conn_can_send(const struct conn *c)
{
	return c->state == C_ESTABLISHED && !c->host_eof &&
	       !c->guest_shut_rcv && conn_credit(c) > 0;
}

static void maybe_credit_update(struct backend *b, struct conn *c)
{
	uint32_t seen_free = CONN_BUF_ALLOC - (c->rx_cnt - c->fwd_cnt_sent);

	if (c->state != C_ESTABLISHED || (c->ctrl & CTRL_CREDIT_UPDATE) ||
	    c->fwd_cnt == c->fwd_cnt_sent || seen_free >= CONN_BUF_ALLOC / 2)
		return;
	ctrl_owe(b, c, CTRL_CREDIT_UPDATE);
}

/* Both directions finished: the connection is over. */
static void maybe_done(struct backend *b, struct conn *c)
{
	if (c->state == C_ESTABLISHED && c->guest_shut_send && c->host_eof &&
	    !c->pend_len)
		conn_kill(b, c, 1, NULL);
}

static void flush_pend(struct backend *b, struct conn *c);

/*
 * The guest is done with the connection (close() or RST).  What it sent
 * before is still owed to the host socket, as a socket peer's data stays
 * readable after its close: keep writing it, then close.
 */
static void conn_guest_gone(struct backend *b, struct conn *c, int rst)
{
	/* Nothing but the RST is owed to a guest that is gone. */
	c->ctrl &= CTRL_RST;
	if (rst)
		ctrl_owe(b, c, CTRL_RST);
	flush_pend(b, c);
	if (c->state == C_DEAD)
		return;
	if (!c->pend_len) {
		conn_kill(b, c, 0, NULL);
		return;
	}
	c->state = C_DRAINING;
}

static void flush_pend(struct backend *b, struct conn *c)
{
	while (c->pend_len) {
		ssize_t n = send(c->fd, c->pend + c->pend_off, c->pend_len,
				 MSG_NOSIGNAL | MSG_DONTWAIT);

		if (n < 0) {
			if (errno == EAGAIN || errno == EINTR)
				break;
			conn_kill(b, c, 1, strerror(errno));
			return;
		}
		c->pend_off += n;
		c->pend_len -= n;
		c->fwd_cnt += n;
	}
	if (!c->pend_len) {
		c->pend_off = 0;
		if (c->state == C_DRAINING) {
			conn_kill(b, c, 0, NULL);
			return;
		}
		if (c->guest_shut_send)
			shutdown(c->fd, SHUT_WR);
	}
	maybe_credit_update(b, c);
	maybe_done(b, c);
}

/* Guest payload (@len bytes of @iov) for the host socket. */
static void deliver(struct backend *b, struct conn *c, const struct iovec *iov,
		    unsigned int niov, uint32_t len)
{
	struct msghdr mh = { 0 };
	struct iovec s[VU_CHAIN_MAX_IOV];
	ssize_t n = 0;

	c->rx_cnt += len;
	if (!c->pend_len) {
		mh.msg_iov = s;
		mh.msg_iovlen = iov_slice(iov, niov, 0, len, s, VU_CHAIN_MAX_IOV);
		n = sendmsg(c->fd, &mh, MSG_NOSIGNAL | MSG_DONTWAIT);
		if (n < 0) {
			if (errno != EAGAIN && errno != EINTR) {
				conn_kill(b, c, 1, strerror(errno));
				return;
			}
			n = 0;
		}
		c->fwd_cnt += n;
	}
	if ((uint32_t)n < len) {
		uint32_t rest = len - n;

		if (!c->pend && !(c->pend = malloc(CONN_BUF_ALLOC))) {
			conn_kill(b, c, 1, "out of memory for the receive buffer");
			return;
		}
		if (c->pend_off + c->pend_len + rest > CONN_BUF_ALLOC) {
			memmove(c->pend, c->pend + c->pend_off, c->pend_len);
			c->pend_off = 0;
		}
		/* The credit check before us keeps pend_len + rest <= buf_alloc. */
		iov_copy_out(iov, niov, n, c->pend + c->pend_off + c->pend_len, rest);
		c->pend_len += rest;
	}
	maybe_credit_update(b, c);
}

static void guest_connect(struct backend *b, const struct vsock_hdr *h)
{
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	struct conn *c;
	int fd, n;

	n = snprintf(sa.sun_path, sizeof(sa.sun_path), "%s_%u", b->uds_path,
		     h->dst_port);
	if (n < 0 || (size_t)n >= sizeof(sa.sun_path)) {
		logmsg_rl("guest connect to port %u: socket path too long", h->dst_port);
		reply_rst(b, h->dst_port, h->src_port);
		return;
	}
	if (b->nopen[0] >= b->max_open[0]) {
		logmsg_rl("guest connect to port %u: %u guest-initiated connections open",
			  h->dst_port, b->nopen[0]);
		reply_rst(b, h->dst_port, h->src_port);
		return;
	}
	/*
	 * Non-blocking, as every socket of this one-thread loop: reads never
	 * wait for the host, and a listener whose backlog is full fails the
	 * connect() with EAGAIN (the guest gets a reset) instead of stalling
	 * every connection until the host program accepts.
	 */
	fd = socket(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	if (fd < 0 || connect(fd, (struct sockaddr *)&sa, sizeof(sa)) < 0) {
		if (fd < 0)
			logmsg_rl("guest connect to port %u: socket: %s", h->dst_port,
				  strerror(errno));
		else if (b->verbose)
			logmsg_rl("guest connect to port %u: %s: %s", h->dst_port,
				  sa.sun_path, strerror(errno));
		if (fd >= 0)
			close(fd);
		reply_rst(b, h->dst_port, h->src_port);
		return;
	}
	c = conn_new(b, fd, C_ESTABLISHED, 0);
	if (!c) {
		reply_rst(b, h->dst_port, h->src_port);
		return;
	}
	c->host_port = h->dst_port;
	c->guest_port = h->src_port;
	c->peer_buf_alloc = h->buf_alloc;
	c->peer_fwd_cnt = h->fwd_cnt;
	ctrl_owe(b, c, CTRL_RESPONSE);
}

/* One packet from the guest's TX queue. */
static void guest_packet(struct backend *b, const struct vu_chain *ch)
{
	uint8_t raw[VSOCK_HDR_SIZE];
	struct iovec s[VU_CHAIN_MAX_IOV];
	unsigned int ns;
	struct vsock_hdr h;
	struct conn *c;
	char line[32];
	int n;

	if (ch->len < VSOCK_HDR_SIZE) {
		logmsg_rl("guest packet of %llu bytes is shorter than a header: dropped",
		       (unsigned long long)ch->len);
		b->refused_pkts++;
		return;
	}
	iov_copy_out(ch->iov, ch->niov, 0, raw, sizeof(raw));
	vsock_hdr_decode(raw, &h);
	if (h.len > ch->len - VSOCK_HDR_SIZE) {
		logmsg_rl("guest %s packet says %u payload bytes in a %llu-byte buffer: dropped",
		       vsock_op_name(h.op), h.len,
		       (unsigned long long)(ch->len - VSOCK_HDR_SIZE));
		b->refused_pkts++;
		return;
	}
	if (h.src_cid != b->dev.guest_cid || h.dst_cid != VSOCK_HOST_CID) {
		logmsg_rl("guest packet from CID %llu to CID %llu (want %llu -> %u): dropped",
		       (unsigned long long)h.src_cid, (unsigned long long)h.dst_cid,
		       (unsigned long long)b->dev.guest_cid, VSOCK_HOST_CID);
		b->refused_pkts++;
		return;
	}
	c = conn_find(b, h.dst_port, h.src_port);
	if (h.type != VSOCK_TYPE_STREAM) {
		if (c)
			conn_kill(b, c, h.op != VSOCK_OP_RST, "non-stream packet");
		else if (h.op != VSOCK_OP_RST)
			reply_rst(b, h.dst_port, h.src_port);
		return;
	}
	if (!c) {
		if (h.op == VSOCK_OP_REQUEST)
			guest_connect(b, &h);
		else if (h.op != VSOCK_OP_RST)
			reply_rst(b, h.dst_port, h.src_port);
		return;
	}
	if (h.fwd_cnt != c->peer_fwd_cnt)
		c->fwd_advances++;
	c->peer_buf_alloc = h.buf_alloc;
	c->peer_fwd_cnt = h.fwd_cnt;
	flow_credit(c);
	switch (h.op) {
	case VSOCK_OP_REQUEST:
		conn_kill(b, c, 1, "REQUEST on an existing connection");
		break;
	case VSOCK_OP_RESPONSE:
		if (c->state != C_HOST_CONNECTING || !c->guest_knows) {
			conn_kill(b, c, 1, "unexpected RESPONSE");
			break;
		}
		c->state = C_ESTABLISHED;
		c->deadline_ms = 0;
		n = snprintf(line, sizeof(line), "OK %u\n", c->host_port);
		if (send(c->fd, line, n, MSG_NOSIGNAL | MSG_DONTWAIT) != n)
			conn_kill(b, c, 1, "could not write OK to the host socket");
		break;
	case VSOCK_OP_RW:
		if (c->state != C_ESTABLISHED || c->guest_shut_send) {
			conn_kill(b, c, 1, "data on a connection not open for it");
			break;
		}
		if ((uint64_t)(c->rx_cnt - c->fwd_cnt) + h.len > CONN_BUF_ALLOC) {
			conn_kill(b, c, 1, "guest sent beyond the credit we gave");
			break;
		}
		ns = iov_slice(ch->iov, ch->niov, VSOCK_HDR_SIZE, h.len, s,
			       VU_CHAIN_MAX_IOV);
		if (h.len)
			deliver(b, c, s, ns, h.len);
		b->tx_bytes += h.len;
		break;
	case VSOCK_OP_CREDIT_UPDATE:
		break;
	case VSOCK_OP_CREDIT_REQUEST:
		if (c->state == C_ESTABLISHED)
			ctrl_owe(b, c, CTRL_CREDIT_UPDATE);
		break;
	case VSOCK_OP_SHUTDOWN:
		if (h.flags & ~(VSOCK_SHUTDOWN_RCV | VSOCK_SHUTDOWN_SEND)) {
			conn_kill(b, c, 1, "SHUTDOWN with unknown flags");
			break;
		}
		if (h.flags & VSOCK_SHUTDOWN_RCV)
			c->guest_shut_rcv = 1;
		if (h.flags & VSOCK_SHUTDOWN_SEND)
			c->guest_shut_send = 1;
		if (c->guest_shut_rcv && c->guest_shut_send) {
			/* close(): RST completes it for the guest. */
			conn_guest_gone(b, c, 1);
			break;
		}
		if (c->guest_shut_send && !c->pend_len)
			shutdown(c->fd, SHUT_WR);
		maybe_done(b, c);
		break;
	case VSOCK_OP_RST:
		conn_guest_gone(b, c, 0);
		break;
	default:
		conn_kill(b, c, 1, "unknown op");
		break;
	}
}

/* Take the guest's TX packets, unless answers to earlier ones are owed. */
static void tx_process(struct backend *b)
{
	struct vu_vq *vq = &b->dev.vq[VU_VQ_TX];
	struct vu_chain ch;
	char why[256];
	int r;

	for (;;) {
		if (tx_must_wait(b)) {
			/* rx_pump() comes back once the guest took them. */
			b->tx_throttled = 1;
			break;
		}
		r = vu_vq_pop(vq, &b->dev.mem, 0, &ch, why, sizeof(why));
		if (r < 0)
			logmsg_rl("%s", why);
		if (r < 0 || (r == 0 && !vu_vq_want_kick(vq)))
			break;
		if (r == 0)
			continue;	/* more came while we asked for a kick */
		guest_packet(b, &ch);
		b->tx_pkts++;
		vu_vq_push(vq, ch.head, 0);
	}
	vu_vq_signal(vq);
}

void vsock_on_tx_kick(struct backend *b)
{
	tx_process(b);
	vsock_rx_pump(b);
}

static struct conn *next_sendable(struct backend *b)
{
	struct conn *start = b->rr && b->rr->next ? b->rr->next : b->conns;
	struct conn *c = start;

	if (!c)
		return NULL;
	do {
		if (c->host_readable && conn_can_send(c)) {
			b->rr = c;
			return c;
		}
		c = c->next ? c->next : b->conns;
	} while (c != start);
	return NULL;
}

static void fill_hdr(struct backend *b, struct vsock_hdr *h, uint32_t host_port,
		     uint32_t guest_port, uint16_t op, uint32_t flags,
		     uint32_t len, struct conn *c)
{
	memset(h, 0, sizeof(*h));
	h->src_cid = VSOCK_HOST_CID;
	h->dst_cid = b->dev.guest_cid;
	h->src_port = host_port;
	h->dst_port = guest_port;
	h->len = len;
	h->type = VSOCK_TYPE_STREAM;
	h->op = op;
	h->flags = flags;
	if (c) {
		h->buf_alloc = CONN_BUF_ALLOC;
		h->fwd_cnt = c->fwd_cnt;
		c->fwd_cnt_sent = c->fwd_cnt;
	}
}

static void put_hdr(const struct vu_chain *ch, const struct vsock_hdr *h)
{
	uint8_t raw[VSOCK_HDR_SIZE];

	vsock_hdr_encode(h, raw);
	iov_copy_in(ch->iov, ch->niov, 0, raw, sizeof(raw));
}

/* Put one control packet owed to the guest into RX buffer @ch. */
static void send_ctrl(struct backend *b, const struct vu_chain *ch)
{
	struct vu_vq *vq = &b->dev.vq[VU_VQ_RX];
	struct vsock_hdr h;
	struct conn *c;
	uint16_t op;

	/*
	 * Turn about between the two, so that a guest flooding us with
	 * packets for unknown connections cannot starve the REQUESTs of
	 * host clients (nor they its RSTs).
	 */
	b->ctrl_turn ^= 1;
	if (b->rst_len && (b->ctrl_turn || !ctrl_peek(b))) {
		struct ctrl_pkt p = b->rst[b->rst_head];

		b->rst_head = (b->rst_head + 1) % REPLY_MAX;
		b->rst_len--;
		fill_hdr(b, &h, p.host_port, p.guest_port, VSOCK_OP_RST, 0, 0, NULL);
	} else {
		c = ctrl_pop(b);
		if (c->ctrl & CTRL_RST) {
			op = VSOCK_OP_RST;
			c->ctrl = 0;
			if (c->state == C_DEAD)
				b->nzombie--;
		} else if (c->ctrl & CTRL_REQUEST) {
			op = VSOCK_OP_REQUEST;
			c->ctrl &= ~CTRL_REQUEST;
			c->guest_knows = 1;
		} else if (c->ctrl & CTRL_RESPONSE) {
			op = VSOCK_OP_RESPONSE;
			c->ctrl &= ~CTRL_RESPONSE;
		} else {
			op = VSOCK_OP_CREDIT_UPDATE;
			c->ctrl &= ~CTRL_CREDIT_UPDATE;
		}
		fill_hdr(b, &h, c->host_port, c->guest_port, op, 0, 0,
			 op == VSOCK_OP_RST ? NULL : c);
		if (c->ctrl)
			ctrl_owe(b, c, 0);	/* the rest after the others' */
	}
	put_hdr(ch, &h);
	vu_vq_push(vq, ch->head, VSOCK_HDR_SIZE);
	b->rx_pkts++;
}

/* Fill the guest's RX buffers: control packets first, then data. */
static void rx_fill(struct backend *b)
{
	struct vu_vq *vq = &b->dev.vq[VU_VQ_RX];
	struct iovec s[VU_CHAIN_MAX_IOV];
	struct vsock_hdr h;
	struct vu_chain ch;
	char why[256];
	struct conn *c;
	uint32_t cap;
	ssize_t n;
	int r, ctrl;

	while (vu_vq_ready(vq)) {
		c = NULL;
		ctrl = b->rst_len || ctrl_peek(b);
		if (!ctrl && !(c = next_sendable(b)))
			break;
		r = vu_vq_pop(vq, &b->dev.mem, 1, &ch, why, sizeof(why));
		if (r < 0) {
			logmsg_rl("%s", why);
			break;
		}
		if (r == 0) {
			/* Out of buffers with work to do: ask for a kick. */
			if (c)
				flow_nobuf(b, c);
			if (vu_vq_want_kick(vq))
				continue;
			break;
		}
		/*
		 * A data packet needs a payload byte too: a header-only
		 * buffer would have readv() read nothing, which looks like
		 * the host's EOF.
		 */
		if (ch.len < VSOCK_HDR_SIZE + (c ? 1 : 0)) {
			logmsg_rl("guest RX buffer of %llu bytes cannot hold a %s: returned unused",
				  (unsigned long long)ch.len, c ? "data packet" : "header");
			vu_vq_push(vq, ch.head, 0);
			continue;
		}
		if (!c) {
			send_ctrl(b, &ch);
			continue;
		}
		cap = conn_credit(c);
		if (cap > ch.len - VSOCK_HDR_SIZE)
			cap = ch.len - VSOCK_HDR_SIZE;
		if (cap > b->rx_pkt_max)
			cap = b->rx_pkt_max;
		if (c->pkt_max && cap > c->pkt_max)
			cap = c->pkt_max;
		n = readv(c->fd, s, iov_slice(ch.iov, ch.niov, VSOCK_HDR_SIZE, cap, s,
					      VU_CHAIN_MAX_IOV));
		if (n < 0 && (errno == EAGAIN || errno == EINTR)) {
			vu_vq_unpop(vq);
			c->host_readable = 0;
			continue;
		}
		if (n < 0) {
			logmsg_rl("connection host %u <-> guest %u: read: %s",
				  c->host_port, c->guest_port, strerror(errno));
			conn_kill(b, c, 1, NULL);
			vu_vq_unpop(vq);	/* the RST goes out through the FIFO */
			continue;
		}
		if (n == 0) {
			/* The host will send no more. */
			c->host_eof = 1;
			fill_hdr(b, &h, c->host_port, c->guest_port, VSOCK_OP_SHUTDOWN,
				 VSOCK_SHUTDOWN_SEND, 0, c);
			put_hdr(&ch, &h);
			vu_vq_push(vq, ch.head, VSOCK_HDR_SIZE);
			b->rx_pkts++;
			maybe_done(b, c);
			continue;
		}
		fill_hdr(b, &h, c->host_port, c->guest_port, VSOCK_OP_RW, 0, n, c);
		put_hdr(&ch, &h);
		c->tx_cnt += n;
		flow_sent(b, c, n);
		b->rx_bytes += n;
		b->rx_pkts++;
		vu_vq_push(vq, ch.head, VSOCK_HDR_SIZE + n);
	}
}

void vsock_rx_pump(struct backend *b)
{
	unsigned int i;

	/*
	 * TX waits while answers are owed; once RX took enough of them, the
	 * TX packets left in their ring are taken (and may owe more).
	 */
	for (i = 0; i < 64; i++) {
		rx_fill(b);
		if (!b->tx_throttled || tx_must_wait(b))
			break;
		b->tx_throttled = 0;
		tx_process(b);
	}
	vu_vq_signal(&b->dev.vq[VU_VQ_RX]);
}

int vsock_accept(struct backend *b, int lfd, const char *what)
{
	int fd;

	for (;;) {
		fd = accept4(lfd, NULL, NULL, SOCK_NONBLOCK | SOCK_CLOEXEC);
		if (fd >= 0)
			return fd;
		if (errno == EINTR)
			continue;
		if ((errno == EMFILE || errno == ENFILE) && b->spare_fd > 0) {
			logmsg_rl("accept on the %s socket: %s: connection refused",
				  what, strerror(errno));
			close(b->spare_fd);
			fd = accept4(lfd, NULL, NULL, SOCK_CLOEXEC);
			if (fd >= 0)
				close(fd);
			b->spare_fd = open("/dev/null", O_RDONLY | O_CLOEXEC);
			return -1;
		}
		if (errno != EAGAIN)
			logmsg_rl("accept on the %s socket: %s", what, strerror(errno));
		return -1;
	}
}

void vsock_on_uds_accept(struct backend *b)
{
	struct conn *c;
	int fd = vsock_accept(b, b->uds_listen_fd, "host endpoint");

	if (fd < 0)
		return;
	c = conn_new(b, fd, C_HOST_LINE, 1);
	if (c)
		c->deadline_ms = now_ms() + b->line_timeout_ms;
}

static int port_in_use(struct backend *b, uint32_t port)
{
	struct conn *c;

	/* A closed one whose RST is still owed holds its port too. */
	for (c = b->conns; c; c = c->next)
		if ((c->state != C_DEAD || c->ctrl) && c->state != C_HOST_LINE &&
		    c->host_port == port)
			return 1;
	return 0;
}

/* "CONNECT <port>\n", one byte at a time: what follows is stream data. */
static void read_connect_line(struct backend *b, struct conn *c)
{
	uint32_t port;
	ssize_t n;
	char ch;

	for (;;) {
		n = read(c->fd, &ch, 1);
		if (n < 0 && (errno == EAGAIN || errno == EINTR))
			return;
		if (n <= 0) {
			conn_kill(b, c, 0, n ? strerror(errno) : "host closed before CONNECT");
			return;
		}
		if (ch == '\n')
			break;
		if (c->linelen >= sizeof(c->line) - 1) {
			conn_kill(b, c, 0, "CONNECT line too long");
			return;
		}
		c->line[c->linelen++] = ch;
	}
	c->line[c->linelen] = 0;
	if (c->linelen && c->line[c->linelen - 1] == '\r')
		c->line[--c->linelen] = 0;
	if (vsock_parse_connect(c->line, &port, &c->pkt_max)) {
		char text[sizeof(c->line) * 4 + 1];

		/* Host text: its control bytes must not reach a terminal. */
		log_clean(text, sizeof(text), c->line, c->linelen);
		logmsg_rl("host sent '%s', want 'CONNECT <port> [<max packet>]' "
			  "(port 1..4294967294): closed", text);
		conn_kill(b, c, 0, NULL);
		return;
	}
	do {
		b->next_host_port++;
		if (b->next_host_port < 1024)
			b->next_host_port = 1024;
	} while (port_in_use(b, b->next_host_port));
	c->host_port = b->next_host_port;
	c->guest_port = port;
	c->state = C_HOST_CONNECTING;
	c->deadline_ms = now_ms() + b->request_timeout_ms;
	ctrl_owe(b, c, CTRL_REQUEST);
}

void vsock_on_conn_event(struct backend *b, struct conn *c, uint32_t events)
{
	if (c->state == C_DEAD)
		return;
	if (events & (EPOLLHUP | EPOLLERR)) {
		/* epoll reports these whatever we ask: stop watching. */
		c->hup = 1;
		c->host_readable = 1;
	}
	if (c->state == C_HOST_LINE) {
		read_connect_line(b, c);
		if (c->state != C_HOST_CONNECTING)
			return;
		/* A client that sent its line and closed: HUP came with it. */
	}
	if (c->state == C_HOST_CONNECTING && c->hup) {
		/* The guest may still answer; it gets an RST if it heard of it. */
		conn_kill(b, c, 1, b->verbose ? "host closed before the guest answered" : NULL);
		return;
	}
	if (events & EPOLLIN)
		c->host_readable = 1;
	if ((events & EPOLLOUT) || c->hup)
		flush_pend(b, c);
}

static void update_events(struct backend *b, struct conn *c)
{
	struct epoll_event ev = { 0 };
	unsigned int want = 0;

	if (c->hup) {
		if (c->registered)
			epoll_ctl(b->epfd, EPOLL_CTL_DEL, c->fd, NULL);
		c->registered = 0;
		return;
	}
	if (c->state == C_HOST_LINE ||
	    (conn_can_send(c) && !c->host_readable))
		want |= EPOLLIN;
	if (c->pend_len)
		want |= EPOLLOUT;
	if (c->registered && want == c->ep_events)
		return;
	ev.events = want;
	ev.data.ptr = &c->tag;
	if (epoll_ctl(b->epfd, c->registered ? EPOLL_CTL_MOD : EPOLL_CTL_ADD,
		      c->fd, &ev) < 0) {
		conn_kill(b, c, 1, "epoll_ctl failed");
		return;
	}
	c->registered = 1;
	c->ep_events = want;
}

/* Timed out waiting for the CONNECT line or the guest's answer?  1 if so. */
static int conn_expire(struct backend *b, struct conn *c, uint64_t now, int *next)
{
	uint64_t left;

	if (!c->deadline_ms || (c->state != C_HOST_LINE && c->state != C_HOST_CONNECTING))
		return 0;
	if (now >= c->deadline_ms) {
		conn_kill(b, c, 1, c->state == C_HOST_LINE ?
			  "no CONNECT line in time: closed" :
			  "the guest did not answer the REQUEST in time: closed");
		return 1;
	}
	left = c->deadline_ms - now;
	if (*next < 0 || left < (uint64_t)*next)
		*next = (int)left;
	return 0;
}

int vsock_reap(struct backend *b)
{
	struct conn **pp = &b->conns, *c;
	uint64_t now = now_ms();
	int next = -1, expired = 0;

	for (c = b->conns; c; c = c->next)
		expired |= conn_expire(b, c, now, &next);
	if (expired)
		vsock_rx_pump(b);	/* their RSTs */
	while ((c = *pp)) {
		if (c->state == C_DEAD && !c->ctrl) {
			*pp = c->next;
			if (c->on_ctrl)
				ctrl_unlink(b, c);
			if (b->rr == c)
				b->rr = NULL;
			free(c);
			b->nconns--;
			continue;
		}
		if (c->state != C_DEAD)
			update_events(b, c);
		pp = &c->next;
	}
	return next;
}

void vsock_close_all(struct backend *b)
{
	struct conn *c;

	/*
	 * The guest is gone with the device: nothing is owed to it.  The
	 * host sockets close with whatever they had not read: a host peer
	 * that was writing gets ECONNRESET/EPIPE, one that only reads gets
	 * EOF (a Unix socket has no RST of its own).
	 */
	for (c = b->conns; c; c = c->next) {
		c->ctrl = 0;
		c->on_ctrl = 0;
		c->ctrl_next = NULL;
		if (c->state != C_DEAD)
			conn_kill(b, c, 0, NULL);
	}
	b->ctrl_head = NULL;
	b->ctrl_tail = &b->ctrl_head;
	b->rst_len = 0;
	b->nzombie = 0;
	b->tx_throttled = 0;
}
