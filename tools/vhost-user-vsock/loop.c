// SPDX-License-Identifier: GPL-2.0
/*
 * The back-end's event loop: one epoll instance for the front-end's
 * vhost-user socket, the queues' kick fds, the host endpoint's listener,
 * every connection's host socket and SIGTERM/SIGINT.
 *
 * One rule holds it together: nothing that handles one event of a batch
 * frees what another event of the same batch may name.  A device stop
 * (GET_VRING_BASE, RESET_OWNER) or a front-end that goes only marks the
 * connections dead; vsock_reap() frees them after the batch (a stop used
 * to free them in the middle of it: heap-use-after-free).  Kick events of
 * a queue whose fd went are recognised by kick_registered[], a vhost-user
 * event after the front-end went by vu_fd.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/epoll.h>
#include <sys/signalfd.h>
#include <sys/socket.h>

#include "backend.h"
#include "vu_io.h"

/* vhost-user messages handled per wake-up before the others get a turn. */
#define VU_MSGS_PER_EVENT	64

static int ep_add(struct backend *b, int fd, uint32_t events, struct ep_tag *t)
{
	struct epoll_event ev = { .events = events, .data.ptr = t };

	return epoll_ctl(b->epfd, EPOLL_CTL_ADD, fd, &ev);
}

/* Kick fds come and go with vhost-user messages: re-register them around each. */
static void kicks_unregister(struct backend *b)
{
	unsigned int i;

	for (i = 0; i < VU_NR_VQS; i++) {
		if (b->kick_registered[i] >= 0)
			epoll_ctl(b->epfd, EPOLL_CTL_DEL, b->kick_registered[i], NULL);
		b->kick_registered[i] = -1;
	}
}

static void kicks_register(struct backend *b)
{
	unsigned int i;

	for (i = 0; i < VU_NR_VQS; i++) {
		int fd = b->dev.vq[i].kick_fd;

		if (fd < 0)
			continue;
		b->kick_tag[i].kind = T_KICK;
		b->kick_tag[i].idx = i;
		if (ep_add(b, fd, EPOLLIN, &b->kick_tag[i]) == 0)
			b->kick_registered[i] = fd;
		else
			logmsg("queue %u: cannot watch the kick fd: %s", i, strerror(errno));
	}
}

static void summary(struct backend *b)
{
	const struct vu_vq *rx = &b->dev.vq[VU_VQ_RX], *tx = &b->dev.vq[VU_VQ_TX];

	logmsg("front-end gone: %llu packets (%llu payload bytes) to the guest, "
	       "%llu packets (%llu payload bytes) from it, %llu refused; "
	       "interrupts RX %llu (%llu not needed), TX %llu (%llu not needed); "
	       "kicks RX %llu, TX %llu",
	       (unsigned long long)b->rx_pkts, (unsigned long long)b->rx_bytes,
	       (unsigned long long)b->tx_pkts, (unsigned long long)b->tx_bytes,
	       (unsigned long long)b->refused_pkts,
	       (unsigned long long)rx->signals, (unsigned long long)rx->signals_saved,
	       (unsigned long long)tx->signals, (unsigned long long)tx->signals_saved,
	       (unsigned long long)b->kicks[VU_VQ_RX], (unsigned long long)b->kicks[VU_VQ_TX]);
	b->rx_pkts = b->tx_pkts = b->rx_bytes = b->tx_bytes = b->refused_pkts = 0;
	b->kicks[0] = b->kicks[1] = 0;
}

/* One parsed message; 0, -1 the front-end is gone, -2 we refused it. */
static int handle_msg(struct backend *b, const struct vu_msg *m, int *fds,
		      unsigned int nfds)
{
	uint8_t reply[VU_HDR_SIZE + VU_MAX_PAYLOAD];
	unsigned int changed = 0;
	char why[256];
	size_t rlen;
	int r;

	if (b->verbose)
		logmsg("vhost-user %s (%u payload bytes, %u fds)",
		       vu_request_name(m->request), m->size, nfds);
	kicks_unregister(b);
	r = vu_dev_handle(&b->dev, m, fds, reply, &rlen, &changed, why, sizeof(why));
	kicks_register(b);
	if (r) {
		logmsg("refused vhost-user %s: %s", vu_request_name(m->request), why);
		return -2;
	}
	if (rlen && vu_write_all(b->vu_fd, reply, rlen)) {
		logmsg("writing the %s reply: %s", vu_request_name(m->request),
		       strerror(errno));
		return -1;
	}
	if (m->request == VU_SET_FEATURES)
		logmsg("features 0x%llx: EVENT_IDX %s", (unsigned long long)m->u64,
		       m->u64 & (1ull << VIRTIO_RING_F_EVENT_IDX) ? "on" : "off");
	if (m->request == VU_GET_VRING_BASE || m->request == VU_RESET_OWNER) {
		/*
		 * The device stops (driver reset, guest reboot, QEMU exit): the
		 * guest's sockets are gone with it, so are ours.
		 */
		vsock_close_all(b);
	}
	if (changed) {
		/* A queue may have just started with buffers already in it. */
		vsock_on_tx_kick(b);
		vsock_rx_pump(b);
	}
	return 0;
}

/* The front-end's socket is readable: 0, -1 it hung up, -2 we refused a message. */
static int on_vu_readable(struct backend *b)
{
	int fds[VU_MAX_FDS], r, i;
	unsigned int nfds;
	char why[256];

	for (i = 0; i < VU_MSGS_PER_EVENT; i++) {
		r = vu_reader_step(b->vu_fd, b->vu_rd, fds, &nfds, why, sizeof(why));
		if (r == 0)
			return 0;	/* the rest of it later: nothing waits for it */
		if (r == -2)
			return -1;
		if (r < 0) {
			logmsg("refused vhost-user message: %s", why);
			return -2;
		}
		r = handle_msg(b, &b->vu_rd->m, fds, nfds);
		if (r)
			return r;
	}
	return 0;
}

int backend_attach(struct backend *b, int fd)
{
	struct ucred cr;
	socklen_t len = sizeof(cr);

	/* The socket is 0600, but a directory or a bind mount may not be. */
	if (getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &cr, &len) < 0 ||
	    (cr.uid != geteuid() && cr.uid != 0)) {
		logmsg("front-end connection refused: peer uid %ld is neither ours (%ld) nor root",
		       len == sizeof(cr) ? (long)cr.uid : -1L, (long)geteuid());
		close(fd);
		return -1;
	}
	if (b->vu_fd >= 0) {
		logmsg("second front-end connection refused");
		close(fd);
		return -1;
	}
	b->vu_rd = malloc(sizeof(*b->vu_rd));
	if (!b->vu_rd) {
		logmsg("front-end connection refused: out of memory");
		close(fd);
		return -1;
	}
	vu_reader_init(b->vu_rd);
	b->vu_fd = fd;
	b->vu_tag.kind = T_VU;
	if (ep_add(b, fd, EPOLLIN, &b->vu_tag)) {
		logmsg("epoll: %s", strerror(errno));
		backend_detach(b);
		return -1;
	}
	logmsg("front-end connected (pid %ld)", (long)cr.pid);
	return 0;
}

void backend_detach(struct backend *b)
{
	if (b->vu_fd < 0)
		return;
	summary(b);
	kicks_unregister(b);
	vsock_close_all(b);
	vu_dev_reset(&b->dev);
	epoll_ctl(b->epfd, EPOLL_CTL_DEL, b->vu_fd, NULL);
	close(b->vu_fd);
	b->vu_fd = -1;
	vu_reader_reset(b->vu_rd);
	free(b->vu_rd);
	b->vu_rd = NULL;
}

static void on_kick(struct backend *b, unsigned int idx, uint32_t events)
{
	int fd = b->kick_registered[idx];
	uint64_t v;
	ssize_t n;

	if (fd < 0)
		return;		/* it went with a message earlier in this batch */
	n = read(fd, &v, sizeof(v));
	if (n == 0 || (n > 0 && n != sizeof(v)) ||
	    (n < 0 && errno != EAGAIN && errno != EINTR) ||
	    (events & (EPOLLHUP | EPOLLERR))) {
		/*
		 * Not an eventfd (a socket at EOF, a pipe): it would be
		 * readable for ever and spin the loop.  The queue stops.
		 */
		logmsg("queue %u: the kick fd is not a working eventfd (%s): queue stopped",
		       idx, n < 0 ? strerror(errno) : n == 0 ? "end of file" : "short read");
		epoll_ctl(b->epfd, EPOLL_CTL_DEL, fd, NULL);
		b->kick_registered[idx] = -1;
		close(b->dev.vq[idx].kick_fd);
		b->dev.vq[idx].kick_fd = -1;
		return;
	}
	b->kicks[idx]++;
	if (idx == VU_VQ_TX)
		vsock_on_tx_kick(b);
	else
		vsock_rx_pump(b);
}

static void on_signal(struct backend *b)
{
	struct signalfd_siginfo si;

	if (read(b->sig_fd, &si, sizeof(si)) == (ssize_t)sizeof(si)) {
		logmsg("signal %u: stopping", si.ssi_signo);
		b->stopping = 1;
	}
}

int backend_dispatch(struct backend *b, const struct epoll_event *evs, int n)
{
	int i, fd, r;

	for (i = 0; i < n; i++) {
		struct ep_tag *t = evs[i].data.ptr;

		switch (t->kind) {
		case T_VU_LISTEN:
			fd = vsock_accept(b, b->vu_listen_fd, "vhost-user");
			if (fd >= 0)
				backend_attach(b, fd);
			break;
		case T_VU:
			if (b->vu_fd < 0)
				break;	/* gone earlier in this batch */
			r = on_vu_readable(b);
			if (r) {
				b->fe_status = r == -2 ? 1 : 0;
				b->fe_gone = 1;
				backend_detach(b);
			}
			break;
		case T_KICK:
			on_kick(b, t->idx, evs[i].events);
			break;
		case T_UDS_LISTEN:
			vsock_on_uds_accept(b);
			break;
		case T_CONN:
			vsock_on_conn_event(b, t->p, evs[i].events);
			break;
		case T_SIGNAL:
			on_signal(b);
			break;
		}
	}
	/* Host sockets that became readable may now fill RX buffers. */
	vsock_rx_pump(b);
	return vsock_reap(b);
}

int backend_serve(struct backend *b)
{
	struct epoll_event evs[64];
	int n, timeout = -1;

	for (;;) {
		n = epoll_wait(b->epfd, evs, 64, timeout);
		if (n < 0) {
			if (errno == EINTR)
				continue;
			logmsg("epoll_wait: %s", strerror(errno));
			backend_detach(b);
			return 1;
		}
		timeout = backend_dispatch(b, evs, n);
		if (b->stopping) {
			backend_detach(b);
			vsock_reap(b);
			return 0;
		}
		if (b->fe_gone) {
			b->fe_gone = 0;
			if (!b->reconnect)
				return b->fe_status;
			logmsg("waiting for the next front-end");
		}
	}
}
