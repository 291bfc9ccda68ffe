// SPDX-License-Identifier: GPL-2.0
/*
 * vhost-user-vsock - a vhost-user back-end for QEMU's vhost-user-vsock
 * device, bridging the guest's vsock to host Unix sockets (see README.md).
 *
 *   vhost-user-vsock --socket VU_PATH --uds UDS_PATH [--guest-cid N] [-v]
 *   vhost-user-vsock send --uds UDS_PATH --port P --bytes N [--buf-size S]
 *   vhost-user-vsock recv --listen PATH [--expect-bytes N]
 *   vhost-user-vsock pingpong --uds UDS_PATH --port P [--size S]
 *
 * The back-end serves one front-end connection and exits when it closes.
 */
#include <errno.h>
#include <getopt.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/epoll.h>
#include <sys/socket.h>
#include <sys/un.h>

#include "backend.h"
#include "hostio.h"
#include "vu_io.h"

#define PROG "vhost-user-vsock"

static void usage(FILE *f)
{
	fprintf(f,
"Usage: " PROG " --socket PATH --uds PATH [--guest-cid N] [--rx-pkt-max N] [-v]\n"
"       " PROG " send|recv|pingpong ... (host-side test endpoints; '" PROG " send --help')\n"
"A vhost-user back-end for QEMU's vhost-user-vsock-pci device.\n"
"  --socket PATH    vhost-user socket to listen on (QEMU: -chardev socket,path=PATH)\n"
"  --uds PATH       host endpoint: connect here and write 'CONNECT <port>\\n' to\n"
"                   reach guest port <port> ('CONNECT <port> <max>\\n': packets\n"
"                   of at most <max> bytes); guest connections to CID 2 port P\n"
"                   go to the Unix socket PATH_P\n"
"  --guest-cid N    the guest's CID (default 3)\n"
"  --rx-pkt-max N   at most N payload bytes per packet to the guest (1..65536,\n"
"                   default 65536; the guest's 4 KiB buffers cap it too).\n"
"                   A host Unix socket is a byte stream: write boundaries are\n"
"                   lost, so this is how a test asks for small packets, the\n"
"                   way vhost-vsock turns each 64-byte host write into one\n"
"                   packet\n"
"  --verbose        log every vhost-user message\n"
"Exits 0 when QEMU disconnects, 1 on a runtime error or a refused vhost-user\n"
"message (logged), 2 on bad usage.\n");
}

static int listen_unix(const char *path)
{
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	int fd;

	if (strlen(path) >= sizeof(sa.sun_path)) {
		fprintf(stderr, PROG ": socket path '%s' too long\n", path);
		return -1;
	}
	strcpy(sa.sun_path, path);
	unlink(path);
	fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
	if (fd < 0 || bind(fd, (struct sockaddr *)&sa, sizeof(sa)) < 0 ||
	    listen(fd, 64) < 0) {
		fprintf(stderr, PROG ": listen on %s: %s\n", path, strerror(errno));
		if (fd >= 0)
			close(fd);
		return -1;
	}
	return fd;
}

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
	logmsg("front-end gone: %llu packets (%llu payload bytes) to the guest, "
	       "%llu packets (%llu payload bytes) from it, %llu refused",
	       (unsigned long long)b->rx_pkts, (unsigned long long)b->rx_bytes,
	       (unsigned long long)b->tx_pkts, (unsigned long long)b->tx_bytes,
	       (unsigned long long)b->refused_pkts);
}

/* One message from QEMU; -1: it hung up, -2: we refused a message. */
static int on_vu_message(struct backend *b)
{
	uint8_t buf[VU_HDR_SIZE + VU_MAX_PAYLOAD], reply[VU_HDR_SIZE + VU_MAX_PAYLOAD];
	unsigned int nfds, changed = 0;
	int fds[VU_MAX_FDS], r;
	struct vu_msg m;
	size_t rlen;
	char why[256];

	r = vu_read_msg(b->vu_fd, buf, &m, fds, &nfds, why, sizeof(why));
	if (r == 0)
		return -1;
	if (r < 0) {
		logmsg("refused vhost-user message: %s", why);
		return -2;
	}
	if (b->verbose)
		logmsg("vhost-user %s (%u payload bytes, %u fds)",
		       vu_request_name(m.request), m.size, nfds);
	kicks_unregister(b);
	r = vu_dev_handle(&b->dev, &m, fds, reply, &rlen, &changed, why, sizeof(why));
	kicks_register(b);
	if (r) {
		logmsg("refused vhost-user %s: %s", vu_request_name(m.request), why);
		return -2;
	}
	if (rlen && vu_write_all(b->vu_fd, reply, rlen)) {
		logmsg("writing the %s reply: %s", vu_request_name(m.request),
		       strerror(errno));
		return -1;
	}
	if (m.request == VU_GET_VRING_BASE || m.request == VU_RESET_OWNER) {
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

static void on_kick(struct backend *b, unsigned int idx)
{
	uint64_t v;

	if (b->kick_registered[idx] < 0 ||
	    read(b->kick_registered[idx], &v, sizeof(v)) < 0) {
		/* EAGAIN: spurious; nothing to drain. */
	}
	if (idx == VU_VQ_TX)
		vsock_on_tx_kick(b);
	else
		vsock_rx_pump(b);
}

static int serve(struct backend *b)
{
	struct epoll_event evs[64];
	int n, i, r;

	for (;;) {
		n = epoll_wait(b->epfd, evs, 64, -1);
		if (n < 0) {
			if (errno == EINTR)
				continue;
			logmsg("epoll_wait: %s", strerror(errno));
			return 1;
		}
		for (i = 0; i < n; i++) {
			struct ep_tag *t = evs[i].data.ptr;

			switch (t->kind) {
			case T_VU_LISTEN: {
				int fd = accept4(b->vu_listen_fd, NULL, NULL, SOCK_CLOEXEC);

				if (fd < 0)
					break;
				if (b->vu_fd >= 0) {
					logmsg("second front-end connection refused");
					close(fd);
					break;
				}
				b->vu_fd = fd;
				b->vu_tag.kind = T_VU;
				if (ep_add(b, fd, EPOLLIN, &b->vu_tag)) {
					logmsg("epoll: %s", strerror(errno));
					return 1;
				}
				logmsg("front-end connected");
				break;
			}
			case T_VU:
				r = on_vu_message(b);
				if (r) {
					summary(b);
					kicks_unregister(b);
					vsock_close_all(b);
					vu_dev_reset(&b->dev);
					close(b->vu_fd);
					return r == -2 ? 1 : 0;
				}
				break;
			case T_KICK:
				on_kick(b, t->idx);
				break;
			case T_UDS_LISTEN:
				vsock_on_uds_accept(b);
				break;
			case T_CONN:
				vsock_on_conn_event(b, t->p, evs[i].events);
				break;
			}
		}
		/* Host sockets that became readable may now fill RX buffers. */
		vsock_rx_pump(b);
		vsock_reap(b);
	}
}

int main(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "socket", required_argument, NULL, 's' },
		{ "uds", required_argument, NULL, 'u' },
		{ "guest-cid", required_argument, NULL, 'c' },
		{ "rx-pkt-max", required_argument, NULL, 'm' },
		{ "verbose", no_argument, NULL, 'v' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	static struct backend b;
	const char *vu_path = NULL;
	unsigned long long cid = 3;
	char *end;
	int c, rc;

	if (argc > 1 && !strcmp(argv[1], "send"))
		return hostio_send(argc - 1, argv + 1);
	if (argc > 1 && !strcmp(argv[1], "recv"))
		return hostio_recv(argc - 1, argv + 1);
	if (argc > 1 && !strcmp(argv[1], "pingpong"))
		return hostio_pingpong(argc - 1, argv + 1);

	opterr = 0;
	while ((c = getopt_long(argc, argv, "v", opts, NULL)) != -1) {
		switch (c) {
		case 's':
			vu_path = optarg;
			break;
		case 'u':
			b.uds_path = optarg;
			break;
		case 'c':
			errno = 0;
			cid = strtoull(optarg, &end, 10);
			/* 0-2 are reserved, 0xffffffff is VMADDR_CID_ANY. */
			if (errno || *end || optarg[0] < '0' || optarg[0] > '9' ||
			    cid < 3 || cid >= 0xffffffffull) {
				fprintf(stderr, PROG ": invalid --guest-cid '%s' (3..4294967294)\n",
					optarg);
				return 2;
			}
			break;
		case 'm':
			errno = 0;
			b.rx_pkt_max = strtoul(optarg, &end, 10);
			if (errno || *end || optarg[0] < '1' || optarg[0] > '9' ||
			    b.rx_pkt_max > CONN_MAX_PKT) {
				fprintf(stderr, PROG ": invalid --rx-pkt-max '%s' (1..%u)\n",
					optarg, CONN_MAX_PKT);
				return 2;
			}
			break;
		case 'v':
			b.verbose = 1;
			break;
		case 'h':
			usage(stdout);
			return 0;
		default:
			fprintf(stderr, PROG ": unknown option '%s'\n", argv[optind - 1]);
			usage(stderr);
			return 2;
		}
	}
	if (optind < argc || !vu_path || !b.uds_path) {
		fprintf(stderr, PROG ": %s\n", optind < argc ? "unexpected argument" :
			"--socket and --uds are required");
		usage(stderr);
		return 2;
	}
	if (!b.rx_pkt_max)
		b.rx_pkt_max = CONN_MAX_PKT;
	signal(SIGPIPE, SIG_IGN);
	vu_dev_init(&b.dev, cid);
	b.vu_fd = -1;
	b.kick_registered[0] = b.kick_registered[1] = -1;
	b.next_host_port = 1u << 30;
	b.epfd = epoll_create1(EPOLL_CLOEXEC);
	b.vu_listen_fd = listen_unix(vu_path);
	b.uds_listen_fd = listen_unix(b.uds_path);
	if (b.epfd < 0 || b.vu_listen_fd < 0 || b.uds_listen_fd < 0)
		return 1;
	b.vu_listen_tag.kind = T_VU_LISTEN;
	b.uds_tag.kind = T_UDS_LISTEN;
	if (ep_add(&b, b.vu_listen_fd, EPOLLIN, &b.vu_listen_tag) ||
	    ep_add(&b, b.uds_listen_fd, EPOLLIN, &b.uds_tag)) {
		fprintf(stderr, PROG ": epoll: %s\n", strerror(errno));
		return 1;
	}
	logmsg("listening: vhost-user %s, host endpoint %s, guest CID %llu",
	       vu_path, b.uds_path, cid);
	rc = serve(&b);
	unlink(vu_path);
	unlink(b.uds_path);
	return rc;
}
