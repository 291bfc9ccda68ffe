// SPDX-License-Identifier: GPL-2.0
/*
 * bench_vsock.c - AF_VSOCK sockets for tools/bench/ (guest use only), and
 * the TCP ones of --tcp.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <linux/vm_sockets.h>

#include "bench_util.h"
#include "bench_vsock.h"

int bench_vsock_set_buffer(int fd, uint64_t size, uint64_t *effective)
{
	unsigned long long v = size;

	if (setsockopt(fd, AF_VSOCK, SO_VM_SOCKETS_BUFFER_MAX_SIZE, &v, sizeof(v)))
		return -errno;
	if (setsockopt(fd, AF_VSOCK, SO_VM_SOCKETS_BUFFER_SIZE, &v, sizeof(v)))
		return -errno;
	if (effective)
		return bench_vsock_get_buffer(fd, effective);
	return 0;
}

int bench_vsock_get_buffer(int fd, uint64_t *size)
{
	unsigned long long v = 0;
	socklen_t len = sizeof(v);

	if (getsockopt(fd, AF_VSOCK, SO_VM_SOCKETS_BUFFER_SIZE, &v, &len))
		return -errno;
	*size = v;
	return 0;
}

int bench_set_rcvlowat(int fd, uint64_t bytes)
{
	int v;

	if (bytes > (uint64_t)INT32_MAX)
		return -ERANGE;
	v = (int)bytes;
	if (setsockopt(fd, SOL_SOCKET, SO_RCVLOWAT, &v, sizeof(v)))
		return -errno;
	return 0;
}

int bench_vsock_listen(int type, unsigned int port, uint64_t vsk_size)
{
	struct sockaddr_vm addr;
	int fd, err;

	fd = socket(AF_VSOCK, type | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return -errno;
	memset(&addr, 0, sizeof(addr));
	addr.svm_family = AF_VSOCK;
	addr.svm_cid = VMADDR_CID_ANY;
	addr.svm_port = port;
	if (vsk_size) {
		err = bench_vsock_set_buffer(fd, vsk_size, NULL);
		if (err)
			goto fail;
	}
	if (bind(fd, (struct sockaddr *)&addr, sizeof(addr)) ||
	    listen(fd, 1)) {
		err = -errno;
		goto fail;
	}
	return fd;
fail:
	close(fd);
	return err;
}

int bench_vsock_accept(int lfd)
{
	int fd;

	do
		fd = accept4(lfd, NULL, NULL, SOCK_CLOEXEC);
	while (fd < 0 && errno == EINTR);
	return fd < 0 ? -errno : fd;
}

int bench_vsock_connect(int type, unsigned int cid, unsigned int port,
			unsigned int src_port, uint64_t vsk_size,
			double retry_s)
{
	struct sockaddr_vm local = {
		.svm_family = AF_VSOCK,
		.svm_cid = VMADDR_CID_ANY,
		.svm_port = src_port,
	};
	const struct timespec pause = { .tv_nsec = 20 * 1000 * 1000 };
	uint64_t deadline = bench_now_ns() + (uint64_t)(retry_s * 1e9);
	struct sockaddr_vm addr;
	int fd, err;

	memset(&addr, 0, sizeof(addr));
	addr.svm_family = AF_VSOCK;
	addr.svm_cid = cid;
	addr.svm_port = port;
	for (;;) {
		fd = socket(AF_VSOCK, type | SOCK_CLOEXEC, 0);
		if (fd < 0)
			return -errno;
		if (vsk_size) {
			err = bench_vsock_set_buffer(fd, vsk_size, NULL);
			if (err)
				break;
		}
		if (src_port != VMADDR_PORT_ANY &&
		    bind(fd, (struct sockaddr *)&local, sizeof(local))) {
			err = -errno;
			break;
		}
		if (!connect(fd, (struct sockaddr *)&addr, sizeof(addr)))
			return fd;
		err = -errno;
		if ((err != -ECONNREFUSED && err != -ECONNRESET && err != -EINTR) ||
		    bench_now_ns() >= deadline)
			break;
		close(fd);
		nanosleep(&pause, NULL);
	}
	close(fd);
	return err;
}

int bench_tcp_listen(uint32_t addr, unsigned int port)
{
	struct sockaddr_in sin = {
		.sin_family = AF_INET,
		.sin_port = htons((uint16_t)port),
		.sin_addr.s_addr = addr,
	};
	int fd, one = 1, err;

	if (port > UINT16_MAX)
		return -ERANGE;
	fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return -errno;
	if (setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one)) ||
	    bind(fd, (struct sockaddr *)&sin, sizeof(sin)) || listen(fd, 1)) {
		err = -errno;
		close(fd);
		return err;
	}
	return fd;
}

int bench_tcp_connect(uint32_t addr, unsigned int port, double retry_s)
{
	const struct timespec pause = { .tv_nsec = 20 * 1000 * 1000 };
	uint64_t deadline = bench_now_ns() + (uint64_t)(retry_s * 1e9);
	struct sockaddr_in sin = {
		.sin_family = AF_INET,
		.sin_port = htons((uint16_t)port),
		.sin_addr.s_addr = addr,
	};
	int fd, err;

	if (port > UINT16_MAX)
		return -ERANGE;
	for (;;) {
		fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
		if (fd < 0)
			return -errno;
		if (!connect(fd, (struct sockaddr *)&sin, sizeof(sin)))
			return fd;
		err = -errno;
		close(fd);
		if ((err != -ECONNREFUSED && err != -EINTR) ||
		    bench_now_ns() >= deadline)
			return err;
		nanosleep(&pause, NULL);
	}
}

int bench_send_all(int fd, const void *buf, size_t len, uint64_t *calls,
		   uint64_t *ns_in_send)
{
	const char *p = buf;

	while (len) {
		uint64_t t0 = ns_in_send ? bench_now_ns() : 0;
		ssize_t n = send(fd, p, len, MSG_NOSIGNAL);

		if (ns_in_send)
			*ns_in_send += bench_now_ns() - t0;
		if (n < 0) {
			if (errno == EINTR)
				continue;
			return -errno;
		}
		if (calls)
			(*calls)++;
		p += n;
		len -= (size_t)n;
	}
	return 0;
}

int bench_recv_exact(int fd, void *buf, size_t len)
{
	char *p = buf;

	while (len) {
		ssize_t n = recv(fd, p, len, 0);

		if (n < 0) {
			if (errno == EINTR)
				continue;
			return -errno;
		}
		if (n == 0)
			return -ECONNRESET;
		p += n;
		len -= (size_t)n;
	}
	return 0;
}

int bench_vsock_type(const struct bench_args *a)
{
	return a->seqpacket ? SOCK_SEQPACKET : SOCK_STREAM;
}

ssize_t bench_recv_msg(int fd, void *buf, size_t size)
{
	struct iovec iov = { .iov_base = buf, .iov_len = size };
	struct msghdr msg = { .msg_iov = &iov, .msg_iovlen = 1 };
	ssize_t n = recvmsg(fd, &msg, 0);

	if (n > 0 && (msg.msg_flags & MSG_TRUNC)) {
		errno = EMSGSIZE;
		return -1;
	}
	return n;
}

int bench_sock_listen_report(const struct bench_args *a)
{
	int lfd = a->tcp ? bench_tcp_listen(a->tcp_addr, (unsigned int)a->port) :
		  bench_vsock_listen(bench_vsock_type(a), (unsigned int)a->port,
				     a->vsk_size);

	if (lfd < 0)
		fprintf(stderr, "%s: listen on %s port %llu: %s\n", a->prog,
			bench_transport_name(a), (unsigned long long)a->port,
			strerror(-lfd));
	return lfd;
}

int bench_sock_accept_report(const char *prog, int lfd)
{
	int fd = bench_vsock_accept(lfd);

	if (fd < 0)
		fprintf(stderr, "%s: accept: %s\n", prog, strerror(-fd));
	return fd;
}

int bench_sock_connect_report(const struct bench_args *a, uint64_t cid)
{
	char peer[INET_ADDRSTRLEN + 24];
	int fd;

	if (a->tcp) {
		fd = bench_tcp_connect(a->tcp_addr, (unsigned int)a->port, a->retry);
		inet_ntop(AF_INET, &a->tcp_addr, peer, sizeof(peer));
		snprintf(peer + strlen(peer), sizeof(peer) - strlen(peer), ":%llu (tcp)",
			 (unsigned long long)a->port);
	} else {
		fd = bench_vsock_connect(bench_vsock_type(a), (unsigned int)cid,
					 (unsigned int)a->port, a->src_port,
					 a->vsk_size, a->retry);
		snprintf(peer, sizeof(peer), "%llu:%llu", (unsigned long long)cid,
			 (unsigned long long)a->port);
	}
	if (fd < 0)
		fprintf(stderr, "%s: connect to %s: %s\n", a->prog, peer, strerror(-fd));
	return fd;
}

int bench_sock_buffer_report(const struct bench_args *a, int fd, uint64_t *size)
{
	int err, v = 0;
	socklen_t len = sizeof(v);

	if (!a->tcp) {
		err = bench_vsock_get_buffer(fd, size);
		if (err)
			fprintf(stderr, "%s: getsockopt(SO_VM_SOCKETS_BUFFER_SIZE): %s\n",
				a->prog, strerror(-err));
		return err;
	}
	if (getsockopt(fd, SOL_SOCKET, SO_RCVBUF, &v, &len)) {
		err = -errno;
		fprintf(stderr, "%s: getsockopt(SO_RCVBUF): %s\n", a->prog,
			strerror(-err));
		return err;
	}
	*size = (uint64_t)v;
	return 0;
}
