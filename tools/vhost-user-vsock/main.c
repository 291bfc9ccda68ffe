// SPDX-License-Identifier: GPL-2.0
/*
 * vhost-user-vsock - a vhost-user back-end for QEMU's vhost-user-vsock
 * device, bridging the guest's vsock to host Unix sockets (see README.md).
 *
 *   vhost-user-vsock --socket VU_PATH --uds UDS_PATH [--guest-cid N] [--reconnect] [-v]
 *   vhost-user-vsock send --uds UDS_PATH --port P --bytes N [--buf-size S]
 *   vhost-user-vsock recv --listen PATH [--expect-bytes N]
 *   vhost-user-vsock pingpong --uds UDS_PATH --port P [--size S]
 *
 * The back-end serves one front-end connection and exits when it closes
 * (with --reconnect: serves the next one, until SIGTERM/SIGINT).  The
 * loop itself is loop.c.
 */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/epoll.h>
#include <sys/signalfd.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>

#include "backend.h"
#include "hostio.h"
#include "vu_io.h"

#define PROG "vhost-user-vsock"

static void usage(FILE *f)
{
	fprintf(f,
"Usage: " PROG " --socket PATH --uds PATH [--guest-cid N] [--rx-pkt-max N]\n"
"       [--reconnect] [--no-event-idx] [--max-host-conns N] [--max-guest-conns N]\n"
"       [--line-timeout MS] [--request-timeout MS] [--flow-stats] [-v]\n"
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
"  --reconnect      when the front-end goes, wait for the next one (QEMU's\n"
"                   reconnect=, a restarted VM) instead of exiting; stop with\n"
"                   SIGTERM or SIGINT\n"
"  --no-event-idx   do not offer VIRTIO_RING_F_EVENT_IDX (the driver then\n"
"                   kicks for every buffer and gets an interrupt per batch)\n"
"  --max-host-conns N, --max-guest-conns N\n"
"                   connections open at once per direction (default %u, %u)\n"
"  --line-timeout MS     a host client's CONNECT line must come within MS\n"
"                   (default %u)\n"
"  --request-timeout MS  the guest must answer a host's REQUEST within MS\n"
"                   (default %u); else the host socket is closed\n"
"  --flow-stats     at the end of each host -> guest flow, log its bytes, its\n"
"                   length (first packet to last packet or credit update),\n"
"                   the time in it the guest's credit was 0, the time it had\n"
"                   credit but no RX buffer, and how many guest packets\n"
"                   returned credit ('flow host P -> guest Q: ...')\n"
"  --verbose        log every vhost-user message\n"
"Both sockets are created mode 0600; the front-end must run as our uid or root.\n"
"Exits 0 when QEMU disconnects (or on SIGTERM/SIGINT), 1 on a runtime error or\n"
"a refused vhost-user message (logged), 2 on bad usage.\n",
	CONN_MAX_HOST, CONN_MAX_GUEST, LINE_TIMEOUT_MS, REQUEST_TIMEOUT_MS);
}

static int listen_unix(const char *path)
{
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	struct stat st;
	mode_t old;
	int fd, err;

	if (strlen(path) >= sizeof(sa.sun_path)) {
		fprintf(stderr, PROG ": socket path '%s' too long\n", path);
		return -1;
	}
	strcpy(sa.sun_path, path);
	/* A stale socket of an earlier run goes; anything else is not ours. */
	if (lstat(path, &st) == 0) {
		if (!S_ISSOCK(st.st_mode)) {
			fprintf(stderr, PROG ": %s exists and is not a socket\n", path);
			return -1;
		}
		unlink(path);
	}
	fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
	/* 0600 from the start: no window in which others may connect. */
	old = umask(0177);
	err = fd < 0 || bind(fd, (struct sockaddr *)&sa, sizeof(sa)) < 0 ||
	      listen(fd, 64) < 0;
	umask(old);
	if (err) {
		fprintf(stderr, PROG ": listen on %s: %s\n", path, strerror(errno));
		if (fd >= 0)
			close(fd);
		return -1;
	}
	return fd;
}

static int ep_add(struct backend *b, int fd, struct ep_tag *t)
{
	struct epoll_event ev = { .events = EPOLLIN, .data.ptr = t };

	return epoll_ctl(b->epfd, EPOLL_CTL_ADD, fd, &ev);
}

int main(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "socket", required_argument, NULL, 's' },
		{ "uds", required_argument, NULL, 'u' },
		{ "guest-cid", required_argument, NULL, 'c' },
		{ "rx-pkt-max", required_argument, NULL, 'm' },
		{ "reconnect", no_argument, NULL, 'R' },
		{ "no-event-idx", no_argument, NULL, 'E' },
		{ "max-host-conns", required_argument, NULL, 'H' },
		{ "max-guest-conns", required_argument, NULL, 'G' },
		{ "line-timeout", required_argument, NULL, 'L' },
		{ "request-timeout", required_argument, NULL, 'Q' },
		{ "flow-stats", no_argument, NULL, 'F' },
		{ "verbose", no_argument, NULL, 'v' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	static struct backend b;
	const char *vu_path = NULL;
	sigset_t sigs;
	int no_event_idx = 0;
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
		case 'R':
			b.reconnect = 1;
			break;
		case 'E':
			no_event_idx = 1;
			break;
		case 'H':
		case 'G':
		case 'L':
		case 'Q': {
			unsigned long v;

			errno = 0;
			v = strtoul(optarg, &end, 10);
			if (errno || *end || optarg[0] < '1' || optarg[0] > '9' ||
			    v > (c == 'H' || c == 'G' ? 65536ul : 3600000ul)) {
				fprintf(stderr, PROG ": invalid --%s '%s' (1..%s)\n",
					c == 'H' ? "max-host-conns" : c == 'G' ? "max-guest-conns" :
					c == 'L' ? "line-timeout" : "request-timeout", optarg,
					c == 'H' || c == 'G' ? "65536" : "3600000 ms");
				return 2;
			}
			if (c == 'H')
				b.max_open[1] = v;
			else if (c == 'G')
				b.max_open[0] = v;
			else if (c == 'L')
				b.line_timeout_ms = v;
			else
				b.request_timeout_ms = v;
			break;
		}
		case 'F':
			b.flow_stats = 1;
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
	/* SIGTERM/SIGINT end the loop, which then removes the socket files. */
	sigemptyset(&sigs);
	sigaddset(&sigs, SIGTERM);
	sigaddset(&sigs, SIGINT);
	sigprocmask(SIG_BLOCK, &sigs, NULL);
	b.sig_fd = signalfd(-1, &sigs, SFD_NONBLOCK | SFD_CLOEXEC);
	vu_dev_init(&b.dev, cid);
	if (no_event_idx)
		b.dev.offered &= ~(1ull << VIRTIO_RING_F_EVENT_IDX);
	vsock_init(&b);
	b.vu_fd = -1;
	b.kick_registered[0] = b.kick_registered[1] = -1;
	b.next_host_port = 1u << 30;
	b.spare_fd = open("/dev/null", O_RDONLY | O_CLOEXEC);
	b.epfd = epoll_create1(EPOLL_CLOEXEC);
	b.vu_listen_fd = listen_unix(vu_path);
	if (b.vu_listen_fd < 0)
		return 1;
	b.uds_listen_fd = listen_unix(b.uds_path);
	if (b.epfd < 0 || b.sig_fd < 0 || b.uds_listen_fd < 0) {
		unlink(vu_path);
		return 1;
	}
	b.vu_listen_tag.kind = T_VU_LISTEN;
	b.uds_tag.kind = T_UDS_LISTEN;
	b.sig_tag.kind = T_SIGNAL;
	if (ep_add(&b, b.vu_listen_fd, &b.vu_listen_tag) ||
	    ep_add(&b, b.uds_listen_fd, &b.uds_tag) ||
	    ep_add(&b, b.sig_fd, &b.sig_tag)) {
		fprintf(stderr, PROG ": epoll: %s\n", strerror(errno));
		rc = 1;
	} else {
		logmsg("listening: vhost-user %s, host endpoint %s, guest CID %llu%s",
		       vu_path, b.uds_path, cid, b.reconnect ? ", reconnect" : "");
		rc = backend_serve(&b);
	}
	unlink(vu_path);
	unlink(b.uds_path);
	return rc;
}
