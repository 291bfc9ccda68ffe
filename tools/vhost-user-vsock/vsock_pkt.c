// SPDX-License-Identifier: GPL-2.0
/* virtio-vsock header coding and iovec helpers. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "vsock_pkt.h"
#include "vu_msg.h"

void vsock_hdr_encode(const struct vsock_hdr *h, uint8_t out[VSOCK_HDR_SIZE])
{
	vu_put64(out, h->src_cid);
	vu_put64(out + 8, h->dst_cid);
	vu_put32(out + 16, h->src_port);
	vu_put32(out + 20, h->dst_port);
	vu_put32(out + 24, h->len);
	vu_put16(out + 28, h->type);
	vu_put16(out + 30, h->op);
	vu_put32(out + 32, h->flags);
	vu_put32(out + 36, h->buf_alloc);
	vu_put32(out + 40, h->fwd_cnt);
}

void vsock_hdr_decode(const uint8_t in[VSOCK_HDR_SIZE], struct vsock_hdr *h)
{
	h->src_cid = vu_le64(in);
	h->dst_cid = vu_le64(in + 8);
	h->src_port = vu_le32(in + 16);
	h->dst_port = vu_le32(in + 20);
	h->len = vu_le32(in + 24);
	h->type = vu_le16(in + 28);
	h->op = vu_le16(in + 30);
	h->flags = vu_le32(in + 32);
	h->buf_alloc = vu_le32(in + 36);
	h->fwd_cnt = vu_le32(in + 40);
}

const char *vsock_op_name(uint16_t op)
{
	static const char *const n[] = {
		"INVALID", "REQUEST", "RESPONSE", "RST", "SHUTDOWN", "RW",
		"CREDIT_UPDATE", "CREDIT_REQUEST",
	};

	return op < sizeof(n) / sizeof(n[0]) ? n[op] : "unknown";
}

unsigned int iov_slice(const struct iovec *iov, unsigned int niov, size_t off,
		       size_t len, struct iovec *out, unsigned int max)
{
	unsigned int i, n = 0;

	for (i = 0; i < niov && len > 0 && n < max; i++) {
		size_t l = iov[i].iov_len;

		if (off >= l) {
			off -= l;
			continue;
		}
		out[n].iov_base = (uint8_t *)iov[i].iov_base + off;
		out[n].iov_len = l - off < len ? l - off : len;
		len -= out[n].iov_len;
		off = 0;
		n++;
	}
	return n;
}

static int iov_copy(const struct iovec *iov, unsigned int niov, size_t off,
		    uint8_t *p, size_t len, int out)
{
	struct iovec s[64];
	unsigned int n = iov_slice(iov, niov, off, len, s, 64), i;
	size_t done = 0;

	for (i = 0; i < n; i++) {
		if (out)
			memcpy(p + done, s[i].iov_base, s[i].iov_len);
		else
			memcpy(s[i].iov_base, p + done, s[i].iov_len);
		done += s[i].iov_len;
	}
	return done == len ? 0 : -1;
}

int iov_copy_out(const struct iovec *iov, unsigned int niov, size_t off,
		 void *dst, size_t len)
{
	return iov_copy(iov, niov, off, dst, len, 1);
}

int iov_copy_in(const struct iovec *iov, unsigned int niov, size_t off,
		const void *src, size_t len)
{
	return iov_copy(iov, niov, off, (uint8_t *)src, len, 0);
}

/* A decimal number without sign, spaces or leading '+'; -1 if not. */
static int parse_u32(const char *s, const char **end, uint32_t *out)
{
	unsigned long v;
	char *e;

	if (*s < '0' || *s > '9')
		return -1;
	errno = 0;
	v = strtoul(s, &e, 10);
	if (errno || v > UINT32_MAX)
		return -1;
	*out = (uint32_t)v;
	*end = e;
	return 0;
}

int vsock_parse_connect(const char *line, uint32_t *port, uint32_t *max)
{
	const char *p;

	*max = 0;
	if (strncmp(line, "CONNECT ", 8) || parse_u32(line + 8, &p, port))
		return -1;
	/* 0 is reserved; VMADDR_PORT_ANY is what bind() takes, never a peer. */
	if (*port == 0 || *port == VSOCK_PORT_ANY)
		return -1;
	if (!*p)
		return 0;
	if (*p != ' ' || parse_u32(p + 1, &p, max) || *p ||
	    !*max || *max > 65536)
		return -1;
	return 0;
}
