// SPDX-License-Identifier: GPL-2.0
/*
 * vsock-tap - packet capture of a loopback vsock stream through a
 * vsockmon device, compared with what was sent.
 *
 * Creates vsockmon0 (rtnetlink, kind "vsockmon") if needed, brings it up
 * and reads it with an AF_PACKET socket while one loopback connection
 * (CID 1) carries --bytes in --write pieces of a position-dependent
 * pattern.  The loopback worker hands every packet to the tap once, before
 * it processes it, so with the RX batching series the capture runs while
 * batches hold the receiving socket locked.  Checks:
 *   - the capture dropped nothing (PACKET_STATISTICS);
 *   - every captured packet is whole: the vsockmon header, a virtio header
 *     and exactly hdr.len payload bytes;
 *   - the OP_RW payload of the data direction, concatenated in capture
 *     order, is byte for byte the stream that was sent: no packet lost,
 *     duplicated, reordered or changed;
 *   - no OP_RW packet is larger than one write (packets are never merged
 *     on the way to the tap), and there are at least as many as writes;
 *   - the connection's REQUEST, RESPONSE and its SHUTDOWN or RST are seen;
 *   - the receiver got every byte.
 * Output: the packet counts by operation, then PASS or FAIL.  Exit 0 on
 * PASS, 1 on FAIL, 2 on bad usage.  Run it only in a lab guest.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <net/if.h>
#include <poll.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <unistd.h>
#include <linux/if_ether.h>
#include <linux/if_link.h>
#include <linux/if_packet.h>
#include <linux/netlink.h>
#include <linux/rtnetlink.h>
#include <linux/virtio_vsock.h>
#include <linux/vm_sockets.h>
#include <linux/vsockmon.h>

#include "byte_pattern.h"

#define SALT 0x3c

#define IFNAME "vsockmon0"

/* RTM_NEWLINK kind "vsockmon"; EEXIST is fine. */
static int create_vsockmon(void)
{
	struct {
		struct nlmsghdr nh;
		struct ifinfomsg ifi;
		char attrs[128];
	} req = { 0 };
	struct sockaddr_nl sa = { .nl_family = AF_NETLINK };
	struct rtattr *rta, *info;
	char reply[512];
	int fd, ret = -1;
	ssize_t n;

	req.nh.nlmsg_len = NLMSG_LENGTH(sizeof(req.ifi));
	req.nh.nlmsg_type = RTM_NEWLINK;
	req.nh.nlmsg_flags = NLM_F_REQUEST | NLM_F_CREATE | NLM_F_EXCL |
			     NLM_F_ACK;
	req.ifi.ifi_family = AF_UNSPEC;

	rta = (struct rtattr *)((char *)&req + NLMSG_ALIGN(req.nh.nlmsg_len));
	rta->rta_type = IFLA_IFNAME;
	rta->rta_len = RTA_LENGTH(sizeof(IFNAME));
	memcpy(RTA_DATA(rta), IFNAME, sizeof(IFNAME));
	req.nh.nlmsg_len = NLMSG_ALIGN(req.nh.nlmsg_len) + RTA_ALIGN(rta->rta_len);

	info = (struct rtattr *)((char *)&req + req.nh.nlmsg_len);
	info->rta_type = IFLA_LINKINFO;
	rta = RTA_DATA(info);
	rta->rta_type = IFLA_INFO_KIND;
	rta->rta_len = RTA_LENGTH(sizeof("vsockmon"));
	memcpy(RTA_DATA(rta), "vsockmon", sizeof("vsockmon"));
	info->rta_len = RTA_LENGTH(RTA_ALIGN(rta->rta_len));
	req.nh.nlmsg_len += RTA_ALIGN(info->rta_len);

	fd = socket(AF_NETLINK, SOCK_RAW, NETLINK_ROUTE);
	if (fd < 0)
		return -1;
	if (sendto(fd, &req, req.nh.nlmsg_len, 0, (struct sockaddr *)&sa,
		   sizeof(sa)) < 0)
		goto out;
	n = recv(fd, reply, sizeof(reply), 0);
	if (n >= (ssize_t)NLMSG_LENGTH(sizeof(struct nlmsgerr))) {
		struct nlmsghdr *h = (struct nlmsghdr *)reply;
		struct nlmsgerr *e = NLMSG_DATA(h);

		if (h->nlmsg_type == NLMSG_ERROR &&
		    (e->error == 0 || e->error == -EEXIST))
			ret = 0;
		else if (h->nlmsg_type == NLMSG_ERROR)
			errno = -e->error;
	}
out:
	close(fd);
	return ret;
}

static int link_up(int *ifindex)
{
	struct ifreq ifr = { 0 };
	int fd = socket(AF_INET, SOCK_DGRAM, 0), ret = -1;

	if (fd < 0)
		return -1;
	strcpy(ifr.ifr_name, IFNAME);
	if (ioctl(fd, SIOCGIFFLAGS, &ifr))
		goto out;
	ifr.ifr_flags |= IFF_UP;
	if (ioctl(fd, SIOCSIFFLAGS, &ifr))
		goto out;
	*ifindex = if_nametoindex(IFNAME);
	ret = *ifindex ? 0 : -1;
out:
	close(fd);
	return ret;
}

struct cap {
	int fd;
	unsigned int port;	/* the listener's port: data flows to it */
	_Atomic bool stop;
	uint64_t ops[8];	/* by virtio op */
	uint64_t rw_pkts, rw_bytes, max_rw, other_dir_rw, malformed;
	uint64_t mismatch_at;	/* first wrong stream byte + 1, 0 = none */
};

static void *capture(void *arg)
{
	struct cap *c = arg;
	static uint8_t frame[65536 + 512];

	while (!c->stop) {
		struct pollfd p = { .fd = c->fd, .events = POLLIN };
		const struct af_vsockmon_hdr *mh;
		const struct virtio_vsock_hdr *vh;
		uint32_t len, i;
		ssize_t n;

		if (poll(&p, 1, 100) <= 0)
			continue;
		n = recv(c->fd, frame, sizeof(frame), MSG_DONTWAIT);
		if (n < 0)
			continue;
		mh = (const void *)frame;
		vh = (const void *)(frame + sizeof(*mh));
		if ((size_t)n < sizeof(*mh) + sizeof(*vh) ||
		    le16toh(mh->len) != sizeof(*vh) ||
		    le16toh(mh->transport) != AF_VSOCK_TRANSPORT_VIRTIO) {
			c->malformed++;
			continue;
		}
		if (le32toh(vh->src_port) != c->port &&
		    le32toh(vh->dst_port) != c->port)
			continue;	/* another connection */
		len = le32toh(vh->len);
		if ((size_t)n != sizeof(*mh) + sizeof(*vh) + len) {
			c->malformed++;
			continue;
		}
		if (le16toh(vh->op) < 8)
			c->ops[le16toh(vh->op)]++;
		if (le16toh(vh->op) != VIRTIO_VSOCK_OP_RW)
			continue;
		if (le32toh(vh->dst_port) != c->port) {
			c->other_dir_rw++;
			continue;
		}
		i = byte_pattern_check(frame + sizeof(*mh) + sizeof(*vh), len,
				       c->rw_bytes, SALT);
		if (i < len && !c->mismatch_at)
			c->mismatch_at = c->rw_bytes + i + 1;
		c->rw_pkts++;
		c->rw_bytes += len;
		if (len > c->max_rw)
			c->max_rw = len;
	}
	return NULL;
}

struct xfer {
	unsigned int port;
	uint64_t bytes;
	size_t write_size;
	uint64_t writes, sent, received;
	int err;
	char what[64];
};

static void *sender(void *arg)
{
	struct xfer *x = arg;
	struct sockaddr_vm sa = { .svm_family = AF_VSOCK,
				  .svm_cid = VMADDR_CID_LOCAL,
				  .svm_port = x->port };
	uint8_t *buf = malloc(x->write_size);
	int fd = socket(AF_VSOCK, SOCK_STREAM, 0);

	if (!buf || fd < 0 || connect(fd, (struct sockaddr *)&sa, sizeof(sa))) {
		x->err = errno;
		snprintf(x->what, sizeof(x->what), "connect");
		goto out;
	}
	while (x->sent < x->bytes) {
		size_t n = x->write_size;
		ssize_t w;

		if (n > x->bytes - x->sent)
			n = x->bytes - x->sent;
		byte_pattern_fill(buf, n, x->sent, SALT);
		w = send(fd, buf, n, MSG_NOSIGNAL);
		if (w < 0) {
			x->err = errno;
			snprintf(x->what, sizeof(x->what), "send");
			break;
		}
		x->sent += w;
		x->writes++;
	}
out:
	if (fd >= 0)
		close(fd);
	free(buf);
	return NULL;
}

int main(int argc, char **argv)
{
	static const struct option lo[] = {
		{ "bytes", required_argument, NULL, 'b' },
		{ "write", required_argument, NULL, 'w' },
		{ "port", required_argument, NULL, 'p' },
		{ 0 }
	};
	static const char *opname[8] = { "invalid", "request", "response",
		"rst", "shutdown", "rw", "credit_update", "credit_request" };
	struct xfer x = { .port = 5500, .bytes = 1 << 20, .write_size = 64 };
	struct sockaddr_vm sa = { .svm_family = AF_VSOCK,
				  .svm_cid = VMADDR_CID_ANY };
	struct tpacket_stats st = { 0 };
	socklen_t stlen = sizeof(st);
	struct sockaddr_ll ll = { 0 };
	struct timeval tv = { .tv_sec = 30 };
	static uint8_t buf[65536];
	struct cap c = { 0 };
	pthread_t ct, tt;
	int ifindex, lfd, cfd, rcvbuf = 32 << 20, i, c2;
	char *end, fail[160] = "";

	while ((c2 = getopt_long(argc, argv, "", lo, NULL)) != -1) {
		unsigned long long v;

		if (c2 == '?')
			return 2;
		v = strtoull(optarg, &end, 10);
		if (*end || !v || (c2 == 'w' && v > 65536) ||
		    (c2 == 'p' && v > 0xfffffff0u)) {
			fprintf(stderr, "vsock-tap: bad value '%s'\n", optarg);
			return 2;
		}
		if (c2 == 'b')
			x.bytes = v;
		else if (c2 == 'w')
			x.write_size = v;
		else
			x.port = v;
	}
	if (optind != argc) {
		fprintf(stderr, "usage: vsock-tap [--bytes N] [--write N] [--port P]\n");
		return 2;
	}

	if (create_vsockmon() || link_up(&ifindex)) {
		fprintf(stderr, "vsock-tap: cannot set up %s: %s\n", IFNAME,
			strerror(errno));
		return 1;
	}
	c.fd = socket(AF_PACKET, SOCK_RAW, htons(ETH_P_ALL));
	ll.sll_family = AF_PACKET;
	ll.sll_protocol = htons(ETH_P_ALL);
	ll.sll_ifindex = ifindex;
	if (c.fd < 0 || bind(c.fd, (struct sockaddr *)&ll, sizeof(ll))) {
		fprintf(stderr, "vsock-tap: AF_PACKET on %s: %s\n", IFNAME,
			strerror(errno));
		return 1;
	}
	setsockopt(c.fd, SOL_SOCKET, SO_RCVBUFFORCE, &rcvbuf, sizeof(rcvbuf));
	/* Reset the counters: only drops during the transfer count. */
	getsockopt(c.fd, SOL_PACKET, PACKET_STATISTICS, &st, &stlen);
	c.port = x.port;
	if (pthread_create(&ct, NULL, capture, &c))
		return 1;

	sa.svm_port = x.port;
	lfd = socket(AF_VSOCK, SOCK_STREAM, 0);
	if (lfd < 0 || bind(lfd, (struct sockaddr *)&sa, sizeof(sa)) ||
	    listen(lfd, 1)) {
		fprintf(stderr, "vsock-tap: listen: %s\n", strerror(errno));
		return 1;
	}
	if (pthread_create(&tt, NULL, sender, &x))
		return 1;
	cfd = accept(lfd, NULL, NULL);
	if (cfd < 0 || setsockopt(cfd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv))) {
		fprintf(stderr, "vsock-tap: accept: %s\n", strerror(errno));
		return 1;
	}
	for (;;) {
		ssize_t r = recv(cfd, buf, sizeof(buf), 0);

		if (r <= 0) {
			if (r < 0)
				snprintf(fail, sizeof(fail),
					 "recv: %s after %" PRIu64 " bytes",
					 strerror(errno), x.received);
			break;
		}
		x.received += r;
	}
	close(cfd);
	close(lfd);
	pthread_join(tt, NULL);
	/* Let the last packets (SHUTDOWN/RST of the close) reach the tap. */
	usleep(500 * 1000);
	c.stop = true;
	pthread_join(ct, NULL);
	stlen = sizeof(st);
	getsockopt(c.fd, SOL_PACKET, PACKET_STATISTICS, &st, &stlen);

	printf("sent %" PRIu64 " bytes in %" PRIu64 " writes of %zu, received %"
	       PRIu64 "; captured:", x.sent, x.writes, x.write_size, x.received);
	for (i = 1; i < 8; i++)
		printf(" %s=%" PRIu64, opname[i], c.ops[i]);
	printf("; data rw %" PRIu64 " packets %" PRIu64 " bytes (largest %" PRIu64
	       "), reverse rw %" PRIu64 ", malformed %" PRIu64 ", dropped %u\n",
	       c.rw_pkts, c.rw_bytes, c.max_rw, c.other_dir_rw, c.malformed,
	       st.tp_drops);

	if (fail[0])
		;
	else if (x.err)
		snprintf(fail, sizeof(fail), "sender %s: %s", x.what,
			 strerror(x.err));
	else if (st.tp_drops)
		snprintf(fail, sizeof(fail), "the capture dropped %u packets",
			 st.tp_drops);
	else if (c.malformed)
		snprintf(fail, sizeof(fail), "%" PRIu64 " malformed captured packets",
			 c.malformed);
	else if (x.received != x.sent)
		snprintf(fail, sizeof(fail), "received %" PRIu64 " of %" PRIu64,
			 x.received, x.sent);
	else if (c.mismatch_at)
		snprintf(fail, sizeof(fail),
			 "captured stream differs from the sent one at byte %" PRIu64,
			 c.mismatch_at - 1);
	else if (c.rw_bytes != x.sent)
		snprintf(fail, sizeof(fail),
			 "captured %" PRIu64 " payload bytes of %" PRIu64 " sent",
			 c.rw_bytes, x.sent);
	else if (c.max_rw > x.write_size || c.rw_pkts < x.writes)
		snprintf(fail, sizeof(fail),
			 "%" PRIu64 " rw packets (largest %" PRIu64 ") for %" PRIu64
			 " writes of %zu", c.rw_pkts, c.max_rw, x.writes,
			 x.write_size);
	else if (!c.ops[VIRTIO_VSOCK_OP_REQUEST] ||
		 !c.ops[VIRTIO_VSOCK_OP_RESPONSE] ||
		 !(c.ops[VIRTIO_VSOCK_OP_SHUTDOWN] + c.ops[VIRTIO_VSOCK_OP_RST]))
		snprintf(fail, sizeof(fail),
			 "connection setup or teardown missing from the capture");
	if (fail[0]) {
		printf("FAIL %s\n", fail);
		return 1;
	}
	printf("PASS the capture saw every packet as sent\n");
	return 0;
}
