/* SPDX-License-Identifier: GPL-2.0 */
/*
 * bench_vsock.h - AF_VSOCK plumbing for the benchmark programs, and the
 * TCP sockets of their --tcp mode (the same transfers over TCP, so that a
 * vsock figure sits beside what a user would otherwise pick).
 *
 * Only ever run the vsock ones inside a lab guest: the build host's vsock
 * belongs to the infrastructure.  Every function returns a file
 * descriptor or 0 on success and -errno on failure; the caller prints the
 * one-line reason.
 */
#ifndef VSOCKBATCH_BENCH_VSOCK_H
#define VSOCKBATCH_BENCH_VSOCK_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "bench_util.h"

/* Linux default for SO_VM_SOCKETS_BUFFER_SIZE (and vsock_perf's default). */
#define BENCH_VSK_DEFAULT	(256 * 1024ULL)

/* SOCK_STREAM, or SOCK_SEQPACKET with --seqpacket. */
int bench_vsock_type(const struct bench_args *a);
/*
 * One SOCK_SEQPACKET message into buf: like recv(), but a message longer
 * than size (the kernel dropped its tail, MSG_TRUNC) is an error,
 * EMSGSIZE, not a short count.
 */
ssize_t bench_recv_msg(int fd, void *buf, size_t size);
/* Socket of @type (SOCK_STREAM, SOCK_SEQPACKET) bound to VMADDR_CID_ANY:port,
 * listening (backlog 1).
 * vsk_size (0 = leave the default) is set before listen() so the
 * accepted socket inherits it from its first credit update on. */
int bench_vsock_listen(int type, unsigned int port, uint64_t vsk_size);

/* accept() one connection, restarting on EINTR. */
int bench_vsock_accept(int lfd);

/*
 * Connect to cid:port.  vsk_size as above.  While the peer is not
 * listening yet (ECONNREFUSED/ECONNRESET), retry every 20 ms for up to
 * retry_s seconds: scripts start the receiver in the background and the
 * sender right after, without a race.  src_port: bind the local end to
 * this port first (VMADDR_PORT_ANY: the kernel picks one), so that a
 * test can give two connections the same address pair.
 */
int bench_vsock_connect(int type, unsigned int cid, unsigned int port,
			unsigned int src_port, uint64_t vsk_size,
			double retry_s);

/*
 * Set SO_VM_SOCKETS_BUFFER_MAX_SIZE, then SO_VM_SOCKETS_BUFFER_SIZE (in
 * that order: the kernel clamps the size to the current maximum), and
 * read the effective size back into *effective (may be NULL).
 */
int bench_vsock_set_buffer(int fd, uint64_t size, uint64_t *effective);

/* Current SO_VM_SOCKETS_BUFFER_SIZE. */
int bench_vsock_get_buffer(int fd, uint64_t *size);

/* SO_RCVLOWAT. */
int bench_set_rcvlowat(int fd, uint64_t bytes);

/* TCP stream socket bound to addr:port (IPv4, network order), listening
 * (backlog 1, SO_REUSEADDR: the lab reuses ports across boots). */
int bench_tcp_listen(uint32_t addr, unsigned int port);

/* Connect to addr:port over TCP, retrying like bench_vsock_connect(). */
int bench_tcp_connect(uint32_t addr, unsigned int port, double retry_s);

/* send() all of buf (MSG_NOSIGNAL: a vanished peer is EPIPE, not a
 * silent death), restarting on EINTR and short sends.  *calls counts the
 * send() calls made; *ns_in_send accumulates the time spent inside them
 * (either may be NULL). */
int bench_send_all(int fd, const void *buf, size_t len, uint64_t *calls,
		   uint64_t *ns_in_send);

/* recv() exactly len bytes; -ECONNRESET if the peer closes first. */
int bench_recv_exact(int fd, void *buf, size_t len);

/*
 * The calls the programs' main() makes, with their error line: on failure
 * "PROG: <what>: reason" goes to stderr and the -errno is returned.
 * Listen and connect take the transport (vsock, or TCP with --tcp), port,
 * buffer size and retry from *a; cid is the vsock peer (unused with TCP).
 * The buffer is SO_VM_SOCKETS_BUFFER_SIZE on vsock, SO_RCVBUF on TCP.
 */
int bench_sock_listen_report(const struct bench_args *a);
int bench_sock_accept_report(const char *prog, int lfd);
int bench_sock_connect_report(const struct bench_args *a, uint64_t cid);
int bench_sock_buffer_report(const struct bench_args *a, int fd, uint64_t *size);

#endif /* VSOCKBATCH_BENCH_VSOCK_H */
