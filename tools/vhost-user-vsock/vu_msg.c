// SPDX-License-Identifier: GPL-2.0
/*
 * vhost-user message parser: framing and payload validation only; what a
 * valid message means for the device is vu_dev.c's business.
 */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "vu_msg.h"

static const char *const names[VU_REQUEST_MAX] = {
	[VU_GET_FEATURES] = "GET_FEATURES",
	[VU_SET_FEATURES] = "SET_FEATURES",
	[VU_SET_OWNER] = "SET_OWNER",
	[VU_RESET_OWNER] = "RESET_OWNER",
	[VU_SET_MEM_TABLE] = "SET_MEM_TABLE",
	[VU_SET_LOG_BASE] = "SET_LOG_BASE",
	[VU_SET_LOG_FD] = "SET_LOG_FD",
	[VU_SET_VRING_NUM] = "SET_VRING_NUM",
	[VU_SET_VRING_ADDR] = "SET_VRING_ADDR",
	[VU_SET_VRING_BASE] = "SET_VRING_BASE",
	[VU_GET_VRING_BASE] = "GET_VRING_BASE",
	[VU_SET_VRING_KICK] = "SET_VRING_KICK",
	[VU_SET_VRING_CALL] = "SET_VRING_CALL",
	[VU_SET_VRING_ERR] = "SET_VRING_ERR",
	[VU_GET_PROTOCOL_FEATURES] = "GET_PROTOCOL_FEATURES",
	[VU_SET_PROTOCOL_FEATURES] = "SET_PROTOCOL_FEATURES",
	[VU_GET_QUEUE_NUM] = "GET_QUEUE_NUM",
	[VU_SET_VRING_ENABLE] = "SET_VRING_ENABLE",
	[VU_GET_CONFIG] = "GET_CONFIG",
	[VU_SET_CONFIG] = "SET_CONFIG",
};

/* Payload kind per request; requests not listed are refused. */
static const enum vu_payload_kind kinds[VU_REQUEST_MAX] = {
	[VU_GET_FEATURES] = VU_P_NONE,
	[VU_SET_FEATURES] = VU_P_U64,
	[VU_SET_OWNER] = VU_P_NONE,
	[VU_RESET_OWNER] = VU_P_NONE,
	[VU_SET_MEM_TABLE] = VU_P_MEM,
	[VU_SET_VRING_NUM] = VU_P_STATE,
	[VU_SET_VRING_ADDR] = VU_P_ADDR,
	[VU_SET_VRING_BASE] = VU_P_STATE,
	[VU_GET_VRING_BASE] = VU_P_STATE,
	[VU_SET_VRING_KICK] = VU_P_FDIDX,
	[VU_SET_VRING_CALL] = VU_P_FDIDX,
	[VU_SET_VRING_ERR] = VU_P_FDIDX,
	[VU_GET_PROTOCOL_FEATURES] = VU_P_NONE,
	[VU_SET_PROTOCOL_FEATURES] = VU_P_U64,
	[VU_GET_QUEUE_NUM] = VU_P_NONE,
	[VU_SET_VRING_ENABLE] = VU_P_STATE,
	[VU_GET_CONFIG] = VU_P_CONFIG,
	[VU_SET_CONFIG] = VU_P_CONFIG,
};

const char *vu_request_name(uint32_t request)
{
	if (request < VU_REQUEST_MAX && names[request])
		return names[request];
	return "unknown";
}

static int refuse(char *why, size_t whylen, const char *fmt, ...)
{
	va_list ap;

	if (why && whylen) {
		va_start(ap, fmt);
		vsnprintf(why, whylen, fmt, ap);
		va_end(ap);
	}
	return -1;
}

int vu_hdr_parse(const uint8_t *buf, size_t len, struct vu_msg *m,
		 char *why, size_t whylen)
{
	memset(m, 0, sizeof(*m));
	if (len < VU_HDR_SIZE)
		return refuse(why, whylen, "short header: %zu bytes", len);
	m->request = vu_le32(buf);
	m->flags = vu_le32(buf + 4);
	m->size = vu_le32(buf + 8);
	if ((m->flags & VU_FLAG_VERSION_MASK) != VU_VERSION)
		return refuse(why, whylen, "request %u: version %u, want %u",
			      m->request, m->flags & VU_FLAG_VERSION_MASK,
			      VU_VERSION);
	if (m->flags & VU_FLAG_REPLY)
		return refuse(why, whylen, "request %u: reply flag set on a request",
			      m->request);
	if (m->request >= VU_REQUEST_MAX || !names[m->request] ||
	    m->request == VU_SET_LOG_BASE || m->request == VU_SET_LOG_FD)
		return refuse(why, whylen, "request %u (%s) not supported",
			      m->request, vu_request_name(m->request));
	if (m->size > VU_MAX_PAYLOAD)
		return refuse(why, whylen, "%s: payload size %u > %u",
			      vu_request_name(m->request), m->size,
			      VU_MAX_PAYLOAD);
	m->kind = kinds[m->request];
	return 0;
}

unsigned int vu_msg_fds_expected(const struct vu_msg *m)
{
	switch (m->kind) {
	case VU_P_MEM:
		return m->mem.nregions;
	case VU_P_FDIDX:
		return m->fdidx.nofd ? 0 : 1;
	default:
		return 0;
	}
}

int vu_msg_parse(const uint8_t *buf, size_t len, unsigned int nfds,
		 struct vu_msg *m, char *why, size_t whylen)
{
	const uint8_t *p = buf + VU_HDR_SIZE;
	const char *name;
	uint32_t i, n;

	if (vu_hdr_parse(buf, len, m, why, whylen))
		return -1;
	name = vu_request_name(m->request);
	if (len - VU_HDR_SIZE != m->size)
		return refuse(why, whylen, "%s: header says %u payload bytes, got %zu",
			      name, m->size, len - VU_HDR_SIZE);

	switch (m->kind) {
	case VU_P_NONE:
		/* QEMU sends GET_* with an empty payload; tolerate a u64. */
		if (m->size != 0 && m->size != 8)
			return refuse(why, whylen, "%s: payload %u bytes, want 0",
				      name, m->size);
		break;
	case VU_P_U64:
		if (m->size != 8)
			return refuse(why, whylen, "%s: payload %u bytes, want 8",
				      name, m->size);
		m->u64 = vu_le64(p);
		break;
	case VU_P_FDIDX:
		if (m->size != 8)
			return refuse(why, whylen, "%s: payload %u bytes, want 8",
				      name, m->size);
		m->u64 = vu_le64(p);
		if (m->u64 & ~(VU_VRING_IDX_MASK | VU_VRING_NOFD))
			return refuse(why, whylen, "%s: unknown bits in 0x%llx",
				      name, (unsigned long long)m->u64);
		{
			/* fdidx shares storage with u64: decode from a copy. */
			uint64_t v = m->u64;

			m->fdidx.index = (uint32_t)(v & VU_VRING_IDX_MASK);
			m->fdidx.nofd = !!(v & VU_VRING_NOFD);
		}
		break;
	case VU_P_STATE:
		if (m->size != 8)
			return refuse(why, whylen, "%s: payload %u bytes, want 8",
				      name, m->size);
		m->state.index = vu_le32(p);
		m->state.num = vu_le32(p + 4);
		break;
	case VU_P_ADDR:
		if (m->size != 40)
			return refuse(why, whylen, "%s: payload %u bytes, want 40",
				      name, m->size);
		m->addr.index = vu_le32(p);
		m->addr.flags = vu_le32(p + 4);
		m->addr.desc = vu_le64(p + 8);
		m->addr.used = vu_le64(p + 16);
		m->addr.avail = vu_le64(p + 24);
		m->addr.log = vu_le64(p + 32);
		break;
	case VU_P_MEM:
		if (m->size < 8)
			return refuse(why, whylen, "%s: payload %u bytes, want >= 8",
				      name, m->size);
		n = vu_le32(p);
		if (n == 0 || n > VU_MAX_MEM_REGIONS)
			return refuse(why, whylen, "%s: %u regions (1..%u)",
				      name, n, VU_MAX_MEM_REGIONS);
		/* QEMU sends only the regions in use; accept the full array too. */
		if (m->size < 8 + n * 32 || m->size > 8 + VU_MAX_MEM_REGIONS * 32)
			return refuse(why, whylen, "%s: payload %u bytes for %u regions",
				      name, m->size, n);
		m->mem.nregions = n;
		for (i = 0; i < n; i++) {
			const uint8_t *r = p + 8 + i * 32;
			struct vu_mem_region *mr = &m->mem.r[i];

			mr->guest_phys_addr = vu_le64(r);
			mr->memory_size = vu_le64(r + 8);
			mr->userspace_addr = vu_le64(r + 16);
			mr->mmap_offset = vu_le64(r + 24);
			if (mr->memory_size == 0)
				return refuse(why, whylen, "%s: region %u is empty",
					      name, i);
			if (mr->guest_phys_addr + mr->memory_size < mr->guest_phys_addr ||
			    mr->userspace_addr + mr->memory_size < mr->userspace_addr ||
			    mr->mmap_offset + mr->memory_size < mr->mmap_offset)
				return refuse(why, whylen, "%s: region %u wraps around",
					      name, i);
		}
		break;
	case VU_P_CONFIG:
		if (m->size < VU_CONFIG_HDR_SIZE)
			return refuse(why, whylen, "%s: payload %u bytes, want >= %u",
				      name, m->size, VU_CONFIG_HDR_SIZE);
		m->config.offset = vu_le32(p);
		m->config.size = vu_le32(p + 4);
		m->config.flags = vu_le32(p + 8);
		if (m->config.size > VU_CONFIG_MAX ||
		    m->config.size != m->size - VU_CONFIG_HDR_SIZE)
			return refuse(why, whylen, "%s: config size %u in a %u-byte payload",
				      name, m->config.size, m->size);
		memcpy(m->config.region, p + VU_CONFIG_HDR_SIZE, m->config.size);
		break;
	}
	if (nfds != vu_msg_fds_expected(m))
		return refuse(why, whylen, "%s: %u fds attached, want %u",
			      name, nfds, vu_msg_fds_expected(m));
	return 0;
}

static size_t put_hdr(uint8_t *out, uint32_t request, uint32_t size)
{
	vu_put32(out, request);
	vu_put32(out + 4, VU_VERSION | VU_FLAG_REPLY);
	vu_put32(out + 8, size);
	return VU_HDR_SIZE;
}

size_t vu_reply_u64(uint8_t *out, uint32_t request, uint64_t v)
{
	size_t n = put_hdr(out, request, 8);

	vu_put64(out + n, v);
	return n + 8;
}

size_t vu_reply_state(uint8_t *out, uint32_t request, uint32_t index,
		      uint32_t num)
{
	size_t n = put_hdr(out, request, 8);

	vu_put32(out + n, index);
	vu_put32(out + n + 4, num);
	return n + 8;
}

size_t vu_reply_config(uint8_t *out, uint32_t offset, uint32_t size,
		       uint32_t flags, const uint8_t *data)
{
	size_t n = put_hdr(out, VU_GET_CONFIG, VU_CONFIG_HDR_SIZE + size);

	vu_put32(out + n, offset);
	vu_put32(out + n + 4, size);
	vu_put32(out + n + 8, flags);
	memcpy(out + n + VU_CONFIG_HDR_SIZE, data, size);
	return n + VU_CONFIG_HDR_SIZE + size;
}
