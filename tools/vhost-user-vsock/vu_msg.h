/* SPDX-License-Identifier: GPL-2.0 */
/*
 * vhost-user messages: wire layout and a validating parser.
 *
 * The parser is a pure function of (bytes, number of fds): it checks the
 * header version, the request number, the payload size the request needs
 * and the number of file descriptors that came with it, and decodes the
 * payload into a struct of host-endian fields.  Anything else is refused
 * with a one-line reason.  Semantic checks that need device state (queue
 * index in range, ring size, addresses mapped) are the device's job
 * (vu_dev.c).  Reference: QEMU docs/interop/vhost-user.rst.
 */
#ifndef VU_MSG_H
#define VU_MSG_H

#include <stddef.h>
#include <stdint.h>

enum vu_request {
	VU_GET_FEATURES = 1,
	VU_SET_FEATURES = 2,
	VU_SET_OWNER = 3,
	VU_RESET_OWNER = 4,
	VU_SET_MEM_TABLE = 5,
	VU_SET_LOG_BASE = 6,
	VU_SET_LOG_FD = 7,
	VU_SET_VRING_NUM = 8,
	VU_SET_VRING_ADDR = 9,
	VU_SET_VRING_BASE = 10,
	VU_GET_VRING_BASE = 11,
	VU_SET_VRING_KICK = 12,
	VU_SET_VRING_CALL = 13,
	VU_SET_VRING_ERR = 14,
	VU_GET_PROTOCOL_FEATURES = 15,
	VU_SET_PROTOCOL_FEATURES = 16,
	VU_GET_QUEUE_NUM = 17,
	VU_SET_VRING_ENABLE = 18,
	VU_GET_CONFIG = 24,
	VU_SET_CONFIG = 25,
	VU_REQUEST_MAX = 40,
};

#define VU_HDR_SIZE		12u
#define VU_VERSION		0x1u
#define VU_FLAG_VERSION_MASK	0x3u
#define VU_FLAG_REPLY		0x4u
#define VU_FLAG_NEED_REPLY	0x8u

#define VU_MAX_MEM_REGIONS	8u
#define VU_MAX_FDS		8u
#define VU_CONFIG_HDR_SIZE	12u
#define VU_CONFIG_MAX		256u
/* Largest payload we accept: a config message with a full region. */
#define VU_MAX_PAYLOAD		(VU_CONFIG_HDR_SIZE + VU_CONFIG_MAX)

/* Queue-fd payload (KICK/CALL/ERR): index in bits 0-7, bit 8 "no fd". */
#define VU_VRING_IDX_MASK	0xffull
#define VU_VRING_NOFD		0x100ull

/* Virtio/vhost feature bits the device talks about. */
#define VU_F_PROTOCOL_FEATURES	30
#define VIRTIO_F_VERSION_1	32
#define VU_PROTOCOL_F_CONFIG	9

struct vu_mem_region {
	uint64_t guest_phys_addr;
	uint64_t memory_size;
	uint64_t userspace_addr;
	uint64_t mmap_offset;
};

struct vu_vring_addr {
	uint32_t index;
	uint32_t flags;
	uint64_t desc;
	uint64_t used;
	uint64_t avail;
	uint64_t log;
};

enum vu_payload_kind {
	VU_P_NONE,
	VU_P_U64,
	VU_P_STATE,	/* struct vhost_vring_state: u32 index, u32 num */
	VU_P_ADDR,
	VU_P_MEM,
	VU_P_CONFIG,
	VU_P_FDIDX,	/* u64 with index + NOFD flag, maybe one fd */
};

struct vu_msg {
	uint32_t request;
	uint32_t flags;
	uint32_t size;		/* payload bytes */
	enum vu_payload_kind kind;
	union {
		uint64_t u64;
		struct {
			uint32_t index;
			uint32_t num;
		} state;
		struct vu_vring_addr addr;
		struct {
			uint32_t nregions;
			struct vu_mem_region r[VU_MAX_MEM_REGIONS];
		} mem;
		struct {
			uint32_t offset;
			uint32_t size;
			uint32_t flags;
			uint8_t region[VU_CONFIG_MAX];
		} config;
		struct {
			uint32_t index;
			int nofd;
		} fdidx;
	};
};

const char *vu_request_name(uint32_t request);

/*
 * Check a message header (VU_HDR_SIZE bytes).  Returns 0 and fills
 * request/flags/size of @m, or -1 with a reason in @why.  Done before the
 * payload is read, so a hostile size never makes us read or allocate.
 */
int vu_hdr_parse(const uint8_t *buf, size_t len, struct vu_msg *m,
		 char *why, size_t whylen);

/*
 * Parse a whole message: header + payload in @buf (@len bytes), with
 * @nfds file descriptors received alongside.  0 on success, -1 with a
 * reason in @why.
 */
int vu_msg_parse(const uint8_t *buf, size_t len, unsigned int nfds,
		 struct vu_msg *m, char *why, size_t whylen);

/* The number of fds a parsed message must carry. */
unsigned int vu_msg_fds_expected(const struct vu_msg *m);

/* Encode a reply header + payload; returns the bytes written into @out. */
size_t vu_reply_u64(uint8_t *out, uint32_t request, uint64_t v);
size_t vu_reply_state(uint8_t *out, uint32_t request, uint32_t index,
		      uint32_t num);
size_t vu_reply_config(uint8_t *out, uint32_t offset, uint32_t size,
		       uint32_t flags, const uint8_t *data);

static inline uint16_t vu_le16(const uint8_t *p)
{
	return (uint16_t)(p[0] | p[1] << 8);
}

static inline uint32_t vu_le32(const uint8_t *p)
{
	return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 |
	       (uint32_t)p[3] << 24;
}

static inline uint64_t vu_le64(const uint8_t *p)
{
	return (uint64_t)vu_le32(p) | (uint64_t)vu_le32(p + 4) << 32;
}

static inline void vu_put16(uint8_t *p, uint16_t v)
{
	p[0] = v;
	p[1] = v >> 8;
}

static inline void vu_put32(uint8_t *p, uint32_t v)
{
	p[0] = v;
	p[1] = v >> 8;
	p[2] = v >> 16;
	p[3] = v >> 24;
}

static inline void vu_put64(uint8_t *p, uint64_t v)
{
	vu_put32(p, (uint32_t)v);
	vu_put32(p + 4, (uint32_t)(v >> 32));
}

#endif
