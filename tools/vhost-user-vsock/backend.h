/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The whole back-end: one vhost-user front-end (QEMU), its device, the
 * host-side Unix-socket endpoints, and the vsock connections between them.
 * Single-threaded around one epoll instance.
 */
#ifndef BACKEND_H
#define BACKEND_H

#include <stddef.h>
#include <stdint.h>
#include <sys/epoll.h>

#include "vsock_pkt.h"
#include "vu_dev.h"

enum tag_kind { T_VU_LISTEN, T_VU, T_KICK, T_UDS_LISTEN, T_CONN, T_SIGNAL };

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
	C_DEAD,			/* host side closed; freed by vsock_reap() once
				 * no control packet is owed to the guest */
};

/* Control packets a connection owes the guest (struct conn.ctrl bits). */
#define CTRL_REQUEST		(1u << 0)
#define CTRL_RESPONSE		(1u << 1)
#define CTRL_CREDIT_UPDATE	(1u << 2)
#define CTRL_RST		(1u << 3)

/* What we advertise to the guest for guest->host data. */
#define CONN_BUF_ALLOC		(256u << 10)
#define CONN_MAX_PKT		(64u << 10)
/*
 * Open connections (each an fd) at most, per direction, so that neither
 * side can lock the other out: host-initiated (from the CONNECT line on)
 * and guest-initiated.  The defaults; --max-host-conns/--max-guest-conns.
 */
#define CONN_MAX_HOST		256u
#define CONN_MAX_GUEST		256u
/* Default timeouts: the CONNECT line, the guest's answer to a REQUEST. */
#define LINE_TIMEOUT_MS		5000u
#define REQUEST_TIMEOUT_MS	10000u
/*
 * Answers owed to the guest that belong to no open connection: RSTs for
 * packets on unknown connections, and the RSTs of closed connections the
 * guest still believes open.  When this many are owed the device stops
 * taking TX packets until the guest posts RX buffers for them (as
 * vhost-vsock does): nothing is dropped, and a guest that never reads
 * cannot make the back-end grow.
 */
#define REPLY_MAX		256u

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
	int from_host;			/* host-initiated: counts in that quota */
	int guest_knows;		/* the guest has seen it (REQUEST sent,
					 * or it sent the REQUEST): an RST is
					 * owed when it ends */
	unsigned int ctrl;		/* CTRL_* owed to the guest */
	struct conn *ctrl_next;		/* on backend.ctrl_head's FIFO */
	int on_ctrl;
	uint64_t deadline_ms;		/* CONNECT line / REQUEST answer; 0: none */
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
	/* host -> guest flow statistics (--flow-stats), CLOCK_MONOTONIC ns */
	uint64_t h2g_bytes;		/* tx_cnt without the wrap */
	uint64_t h2g_first_ns, h2g_last_ns;	/* first and last data packet */
	uint64_t nocredit_since_ns;	/* 0: the guest's credit is not 0 */
	uint64_t nocredit_ns;		/* closed no-credit spans */
	uint64_t nocredit_spans;
	uint64_t nobuf_since_ns;	/* 0: not waiting for a guest RX buffer */
	uint64_t nobuf_ns;		/* closed waits for a guest RX buffer */
	uint64_t fwd_advances;		/* guest packets that moved fwd_cnt */
};

/* An RST for a connection we do not have (or refused). */
struct ctrl_pkt {
	uint32_t host_port, guest_port;
};

struct vu_reader;

struct backend {
	int epfd;
	int vu_listen_fd, vu_fd, uds_listen_fd;
	const char *uds_path;
	int sig_fd;			/* signalfd: SIGTERM, SIGINT; -1: none */
	struct ep_tag vu_listen_tag, vu_tag, uds_tag, sig_tag, kick_tag[VU_NR_VQS];
	int kick_registered[VU_NR_VQS];
	struct vu_reader *vu_rd;	/* the front-end's half-read message */
	struct vu_dev dev;
	struct conn *conns;
	struct conn *rr;		/* round-robin cursor for RX */
	unsigned int nconns;		/* in the list, dead ones included */
	unsigned int nopen[2];		/* with an fd: [0] guest-, [1] host-initiated */
	unsigned int max_open[2];	/* the quotas */
	unsigned int nzombie;		/* dead, an RST still owed to the guest */
	uint32_t line_timeout_ms, request_timeout_ms;
	uint32_t next_host_port;
	struct conn *ctrl_head, **ctrl_tail;	/* connections owing control */
	struct ctrl_pkt rst[REPLY_MAX];	/* RSTs for no connection of ours */
	unsigned int rst_head, rst_len;
	int ctrl_turn;			/* send_ctrl(): the ring's turn or the FIFO's */
	int tx_throttled;		/* TX left in the ring: answers owed */
	int spare_fd;			/* given up to accept-and-close on EMFILE;
					 * 0: none (fd 0 is never ours) */
	int verbose;
	int flow_stats;			/* a line per host -> guest flow at its end */
	int reconnect;			/* serve the next front-end when one goes */
	int stopping;			/* SIGTERM/SIGINT seen */
	int fe_gone, fe_status;		/* the front-end went (status 0/1) */
	uint32_t rx_pkt_max;		/* payload cap per packet to the guest */
	/* counters for the exit summary */
	uint64_t rx_pkts, tx_pkts, rx_bytes, tx_bytes, refused_pkts;
	uint64_t kicks[VU_NR_VQS];	/* kick fd wake-ups per queue */
};

void logmsg(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/*
 * The same for what a guest or a host program can make happen at any
 * rate: at most LOG_BURST lines, then LOG_RATE a second; the number left
 * out is logged with the next line that passes.
 */
void logmsg_rl(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
#define LOG_BURST	50u
#define LOG_RATE	10u
/* @src (at most @n bytes) with control and non-ASCII bytes as \xNN. */
void log_clean(char *dst, size_t dstlen, const char *src, size_t n);
uint64_t now_ms(void);
uint64_t now_ns(void);
/* Where log lines go instead of stderr (tests, fuzzers); NULL: stderr. */
extern void (*log_sink)(const char *line);

/* vsock.c */
void vsock_init(struct backend *b);
void vsock_on_tx_kick(struct backend *b);
void vsock_rx_pump(struct backend *b);
void vsock_on_uds_accept(struct backend *b);
void vsock_on_conn_event(struct backend *b, struct conn *c, uint32_t events);
/*
 * After each event batch: expire timeouts, free dead connections, refresh
 * epoll interest.  Returns the milliseconds until the next timeout (-1:
 * none), for epoll_wait().
 */
int vsock_reap(struct backend *b);
/*
 * The device stopped: close every host socket and forget what the guest
 * was owed.  Connections are only marked dead here and freed by the next
 * vsock_reap(): an event of the same epoll batch may still name one.
 */
void vsock_close_all(struct backend *b);

/*
 * accept4() on listener @lfd, non-blocking; -1 if none.  Out of fds, the
 * client is accepted with the spare fd and closed at once (else the
 * listener stays readable and the loop spins).
 */
int vsock_accept(struct backend *b, int lfd, const char *what);

/*
 * loop.c: main.c's event loop, apart so that a fuzzer can drive it.
 * backend_dispatch() handles one epoll batch, then fills RX and reaps
 * (vsock_reap()'s return value).
 */
int backend_dispatch(struct backend *b, const struct epoll_event *evs, int n);
/* Runs until the front-end goes (or SIGTERM); the exit status. */
int backend_serve(struct backend *b);
/* Take the front-end connection on @fd (accepted); 0, or -1 refused. */
int backend_attach(struct backend *b, int fd);
/* The front-end went: drop it and everything of its device. */
void backend_detach(struct backend *b);

#endif
