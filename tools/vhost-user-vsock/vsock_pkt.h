/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The virtio-vsock packet header (virtio spec 5.10.6, all little endian)
 * and iovec helpers for packets that sit in guest buffers.
 */
#ifndef VSOCK_PKT_H
#define VSOCK_PKT_H

#include <stddef.h>
#include <stdint.h>
#include <sys/uio.h>

#define VSOCK_HDR_SIZE		44u
#define VSOCK_HOST_CID		2u
#define VSOCK_TYPE_STREAM	1u
#define VSOCK_PORT_ANY		0xffffffffu	/* VMADDR_PORT_ANY */

enum vsock_op {
	VSOCK_OP_INVALID = 0,
	VSOCK_OP_REQUEST = 1,
	VSOCK_OP_RESPONSE = 2,
	VSOCK_OP_RST = 3,
	VSOCK_OP_SHUTDOWN = 4,
	VSOCK_OP_RW = 5,
	VSOCK_OP_CREDIT_UPDATE = 6,
	VSOCK_OP_CREDIT_REQUEST = 7,
};

#define VSOCK_SHUTDOWN_RCV	1u
#define VSOCK_SHUTDOWN_SEND	2u

struct vsock_hdr {
	uint64_t src_cid, dst_cid;
	uint32_t src_port, dst_port;
	uint32_t len;
	uint16_t type, op;
	uint32_t flags;
	uint32_t buf_alloc, fwd_cnt;
};

/*
 * A host endpoint's request line, without its '\n': "CONNECT <port>", or
 * the lab's extension "CONNECT <port> <max>" where max (1..65536) caps the
 * payload of each packet this connection sends to the guest.  A host Unix
 * socket is a byte stream, so a sender's write size is lost on the way in;
 * vhost-vsock turns each host write into one packet, and a sender that
 * announces its write size here gets the same packets.  Returns 0 (with
 * *max = 0 when not given) or -1 if the line is malformed or names port 0
 * or VMADDR_PORT_ANY.
 */
int vsock_parse_connect(const char *line, uint32_t *port, uint32_t *max);

void vsock_hdr_encode(const struct vsock_hdr *h, uint8_t out[VSOCK_HDR_SIZE]);
void vsock_hdr_decode(const uint8_t in[VSOCK_HDR_SIZE], struct vsock_hdr *h);
const char *vsock_op_name(uint16_t op);

/* Copy @len bytes at offset @off of the iovec list into @dst; -1 if short. */
int iov_copy_out(const struct iovec *iov, unsigned int niov, size_t off,
		 void *dst, size_t len);
/* Copy @len bytes from @src to offset @off of the iovec list; -1 if short. */
int iov_copy_in(const struct iovec *iov, unsigned int niov, size_t off,
		const void *src, size_t len);
/*
 * The sub-list of bytes [@off, @off + @len) (clamped to what exists) in
 * @out (room for @max); returns its length in entries.
 */
unsigned int iov_slice(const struct iovec *iov, unsigned int niov, size_t off,
		       size_t len, struct iovec *out, unsigned int max);

#endif
