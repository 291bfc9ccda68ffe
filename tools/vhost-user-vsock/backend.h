/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The whole back-end: one vhost-user front-end (QEMU), its device, the
 * host-side Unix-socket endpoints, and the vsock connections between them.
 * Single-threaded around one epoll instance.
 */
#ifndef BACKEND_H
#define BACKEND_H

#include <stdint.h>

#include "vsock_pkt.h"
#include "vu_dev.h"

enum tag_kind { T_VU_LISTEN, T_VU, T_KICK, T_UDS_LISTEN, T_CONN };

struct ep_tag {
	enum tag_kind kind;
	void *p;
	unsigned int idx;
};

enum conn_state {
	C_HOST_LINE,		/* host connected, reading "CONNECT <port>\n" */
	C_HOST_CONNECTING,	/* REQUEST sent to the guest, awaiting RESPONSE */
	C_ESTABLISHED,
	C_DRAINING,		/* the guest is gone; writing what we hold */
	C_DEAD,			/* closed; freed at the end of the loop pass */
};

/* What we advertise to the guest for guest->host data. */
#define CONN_BUF_ALLOC		(256u << 10)
#define CONN_MAX_PKT		(64u << 10)
/* Open connections at most (host- and guest-initiated together). */
#define CONN_MAX		512u

struct conn {
	struct conn *next;
	struct ep_tag tag;
	int fd;
	enum conn_state state;
	uint32_t host_port, guest_port;
	uint32_t pkt_max;		/* from the CONNECT line; 0: device's */
	char line[40];
	unsigned int linelen;
	unsigned int ep_events;		/* what epoll watches for now */
	int registered;
	/* guest -> host */
	uint32_t rx_cnt;		/* payload bytes the guest sent us */
	uint32_t fwd_cnt;		/* of which written to the host socket */
	uint32_t fwd_cnt_sent;		/* fwd_cnt the guest last heard of */
	uint8_t *pend;			/* not yet written to the host socket */
	uint32_t pend_off, pend_len;
	int guest_shut_send;		/* the guest sends no more */
	int guest_shut_rcv;		/* the guest receives no more */
	int credit_update_queued;
	/* host -> guest */
	uint32_t peer_buf_alloc, peer_fwd_cnt;
	uint32_t tx_cnt;		/* payload bytes we sent the guest */
	int host_readable;		/* epoll said so; cleared on EAGAIN */
	int host_eof;			/* read 0 (or error): SHUTDOWN sent */
	int hup;
};

#define CTRL_QUEUE_MAX		4096u

struct ctrl_pkt {
	uint32_t host_port, guest_port;
	uint16_t op;
	uint32_t flags;
};

struct backend {
	int epfd;
	int vu_listen_fd, vu_fd, uds_listen_fd;
	const char *uds_path;
	struct ep_tag vu_listen_tag, vu_tag, uds_tag, kick_tag[VU_NR_VQS];
	int kick_registered[VU_NR_VQS];
	struct vu_dev dev;
	struct conn *conns;
	struct conn *rr;		/* round-robin cursor for RX */
	unsigned int nconns;		/* in the list, dead ones included */
	uint32_t next_host_port;
	struct ctrl_pkt ctrl[CTRL_QUEUE_MAX];
	unsigned int ctrl_head, ctrl_len;
	int verbose;
	uint32_t rx_pkt_max;		/* payload cap per packet to the guest */
	/* counters for the exit summary */
	uint64_t rx_pkts, tx_pkts, rx_bytes, tx_bytes, refused_pkts;
};

void logmsg(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* vsock.c */
void vsock_on_tx_kick(struct backend *b);
void vsock_rx_pump(struct backend *b);
void vsock_on_uds_accept(struct backend *b);
void vsock_on_conn_event(struct backend *b, struct conn *c, uint32_t events);
void vsock_reap(struct backend *b);
void vsock_close_all(struct backend *b);

#endif
