// SPDX-License-Identifier: GPL-2.0
/*
 * Functional test of build/vhost-user-vsock without QEMU: this program
 * plays both the vhost-user front-end (it sends the messages QEMU 7.2
 * sends, with a memfd as guest memory) and the guest's virtio-vsock
 * driver (it fills the RX ring, reads what the device puts there, and
 * writes packets into the TX ring).  The host side uses the back-end's
 * Unix-socket endpoints.  Checked: the vhost-user handshake and the
 * guest CID in GET_CONFIG; host->guest connect with "CONNECT/OK", data in
 * order and never beyond the credit the guest gave, CREDIT_UPDATE
 * resuming it, host close -> SHUTDOWN; guest->host connect to UDS_P,
 * data through, credit updates from the device, SHUTDOWN -> EOF and RST,
 * a guest close() with data the host has not read yet (still delivered);
 * a connect to a port nobody listens on -> RST; a packet with a foreign
 * CID is dropped; a looping TX chain stops that queue but not the device;
 * a host answering a guest connection (the back-end must not block reading
 * it), a host listener with a full backlog (RST, no stall), RX buffers
 * with room for a header only (handed back, no false EOF).  And the
 * regressions of issue #14: a device stop in the middle of an epoll batch
 * (use-after-free under ASan), control packets owed beyond any queue
 * (nothing dropped), clients that close while connecting, idle clients
 * and unanswered REQUESTs (timeouts), per-direction quotas, a region
 * longer than its memfd (SIGBUS), the hardening list, --reconnect.
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/eventfd.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <time.h>
#include <cmocka.h>

#include "stress_verify.h"
#include "../../tools/vhost-user-vsock/vsock_pkt.h"
#include "../../tools/vhost-user-vsock/vu_msg.h"
#include "../../tools/vhost-user-vsock/vu_vq.h"

#define MEM_SIZE	(4u << 20)
#define QSZ		64u
#define RXBUF		4096u
#define GUEST_CID	7u
/* Guest physical layout (gpa == offset in the memfd). */
#define RING_OFF(q)	(0x1000u + (q) * 0x2000u)	/* desc, +0x400 avail, +0x800 used */
#define RXBUF_OFF	0x10000u			/* 64 x 4 KiB */
#define TXBUF_OFF	0x80000u			/* 64 x 64 KiB + hdr */
#define TXBUF_SIZE	0x11000u

struct fx {
	pid_t pid;
	int lenient;		/* send_msg: the back-end may have gone */
	int vu, memfd, kick[2], call[2];
	uint8_t *mem;
	char dir[64], vu_path[96], uds[96];
	uint16_t rx_last_used, tx_last_used, tx_avail, tx_next_desc;
};

static struct fx F;

static void send_msg(uint32_t req, const void *p, uint32_t size, const int *fds,
		     int nfds)
{
	uint8_t buf[VU_HDR_SIZE + VU_MAX_PAYLOAD];
	union { char b[CMSG_SPACE(8 * sizeof(int))]; struct cmsghdr a; } ctl;
	struct iovec iov = { buf, VU_HDR_SIZE + size };
	struct msghdr mh = { .msg_iov = &iov, .msg_iovlen = 1 };

	vu_put32(buf, req);
	vu_put32(buf + 4, VU_VERSION);
	vu_put32(buf + 8, size);
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
	if (sendmsg(F.vu, &mh, MSG_NOSIGNAL) != (ssize_t)iov.iov_len && !F.lenient)
		fail_msg("sendmsg %s: %s", vu_request_name(req), strerror(errno));
}

static void recv_reply(uint32_t req, uint8_t *payload, uint32_t size)
{
	uint8_t hdr[VU_HDR_SIZE];

	assert_int_equal(recv(F.vu, hdr, sizeof(hdr), MSG_WAITALL), VU_HDR_SIZE);
	assert_int_equal(vu_le32(hdr), req);
	assert_int_equal(vu_le32(hdr + 4), VU_VERSION | VU_FLAG_REPLY);
	assert_int_equal(vu_le32(hdr + 8), size);
	assert_int_equal(recv(F.vu, payload, size, MSG_WAITALL), (ssize_t)size);
}

static void send_u64(uint32_t req, uint64_t v)
{
	uint8_t p[8];

	vu_put64(p, v);
	send_msg(req, p, 8, NULL, 0);
}

static void send_state(uint32_t req, uint32_t idx, uint32_t num)
{
	uint8_t p[8];

	vu_put32(p, idx);
	vu_put32(p + 4, num);
	send_msg(req, p, 8, NULL, 0);
}

static int connect_unix(const char *path)
{
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	int fd, i;

	strcpy(sa.sun_path, path);
	for (i = 0; i < 200; i++) {
		fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
		if (connect(fd, (struct sockaddr *)&sa, sizeof(sa)) == 0)
			return fd;
		close(fd);
		usleep(10000);
	}
	return -1;
}

static int listen_unix(const char *path)
{
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);

	strcpy(sa.sun_path, path);
	unlink(path);
	assert_int_equal(bind(fd, (struct sockaddr *)&sa, sizeof(sa)), 0);
	assert_int_equal(listen(fd, 4), 0);
	return fd;
}

/* ---- the guest driver ---- */

static uint8_t *gpa(uint64_t a)
{
	return F.mem + a;
}

static void put_desc(unsigned int q, unsigned int i, uint64_t addr, uint32_t len,
		     uint16_t flags, uint16_t next)
{
	uint8_t *d = gpa(RING_OFF(q) + 16 * i);

	vu_put64(d, addr);
	vu_put32(d + 8, len);
	vu_put16(d + 12, flags);
	vu_put16(d + 14, next);
}

static void avail_add(unsigned int q, uint16_t head)
{
	uint8_t *av = gpa(RING_OFF(q) + 0x400);
	uint16_t idx = vu_le16(av + 2);

	vu_put16(av + 4 + 2 * (idx % QSZ), head);
	__atomic_store_n((uint16_t *)(av + 2), (uint16_t)(idx + 1), __ATOMIC_RELEASE);
}

static void kick(unsigned int q)
{
	uint64_t one = 1;

	assert_int_equal(write(F.kick[q], &one, 8), 8);
}

static uint16_t used_idx(unsigned int q)
{
	return __atomic_load_n((uint16_t *)gpa(RING_OFF(q) + 0x800 + 2), __ATOMIC_ACQUIRE);
}

/* Next RX packet the device wrote, within @ms; 0 if none. */
static int rx_next(struct vsock_hdr *h, uint8_t *payload, int ms)
{
	uint8_t *used = gpa(RING_OFF(0) + 0x800);
	uint32_t id, len;

	while (used_idx(0) == F.rx_last_used) {
		struct pollfd p = { .fd = F.call[0], .events = POLLIN };
		uint64_t v;

		if (poll(&p, 1, ms) <= 0)
			return 0;
		if (read(F.call[0], &v, 8) < 0) {
			/* drained elsewhere */
		}
	}
	id = vu_le32(used + 4 + 8 * (F.rx_last_used % QSZ));
	len = vu_le32(used + 8 + 8 * (F.rx_last_used % QSZ));
	F.rx_last_used++;
	assert_true(id < QSZ);
	assert_true(len >= VSOCK_HDR_SIZE && len <= RXBUF);
	vsock_hdr_decode(gpa(RXBUF_OFF + id * RXBUF), h);
	assert_int_equal(h->len, len - VSOCK_HDR_SIZE);
	if (payload)
		memcpy(payload, gpa(RXBUF_OFF + id * RXBUF + VSOCK_HDR_SIZE), h->len);
	/* Give the buffer straight back, as the driver's refill does. */
	avail_add(0, id);
	kick(0);
	return 1;
}

/* Queue one packet on TX (header + optional payload descriptor) and kick. */
static void tx_send(const struct vsock_hdr *h, const void *payload)
{
	unsigned int d = F.tx_next_desc;
	uint64_t buf = TXBUF_OFF + (uint64_t)(d / 2) * TXBUF_SIZE;

	F.tx_next_desc = (F.tx_next_desc + 2) % QSZ;
	vsock_hdr_encode(h, gpa(buf));
	if (h->len) {
		memcpy(gpa(buf + 0x100), payload, h->len);
		put_desc(1, d, buf, VSOCK_HDR_SIZE, VRING_DESC_F_NEXT, d + 1);
		put_desc(1, d + 1, buf + 0x100, h->len, 0, 0);
	} else {
		put_desc(1, d, buf, VSOCK_HDR_SIZE, 0, 0);
	}
	avail_add(1, d);
	kick(1);
}

/* Wait until the device consumed everything on TX. */
static void tx_wait(void)
{
	int i;

	for (i = 0; i < 500 && used_idx(1) != vu_le16(gpa(RING_OFF(1) + 0x400 + 2)); i++)
		usleep(2000);
	assert_int_equal(used_idx(1), vu_le16(gpa(RING_OFF(1) + 0x400 + 2)));
}

static struct vsock_hdr ghdr(uint32_t src_port, uint32_t dst_port, uint16_t op,
			     uint32_t len, uint32_t buf_alloc, uint32_t fwd_cnt)
{
	struct vsock_hdr h = {
		.src_cid = GUEST_CID, .dst_cid = VSOCK_HOST_CID,
		.src_port = src_port, .dst_port = dst_port, .len = len,
		.type = VSOCK_TYPE_STREAM, .op = op,
		.buf_alloc = buf_alloc, .fwd_cnt = fwd_cnt,
	};
	return h;
}

static const char *extra_arg;
/* More options for the back-end (NULL-terminated), and where its log goes. */
static const char *extra_args[12];
static int log_to_file;

/*
 * The guest's side of a host-initiated connection: the next RX packet is
 * the REQUEST for @guest_port, answered with RESPONSE advertising
 * @buf_alloc.  Returns the host port the back-end chose.
 */
static uint32_t accept_host_request(uint32_t guest_port, uint32_t buf_alloc, int ms)
{
	struct vsock_hdr h, r;

	assert_int_equal(rx_next(&h, NULL, ms), 1);
	assert_int_equal(h.op, VSOCK_OP_REQUEST);
	assert_int_equal(h.src_cid, VSOCK_HOST_CID);
	assert_int_equal(h.dst_cid, GUEST_CID);
	assert_int_equal(h.dst_port, guest_port);
	r = ghdr(guest_port, h.src_port, VSOCK_OP_RESPONSE, 0, buf_alloc, 0);
	tx_send(&r, NULL);
	return h.src_port;
}

/*
 * A guest-initiated connection from @guest_port to host port @host_port,
 * whose host end listens on UDS_PATH_<host_port>: REQUEST, the device's
 * RESPONSE (returned in *@resp), and the host's accepted socket (returned;
 * the listener is closed).
 */
static int guest_connect(uint32_t guest_port, uint32_t host_port, uint32_t buf_alloc,
			 struct vsock_hdr *resp)
{
	struct vsock_hdr r;
	char path[128];
	int lfd, fd;

	snprintf(path, sizeof(path), "%s_%u", F.uds, host_port);
	lfd = listen_unix(path);
	r = ghdr(guest_port, host_port, VSOCK_OP_REQUEST, 0, buf_alloc, 0);
	tx_send(&r, NULL);
	assert_int_equal(rx_next(resp, NULL, 2000), 1);
	assert_int_equal(resp->op, VSOCK_OP_RESPONSE);
	assert_int_equal(resp->src_port, host_port);
	assert_int_equal(resp->dst_port, guest_port);
	fd = accept(lfd, NULL, NULL);
	assert_true(fd >= 0);
	close(lfd);
	unlink(path);
	return fd;
}

/* The back-end binary under test (its tools are subcommands of it). */
static const char *backend_bin(void)
{
	const char *bin = getenv("VB_VHOST_USER_VSOCK");

	return bin ? bin : "build/vhost-user-vsock";
}

static void spawn_backend(const char *bin);
static void handshake(size_t fd_size, size_t announced);
static int no_rx_bufs;		/* handshake(): the test posts its own RX buffers */

static int setup(void **state)
{
	const char *bin = backend_bin();

	(void)state;
	memset(&F, 0, sizeof(F));
	strcpy(F.dir, "/tmp/vb-vutest.XXXXXX");
	assert_non_null(mkdtemp(F.dir));
	snprintf(F.vu_path, sizeof(F.vu_path), "%s/vu.sock", F.dir);
	snprintf(F.uds, sizeof(F.uds), "%s/uds", F.dir);
	spawn_backend(bin);
	handshake(MEM_SIZE, MEM_SIZE);
	return 0;
}

static void spawn_backend(const char *bin)
{
	F.pid = fork();
	if (F.pid == 0) {
		char cid[16], logp[128];
		const char *argv[24];
		unsigned int n = 0, i;

		snprintf(cid, sizeof(cid), "%u", GUEST_CID);
		argv[n++] = bin;
		argv[n++] = "--socket";
		argv[n++] = F.vu_path;
		argv[n++] = "--uds";
		argv[n++] = F.uds;
		argv[n++] = "--guest-cid";
		argv[n++] = cid;
		if (extra_arg) {
			argv[n++] = "--rx-pkt-max";
			argv[n++] = extra_arg;
		}
		for (i = 0; extra_args[i]; i++)
			argv[n++] = extra_args[i];
		argv[n] = NULL;
		if (log_to_file) {
			int fd;

			snprintf(logp, sizeof(logp), "%s/backend.log", F.dir);
			fd = open(logp, O_WRONLY | O_CREAT | O_TRUNC, 0600);
			dup2(fd, 2);
		}
		execv(bin, (char **)argv);
		_exit(127);
	}
	/* One test's options only, even if its setup fails below. */
	extra_args[0] = NULL;
	log_to_file = 0;
	F.vu = connect_unix(F.vu_path);
	assert_true(F.vu >= 0);
}

/*
 * The handshake QEMU 7.2 does for vhost-user-vsock, with guest memory a
 * memfd of @fd_size bytes announced as @announced bytes (the same but
 * in the SIGBUS test), then the driver's RX buffers.
 */
static void handshake(size_t fd_size, size_t announced)
{
	uint8_t p[VU_MAX_PAYLOAD];
	unsigned int q, i;

	/* The handshake QEMU 7.2 does for vhost-user-vsock. */
	send_msg(VU_GET_FEATURES, NULL, 0, NULL, 0);
	recv_reply(VU_GET_FEATURES, p, 8);
	assert_true(vu_le64(p) & (1ull << VIRTIO_F_VERSION_1));
	assert_true(vu_le64(p) & (1ull << VU_F_PROTOCOL_FEATURES));
	send_msg(VU_GET_PROTOCOL_FEATURES, NULL, 0, NULL, 0);
	recv_reply(VU_GET_PROTOCOL_FEATURES, p, 8);
	assert_true(vu_le64(p) & (1ull << VU_PROTOCOL_F_CONFIG));
	send_u64(VU_SET_PROTOCOL_FEATURES, 1ull << VU_PROTOCOL_F_CONFIG);
	send_msg(VU_SET_OWNER, NULL, 0, NULL, 0);
	memset(p, 0, 20);
	vu_put32(p + 4, 8);
	send_msg(VU_GET_CONFIG, p, 20, NULL, 0);
	recv_reply(VU_GET_CONFIG, p, 20);
	assert_int_equal(vu_le64(p + 12), GUEST_CID);

	send_u64(VU_SET_FEATURES, (1ull << VIRTIO_F_VERSION_1) | (1ull << VU_F_PROTOCOL_FEATURES));
	F.memfd = memfd_create("guest", MFD_CLOEXEC);
	assert_int_equal(ftruncate(F.memfd, fd_size), 0);
	/* Our own view is all MEM_SIZE: the pages past fd_size are never touched. */
	F.mem = mmap(NULL, MEM_SIZE, PROT_READ | PROT_WRITE, MAP_SHARED, F.memfd, 0);
	assert_true(F.mem != MAP_FAILED);
	memset(p, 0, 8 + 32);
	vu_put32(p, 1);
	vu_put64(p + 8, 0);
	vu_put64(p + 16, announced);
	vu_put64(p + 24, (uintptr_t)F.mem);
	vu_put64(p + 32, 0);
	send_msg(VU_SET_MEM_TABLE, p, 8 + 32, &F.memfd, 1);
	for (q = 0; q < 2; q++) {
		F.kick[q] = eventfd(0, EFD_CLOEXEC);
		F.call[q] = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
		send_state(VU_SET_VRING_NUM, q, QSZ);
		send_state(VU_SET_VRING_BASE, q, 0);
		memset(p, 0, 40);
		vu_put32(p, q);
		vu_put64(p + 8, (uintptr_t)gpa(RING_OFF(q)));
		vu_put64(p + 16, (uintptr_t)gpa(RING_OFF(q) + 0x800));
		vu_put64(p + 24, (uintptr_t)gpa(RING_OFF(q) + 0x400));
		send_msg(VU_SET_VRING_ADDR, p, 40, NULL, 0);
		vu_put64(p, q);
		send_msg(VU_SET_VRING_KICK, p, 8, &F.kick[q], 1);
		send_msg(VU_SET_VRING_CALL, p, 8, &F.call[q], 1);
		send_state(VU_SET_VRING_ENABLE, q, 1);
	}
	/* The driver fills RX with 4 KiB buffers. */
	if (fd_size < RXBUF_OFF + QSZ * RXBUF || no_rx_bufs)
		return;		/* past the end of the memfd, or the test's own */
	for (i = 0; i < QSZ; i++) {
		put_desc(0, i, RXBUF_OFF + i * RXBUF, RXBUF, VRING_DESC_F_WRITE, 0);
		avail_add(0, i);
	}
	kick(0);
}

static int setup_pkt64(void **state)
{
	int r;

	extra_arg = "64";
	r = setup(state);
	extra_arg = NULL;
	return r;
}

static int teardown(void **state)
{
	int status = 0;

	(void)state;
	close(F.vu);
	/*
	 * The back-end exits 0 when its front-end goes away.  One stuck in a
	 * blocking call never sees that: give it 5 s, then kill it (a fail).
	 */
	if (F.pid > 0) {
		int i;

		for (i = 0; i < 500 && waitpid(F.pid, &status, WNOHANG) == 0; i++)
			usleep(10000);
		if (i == 500) {
			kill(F.pid, SIGKILL);
			waitpid(F.pid, &status, 0);
		}
	}
	munmap(F.mem, MEM_SIZE);
	close(F.memfd);
	close(F.kick[0]);
	close(F.kick[1]);
	close(F.call[0]);
	close(F.call[1]);
	unlink(F.vu_path);
	unlink(F.uds);
	{
		char logp[128];

		snprintf(logp, sizeof(logp), "%s/backend.log", F.dir);
		unlink(logp);
	}
	rmdir(F.dir);
	return WIFEXITED(status) && WEXITSTATUS(status) == 0 ? 0 : -1;
}

static uint8_t pat(uint64_t off)
{
	return (uint8_t)(off * 2654435761u >> 13);
}

static int backend_log_has(const char *needle);
static int backend_log_count(const char *needle);

/* Guest packets of the last host_to_guest_stream() that moved fwd_cnt. */
static int h2g_fwd_advances;

/*
 * A 300000-byte host -> guest stream through a 20000-byte guest window,
 * checked byte for byte; returns how often the guest had to return
 * credit before more came, and the host port in *port.
 */
static int host_to_guest_stream(uint32_t *port)
{
	static uint8_t data[300000], got[RXBUF];
	const uint32_t guest_buf = 20000;	/* small: forces credit stalls */
	uint32_t received = 0, fwd_reported = 0, host_port;
	struct vsock_hdr h, r;
	char line[32] = "";
	size_t i, sent = 0;
	int fd, n, stalls = 0, fin = 0;

	for (i = 0; i < sizeof(data); i++)
		data[i] = pat(i);
	fd = connect_unix(F.uds);
	assert_true(fd >= 0);
	assert_int_equal(write(fd, "CONNECT 1234\n", 13), 13);
	host_port = accept_host_request(1234, guest_buf, 2000);
	for (i = 0; i < sizeof(line) - 1; i++) {
		assert_int_equal(read(fd, line + i, 1), 1);
		if (line[i] == '\n')
			break;
	}
	line[i] = 0;
	assert_true(strncmp(line, "OK ", 3) == 0);
	assert_int_equal(strtoul(line + 3, NULL, 10), host_port);

	fcntl(fd, F_SETFL, O_NONBLOCK);
	while (!fin) {
		if (sent < sizeof(data)) {
			n = write(fd, data + sent, sizeof(data) - sent);
			if (n > 0)
				sent += n;
			if (sent == sizeof(data))
				close(fd);	/* EOF -> SHUTDOWN to the guest */
		}
		if (!rx_next(&h, got, 20)) {
			/* Nothing more: out of credit?  Then say we consumed it. */
			if (received - fwd_reported >= guest_buf) {
				stalls++;
				fwd_reported = received;
				r = ghdr(1234, host_port, VSOCK_OP_CREDIT_UPDATE, 0,
					 guest_buf, fwd_reported);
				tx_send(&r, NULL);
			} else {
				assert_true(sent < sizeof(data) || received < sent);
			}
			continue;
		}
		assert_int_equal(h.src_port, host_port);
		assert_int_equal(h.dst_port, 1234);
		if (h.op == VSOCK_OP_SHUTDOWN) {
			assert_int_equal(h.flags, VSOCK_SHUTDOWN_SEND);
			fin = 1;
			break;
		}
		assert_int_equal(h.op, VSOCK_OP_RW);
		assert_true(h.len > 0);
		/* In order, and never beyond the credit we gave. */
		assert_memory_equal(got, data + received, h.len);
		received += h.len;
		assert_true(received - fwd_reported <= guest_buf);
	}
	assert_int_equal(received, sizeof(data));
	h2g_fwd_advances = stalls + (received != fwd_reported);
	/* The guest closes: SHUTDOWN both ways is answered by RST. */
	r = ghdr(1234, host_port, VSOCK_OP_SHUTDOWN, 0, guest_buf, received);
	r.flags = VSOCK_SHUTDOWN_RCV | VSOCK_SHUTDOWN_SEND;
	tx_send(&r, NULL);
	assert_int_equal(rx_next(&h, NULL, 2000), 1);
	assert_int_equal(h.op, VSOCK_OP_RST);
	assert_int_equal(h.dst_port, 1234);
	*port = host_port;
	return stalls;
}

static void test_host_to_guest(void **state)
{
	uint32_t port;

	(void)state;
	assert_true(host_to_guest_stream(&port) > 5);
}

/*
 * --flow-stats: the flow's line at its end counts its bytes, one
 * no-credit span per credit update the stream had to wait for, and
 * every guest packet that moved fwd_cnt.
 */
static void test_flow_stats(void **state)
{
	char want[128];
	uint32_t port;
	int stalls;

	(void)state;
	stalls = host_to_guest_stream(&port);
	snprintf(want, sizeof(want), "flow host %u -> guest 1234: 300000 bytes in ",
		 port);
	assert_int_equal(backend_log_count(want), 1);
	snprintf(want, sizeof(want), " in %d spans, without RX buffers ", stalls);
	assert_true(backend_log_has(want));
	snprintf(want, sizeof(want), "%%), fwd_cnt advanced by %d packets\n",
		 h2g_fwd_advances);
	assert_true(backend_log_has(want));
	assert_false(backend_log_has("(100.") || backend_log_has("(-"));
}

static void test_guest_to_host(void **state)
{
	static uint8_t chunk[65536], back[65536];
	uint32_t sent = 0, peer_alloc = 0, peer_fwd = 0, total = 1u << 20;
	uint64_t got = 0;
	struct vsock_hdr h, r;
	int fd, n, updates = 0;

	(void)state;
	fd = guest_connect(7777, 5000, 65536, &h);
	peer_alloc = h.buf_alloc;
	peer_fwd = h.fwd_cnt;
	assert_true(peer_alloc > 0);
	fcntl(fd, F_SETFL, O_NONBLOCK);

	/* Write 1 MiB without reading it on the host at first: credit must stall us. */
	while (sent < total) {
		uint32_t credit = peer_alloc - (sent - peer_fwd), len, i;

		len = total - sent < 65536 ? total - sent : 65536;
		if (len > credit)
			len = credit;
		if (len) {
			for (i = 0; i < len; i++)
				chunk[i] = pat(sent + i) ^ 0x5a;
			r = ghdr(7777, 5000, VSOCK_OP_RW, len, 65536, 0);
			tx_send(&r, chunk);
			tx_wait();
			sent += len;
			continue;
		}
		/* Out of credit: the host drains, the device must update us. */
		while ((n = read(fd, back, sizeof(back))) > 0) {
			for (int k = 0; k < n; k++)
				assert_int_equal(back[k], pat(got + k) ^ 0x5a);
			got += n;
		}
		while (rx_next(&h, NULL, 50)) {
			assert_int_equal(h.op, VSOCK_OP_CREDIT_UPDATE);
			peer_alloc = h.buf_alloc;
			peer_fwd = h.fwd_cnt;
			updates++;
		}
	}
	r = ghdr(7777, 5000, VSOCK_OP_SHUTDOWN, 0, 65536, 0);
	r.flags = VSOCK_SHUTDOWN_SEND;
	tx_send(&r, NULL);
	fcntl(fd, F_SETFL, 0);
	while ((n = read(fd, back, sizeof(back))) > 0) {
		for (int k = 0; k < n; k++)
			assert_int_equal(back[k], pat(got + k) ^ 0x5a);
		got += n;
	}
	assert_int_equal(n, 0);		/* EOF after exactly what was sent */
	assert_int_equal(got, total);
	assert_true(updates > 0);
	/* The host closes too: the connection ends with RST to the guest. */
	close(fd);
	do {
		assert_int_equal(rx_next(&h, NULL, 2000), 1);
	} while (h.op == VSOCK_OP_CREDIT_UPDATE);
	if (h.op == VSOCK_OP_SHUTDOWN)
		assert_int_equal(rx_next(&h, NULL, 2000), 1);
	assert_int_equal(h.op, VSOCK_OP_RST);
}

static void test_refusals(void **state)
{
	struct vsock_hdr h, r;
	uint8_t p[20] = { 0 };
	unsigned int d;

	(void)state;
	/* Nobody listens on port 6000: RST. */
	r = ghdr(8888, 6000, VSOCK_OP_REQUEST, 0, 65536, 0);
	tx_send(&r, NULL);
	assert_int_equal(rx_next(&h, NULL, 2000), 1);
	assert_int_equal(h.op, VSOCK_OP_RST);
	assert_int_equal(h.dst_port, 8888);
	/* A foreign source CID is dropped without an answer. */
	r = ghdr(8888, 6000, VSOCK_OP_REQUEST, 0, 65536, 0);
	r.src_cid = 99;
	tx_send(&r, NULL);
	tx_wait();
	assert_int_equal(rx_next(&h, NULL, 200), 0);
	/* A chain shorter than a header, and a length beyond the buffer: dropped. */
	d = F.tx_next_desc;
	F.tx_next_desc = (F.tx_next_desc + 2) % QSZ;
	put_desc(1, d, TXBUF_OFF, 20, 0, 0);
	avail_add(1, d);
	kick(1);
	r = ghdr(8888, 6000, VSOCK_OP_RW, 100, 65536, 0);
	d = F.tx_next_desc;
	F.tx_next_desc = (F.tx_next_desc + 2) % QSZ;
	vsock_hdr_encode(&r, gpa(TXBUF_OFF));
	put_desc(1, d, TXBUF_OFF, VSOCK_HDR_SIZE + 10, 0, 0);	/* 10 of 100 */
	avail_add(1, d);
	kick(1);
	tx_wait();
	assert_int_equal(rx_next(&h, NULL, 200), 0);
	/* Not a stream, an unknown op, data for no connection: RST each. */
	r = ghdr(8889, 6000, VSOCK_OP_REQUEST, 0, 65536, 0);
	r.type = 2;
	tx_send(&r, NULL);
	r = ghdr(8890, 6000, 99, 0, 65536, 0);
	tx_send(&r, NULL);
	r = ghdr(8891, 6000, VSOCK_OP_RW, 4, 65536, 0);
	tx_send(&r, "data");
	for (d = 8889; d <= 8891; d++) {
		assert_int_equal(rx_next(&h, NULL, 2000), 1);
		assert_int_equal(h.op, VSOCK_OP_RST);
		assert_int_equal(h.dst_port, d);
	}
	/* A TX chain that loops: the TX queue stops, the device lives on. */
	d = F.tx_next_desc;
	put_desc(1, d, TXBUF_OFF, VSOCK_HDR_SIZE, VRING_DESC_F_NEXT, d + 1);
	put_desc(1, d + 1, TXBUF_OFF, 16, VRING_DESC_F_NEXT, d);
	avail_add(1, d);
	kick(1);
	usleep(100000);
	vu_put32(p + 4, 8);
	send_msg(VU_GET_CONFIG, p, 20, NULL, 0);
	recv_reply(VU_GET_CONFIG, p, 20);
	assert_int_equal(vu_le64(p + 12), GUEST_CID);
	assert_int_equal(kill(F.pid, 0), 0);
}

/*
 * Four host->guest connections at once, interleaved by the device; one
 * host closes after half its data (the guest must see its bytes then
 * SHUTDOWN), one is reset by the guest mid-stream (the host socket must
 * end, later data for it gets RST).  Each stream checked per connection.
 */
static void test_concurrent(void **state)
{
	enum { NC = 4 };
	static uint8_t got[RXBUF];
	int fd[NC], i, live = NC;
	uint32_t port[NC], rcvd[NC] = { 0 }, fwd[NC] = { 0 }, want[NC], sentb[NC] = { 0 };
	int done[NC] = { 0 }, closed[NC] = { 0 }, pkts = 0, switches = 0, last = -1;
	struct vsock_hdr h, r;
	const uint32_t gbuf = 32768;

	(void)state;
	for (i = 0; i < NC; i++) {
		char line[32];
		int k;

		want[i] = i == 1 ? 50000 : 200000;
		fd[i] = connect_unix(F.uds);
		snprintf(line, sizeof(line), "CONNECT %d\n", 2000 + i);
		assert_int_equal(write(fd[i], line, strlen(line)), (ssize_t)strlen(line));
		assert_int_equal(rx_next(&h, NULL, 2000), 1);
		assert_int_equal(h.op, VSOCK_OP_REQUEST);
		assert_int_equal(h.dst_port, 2000 + i);
		port[i] = h.src_port;
		r = ghdr(2000 + i, port[i], VSOCK_OP_RESPONSE, 0, gbuf, 0);
		tx_send(&r, NULL);
		for (k = 0; k < 31; k++) {
			assert_int_equal(read(fd[i], line + k, 1), 1);
			if (line[k] == '\n')
				break;
		}
		fcntl(fd[i], F_SETFL, O_NONBLOCK);
	}
	while (live) {
		static uint8_t data[65536];

		for (i = 0; i < NC; i++) {
			uint32_t n = want[i] - sentb[i] < sizeof(data) ? want[i] - sentb[i] : sizeof(data);
			ssize_t w;
			uint32_t k;

			if (closed[i] || !n)
				continue;
			for (k = 0; k < n; k++)
				data[k] = pat(sentb[i] + k) ^ (uint8_t)i;
			w = write(fd[i], data, n);
			if (w > 0)
				sentb[i] += w;
			/* Hosts close when done; 3 stays open to see the reset. */
			if (sentb[i] == want[i] && i != 3) {
				close(fd[i]);
				closed[i] = 1;
			}
		}
		if (!rx_next(&h, got, 20)) {
			for (i = 0; i < NC; i++) {
				if (done[i] || rcvd[i] - fwd[i] < gbuf / 2)
					continue;
				fwd[i] = rcvd[i];
				r = ghdr(2000 + i, port[i], VSOCK_OP_CREDIT_UPDATE, 0, gbuf, fwd[i]);
				tx_send(&r, NULL);
			}
			continue;
		}
		pkts++;
		for (i = 0; i < NC && port[i] != h.src_port; i++)
			;
		assert_true(i < NC);
		if (done[i]) {
			/*
			 * After the end: RST answering our close or the late
			 * data, or data the device had already put in the
			 * ring when connection 3 was reset.
			 */
			assert_true(h.op == VSOCK_OP_RST || (i == 3 && h.op == VSOCK_OP_RW));
			continue;
		}
		if (last != i)
			switches++;
		last = i;
		if (h.op == VSOCK_OP_SHUTDOWN) {
			assert_int_equal(rcvd[i], want[i]);
			done[i] = 1;
			live--;
			r = ghdr(2000 + i, port[i], VSOCK_OP_SHUTDOWN, 0, gbuf, rcvd[i]);
			r.flags = 3;
			tx_send(&r, NULL);
			continue;
		}
		assert_int_equal(h.op, VSOCK_OP_RW);
		for (uint32_t k = 0; k < h.len; k++)
			assert_int_equal(got[k], pat(rcvd[i] + k) ^ (uint8_t)i);
		rcvd[i] += h.len;
		assert_true(rcvd[i] - fwd[i] <= gbuf);
		if (i == 3 && rcvd[3] >= 60000 && !done[3]) {
			/* The guest resets connection 3 mid-stream. */
			r = ghdr(2003, port[3], VSOCK_OP_RST, 0, 0, 0);
			tx_send(&r, NULL);
			tx_wait();
			done[3] = 1;
			live--;
			/* Data for the dead connection is answered with RST. */
			r = ghdr(2003, port[3], VSOCK_OP_RW, 4, gbuf, 0);
			tx_send(&r, "late");
		}
	}
	assert_true(switches > NC);	/* interleaved, not one after another */
	/* The host end of the reset connection sees its socket end. */
	fcntl(fd[3], F_SETFL, 0);
	{
		char c;
		ssize_t n;

		do {
			n = read(fd[3], &c, 1);
		} while (n > 0);
		assert_true(n == 0 || errno == ECONNRESET);
	}
	close(fd[3]);
	/* Remaining control packets: RSTs for the closes and the late data. */
	while (rx_next(&h, NULL, 300))
		assert_int_equal(h.op, VSOCK_OP_RST);
}

/*
 * The guest sends 256 KiB (all its credit) and close()s at once while the host has read
 * nothing: the guest gets its RST right away, and the host still reads
 * every byte, then EOF.
 */
static void test_guest_close_drains(void **state)
{
	static uint8_t chunk[65536], back[65536];
	uint32_t sent = 0, total = 262144, len, i;	/* all the credit */
	struct vsock_hdr h, r;
	uint64_t got = 0;
	int fd, n;

	(void)state;
	fd = guest_connect(7000, 5001, 65536, &h);
	while (sent < total) {
		len = total - sent < 65536 ? total - sent : 65536;
		for (i = 0; i < len; i++)
			chunk[i] = pat(sent + i) ^ 0x33;
		r = ghdr(7000, 5001, VSOCK_OP_RW, len, 65536, 0);
		tx_send(&r, chunk);
		tx_wait();
		sent += len;
	}
	r = ghdr(7000, 5001, VSOCK_OP_SHUTDOWN, 0, 65536, 0);
	r.flags = VSOCK_SHUTDOWN_RCV | VSOCK_SHUTDOWN_SEND;
	tx_send(&r, NULL);
	do {
		assert_int_equal(rx_next(&h, NULL, 2000), 1);
	} while (h.op == VSOCK_OP_CREDIT_UPDATE);
	assert_int_equal(h.op, VSOCK_OP_RST);
	while ((n = read(fd, back, sizeof(back))) > 0) {
		for (int k = 0; k < n; k++)
			assert_int_equal(back[k], pat(got + k) ^ 0x33);
		got += n;
	}
	assert_int_equal(n, 0);
	assert_int_equal(got, total);
	close(fd);
}

/*
 * Guest -> host where the host answers.  The back-end serves every
 * connection from one thread, so it must read the host socket without
 * blocking: after the answer it must still take the guest's next packet
 * (it used to block in read() on a connection it had opened itself).  And
 * a host listener whose backlog is full refuses the guest (RST) instead of
 * stalling the device in connect() until the host program accepts.
 */
static void test_guest_to_host_reply(void **state)
{
	static uint8_t got[RXBUF];
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	char buf[16];
	struct vsock_hdr h, r;
	struct pollfd p;
	int fd, full, i, resp = 0, rst = 0;

	(void)state;
	fd = guest_connect(7100, 5002, 65536, &h);
	assert_int_equal(write(fd, "ping", 4), 4);
	assert_int_equal(rx_next(&h, got, 2000), 1);
	assert_int_equal(h.op, VSOCK_OP_RW);
	assert_int_equal(h.len, 4);
	assert_memory_equal(got, "ping", 4);
	r = ghdr(7100, 5002, VSOCK_OP_RW, 4, 65536, 4);
	tx_send(&r, "pong");
	p = (struct pollfd){ .fd = fd, .events = POLLIN };
	assert_int_equal(poll(&p, 1, 2000), 1);
	assert_int_equal(read(fd, buf, sizeof(buf)), 4);
	assert_memory_equal(buf, "pong", 4);

	/* Backlog 0: one connection may wait to be accepted, no more. */
	snprintf(sa.sun_path, sizeof(sa.sun_path), "%s_5003", F.uds);
	full = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	assert_int_equal(bind(full, (struct sockaddr *)&sa, sizeof(sa)), 0);
	assert_int_equal(listen(full, 0), 0);
	for (i = 0; i < 4; i++) {
		r = ghdr(7200 + i, 5003, VSOCK_OP_REQUEST, 0, 65536, 0);
		tx_send(&r, NULL);
		assert_int_equal(rx_next(&h, NULL, 2000), 1);
		assert_int_equal(h.dst_port, 7200 + i);
		resp += h.op == VSOCK_OP_RESPONSE;
		rst += h.op == VSOCK_OP_RST;
	}
	assert_int_equal(resp + rst, 4);
	assert_true(resp >= 1 && rst >= 1);
	close(full);
	unlink(sa.sun_path);
	close(fd);
}

/*
 * RX buffers with room for a header only, while the host has data: the
 * back-end must hand them back unused and wait for bigger ones (it used
 * to read 0 bytes into them, take that for the host's EOF and send
 * SHUTDOWN, cutting the stream).
 */
static void test_header_only_rx(void **state)
{
	static uint8_t got[RXBUF], data[1000];
	uint8_t *used = gpa(RING_OFF(0) + 0x800);
	struct vsock_hdr h, r;
	uint32_t port, k;
	char line[32];
	int fd, i;

	(void)state;
	for (k = 0; k < sizeof(data); k++)
		data[k] = pat(k);
	fd = connect_unix(F.uds);
	assert_int_equal(write(fd, "CONNECT 4444\n", 13), 13);
	assert_int_equal(rx_next(&h, NULL, 2000), 1);
	assert_int_equal(h.op, VSOCK_OP_REQUEST);
	port = h.src_port;
	r = ghdr(4444, port, VSOCK_OP_RESPONSE, 0, 65536, 0);
	tx_send(&r, NULL);
	for (k = 0; k < 31; k++) {
		assert_int_equal(read(fd, line + k, 1), 1);
		if (line[k] == '\n')
			break;
	}
	/* Use up every RX buffer (RSTs for a port nobody listens on)... */
	for (i = 0; i < (int)QSZ; i++) {
		r = ghdr(9000 + i, 6001, VSOCK_OP_REQUEST, 0, 65536, 0);
		tx_send(&r, NULL);
		tx_wait();
	}
	for (i = 0; i < (int)QSZ; i++) {
		while (used_idx(0) == F.rx_last_used)
			usleep(1000);
		F.rx_last_used++;
	}
	/* ...then offer eight header-sized ones while the host writes. */
	for (i = 0; i < 8; i++) {
		put_desc(0, i, RXBUF_OFF + i * RXBUF, VSOCK_HDR_SIZE, VRING_DESC_F_WRITE, 0);
		avail_add(0, i);
	}
	assert_int_equal(write(fd, data, sizeof(data)), sizeof(data));
	kick(0);
	for (i = 0; i < 8; i++) {
		uint32_t len;

		for (k = 0; k < 200 && used_idx(0) == F.rx_last_used; k++)
			usleep(10000);
		assert_true(used_idx(0) != F.rx_last_used);
		len = vu_le32(used + 8 + 8 * (F.rx_last_used % QSZ));
		if (len) {
			vsock_hdr_decode(gpa(RXBUF_OFF + vu_le32(used + 4 + 8 *
					 (F.rx_last_used % QSZ)) * RXBUF), &h);
			fail_msg("header-only buffer used for %s", vsock_op_name(h.op));
		}
		F.rx_last_used++;
	}
	/* Real buffers: the data, then SHUTDOWN once the host closes. */
	for (i = 0; i < (int)QSZ; i++) {
		put_desc(0, i, RXBUF_OFF + i * RXBUF, RXBUF, VRING_DESC_F_WRITE, 0);
		avail_add(0, i);
	}
	kick(0);
	assert_int_equal(rx_next(&h, got, 2000), 1);
	assert_int_equal(h.op, VSOCK_OP_RW);
	assert_int_equal(h.len, sizeof(data));
	assert_memory_equal(got, data, sizeof(data));
	close(fd);
	assert_int_equal(rx_next(&h, NULL, 2000), 1);
	assert_int_equal(h.op, VSOCK_OP_SHUTDOWN);
}

/* The device stops (GET_VRING_BASE): host sockets of its connections end. */
static void test_device_stop(void **state)
{
	struct vsock_hdr h, r;
	uint8_t p[8], c;
	int fd, k;

	(void)state;
	fd = connect_unix(F.uds);
	assert_int_equal(write(fd, "CONNECT 77\n", 11), 11);
	assert_int_equal(rx_next(&h, NULL, 2000), 1);
	r = ghdr(77, h.src_port, VSOCK_OP_RESPONSE, 0, 65536, 0);
	tx_send(&r, NULL);
	for (k = 0; k < 31; k++) {
		assert_int_equal(read(fd, p, 1), 1);
		if (p[0] == '\n')
			break;
	}
	send_state(VU_GET_VRING_BASE, 0, 0);
	recv_reply(VU_GET_VRING_BASE, p, 8);
	assert_int_equal(vu_le32(p), 0);
	assert_int_equal(vu_le32(p + 4), F.rx_last_used + 0u);	/* all we consumed */
	{
		struct pollfd pf = { .fd = fd, .events = POLLIN };

		assert_int_equal(poll(&pf, 1, 2000), 1);	/* no hang if it stays open */
	}
	assert_int_equal(read(fd, &c, 1), 0);	/* EOF: the back-end closed it */
	close(fd);
}

/*
 * Host -> guest with @req as the CONNECT line: every packet to the guest
 * carries at most @max payload bytes, and the full-size ones exactly @max
 * (the back-end always has more buffered than that), data in order.
 */
static void pkt_cap_check(const char *req, uint32_t max)
{
	static uint8_t got[RXBUF], data[10000];
	struct vsock_hdr h;
	uint32_t rcvd = 0, k, full = 0;
	char line[32];
	int fd;

	for (k = 0; k < sizeof(data); k++)
		data[k] = pat(k);
	fd = connect_unix(F.uds);
	assert_int_equal(write(fd, req, strlen(req)), strlen(req));
	accept_host_request(99, 1 << 20, 2000);
	for (k = 0; k < 31; k++) {
		assert_int_equal(read(fd, line + k, 1), 1);
		if (line[k] == '\n')
			break;
	}
	assert_int_equal(write(fd, data, sizeof(data)), sizeof(data));
	close(fd);
	while (rx_next(&h, got, 2000) && h.op == VSOCK_OP_RW) {
		assert_true(h.len <= max);
		full += h.len == max;
		assert_memory_equal(got, data + rcvd, h.len);
		rcvd += h.len;
	}
	assert_int_equal(h.op, VSOCK_OP_SHUTDOWN);
	assert_int_equal(rcvd, sizeof(data));
	assert_true(full >= sizeof(data) / max / 2);
}

/* --rx-pkt-max caps every packet to the guest. */
static void test_pkt_max(void **state)
{
	(void)state;
	pkt_cap_check("CONNECT 99\n", 64);
}

/* "CONNECT <port> <max>" caps one connection's packets... */
static void test_pkt_per_conn(void **state)
{
	(void)state;
	pkt_cap_check("CONNECT 99 100\n", 100);
}

/* ...but never above the device's --rx-pkt-max. */
static void test_pkt_per_conn_device_cap(void **state)
{
	(void)state;
	pkt_cap_check("CONNECT 99 1000\n", 64);
}

static uint64_t ms_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* Start `vhost-user-vsock SUBCOMMAND ARGS...` against this back-end. */
static pid_t spawn_tool(const char *const *args)
{
	const char *bin = backend_bin();
	char *argv[24];
	unsigned int i = 0;
	pid_t pid;

	argv[i++] = (char *)bin;
	while (*args && i < 23)
		argv[i++] = (char *)*args++;
	argv[i] = NULL;
	pid = fork();
	if (pid == 0) {
		int null = open("/dev/null", O_WRONLY);

		dup2(null, 1);	/* its report lines would clutter the test log */
		execv(bin, argv);
		_exit(127);
	}
	return pid;
}

static int tool_status(pid_t pid)
{
	int status;

	assert_int_equal(waitpid(pid, &status, 0), pid);
	return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

/*
 * The host-side sender: refused once (the guest is not listening yet), it
 * retries; then one packet per 100-byte write, carrying exactly the
 * checked stream; EOF becomes SHUTDOWN.
 */
static void test_send_tool(void **state)
{
	const char *args[] = { "send", "--uds", F.uds, "--port", "77", "--bytes", "200000",
			       "--buf-size", "100", "--retry", "10", NULL };
	static uint8_t got[RXBUF], want[RXBUF];
	uint64_t key = stress_flow_key(1, 0);
	uint32_t rcvd = 0, full = 0;
	struct vsock_hdr h, r;
	pid_t pid;

	(void)state;
	pid = spawn_tool(args);
	assert_true(pid > 0);
	assert_int_equal(rx_next(&h, NULL, 5000), 1);
	assert_int_equal(h.op, VSOCK_OP_REQUEST);
	r = ghdr(77, h.src_port, VSOCK_OP_RST, 0, 0, 0);
	tx_send(&r, NULL);
	accept_host_request(77, 1 << 20, 5000);	/* the retry */
	while (rx_next(&h, got, 5000) && h.op == VSOCK_OP_RW) {
		assert_true(h.len > 0 && h.len <= 100);
		full += h.len == 100;
		stress_fill(key, rcvd, want, h.len);
		assert_memory_equal(got, want, h.len);
		rcvd += h.len;
	}
	assert_int_equal(h.op, VSOCK_OP_SHUTDOWN);
	assert_int_equal(rcvd, 200000);
	assert_true(full >= 1900);
	assert_int_equal(tool_status(pid), 0);
}

/*
 * Time-bounded send (--seconds, the experiment's wall-clock transfers):
 * paced to 1 MB/s it stops after ~0.25 s, at a write boundary, with the
 * checked stream intact, and reports what it sent.
 */
static void test_send_tool_seconds(void **state)
{
	const char *args[] = { "send", "--uds", F.uds, "--port", "76", "--seconds", "0.25",
			       "--rate", "1M", "--buf-size", "100", NULL };
	static uint8_t got[RXBUF], want[RXBUF];
	uint64_t key = stress_flow_key(1, 0), t0, ms;
	uint32_t rcvd = 0;
	struct vsock_hdr h;
	pid_t pid;

	(void)state;
	pid = spawn_tool(args);
	assert_true(pid > 0);
	accept_host_request(76, 1 << 20, 5000);
	t0 = ms_now();
	while (rx_next(&h, got, 5000) && h.op == VSOCK_OP_RW) {
		stress_fill(key, rcvd, want, h.len);
		assert_memory_equal(got, want, h.len);
		rcvd += h.len;
	}
	ms = ms_now() - t0;
	assert_int_equal(h.op, VSOCK_OP_SHUTDOWN);
	assert_int_equal(tool_status(pid), 0);
	/* whole writes; at 1 MB/s 0.25 s is ~250 KB, well under the credit */
	assert_int_equal(rcvd % 100, 0);
	assert_true(rcvd >= 100000 && rcvd < (1u << 20));
	assert_true(ms >= 200 && ms < 3000);
}

/* Nobody ever listens: send gives up after --retry with status 1. */
static void test_send_tool_refused(void **state)
{
	const char *args[] = { "send", "--uds", F.uds, "--port", "78", "--bytes", "1000",
			       "--retry", "0.5", NULL };
	struct vsock_hdr h, r;
	int refusals = 0;
	pid_t pid;

	(void)state;
	pid = spawn_tool(args);
	assert_true(pid > 0);
	while (rx_next(&h, NULL, 1500)) {
		assert_int_equal(h.op, VSOCK_OP_REQUEST);
		r = ghdr(78, h.src_port, VSOCK_OP_RST, 0, 0, 0);
		tx_send(&r, NULL);
		refusals++;
	}
	assert_true(refusals >= 2);
	assert_int_equal(tool_status(pid), 1);
}

/* The host-side ping-pong client against an echoing guest. */
static void test_pingpong_tool(void **state)
{
	const char *args[] = { "pingpong", "--uds", F.uds, "--port", "79", "--size", "64",
			       "--count", "20", "--warmup", "2", NULL };
	static uint8_t got[RXBUF];
	uint32_t port, echoed = 0;
	struct vsock_hdr h, r;
	pid_t pid;

	(void)state;
	pid = spawn_tool(args);
	assert_true(pid > 0);
	port = accept_host_request(79, 1 << 20, 5000);
	while (rx_next(&h, got, 5000) && h.op == VSOCK_OP_RW) {
		assert_int_equal(h.len, 64);	/* one request, one packet */
		r = ghdr(79, port, VSOCK_OP_RW, h.len, 1 << 20, echoed + h.len);
		tx_send(&r, got);
		echoed += h.len;
	}
	assert_int_equal(h.op, VSOCK_OP_SHUTDOWN);
	assert_int_equal(echoed, 22 * 64);
	assert_int_equal(tool_status(pid), 0);
}

/*
 * At most 256 host-initiated connections (the default quota): the 257th
 * is closed at once (the listener does not spin on it), and a closed one
 * frees its slot.
 */
static void test_conn_cap(void **state)
{
	static int fds[257];
	struct pollfd p;
	unsigned int i;
	char c;

	(void)state;
	for (i = 0; i < 256; i++) {
		fds[i] = connect_unix(F.uds);
		assert_true(fds[i] >= 0);
	}
	fds[256] = connect_unix(F.uds);
	assert_true(fds[256] >= 0);
	p = (struct pollfd){ .fd = fds[256], .events = POLLIN };
	assert_int_equal(poll(&p, 1, 5000), 1);
	assert_int_equal(read(fds[256], &c, 1), 0);	/* refused: EOF */
	close(fds[256]);
	/* The first 256 are all still open (waiting for their CONNECT line). */
	for (i = 0; i < 256; i++) {
		p = (struct pollfd){ .fd = fds[i], .events = POLLIN };
		assert_int_equal(poll(&p, 1, 0), 0);
	}
	close(fds[0]);
	usleep(100000);
	fds[0] = connect_unix(F.uds);
	assert_true(fds[0] >= 0);
	p = (struct pollfd){ .fd = fds[0], .events = POLLIN };
	assert_int_equal(poll(&p, 1, 300), 0);	/* accepted and kept */
	for (i = 0; i < 256; i++)
		close(fds[i]);
}

/* The tools' bad usage: status 2, nothing started. */
static void test_tool_usage(void **state)
{
	static const char *const bad[][10] = {
		{ "send", "--bogus", NULL },
		{ "send", "--uds", "/nonexistent", "--bytes", "1", NULL },		/* no --port */
		{ "send", "--uds", "/x", "--port", "x", "--bytes", "1", NULL },
		{ "send", "--uds", "/x", "--port", "1", "--bytes", "1", "--pkt-size", NULL },
		{ "send", "--uds", "/x", "--port", "1", NULL },			/* no amount */
		{ "send", "--uds", "/x", "--port", "1", "--bytes", "1", "--seconds", "1", NULL },
		{ "send", "--uds", "/x", "--port", "1", "--seconds", "0", NULL },
		{ "pingpong", "--uds", "/x", "--port", "1", "--retry", "soon", NULL },
		{ "pingpong", "--uds", "/x", NULL },					/* no --port */
		{ "pingpong", "--uds", "/x", "--port", "1", "--count", "0", NULL },
		{ "recv", "--listen", "/x", "--close-after", "0", NULL },
	};
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		pid_t pid = spawn_tool((const char *const *)bad[i]);

		assert_true(pid > 0);
		if (tool_status(pid) != 2)
			fail_msg("'%s %s ...' did not exit 2", bad[i][0], bad[i][1]);
	}
}

/* A vhost-user message the back-end refuses ends it with status 1. */
static void test_bad_message(void **state)
{
	int status;
	uint8_t c;

	(void)state;
	send_state(VU_SET_VRING_NUM, 5, 64);	/* there is no queue 5 */
	assert_int_equal(read(F.vu, &c, 1), 0);	/* it hung up */
	assert_int_equal(waitpid(F.pid, &status, 0), F.pid);
	assert_true(WIFEXITED(status));
	assert_int_equal(WEXITSTATUS(status), 1);
	F.pid = -1;
}

/* ---- regressions of the four bugs of issue #14, hardening ---- */

/* Read the "OK <port>\n" answer of a host connection; 1 if it came. */
static int read_ok(int fd)
{
	char line[32];
	unsigned int k;

	for (k = 0; k < sizeof(line) - 1; k++) {
		if (read(fd, line + k, 1) != 1)
			return 0;
		if (line[k] == '\n')
			break;
	}
	return strncmp(line, "OK ", 3) == 0;
}

/* A host connection to @guest_port, accepted by the guest: its fd. */
static int host_open(uint32_t guest_port, uint32_t *host_port)
{
	char req[32];
	uint32_t hp;
	int fd = connect_unix(F.uds);

	assert_true(fd >= 0);
	snprintf(req, sizeof(req), "CONNECT %u\n", guest_port);
	assert_int_equal(write(fd, req, strlen(req)), (ssize_t)strlen(req));
	hp = accept_host_request(guest_port, 65536, 2000);
	assert_true(read_ok(fd));
	if (host_port)
		*host_port = hp;
	return fd;
}

/* Within @ms: 1 if the host socket ended (EOF or reset), 0 if not. */
static int host_ended(int fd, int ms)
{
	struct pollfd p = { .fd = fd, .events = POLLIN };
	char c;

	if (poll(&p, 1, ms) != 1)
		return 0;
	return read(fd, &c, 1) <= 0;
}

/* Is the back-end still answering vhost-user messages? */
static void assert_backend_serves(void)
{
	uint8_t p[20] = { 0 };

	vu_put32(p + 4, 8);
	send_msg(VU_GET_CONFIG, p, 20, NULL, 0);
	recv_reply(VU_GET_CONFIG, p, 20);
	assert_int_equal(vu_le64(p + 12), GUEST_CID);
}

/*
 * Bug 1 (heap-use-after-free): GET_VRING_BASE and host events in one
 * epoll batch.  The back-end is stopped while the message and a byte on
 * every host socket arrive, so that one epoll_wait() returns them all:
 * the stop closes every connection, and the later events of the batch
 * name them.  It used to free them right there (ASan: heap-use-after-
 * free in serve(), freed by vsock_reap <- vsock_close_all <-
 * on_vu_message); make check runs this against an ASan build.
 */
static void test_stop_mid_batch(void **state)
{
	enum { N = 8 };
	int fd[N], i;
	uint8_t p[8];

	(void)state;
	for (i = 0; i < N; i++)
		fd[i] = host_open(3000 + i, NULL);
	assert_int_equal(kill(F.pid, SIGSTOP), 0);
	send_state(VU_GET_VRING_BASE, 0, 0);
	for (i = 0; i < N; i++)
		assert_int_equal(write(fd[i], "x", 1), 1);
	usleep(50000);
	assert_int_equal(kill(F.pid, SIGCONT), 0);
	recv_reply(VU_GET_VRING_BASE, p, 8);
	for (i = 0; i < N; i++) {
		assert_true(host_ended(fd[i], 2000));
		close(fd[i]);
	}
	assert_backend_serves();
	/* Once more with RESET_OWNER, which stops the device too. */
	send_msg(VU_RESET_OWNER, NULL, 0, NULL, 0);
	assert_backend_serves();
}

/* Room for one more TX packet (the device took the older ones) within @ms? */
static int tx_room(int ms)
{
	int i;

	for (i = 0; i <= ms; i++) {
		uint16_t avail = vu_le16(gpa(RING_OFF(1) + 0x400 + 2));

		if ((uint16_t)(avail - used_idx(1)) < QSZ / 2)
			return 1;
		usleep(1000);
	}
	return 0;
}

/* Take every RX buffer away from the device (64 RSTs never given back). */
static void exhaust_rx(uint32_t first_port)
{
	struct vsock_hdr r;
	int i;

	for (i = 0; i < (int)QSZ; i++) {
		r = ghdr(first_port + i, 6001, VSOCK_OP_REQUEST, 0, 65536, 0);
		tx_send(&r, NULL);
		tx_wait();
	}
	for (i = 0; i < (int)QSZ; i++) {
		int k;

		for (k = 0; k < 2000 && used_idx(0) == F.rx_last_used; k++)
			usleep(1000);
		assert_true(used_idx(0) != F.rx_last_used);
		F.rx_last_used++;
	}
}

/*
 * Bug 2 (dropped REQUEST): a guest that sends packets for unknown
 * connections while it posts no RX buffers.  Each is owed an RST; the
 * back-end used to queue them in one 4096-entry queue and drop what did
 * not fit, the host's REQUEST with them: its CONNECT got neither OK nor
 * EOF.  Now nothing is dropped: TX waits while answers are owed, every
 * packet gets its RST, and the host's REQUEST comes through.
 */
static void test_ctrl_overflow(void **state)
{
	const uint32_t total = 4400, base = 20000;
	uint32_t sent = 0, rsts = 0, hp = 0;
	struct vsock_hdr h, r;
	int fd, i, quiet;

	(void)state;
	exhaust_rx(9000);
	while (sent < total && tx_room(300)) {
		r = ghdr(base + sent, 6002, VSOCK_OP_CREDIT_UPDATE, 0, 65536, 0);
		tx_send(&r, NULL);
		sent++;
	}
	fd = connect_unix(F.uds);
	assert_int_equal(write(fd, "CONNECT 5555\n", 13), 13);
	usleep(100000);
	/* The driver posts its buffers again and reads everything. */
	for (i = 0; i < (int)QSZ; i++) {
		put_desc(0, i, RXBUF_OFF + i * RXBUF, RXBUF, VRING_DESC_F_WRITE, 0);
		avail_add(0, i);
	}
	kick(0);
	for (quiet = 0; quiet < 3; ) {
		while (sent < total && tx_room(0)) {
			r = ghdr(base + sent, 6002, VSOCK_OP_CREDIT_UPDATE, 0, 65536, 0);
			tx_send(&r, NULL);
			sent++;
		}
		if (!rx_next(&h, NULL, 200)) {
			quiet++;
			continue;
		}
		quiet = 0;
		if (h.op == VSOCK_OP_RST && h.src_port == 6002 && h.dst_port >= base) {
			rsts++;
			continue;
		}
		if (h.op == VSOCK_OP_REQUEST && h.dst_port == 5555) {
			hp = h.src_port;
			r = ghdr(5555, hp, VSOCK_OP_RESPONSE, 0, 65536, 0);
			/*
			 * The loop above keeps TX full: without room, this
			 * overwrote the oldest unconsumed CREDIT_UPDATE's
			 * buffer and the back-end saw the RESPONSE twice
			 * (the flake of ci7 and ci10, under host load).
			 */
			assert_true(tx_room(5000));
			tx_send(&r, NULL);
			continue;
		}
		fail_msg("unexpected %s %u -> %u", vsock_op_name(h.op), h.src_port, h.dst_port);
	}
	if (!hp)
		fail_msg("the host's REQUEST never reached the guest (%u RSTs of %u came)",
			 rsts, sent);
	assert_int_equal(sent, total);
	assert_int_equal(rsts, sent);	/* one RST for every packet, none dropped */
	fcntl(fd, F_SETFL, 0);
	assert_true(read_ok(fd));
	close(fd);
}

/* The back-end's open fds (/proc/PID/fd entries). */
static int backend_fds(void)
{
	char path[64], buf[4096];
	FILE *f;
	int n = 0;

	snprintf(path, sizeof(path), "/bin/ls /proc/%d/fd", (int)F.pid);
	f = popen(path, "r");
	assert_non_null(f);
	while (fgets(buf, sizeof(buf), f))
		n++;
	pclose(f);
	return n;
}

/* Drain RX for @ms: what the guest ignores (REQUESTs, RSTs). */
static void rx_drain(int ms)
{
	struct vsock_hdr h;

	while (rx_next(&h, NULL, ms))
		;
}

/*
 * Bug 3a (slots held for ever): clients that send their CONNECT line and
 * close before the guest answers (it never does).  They stayed in
 * C_HOST_CONNECTING with their fd: 520 cycles left 518 fds open and the
 * next client was refused.  Now a client's HUP frees its slot at once
 * (the guest, which saw the REQUEST, gets an RST).
 */
static void test_connect_close_cycles(void **state)
{
	struct vsock_hdr h, r;
	int i, fd, nfd;

	(void)state;
	for (i = 0; i < 520; i++) {
		fd = connect_unix(F.uds);
		assert_true(fd >= 0);
		assert_int_equal(write(fd, "CONNECT 6100\n", 13), 13);
		close(fd);
		if (i % 16 == 15)
			rx_drain(0);
	}
	usleep(200000);
	rx_drain(100);
	nfd = backend_fds();
	if (nfd > 30)
		fail_msg("the back-end holds %d fds after 520 closed clients", nfd);
	/* The next client gets through. */
	fd = connect_unix(F.uds);
	assert_int_equal(write(fd, "CONNECT 6200\n", 13), 13);
	do {
		assert_int_equal(rx_next(&h, NULL, 2000), 1);
	} while (!(h.op == VSOCK_OP_REQUEST && h.dst_port == 6200));
	r = ghdr(6200, h.src_port, VSOCK_OP_RESPONSE, 0, 65536, 0);
	tx_send(&r, NULL);
	assert_true(read_ok(fd));
	close(fd);
}

static int setup_limits(void **state)
{
	static const char *const args[] = {
		"--line-timeout", "300", "--request-timeout", "600",
		"--max-host-conns", "8", "--max-guest-conns", "4", NULL,
	};
	unsigned int i;
	int r;

	for (i = 0; args[i]; i++)
		extra_args[i] = args[i];
	extra_args[i] = NULL;
	r = setup(state);
	extra_args[0] = NULL;
	return r;
}

/*
 * Bug 3b: clients that connect and send nothing held every slot; a
 * REQUEST the guest never answers held its slot for ever.  Now: per-
 * direction quotas (8 host, 4 guest here), so a full host side does not
 * lock out the guest; the CONNECT line must come within --line-timeout
 * and the guest's answer within --request-timeout.
 */
static void test_timeouts_quotas(void **state)
{
	int idle[8], gfd[4], fd, i;
	struct vsock_hdr h, r;
	uint64_t t0, dt;
	uint32_t hp;
	char path[128];

	(void)state;
	for (i = 0; i < 8; i++)
		idle[i] = connect_unix(F.uds);
	t0 = ms_now();
	fd = connect_unix(F.uds);
	assert_true(host_ended(fd, 200));		/* the 9th: refused at once */
	close(fd);
	/* The guest still connects to the host, up to its own quota. */
	for (i = 0; i < 4; i++)
		gfd[i] = guest_connect(7300 + i, 5100 + i, 65536, &h);
	snprintf(path, sizeof(path), "%s_5104", F.uds);
	fd = listen_unix(path);
	r = ghdr(7304, 5104, VSOCK_OP_REQUEST, 0, 65536, 0);
	tx_send(&r, NULL);
	assert_int_equal(rx_next(&h, NULL, 2000), 1);
	assert_int_equal(h.op, VSOCK_OP_RST);		/* the 5th: refused */
	close(fd);
	unlink(path);
	for (i = 0; i < 4; i++)
		close(gfd[i]);
	/* The idle clients are closed after --line-timeout. */
	for (i = 0; i < 8; i++) {
		assert_true(host_ended(idle[i], 3000));
		close(idle[i]);
	}
	dt = ms_now() - t0;
	if (dt < 250 || dt > 2500)
		fail_msg("idle clients closed after %llu ms (line timeout 300)",
			 (unsigned long long)dt);
	rx_drain(100);	/* the RSTs of the guest connections we closed */
	/* A REQUEST the guest ignores: the host is closed, the guest gets an RST. */
	fd = connect_unix(F.uds);
	assert_int_equal(write(fd, "CONNECT 6300\n", 13), 13);
	assert_int_equal(rx_next(&h, NULL, 2000), 1);
	assert_int_equal(h.op, VSOCK_OP_REQUEST);
	hp = h.src_port;
	t0 = ms_now();
	assert_true(host_ended(fd, 3000));
	dt = ms_now() - t0;
	close(fd);
	if (dt < 400 || dt > 2500)
		fail_msg("unanswered REQUEST closed after %llu ms (timeout 600)",
			 (unsigned long long)dt);
	assert_int_equal(rx_next(&h, NULL, 2000), 1);
	assert_int_equal(h.op, VSOCK_OP_RST);
	assert_int_equal(h.src_port, hp);
	/* Every slot is free again. */
	fd = host_open(6400, NULL);
	close(fd);
}

/*
 * Bug 4 (SIGBUS): a 64 KiB memfd announced as a 4 MiB region, and a TX
 * descriptor past its end.  The back-end mapped it and died of signal 7
 * on the first access; now SET_MEM_TABLE is refused (status 1, reason
 * logged) before anything touches it.
 */
static int setup_short_region(void **state)
{
	(void)state;
	memset(&F, 0, sizeof(F));
	strcpy(F.dir, "/tmp/vb-vutest.XXXXXX");
	assert_non_null(mkdtemp(F.dir));
	snprintf(F.vu_path, sizeof(F.vu_path), "%s/vu.sock", F.dir);
	snprintf(F.uds, sizeof(F.uds), "%s/uds", F.dir);
	log_to_file = 1;
	spawn_backend(backend_bin());
	log_to_file = 0;
	F.lenient = 1;
	handshake(64 << 10, MEM_SIZE);
	return 0;
}

static int backend_log_has(const char *needle)
{
	char path[128], buf[65536];
	ssize_t n;
	int fd;

	snprintf(path, sizeof(path), "%s/backend.log", F.dir);
	fd = open(path, O_RDONLY);
	if (fd < 0)
		return 0;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	buf[n > 0 ? n : 0] = 0;
	return strstr(buf, needle) != NULL;
}

static int backend_log_count(const char *needle)
{
	char path[128], buf[1 << 18], *p;
	ssize_t n;
	int fd, k = 0;

	snprintf(path, sizeof(path), "%s/backend.log", F.dir);
	fd = open(path, O_RDONLY);
	if (fd < 0)
		return 0;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	buf[n > 0 ? n : 0] = 0;
	for (p = buf; (p = strstr(p, needle)); p++)
		k++;
	return k;
}

static void test_short_region(void **state)
{
	int status, i;

	(void)state;
	/* A TX packet in the part of the region the memfd does not have. */
	put_desc(1, 0, 0x80000, VSOCK_HDR_SIZE, 0, 0);
	avail_add(1, 0);
	{
		uint64_t one = 1;

		if (write(F.kick[1], &one, 8) < 0) {
			/* the back-end may have closed its copy already */
		}
	}
	for (i = 0; i < 300 && waitpid(F.pid, &status, WNOHANG) == 0; i++)
		usleep(10000);
	if (i == 300) {
		kill(F.pid, SIGKILL);
		waitpid(F.pid, &status, 0);
		F.pid = -1;
		fail_msg("the back-end accepted a region beyond the end of its memfd");
	}
	F.pid = -1;
	if (WIFSIGNALED(status))
		fail_msg("the back-end died of signal %d", WTERMSIG(status));
	assert_true(WIFEXITED(status));
	assert_int_equal(WEXITSTATUS(status), 1);
	assert_true(backend_log_has("beyond the end of its fd (65536 bytes)"));
}

static int setup_logged(void **state)
{
	int r;

	log_to_file = 1;
	r = setup(state);
	log_to_file = 0;
	return r;
}

static int setup_flow_stats(void **state)
{
	extra_args[0] = "--flow-stats";
	extra_args[1] = NULL;
	return setup_logged(state);
}

/* The back-end's CPU time so far, in ms (utime + stime). */
static long backend_cpu_ms(void)
{
	char path[64], buf[1024], *p;
	unsigned long ut, st;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/stat", (int)F.pid);
	f = fopen(path, "r");
	assert_non_null(f);
	assert_non_null(fgets(buf, sizeof(buf), f));
	fclose(f);
	p = strrchr(buf, ')');
	assert_non_null(p);
	/* state ppid pgrp session tty tpgid flags minflt cminflt majflt cmajflt utime stime */
	assert_int_equal(sscanf(p + 2, "%*c %*d %*d %*d %*d %*d %*u %*u %*u %*u %*u %lu %lu",
				&ut, &st), 2);
	return (long)((ut + st) * 1000 / sysconf(_SC_CLK_TCK));
}

/*
 * Hardening: sockets 0600; CONNECT to port 0 or VMADDR_PORT_ANY refused
 * before the guest hears of it; host text logged without its control
 * bytes; log lines a guest can cause rate-limited; half a vhost-user
 * message stalls nothing; a kick fd that is a socket at EOF does not spin
 * the loop; a saturated blocking call fd does not hang it.
 */
static void test_hardening(void **state)
{
	struct vsock_hdr h, r;
	struct stat st;
	uint8_t p[20] = { 0 }, hdr[VU_HDR_SIZE];
	long cpu0;
	int fd, i, sv[2], blk;
	uint64_t big = 0xfffffffffffffffeull;

	(void)state;
	assert_int_equal(stat(F.vu_path, &st), 0);
	assert_int_equal(st.st_mode & 0777, 0600);
	assert_int_equal(stat(F.uds, &st), 0);
	assert_int_equal(st.st_mode & 0777, 0600);

	fd = connect_unix(F.uds);
	assert_int_equal(write(fd, "CONNECT 0\n", 10), 10);
	assert_true(host_ended(fd, 2000));
	close(fd);
	fd = connect_unix(F.uds);
	assert_int_equal(write(fd, "CONNECT 4294967295\n", 19), 19);
	assert_true(host_ended(fd, 2000));
	close(fd);
	fd = connect_unix(F.uds);
	assert_int_equal(write(fd, "CONNECT \x1b[2J\x07\n", 14), 14);
	assert_true(host_ended(fd, 2000));
	close(fd);
	assert_int_equal(rx_next(&h, NULL, 200), 0);	/* no REQUEST for any */
	usleep(50000);
	assert_true(backend_log_has("CONNECT \\x1b[2J\\x07"));
	assert_false(backend_log_has("\x1b"));

	/* 400 packets from a foreign CID: each dropped, few of them logged. */
	for (i = 0; i < 400; i++) {
		r = ghdr(8888, 6000, VSOCK_OP_REQUEST, 0, 65536, 0);
		r.src_cid = 99;
		assert_true(tx_room(2000));
		tx_send(&r, NULL);
	}
	tx_wait();
	usleep(50000);
	i = backend_log_count("from CID 99");
	if (i < 10 || i > 60)
		fail_msg("%d of 400 drops logged (burst 50, then 10/s)", i);

	/* Half a GET_CONFIG header: host connections still get through. */
	vu_put32(hdr, VU_GET_CONFIG);
	vu_put32(hdr + 4, VU_VERSION);
	vu_put32(hdr + 8, 20);
	assert_int_equal(write(F.vu, hdr, 6), 6);
	usleep(50000);
	fd = host_open(3100, NULL);
	close(fd);
	vu_put32(p + 4, 8);
	assert_int_equal(write(F.vu, hdr + 6, VU_HDR_SIZE - 6), VU_HDR_SIZE - 6);
	assert_int_equal(write(F.vu, p, 20), 20);
	recv_reply(VU_GET_CONFIG, p, 20);
	assert_int_equal(vu_le64(p + 12), GUEST_CID);
	rx_drain(100);

	/* A kick fd that is a socket whose peer is gone: no spinning. */
	assert_int_equal(socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv), 0);
	close(sv[1]);
	vu_put64(p, 1);	/* TX */
	send_msg(VU_SET_VRING_KICK, p, 8, &sv[0], 1);
	close(sv[0]);
	usleep(100000);
	cpu0 = backend_cpu_ms();
	usleep(500000);
	if (backend_cpu_ms() - cpu0 > 150)
		fail_msg("the back-end spun: %ld ms of CPU in 500 ms", backend_cpu_ms() - cpu0);
	assert_true(backend_log_has("not a working eventfd"));

	/* A blocking call fd at its maximum count: write() would block for ever. */
	blk = eventfd(0, EFD_CLOEXEC);
	assert_int_equal(write(blk, &big, 8), 8);
	vu_put64(p, 0);	/* RX */
	send_msg(VU_SET_VRING_CALL, p, 8, &blk, 1);
	fd = connect_unix(F.uds);
	assert_int_equal(write(fd, "CONNECT 3200\n", 13), 13);	/* a REQUEST and a signal */
	usleep(200000);
	assert_backend_serves();
	close(fd);
	close(blk);
	assert_int_equal(kill(F.pid, 0), 0);
}

/*
 * --reconnect: when the front-end goes, the back-end closes every host
 * socket (the device is gone) and serves the next one; SIGTERM ends it
 * with status 0 and no socket file left.
 */
static int setup_reconnect(void **state)
{
	int r;

	extra_args[0] = "--reconnect";
	extra_args[1] = NULL;
	r = setup(state);
	extra_args[0] = NULL;
	return r;
}

static void test_reconnect(void **state)
{
	int fd, status, i;
	struct stat st;

	(void)state;
	fd = host_open(3300, NULL);
	/* The front-end goes (QEMU exits, or its chardev reconnects). */
	close(F.vu);
	assert_true(host_ended(fd, 2000));
	close(fd);
	munmap(F.mem, MEM_SIZE);
	close(F.memfd);
	for (i = 0; i < 2; i++) {
		close(F.kick[i]);
		close(F.call[i]);
	}
	F.rx_last_used = F.tx_last_used = F.tx_avail = F.tx_next_desc = 0;
	/* A new front-end, a new guest: everything works again. */
	F.vu = connect_unix(F.vu_path);
	assert_true(F.vu >= 0);
	handshake(MEM_SIZE, MEM_SIZE);
	fd = host_open(3301, NULL);
	assert_int_equal(write(fd, "abc", 3), 3);
	{
		static uint8_t got[RXBUF];
		struct vsock_hdr h;

		assert_int_equal(rx_next(&h, got, 2000), 1);
		assert_int_equal(h.op, VSOCK_OP_RW);
		assert_memory_equal(got, "abc", 3);
	}
	close(fd);
	/* SIGTERM: exit 0, socket files removed. */
	assert_int_equal(kill(F.pid, SIGTERM), 0);
	assert_int_equal(waitpid(F.pid, &status, 0), F.pid);
	F.pid = -1;
	assert_true(WIFEXITED(status));
	assert_int_equal(WEXITSTATUS(status), 0);
	assert_int_equal(stat(F.vu_path, &st), -1);
	assert_int_equal(stat(F.uds, &st), -1);
}

/*
 * Guests that split a packet over descriptors (Linux puts header and
 * payload in separate ones; others split even the header): RX buffers
 * of three descriptors, 16 + 28 header bytes then the payload, and TX
 * packets whose header is 10 + 34 bytes and payload three pieces.
 */
#define SPLIT_N		16u

static void post_split_rx(unsigned int k)
{
	uint64_t base = RXBUF_OFF + (uint64_t)k * RXBUF;

	put_desc(0, 3 * k, base, 16, VRING_DESC_F_WRITE | VRING_DESC_F_NEXT, 3 * k + 1);
	put_desc(0, 3 * k + 1, base + 0x100, 28, VRING_DESC_F_WRITE | VRING_DESC_F_NEXT,
		 3 * k + 2);
	put_desc(0, 3 * k + 2, base + 0x200, RXBUF - 0x200, VRING_DESC_F_WRITE, 0);
	avail_add(0, 3 * k);
}

static int rx_next_split(struct vsock_hdr *h, uint8_t *payload, int ms)
{
	uint8_t *used = gpa(RING_OFF(0) + 0x800), raw[VSOCK_HDR_SIZE];
	uint32_t id, len;
	uint64_t base;
	int i;

	for (i = 0; i < ms && used_idx(0) == F.rx_last_used; i++)
		usleep(1000);
	if (used_idx(0) == F.rx_last_used)
		return 0;
	id = vu_le32(used + 4 + 8 * (F.rx_last_used % QSZ));
	len = vu_le32(used + 8 + 8 * (F.rx_last_used % QSZ));
	F.rx_last_used++;
	assert_true(id % 3 == 0 && id / 3 < SPLIT_N);
	assert_true(len >= VSOCK_HDR_SIZE);
	base = RXBUF_OFF + (uint64_t)(id / 3) * RXBUF;
	memcpy(raw, gpa(base), 16);
	memcpy(raw + 16, gpa(base + 0x100), 28);
	vsock_hdr_decode(raw, h);
	assert_int_equal(h->len, len - VSOCK_HDR_SIZE);
	if (payload)
		memcpy(payload, gpa(base + 0x200), h->len);
	post_split_rx(id / 3);
	kick(0);
	return 1;
}

static void tx_send_split(const struct vsock_hdr *h, const uint8_t *payload)
{
	uint8_t raw[VSOCK_HDR_SIZE];
	uint64_t buf = TXBUF_OFF;
	uint32_t a = h->len ? 1 : 0, b2 = h->len > 1 ? (h->len - 1) / 2 : 0;
	uint32_t c = h->len - a - b2;

	vsock_hdr_encode(h, raw);
	memcpy(gpa(buf), raw, 10);
	memcpy(gpa(buf + 0x40), raw + 10, 34);
	put_desc(1, 0, buf, 10, VRING_DESC_F_NEXT, 1);
	put_desc(1, 1, buf + 0x40, 34, h->len ? VRING_DESC_F_NEXT : 0, 2);
	if (h->len) {
		memcpy(gpa(buf + 0x100), payload, a);
		memcpy(gpa(buf + 0x200), payload + a, b2);
		memcpy(gpa(buf + 0x8000), payload + a + b2, c);
		put_desc(1, 2, buf + 0x100, a, VRING_DESC_F_NEXT, 3);
		put_desc(1, 3, buf + 0x200, b2, VRING_DESC_F_NEXT, 4);
		put_desc(1, 4, buf + 0x8000, c, 0, 0);
	}
	avail_add(1, 0);
	kick(1);
	tx_wait();	/* the descriptors are reused by the next packet */
}

static int setup_split(void **state)
{
	unsigned int k;
	int r;

	no_rx_bufs = 1;
	r = setup(state);
	no_rx_bufs = 0;
	for (k = 0; k < SPLIT_N; k++)
		post_split_rx(k);
	kick(0);
	return r;
}

static void test_split_descriptors(void **state)
{
	static uint8_t data[100000], got[RXBUF];
	struct vsock_hdr h, r;
	uint32_t hp, rcvd = 0, k;
	char path[128];
	int fd, lfd;

	(void)state;
	for (k = 0; k < sizeof(data); k++)
		data[k] = pat(k);
	/* host -> guest */
	fd = connect_unix(F.uds);
	assert_int_equal(write(fd, "CONNECT 4500\n", 13), 13);
	assert_int_equal(rx_next_split(&h, NULL, 2000), 1);
	assert_int_equal(h.op, VSOCK_OP_REQUEST);
	assert_int_equal(h.dst_port, 4500);
	hp = h.src_port;
	r = ghdr(4500, hp, VSOCK_OP_RESPONSE, 0, 1 << 20, 0);
	tx_send_split(&r, NULL);
	assert_true(read_ok(fd));
	assert_int_equal(write(fd, data, sizeof(data)), sizeof(data));
	close(fd);
	while (rx_next_split(&h, got, 2000) && h.op == VSOCK_OP_RW) {
		assert_true(rcvd + h.len <= sizeof(data));
		assert_memory_equal(got, data + rcvd, h.len);
		rcvd += h.len;
	}
	assert_int_equal(h.op, VSOCK_OP_SHUTDOWN);
	assert_int_equal(rcvd, sizeof(data));
	/* guest -> host, payload in three pieces */
	snprintf(path, sizeof(path), "%s_5400", F.uds);
	lfd = listen_unix(path);
	r = ghdr(4501, 5400, VSOCK_OP_REQUEST, 0, 65536, 0);
	tx_send_split(&r, NULL);
	assert_int_equal(rx_next_split(&h, NULL, 2000), 1);
	assert_int_equal(h.op, VSOCK_OP_RESPONSE);
	fd = accept(lfd, NULL, NULL);
	assert_true(fd >= 0);
	r = ghdr(4501, 5400, VSOCK_OP_RW, 3000, 65536, 0);
	tx_send_split(&r, data);
	assert_int_equal(recv(fd, got, 3000, MSG_WAITALL), 3000);
	assert_memory_equal(got, data, 3000);
	close(fd);
	close(lfd);
	unlink(path);
}

/*
 * Out of fds: the back-end's fd limit is lowered so that two fds are left.  Further host clients are accepted with the spare fd and closed at
 * once (EOF), the listener does not spin the loop, and once fds are free
 * again clients get through.
 */
/*
 * The fd limit that leaves the back-end @n fds: a new fd takes the lowest
 * free number and RLIMIT_NOFILE bounds the numbers, so one past its n-th
 * free number.
 */
static int backend_limit_for(int n)
{
	static char open_fd[4096];
	char cmd[64], buf[64];
	FILE *f;
	int i;

	memset(open_fd, 0, sizeof(open_fd));
	snprintf(cmd, sizeof(cmd), "/bin/ls /proc/%d/fd", (int)F.pid);
	f = popen(cmd, "r");
	assert_non_null(f);
	while (fgets(buf, sizeof(buf), f))
		if (atoi(buf) >= 0 && atoi(buf) < (int)sizeof(open_fd))
			open_fd[atoi(buf)] = 1;
	pclose(f);
	for (i = 0; i < (int)sizeof(open_fd); i++)
		if (!open_fd[i] && --n == 0)
			return i + 1;
	fail_msg("no free fd numbers");
	return -1;
}

static void test_emfile(void **state)
{
	struct rlimit rl;
	int fds[6], i, k, free_fds, ended = 0, fd, NCL;
	long cpu0;

	(void)state;
	/* Two fds left: a third client finds the table full. */
	free_fds = 2;
	NCL = free_fds + 4;
	rl.rlim_cur = backend_limit_for(free_fds);
	rl.rlim_max = 4096;
	assert_int_equal(prlimit(F.pid, RLIMIT_NOFILE, &rl, NULL), 0);
	for (i = 0; i < NCL; i++)
		fds[i] = connect_unix(F.uds);
	/* As many are kept as fds were free; the others are closed at once. */
	for (k = 0; k < 200 && ended < NCL - free_fds; k++) {
		usleep(10000);
		for (i = 0, ended = 0; i < NCL; i++) {
			struct pollfd p = { .fd = fds[i], .events = POLLIN };

			ended += poll(&p, 1, 0) == 1;
		}
	}
	if (ended < NCL - free_fds)
		fail_msg("%d of %d clients closed with %d fds free", ended, NCL, free_fds);
	/* Still out of fds, nothing to do: no spinning. */
	cpu0 = backend_cpu_ms();
	usleep(500000);
	if (backend_cpu_ms() - cpu0 > 150)
		fail_msg("the back-end spun: %ld ms of CPU in 500 ms", backend_cpu_ms() - cpu0);
	/*
	 * The refusals happened (the clients above saw their ends); the log
	 * line of each is written by the back-end, which on a loaded host may
	 * not have run since: give it 2 s, then show what it did write.
	 */
	for (k = 0; k < 200 && !backend_log_has("Too many open files: connection refused"); k++)
		usleep(10000);
	if (!backend_log_has("Too many open files: connection refused")) {
		char cmd[256];

		snprintf(cmd, sizeof(cmd), "tail -n 20 %s/backend.log >&2", F.dir);
		if (system(cmd) != 0)
			fprintf(stderr, "(no back-end log)\n");
		fail_msg("no EMFILE refusal in the back-end's log");
	}
	for (i = 0; i < NCL; i++)
		close(fds[i]);
	usleep(100000);
	rl.rlim_cur = 1024;
	assert_int_equal(prlimit(F.pid, RLIMIT_NOFILE, &rl, NULL), 0);
	fd = host_open(3400, NULL);
	close(fd);
	assert_backend_serves();
}

/*
 * SO_PEERCRED: even with the socket made world-writable, a front-end of
 * another uid (nobody) is refused, with the reason logged.
 */
static void test_peercred(void **state)
{
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	int status, i;
	pid_t pid;

	(void)state;
	if (geteuid() != 0)
		skip();		/* needs to become another user */
	assert_int_equal(chmod(F.dir, 0711), 0);
	assert_int_equal(chmod(F.vu_path, 0666), 0);
	strcpy(sa.sun_path, F.vu_path);
	pid = fork();
	if (pid == 0) {
		int fd;
		char c;

		if (setgid(65534) || setuid(65534))
			_exit(3);
		fd = socket(AF_UNIX, SOCK_STREAM, 0);
		if (connect(fd, (struct sockaddr *)&sa, sizeof(sa)) < 0)
			_exit(4);
		/* Refused: closed at once, no message read. */
		_exit(read(fd, &c, 1) == 0 ? 0 : 5);
	}
	assert_int_equal(waitpid(pid, &status, 0), pid);
	assert_true(WIFEXITED(status));
	assert_int_equal(WEXITSTATUS(status), 0);
	for (i = 0; i < 100 && !backend_log_has("peer uid 65534 is neither ours"); i++)
		usleep(10000);
	assert_true(backend_log_has("peer uid 65534 is neither ours"));
	assert_backend_serves();	/* the real front-end is still served */
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_host_to_guest, setup, teardown),
		cmocka_unit_test_setup_teardown(test_flow_stats, setup_flow_stats,
						teardown),
		cmocka_unit_test_setup_teardown(test_guest_to_host, setup, teardown),
		cmocka_unit_test_setup_teardown(test_refusals, setup, teardown),
		cmocka_unit_test_setup_teardown(test_concurrent, setup, teardown),
		cmocka_unit_test_setup_teardown(test_guest_close_drains, setup, teardown),
		cmocka_unit_test_setup_teardown(test_pkt_max, setup_pkt64, teardown),
		cmocka_unit_test_setup_teardown(test_pkt_per_conn, setup, teardown),
		cmocka_unit_test_setup_teardown(test_pkt_per_conn_device_cap, setup_pkt64, teardown),
		cmocka_unit_test_setup_teardown(test_send_tool, setup, teardown),
		cmocka_unit_test_setup_teardown(test_send_tool_seconds, setup, teardown),
		cmocka_unit_test_setup_teardown(test_send_tool_refused, setup, teardown),
		cmocka_unit_test_setup_teardown(test_pingpong_tool, setup, teardown),
		cmocka_unit_test_setup_teardown(test_conn_cap, setup, teardown),
		cmocka_unit_test(test_tool_usage),
		cmocka_unit_test_setup_teardown(test_bad_message, setup, teardown),
		cmocka_unit_test_setup_teardown(test_device_stop, setup, teardown),
		cmocka_unit_test_setup_teardown(test_guest_to_host_reply, setup, teardown),
		cmocka_unit_test_setup_teardown(test_header_only_rx, setup, teardown),
		cmocka_unit_test_setup_teardown(test_stop_mid_batch, setup, teardown),
		cmocka_unit_test_setup_teardown(test_ctrl_overflow, setup, teardown),
		cmocka_unit_test_setup_teardown(test_connect_close_cycles, setup, teardown),
		cmocka_unit_test_setup_teardown(test_timeouts_quotas, setup_limits, teardown),
		cmocka_unit_test_setup_teardown(test_short_region, setup_short_region, teardown),
		cmocka_unit_test_setup_teardown(test_hardening, setup_logged, teardown),
		cmocka_unit_test_setup_teardown(test_reconnect, setup_reconnect, teardown),
		cmocka_unit_test_setup_teardown(test_split_descriptors, setup_split, teardown),
		cmocka_unit_test_setup_teardown(test_emfile, setup_logged, teardown),
		cmocka_unit_test_setup_teardown(test_peercred, setup_logged, teardown),
	};

	signal(SIGPIPE, SIG_IGN);
	return cmocka_run_group_tests(tests, NULL, NULL);
}
