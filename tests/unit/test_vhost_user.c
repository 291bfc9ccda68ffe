// SPDX-License-Identifier: GPL-2.0
/*
 * Unit tests for the vhost-user back-end's input handling
 * (tools/vhost-user-vsock): the message parser, guest address
 * translation (also of real memfds), the split-virtqueue walker with and
 * without EVENT_IDX, the device's replies, and reading messages that
 * arrive in pieces.
 * Every refusal case checks the reason text too, so a test cannot pass
 * because something else went wrong first.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <sys/eventfd.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <cmocka.h>

#include "../../tools/vhost-user-vsock/vu_dev.h"
#include "../../tools/vhost-user-vsock/vu_io.h"
#include "../../tools/vhost-user-vsock/vu_mem.h"
#include "../../tools/vhost-user-vsock/vu_msg.h"
#include "../../tools/vhost-user-vsock/vu_vq.h"
#include "../../tools/vhost-user-vsock/vsock_pkt.h"

static uint8_t msg[VU_HDR_SIZE + VU_MAX_PAYLOAD + 64];

static size_t build(uint32_t req, uint32_t flags, const void *payload,
		    uint32_t size)
{
	vu_put32(msg, req);
	vu_put32(msg + 4, flags);
	vu_put32(msg + 8, size);
	if (size)
		memcpy(msg + VU_HDR_SIZE, payload, size);
	return VU_HDR_SIZE + size;
}

#define assert_refused(len, nfds, needle) do {				\
	struct vu_msg m_;						\
	char why_[256] = "";						\
	assert_int_equal(vu_msg_parse(msg, (len), (nfds), &m_, why_,	\
				      sizeof(why_)), -1);		\
	if (!strstr(why_, (needle))) {					\
		print_error("reason '%s' lacks '%s'\n", why_, (needle)); \
		fail();							\
	}								\
} while (0)

static void test_parse_valid(void **state)
{
	uint8_t p[40];
	struct vu_msg m;
	char why[256];
	size_t len;

	(void)state;
	len = build(VU_GET_FEATURES, VU_VERSION, NULL, 0);
	assert_int_equal(vu_msg_parse(msg, len, 0, &m, why, sizeof(why)), 0);
	assert_int_equal(m.request, VU_GET_FEATURES);

	vu_put64(p, 0x100000000ull);
	len = build(VU_SET_FEATURES, VU_VERSION, p, 8);
	assert_int_equal(vu_msg_parse(msg, len, 0, &m, why, sizeof(why)), 0);
	assert_true(m.u64 == 0x100000000ull);

	vu_put32(p, 1);
	vu_put32(p + 4, 256);
	len = build(VU_SET_VRING_NUM, VU_VERSION, p, 8);
	assert_int_equal(vu_msg_parse(msg, len, 0, &m, why, sizeof(why)), 0);
	assert_int_equal(m.state.index, 1);
	assert_int_equal(m.state.num, 256);

	vu_put32(p, 0);
	vu_put32(p + 4, 0);
	vu_put64(p + 8, 0x1000);
	vu_put64(p + 16, 0x3000);
	vu_put64(p + 24, 0x2000);
	vu_put64(p + 32, 0);
	len = build(VU_SET_VRING_ADDR, VU_VERSION, p, 40);
	assert_int_equal(vu_msg_parse(msg, len, 0, &m, why, sizeof(why)), 0);
	assert_true(m.addr.desc == 0x1000 && m.addr.used == 0x3000 &&
		    m.addr.avail == 0x2000);

	/* KICK with an fd, and with the "no fd" flag and none. */
	vu_put64(p, 1);
	len = build(VU_SET_VRING_KICK, VU_VERSION, p, 8);
	assert_int_equal(vu_msg_parse(msg, len, 1, &m, why, sizeof(why)), 0);
	assert_int_equal(m.fdidx.index, 1);
	assert_int_equal(m.fdidx.nofd, 0);
	vu_put64(p, 0x101);
	len = build(VU_SET_VRING_CALL, VU_VERSION, p, 8);
	assert_int_equal(vu_msg_parse(msg, len, 0, &m, why, sizeof(why)), 0);
	assert_int_equal(m.fdidx.nofd, 1);

	/* NEED_REPLY is a request flag we tolerate. */
	vu_put32(p, 0);
	vu_put32(p + 4, 8);
	vu_put32(p + 8, 0);
	len = build(VU_GET_CONFIG, VU_VERSION | VU_FLAG_NEED_REPLY, p, 12 + 8);
	assert_int_equal(vu_msg_parse(msg, len, 0, &m, why, sizeof(why)), 0);
	assert_int_equal(m.config.size, 8);
}

static void test_parse_mem_table(void **state)
{
	uint8_t p[8 + 8 * 32] = { 0 };
	struct vu_msg m;
	char why[256];
	size_t len;

	(void)state;
	vu_put32(p, 2);
	vu_put64(p + 8, 0);		/* region 0: gpa 0, 640 KiB */
	vu_put64(p + 16, 0xa0000);
	vu_put64(p + 24, 0x7f0000000000ull);
	vu_put64(p + 32, 0);
	vu_put64(p + 40, 0xc0000);	/* region 1 */
	vu_put64(p + 48, 0x1000000);
	vu_put64(p + 56, 0x7f00000c0000ull);
	vu_put64(p + 64, 0xc0000);
	len = build(VU_SET_MEM_TABLE, VU_VERSION, p, 8 + 2 * 32);
	assert_int_equal(vu_msg_parse(msg, len, 2, &m, why, sizeof(why)), 0);
	assert_int_equal(m.mem.nregions, 2);
	assert_true(m.mem.r[1].mmap_offset == 0xc0000);
	assert_int_equal(vu_msg_fds_expected(&m), 2);

	assert_refused(len, 1, "1 fds attached, want 2");
	assert_refused(len, 3, "3 fds attached, want 2");

	vu_put32(p, 0);
	len = build(VU_SET_MEM_TABLE, VU_VERSION, p, 8 + 32);
	assert_refused(len, 0, "0 regions");
	vu_put32(p, 9);
	len = build(VU_SET_MEM_TABLE, VU_VERSION, p, 8 + 8 * 32);
	assert_refused(len, 9, "9 regions");
	/* Three regions claimed, room for two. */
	vu_put32(p, 3);
	len = build(VU_SET_MEM_TABLE, VU_VERSION, p, 8 + 2 * 32);
	assert_refused(len, 3, "for 3 regions");
	/* A region that wraps the address space. */
	vu_put32(p, 1);
	vu_put64(p + 8, 0xfffffffffffff000ull);
	vu_put64(p + 16, 0x2000);
	len = build(VU_SET_MEM_TABLE, VU_VERSION, p, 8 + 32);
	assert_refused(len, 1, "wraps");
	vu_put64(p + 8, 0);
	vu_put64(p + 16, 0);
	len = build(VU_SET_MEM_TABLE, VU_VERSION, p, 8 + 32);
	assert_refused(len, 1, "empty");
}

static void test_parse_refusals(void **state)
{
	uint8_t p[VU_MAX_PAYLOAD + 8] = { 0 };
	size_t len;

	(void)state;
	assert_refused(5, 0, "short header");
	len = build(VU_GET_FEATURES, 2, NULL, 0);
	assert_refused(len, 0, "version 2");
	len = build(VU_GET_FEATURES, VU_VERSION | VU_FLAG_REPLY, NULL, 0);
	assert_refused(len, 0, "reply flag");
	len = build(99, VU_VERSION, NULL, 0);
	assert_refused(len, 0, "not supported");
	len = build(0, VU_VERSION, NULL, 0);
	assert_refused(len, 0, "not supported");
	len = build(VU_SET_LOG_BASE, VU_VERSION, p, 16);
	assert_refused(len, 1, "SET_LOG_BASE) not supported");
	/* A size larger than anything we accept is refused from the header. */
	build(VU_SET_FEATURES, VU_VERSION, NULL, 0);
	vu_put32(msg + 8, 0xffffffffu);
	assert_refused(VU_HDR_SIZE, 0, "payload size 4294967295");
	/* The header's size disagrees with what arrived. */
	len = build(VU_SET_FEATURES, VU_VERSION, p, 8);
	assert_refused(len - 1, 0, "header says 8 payload bytes, got 7");
	len = build(VU_SET_FEATURES, VU_VERSION, p, 4);
	assert_refused(len, 0, "payload 4 bytes, want 8");
	len = build(VU_SET_VRING_ADDR, VU_VERSION, p, 32);
	assert_refused(len, 0, "want 40");
	len = build(VU_GET_FEATURES, VU_VERSION, p, 3);
	assert_refused(len, 0, "want 0");
	/* Fds where none belong. */
	len = build(VU_SET_FEATURES, VU_VERSION, p, 8);
	assert_refused(len, 1, "1 fds attached, want 0");
	/* KICK: unknown bits, and an fd missing. */
	vu_put64(p, 0x200);
	len = build(VU_SET_VRING_KICK, VU_VERSION, p, 8);
	assert_refused(len, 1, "unknown bits");
	vu_put64(p, 0);
	len = build(VU_SET_VRING_KICK, VU_VERSION, p, 8);
	assert_refused(len, 0, "0 fds attached, want 1");
	/* Config: inner size disagrees with the payload; too big. */
	vu_put32(p, 0);
	vu_put32(p + 4, 16);
	len = build(VU_GET_CONFIG, VU_VERSION, p, 12 + 8);
	assert_refused(len, 0, "config size 16");
	vu_put32(p + 4, 300);
	len = build(VU_GET_CONFIG, VU_VERSION, p, 12 + 256);
	assert_refused(len, 0, "config size 300");
}

/* Guest memory for the translation and ring tests: two regions with a hole. */
static uint8_t ram0[0x10000] __attribute__((aligned(4096)));
static uint8_t ram1[0x10000] __attribute__((aligned(4096)));

static void setup_mem(struct vu_mem *mem)
{
	struct vu_region r[2] = {
		{ .gpa = 0, .size = sizeof(ram0), .uva = 0x7000000000ull, .host = ram0 },
		{ .gpa = 0x20000, .size = sizeof(ram1), .uva = 0x7000100000ull, .host = ram1 },
	};
	char why[128];

	memset(mem, 0, sizeof(*mem));
	assert_int_equal(vu_mem_set(mem, r, 2, why, sizeof(why)), 0);
}

static void test_translate(void **state)
{
	struct vu_mem mem;
	struct iovec iov[4];
	unsigned int n = 0;
	char why[128];

	(void)state;
	setup_mem(&mem);
	assert_ptr_equal(vu_gpa_ptr(&mem, 0, 16), ram0);
	assert_ptr_equal(vu_gpa_ptr(&mem, 0xfff0, 16), ram0 + 0xfff0);
	assert_null(vu_gpa_ptr(&mem, 0xfff0, 17));		/* one past the end */
	assert_null(vu_gpa_ptr(&mem, 0x10000, 1));		/* in the hole */
	assert_ptr_equal(vu_gpa_ptr(&mem, 0x2fffe, 2), ram1 + 0xfffe);
	assert_null(vu_gpa_ptr(&mem, 0x30000, 0));
	assert_null(vu_gpa_ptr(&mem, UINT64_MAX, 2));		/* wraps */
	assert_null(vu_gpa_ptr(&mem, 0x20000, UINT64_MAX));	/* huge length */
	assert_ptr_equal(vu_uva_ptr(&mem, 0x7000100010ull, 4), ram1 + 0x10);
	assert_null(vu_uva_ptr(&mem, 0x7000010000ull, 1));

	/* A range over the hole is refused; one inside is one iovec. */
	assert_int_equal(vu_gpa_iov(&mem, 0xff00, 0x200, iov, &n, 4), -1);
	n = 0;
	assert_int_equal(vu_gpa_iov(&mem, 0x20010, 0x100, iov, &n, 4), 0);
	assert_int_equal(n, 1);
	assert_ptr_equal(iov[0].iov_base, ram1 + 0x10);

	/* Overlapping and wrapping tables are refused. */
	{
		struct vu_region bad[2] = {
			{ .gpa = 0, .size = 0x2000, .host = ram0 },
			{ .gpa = 0x1000, .size = 0x2000, .host = ram1 },
		};
		struct vu_mem m2 = { 0 };

		assert_int_equal(vu_mem_set(&m2, bad, 2, why, sizeof(why)), -1);
		assert_non_null(strstr(why, "overlap"));
		bad[0].gpa = UINT64_MAX - 0x100;
		bad[1].gpa = 0x100000;
		assert_int_equal(vu_mem_set(&m2, bad, 2, why, sizeof(why)), -1);
		assert_non_null(strstr(why, "wraps"));
	}
}

/* Adjacent regions: a buffer across the boundary becomes two iovecs. */
static void test_translate_adjacent(void **state)
{
	struct vu_region r[2] = {
		{ .gpa = 0, .size = sizeof(ram0), .host = ram0 },
		{ .gpa = sizeof(ram0), .size = sizeof(ram1), .host = ram1 },
	};
	struct vu_mem mem = { 0 };
	struct iovec iov[2];
	unsigned int n = 0;
	char why[128];

	(void)state;
	assert_int_equal(vu_mem_set(&mem, r, 2, why, sizeof(why)), 0);
	assert_int_equal(vu_gpa_iov(&mem, 0xff00, 0x200, iov, &n, 2), 0);
	assert_int_equal(n, 2);
	assert_int_equal(iov[0].iov_len, 0x100);
	assert_ptr_equal(iov[1].iov_base, ram1);
	assert_null(vu_gpa_ptr(&mem, 0xff00, 0x200));	/* not one region */
	n = 1;
	assert_int_equal(vu_gpa_iov(&mem, 0xff00, 0x200, iov, &n, 2), -1); /* no room */
}

/* Ring layout inside ram0 (gpa == offset); uva = 0x7000000000 + offset. */
#define QN		8
#define DESC_OFF	0x1000
#define AVAIL_OFF	0x2000
#define USED_OFF	0x3000
#define UVA(off)	(0x7000000000ull + (off))

static void set_desc(unsigned int i, uint64_t addr, uint32_t len, uint16_t flags,
		     uint16_t next)
{
	uint8_t *d = ram0 + DESC_OFF + 16 * i;

	vu_put64(d, addr);
	vu_put32(d + 8, len);
	vu_put16(d + 12, flags);
	vu_put16(d + 14, next);
}

static void offer(uint16_t avail_slot, uint16_t head, uint16_t new_idx)
{
	vu_put16(ram0 + AVAIL_OFF + 4 + 2 * (avail_slot % QN), head);
	vu_put16(ram0 + AVAIL_OFF + 2, new_idx);
}

static void setup_vq(struct vu_vq *vq, struct vu_mem *mem)
{
	char why[128];

	memset(ram0, 0, sizeof(ram0));
	setup_mem(mem);
	vu_vq_init(vq, 1);
	vq->num = QN;
	vq->addr.desc = UVA(DESC_OFF);
	vq->addr.avail = UVA(AVAIL_OFF);
	vq->addr.used = UVA(USED_OFF);
	vq->addr_set = 1;
	assert_int_equal(vu_vq_map(vq, mem, why, sizeof(why)), 0);
	vq->kick_fd = 0;	/* "set"; never read by these tests */
	vq->enabled = 1;
}

#define assert_pop_fails(vq, mem, dw, needle) do {			\
	struct vu_chain c_;						\
	char why_[256] = "";						\
	assert_int_equal(vu_vq_pop((vq), (mem), (dw), &c_, why_,	\
				   sizeof(why_)), -1);			\
	if (!strstr(why_, (needle))) {					\
		print_error("reason '%s' lacks '%s'\n", why_, (needle)); \
		fail();							\
	}								\
	assert_true((vq)->broken);					\
} while (0)

static void test_vq_chain(void **state)
{
	struct vu_mem mem;
	struct vu_vq vq;
	struct vu_chain c;
	char why[256];

	(void)state;
	setup_vq(&vq, &mem);
	assert_int_equal(vu_vq_pop(&vq, &mem, 0, &c, why, sizeof(why)), 0);
	/* A 44-byte header descriptor followed by payload in region 1. */
	set_desc(3, 0x8000, 44, VRING_DESC_F_NEXT, 5);
	set_desc(5, 0x20100, 100, 0, 0);
	offer(0, 3, 1);
	assert_true(vu_vq_has_avail(&vq));
	assert_int_equal(vu_vq_pop(&vq, &mem, 0, &c, why, sizeof(why)), 1);
	assert_int_equal(c.head, 3);
	assert_int_equal(c.niov, 2);
	assert_int_equal(c.len, 144);
	assert_ptr_equal(c.iov[0].iov_base, ram0 + 0x8000);
	assert_ptr_equal(c.iov[1].iov_base, ram1 + 0x100);
	assert_false(vu_vq_has_avail(&vq));
	vu_vq_push(&vq, c.head, 7);
	assert_int_equal(vu_le16(ram0 + USED_OFF + 2), 1);
	assert_int_equal(vu_le32(ram0 + USED_OFF + 4), 3);
	assert_int_equal(vu_le32(ram0 + USED_OFF + 8), 7);

	/* The call fd fires unless the driver suppressed interrupts. */
	vq.call_fd = eventfd(0, EFD_NONBLOCK);
	assert_true(vq.call_fd >= 0);
	vu_vq_signal(&vq);
	{
		uint64_t v = 0;

		assert_int_equal(read(vq.call_fd, &v, 8), 8);
		assert_true(v == 1);
		vu_vq_push(&vq, c.head, 0);
		vu_put16(ram0 + AVAIL_OFF, VRING_AVAIL_F_NO_INTERRUPT);
		vu_vq_signal(&vq);
		assert_int_equal(read(vq.call_fd, &v, 8), -1);
	}
	close(vq.call_fd);
}

static void test_vq_refusals(void **state)
{
	struct vu_mem mem;
	struct vu_vq vq;
	struct vu_chain c;
	char why[256];

	(void)state;
	/* A chain that loops back on itself. */
	setup_vq(&vq, &mem);
	set_desc(0, 0x8000, 16, VRING_DESC_F_NEXT, 1);
	set_desc(1, 0x8100, 16, VRING_DESC_F_NEXT, 0);
	offer(0, 0, 1);
	assert_pop_fails(&vq, &mem, 0, "loops");
	/* A broken queue stays stopped. */
	assert_int_equal(vu_vq_pop(&vq, &mem, 0, &c, why, sizeof(why)), 0);

	setup_vq(&vq, &mem);
	offer(0, QN, 1);
	assert_pop_fails(&vq, &mem, 0, "beyond the ring");

	setup_vq(&vq, &mem);
	set_desc(0, 0x8000, 16, VRING_DESC_F_NEXT, QN + 3);
	offer(0, 0, 1);
	assert_pop_fails(&vq, &mem, 0, "next descriptor beyond");

	setup_vq(&vq, &mem);
	set_desc(0, 0x10000 - 8, 16, 0, 0);	/* runs into the hole */
	offer(0, 0, 1);
	assert_pop_fails(&vq, &mem, 0, "outside guest memory");

	setup_vq(&vq, &mem);
	set_desc(0, UINT64_MAX - 4, 16, 0, 0);	/* wraps */
	offer(0, 0, 1);
	assert_pop_fails(&vq, &mem, 0, "outside guest memory");

	setup_vq(&vq, &mem);
	set_desc(0, 0x8000, 16, VRING_DESC_F_WRITE, 0);
	offer(0, 0, 1);
	assert_pop_fails(&vq, &mem, 0, "write-only descriptor");

	setup_vq(&vq, &mem);
	set_desc(0, 0x8000, 16, 0, 0);
	offer(0, 0, 1);
	assert_pop_fails(&vq, &mem, 1, "read-only descriptor");

	setup_vq(&vq, &mem);
	set_desc(0, 0x8000, 16, VRING_DESC_F_INDIRECT, 0);
	offer(0, 0, 1);
	assert_pop_fails(&vq, &mem, 0, "indirect");

	setup_vq(&vq, &mem);
	set_desc(0, 0x8000, 16, 0, 0);
	offer(0, 0, QN + 1);		/* more entries than the ring holds */
	assert_pop_fails(&vq, &mem, 0, "ran ahead");

	setup_vq(&vq, &mem);
	set_desc(0, 0, 0x8000, VRING_DESC_F_NEXT, 1);
	set_desc(1, 0x20000, 0x8000, VRING_DESC_F_NEXT, 2);
	set_desc(2, 0x28000, 0x8000, VRING_DESC_F_NEXT, 3);
	set_desc(3, 0x8000, 0x8000, VRING_DESC_F_NEXT, 4);
	set_desc(4, 0, 0x8000, VRING_DESC_F_NEXT, 5);
	set_desc(5, 0, 0x8000, VRING_DESC_F_NEXT, 6);
	set_desc(6, 0, 0x8000, VRING_DESC_F_NEXT, 7);
	set_desc(7, 0, 0x8000, 0, 0);
	offer(0, 0, 1);			/* 8 x 32 KiB = 256 KiB: the limit */
	assert_int_equal(vu_vq_pop(&vq, &mem, 0, &c, why, sizeof(why)), 1);
	set_desc(7, 0, 0x8001, 0, 0);
	offer(1, 0, 2);
	assert_pop_fails(&vq, &mem, 0, "too long");

	/* Rings outside memory are refused when mapped. */
	setup_vq(&vq, &mem);
	vq.addr.used = UVA(0x10000 - 8);
	assert_int_equal(vu_vq_map(&vq, &mem, why, sizeof(why)), -1);
	assert_non_null(strstr(why, "outside guest memory"));
	assert_false(vu_vq_ready(&vq));
	vq.addr.used = UVA(USED_OFF + 2);	/* misaligned */
	assert_int_equal(vu_vq_map(&vq, &mem, why, sizeof(why)), -1);
	assert_non_null(strstr(why, "misaligned"));
}

static int handle(struct vu_dev *dev, size_t len, uint8_t *reply, size_t *rlen,
		  char *why)
{
	struct vu_msg m;
	unsigned int changed = 0;
	int fds[1] = { -1 };

	if (vu_msg_parse(msg, len, 0, &m, why, 256))
		return -2;
	return vu_dev_handle(dev, &m, fds, reply, rlen, &changed, why, 256);
}

static void test_device(void **state)
{
	uint8_t reply[VU_HDR_SIZE + VU_MAX_PAYLOAD], p[64] = { 0 };
	struct vu_dev dev;
	char why[256];
	size_t rlen;

	(void)state;
	vu_dev_init(&dev, 42);
	assert_int_equal(handle(&dev, build(VU_GET_FEATURES, 1, NULL, 0), reply, &rlen, why), 0);
	assert_int_equal(rlen, 20);
	assert_int_equal(vu_le32(reply), VU_GET_FEATURES);
	assert_int_equal(vu_le32(reply + 4), VU_VERSION | VU_FLAG_REPLY);
	assert_true(vu_le64(reply + 12) == VU_DEV_FEATURES);
	assert_true(vu_le64(reply + 12) & (1ull << VU_F_PROTOCOL_FEATURES));

	vu_put64(p, 1ull << 28);	/* a bit we never offered */
	assert_int_equal(handle(&dev, build(VU_SET_FEATURES, 1, p, 8), reply, &rlen, why), -1);
	assert_non_null(strstr(why, "did not offer"));

	assert_int_equal(handle(&dev, build(VU_GET_PROTOCOL_FEATURES, 1, NULL, 0), reply, &rlen, why), 0);
	assert_true(vu_le64(reply + 12) == (1ull << VU_PROTOCOL_F_CONFIG));

	/* GET_CONFIG: the guest CID, whole or in part. */
	vu_put32(p, 0);
	vu_put32(p + 4, 8);
	vu_put32(p + 8, 0);
	assert_int_equal(handle(&dev, build(VU_GET_CONFIG, 1, p, 20), reply, &rlen, why), 0);
	assert_int_equal(rlen, VU_HDR_SIZE + 20);
	assert_int_equal(vu_le32(reply + 8), 20);
	assert_true(vu_le64(reply + VU_HDR_SIZE + 12) == 42);
	vu_put32(p, 4);
	vu_put32(p + 4, 4);
	assert_int_equal(handle(&dev, build(VU_GET_CONFIG, 1, p, 16), reply, &rlen, why), 0);
	assert_int_equal(vu_le32(reply + VU_HDR_SIZE + 12), 0);
	vu_put32(p, 4);
	vu_put32(p + 4, 8);
	assert_int_equal(handle(&dev, build(VU_GET_CONFIG, 1, p, 20), reply, &rlen, why), -1);
	assert_non_null(strstr(why, "8-byte config"));
	vu_put32(p, 0xfffffffc);	/* offset + size would wrap */
	vu_put32(p + 4, 8);
	assert_int_equal(handle(&dev, build(VU_GET_CONFIG, 1, p, 20), reply, &rlen, why), -1);

	/* Queue numbers and ring sizes. */
	vu_put32(p, 2);
	vu_put32(p + 4, 256);
	assert_int_equal(handle(&dev, build(VU_SET_VRING_NUM, 1, p, 8), reply, &rlen, why), -1);
	assert_non_null(strstr(why, "queue 2"));
	vu_put32(p, 0);
	vu_put32(p + 4, 100);
	assert_int_equal(handle(&dev, build(VU_SET_VRING_NUM, 1, p, 8), reply, &rlen, why), -1);
	assert_non_null(strstr(why, "power of two"));
	vu_put32(p + 4, 65536);
	assert_int_equal(handle(&dev, build(VU_SET_VRING_NUM, 1, p, 8), reply, &rlen, why), -1);
	vu_put32(p + 4, 128);
	assert_int_equal(handle(&dev, build(VU_SET_VRING_NUM, 1, p, 8), reply, &rlen, why), 0);
	assert_int_equal(dev.vq[0].num, 128);

	/* SET_VRING_BASE then GET_VRING_BASE returns it (and stops the ring). */
	vu_put32(p, 0);
	vu_put32(p + 4, 77);
	assert_int_equal(handle(&dev, build(VU_SET_VRING_BASE, 1, p, 8), reply, &rlen, why), 0);
	assert_int_equal(handle(&dev, build(VU_GET_VRING_BASE, 1, p, 8), reply, &rlen, why), 0);
	assert_int_equal(vu_le32(reply + VU_HDR_SIZE), 0);
	assert_int_equal(vu_le32(reply + VU_HDR_SIZE + 4), 77);
	vu_put32(p + 4, 70000);
	assert_int_equal(handle(&dev, build(VU_SET_VRING_BASE, 1, p, 8), reply, &rlen, why), -1);

	/* Ring addresses with logging, or outside memory once mapped. */
	memset(p, 0, 40);
	vu_put32(p + 4, 1);
	assert_int_equal(handle(&dev, build(VU_SET_VRING_ADDR, 1, p, 40), reply, &rlen, why), -1);
	assert_non_null(strstr(why, "logging"));
	setup_mem(&dev.mem);
	vu_put32(p + 4, 0);
	vu_put64(p + 8, 0x1234);	/* not a front-end address we know */
	assert_int_equal(handle(&dev, build(VU_SET_VRING_ADDR, 1, p, 40), reply, &rlen, why), -1);
	assert_non_null(strstr(why, "outside guest memory"));
	memset(&dev.mem, 0, sizeof(dev.mem));	/* static arrays: nothing to unmap */

	vu_put32(p, 1);
	vu_put32(p + 4, 2);
	assert_int_equal(handle(&dev, build(VU_SET_VRING_ENABLE, 1, p, 8), reply, &rlen, why), -1);
	assert_non_null(strstr(why, "0 or 1"));
	vu_put32(p, 0);
	vu_put32(p + 4, 0);
	assert_int_equal(handle(&dev, build(VU_SET_CONFIG, 1, p, 12), reply, &rlen, why), -1);
	assert_non_null(strstr(why, "read-only"));
}

static void test_vsock_hdr(void **state)
{
	struct vsock_hdr h = {
		.src_cid = 2, .dst_cid = 3, .src_port = 0x40000001, .dst_port = 1234,
		.len = 4096, .type = 1, .op = VSOCK_OP_RW, .flags = 0,
		.buf_alloc = 262144, .fwd_cnt = 0xdeadbeef,
	}, d;
	uint8_t raw[VSOCK_HDR_SIZE];
	uint8_t a[10], b2[10], out[20];
	struct iovec iov[2] = { { a, 10 }, { b2, 10 } }, s[4];

	(void)state;
	vsock_hdr_encode(&h, raw);
	/* Spot-check the wire offsets of the spec's layout. */
	assert_int_equal(vu_le32(raw + 24), 4096);
	assert_int_equal(vu_le16(raw + 30), VSOCK_OP_RW);
	assert_int_equal(vu_le32(raw + 40), 0xdeadbeef);
	vsock_hdr_decode(raw, &d);
	assert_memory_equal(&h, &d, sizeof(h));

	assert_int_equal(iov_slice(iov, 2, 8, 5, s, 4), 2);
	assert_ptr_equal(s[0].iov_base, a + 8);
	assert_int_equal(s[0].iov_len, 2);
	assert_int_equal(s[1].iov_len, 3);
	memset(a, 1, 10);
	memset(b2, 2, 10);
	assert_int_equal(iov_copy_out(iov, 2, 5, out, 15), 0);
	assert_int_equal(out[4], 1);
	assert_int_equal(out[5], 2);
	assert_int_equal(iov_copy_out(iov, 2, 5, out, 16), -1);
	assert_int_equal(iov_copy_in(iov, 2, 18, "xyz", 3), -1);
}

/* The host endpoint's request line, and the lab's packet-size field. */
static void test_parse_connect(void **state)
{
	static const char *const bad[] = {
		"", "CONNECT", "CONNECT ", "CONNECT x", "CONNECT -1", "CONNECT +5",
		"CONNECT 5 ", "CONNECT 5x", "CONNECT  5", "connect 5", "CONNECT 4294967296",
		"CONNECT 5 0", "CONNECT 5 65537", "CONNECT 5 64 1", "CONNECT 5 -64",
		"CONNECT 5 99999999999999999999", "CONNECT 5\t64",
		/* Port 0 is reserved, VMADDR_PORT_ANY only binds. */
		"CONNECT 0", "CONNECT 0 1", "CONNECT 4294967295", "CONNECT 4294967295 64",
	};
	uint32_t port, max;
	size_t i;

	(void)state;
	assert_int_equal(vsock_parse_connect("CONNECT 1234", &port, &max), 0);
	assert_int_equal(port, 1234);
	assert_int_equal(max, 0);
	assert_int_equal(vsock_parse_connect("CONNECT 4294967294 65536", &port, &max), 0);
	assert_int_equal(port, 4294967294u);
	assert_int_equal(max, 65536);
	assert_int_equal(vsock_parse_connect("CONNECT 1 1", &port, &max), 0);
	assert_int_equal(max, 1);
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		if (vsock_parse_connect(bad[i], &port, &max) != -1)
			fail_msg("accepted '%s'", bad[i]);
}

/* A memfd of @size bytes whose first bytes say @tag. */
static int memfd_of(size_t size, const char *tag)
{
	int fd = memfd_create("vutest", MFD_CLOEXEC);

	assert_true(fd >= 0);
	assert_int_equal(ftruncate(fd, size), 0);
	assert_int_equal(pwrite(fd, tag, strlen(tag), 0), (ssize_t)strlen(tag));
	return fd;
}

/*
 * Regression (SIGBUS): a region longer than its fd.  Mapping it works,
 * touching a page past the fd's end kills the process; SET_MEM_TABLE
 * must refuse it, with the reason.
 */
static void test_mem_map_short_fd(void **state)
{
	struct vu_mem_region r = { .guest_phys_addr = 0, .memory_size = 4u << 20,
				   .userspace_addr = 0x7000000000ull };
	struct vu_mem mem = { 0 };
	char why[256] = "";
	int fd = memfd_of(64 << 10, "x");

	(void)state;
	assert_int_equal(vu_mem_map(&mem, &r, 1, &fd, why, sizeof(why)), -1);
	assert_non_null(strstr(why, "beyond the end of its fd (65536 bytes)"));
	assert_int_equal(mem.n, 0);
	/* The offset counts: 64 KiB at offset 4 KiB of a 64 KiB fd is short too. */
	r.memory_size = 64 << 10;
	r.mmap_offset = 4096;
	assert_int_equal(vu_mem_map(&mem, &r, 1, &fd, why, sizeof(why)), -1);
	/* Exactly the fd: fine, and every byte of it is reachable. */
	r.mmap_offset = 0;
	assert_int_equal(vu_mem_map(&mem, &r, 1, &fd, why, sizeof(why)), 0);
	assert_non_null(vu_gpa_ptr(&mem, (64 << 10) - 1, 1));
	assert_null(vu_gpa_ptr(&mem, 64 << 10, 1));
	vu_mem_unmap(&mem);
	close(fd);
	/* Not a file at all (a socket): refused, not mapped. */
	{
		int sv[2];

		assert_int_equal(socketpair(AF_UNIX, SOCK_STREAM, 0, sv), 0);
		r.memory_size = 4096;
		assert_int_equal(vu_mem_map(&mem, &r, 1, &sv[0], why, sizeof(why)), -1);
		assert_non_null(strstr(why, "not a memfd or a file"));
		close(sv[0]);
		close(sv[1]);
	}
}

/*
 * Real memfds, three regions with a hole and an mmap offset, as QEMU
 * sends them: a buffer across the boundary of two adjacent regions is
 * two iovecs into two different mappings, and the bytes are the fds'.
 */
static void test_mem_map_memfds(void **state)
{
	struct vu_mem_region r[3] = {
		{ .guest_phys_addr = 0, .memory_size = 0x10000,
		  .userspace_addr = 0x7000000000ull, .mmap_offset = 0 },
		{ .guest_phys_addr = 0x10000, .memory_size = 0x8000,
		  .userspace_addr = 0x7100000000ull, .mmap_offset = 0x1000 },
		{ .guest_phys_addr = 0x100000, .memory_size = 0x1000,
		  .userspace_addr = 0x7200000000ull, .mmap_offset = 0 },
	};
	struct vu_mem mem = { 0 };
	struct iovec iov[4];
	unsigned int n = 0;
	char why[256];
	int fds[3];

	(void)state;
	fds[0] = memfd_of(0x10000, "zero");
	fds[1] = memfd_of(0x9000, "skipped");
	assert_int_equal(pwrite(fds[1], "one", 3, 0x1000), 3);
	fds[2] = memfd_of(0x1000, "two");
	assert_int_equal(vu_mem_map(&mem, r, 3, fds, why, sizeof(why)), 0);
	assert_int_equal(mem.n, 3);
	/* The fds may go: the mappings keep the memory. */
	close(fds[0]);
	close(fds[1]);
	close(fds[2]);
	assert_memory_equal(vu_gpa_ptr(&mem, 0, 4), "zero", 4);
	assert_memory_equal(vu_gpa_ptr(&mem, 0x10000, 3), "one", 3);	/* after the offset */
	assert_memory_equal(vu_gpa_ptr(&mem, 0x100000, 3), "two", 3);
	assert_memory_equal(vu_uva_ptr(&mem, 0x7100000000ull, 3), "one", 3);
	assert_int_equal(vu_gpa_iov(&mem, 0xfffe, 5, iov, &n, 4), 0);
	assert_int_equal(n, 2);
	assert_int_equal(iov[0].iov_len, 2);
	assert_int_equal(iov[1].iov_len, 3);
	assert_memory_equal(iov[1].iov_base, "one", 3);
	/* Into the hole after region 1: refused. */
	n = 0;
	assert_int_equal(vu_gpa_iov(&mem, 0x17fff, 2, iov, &n, 4), -1);
	vu_mem_unmap(&mem);
	assert_int_equal(mem.n, 0);
}

/*
 * EVENT_IDX: the device interrupts only when its used index passes the
 * driver's used_event, and asks for kicks by writing avail_event when it
 * runs out of buffers; VRING_AVAIL_F_NO_INTERRUPT is ignored then.
 */
static void test_vq_event_idx(void **state)
{
	struct vu_mem mem;
	struct vu_vq vq;
	struct vu_chain c;
	char why[256];
	uint64_t v;
	int i;

	(void)state;
	setup_vq(&vq, &mem);
	vq.event_idx = 1;
	vq.call_fd = eventfd(0, EFD_NONBLOCK);
	assert_true(vq.call_fd >= 0);
	for (i = 0; i < 6; i++)
		set_desc(i, 0x8000 + 64 * i, 44, 0, 0);
	/* used_event (after the QN avail entries) = 3: interrupt when entry 3 is used. */
	vu_put16(ram0 + AVAIL_OFF + 4 + 2 * QN, 3);
	vu_put16(ram0 + AVAIL_OFF, VRING_AVAIL_F_NO_INTERRUPT);	/* ignored */
	for (i = 0; i < 6; i++)
		offer(i, i, i + 1);
	for (i = 0; i < 6; i++) {
		int fired;

		assert_int_equal(vu_vq_pop(&vq, &mem, 0, &c, why, sizeof(why)), 1);
		vu_vq_push(&vq, c.head, 0);
		vu_vq_signal(&vq);
		fired = read(vq.call_fd, &v, 8) == 8;
		/* The first one always (nothing signalled yet); then at used 4 (entry 3). */
		if (fired != (i == 0 || i == 3))
			fail_msg("used index %d: interrupt %s", i + 1, fired ? "sent" : "left out");
	}
	assert_int_equal(vq.signals, 2);
	assert_int_equal(vq.signals_saved, 4);
	/* Ring empty: want_kick publishes avail_event = next entry (6). */
	assert_int_equal(vu_vq_pop(&vq, &mem, 0, &c, why, sizeof(why)), 0);
	assert_int_equal(vu_vq_want_kick(&vq), 0);
	assert_int_equal(vu_le16(ram0 + USED_OFF + 4 + 8 * QN), 6);
	/* A buffer added meanwhile is reported instead of waited for. */
	set_desc(6, 0x8000, 44, 0, 0);
	offer(6, 6, 7);
	assert_int_equal(vu_vq_want_kick(&vq), 1);
	/* Without EVENT_IDX the flag counts again. */
	vq.event_idx = 0;
	assert_int_equal(vu_vq_pop(&vq, &mem, 0, &c, why, sizeof(why)), 1);
	vu_vq_push(&vq, c.head, 0);
	vu_vq_signal(&vq);
	assert_int_equal(read(vq.call_fd, &v, 8), -1);
	close(vq.call_fd);
}

/*
 * A message that arrives in pieces (header split, payload later, its fd
 * with the first byte): nothing until it is whole, then exactly it; a
 * close between messages is end of file, one within a message an error.
 */
static void test_reader_pieces(void **state)
{
	static struct vu_reader rd;
	union { char b[CMSG_SPACE(sizeof(int))]; struct cmsghdr a; } ctl;
	struct iovec iov;
	struct msghdr mh = { .msg_iov = &iov, .msg_iovlen = 1 };
	struct cmsghdr *cm;
	int sv[2], fds[VU_MAX_FDS], efd = eventfd(0, 0);
	unsigned int nfds;
	char why[256];
	size_t len;
	uint8_t p[8];

	(void)state;
	assert_int_equal(socketpair(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK, 0, sv), 0);
	vu_reader_init(&rd);
	vu_put64(p, 1);		/* SET_VRING_KICK, queue 1, with an fd */
	len = build(VU_SET_VRING_KICK, VU_VERSION, p, 8);
	assert_int_equal(vu_reader_step(sv[1], &rd, fds, &nfds, why, sizeof(why)), 0);
	iov = (struct iovec){ msg, 5 };
	mh.msg_control = ctl.b;
	mh.msg_controllen = sizeof(ctl.b);
	cm = CMSG_FIRSTHDR(&mh);
	cm->cmsg_level = SOL_SOCKET;
	cm->cmsg_type = SCM_RIGHTS;
	cm->cmsg_len = CMSG_LEN(sizeof(int));
	memcpy(CMSG_DATA(cm), &efd, sizeof(int));
	assert_int_equal(sendmsg(sv[0], &mh, 0), 5);
	assert_int_equal(vu_reader_step(sv[1], &rd, fds, &nfds, why, sizeof(why)), 0);
	assert_int_equal(write(sv[0], msg + 5, VU_HDR_SIZE - 5 + 3), VU_HDR_SIZE - 5 + 3);
	assert_int_equal(vu_reader_step(sv[1], &rd, fds, &nfds, why, sizeof(why)), 0);
	assert_int_equal(write(sv[0], msg + VU_HDR_SIZE + 3, len - VU_HDR_SIZE - 3),
			 (ssize_t)(len - VU_HDR_SIZE - 3));
	assert_int_equal(vu_reader_step(sv[1], &rd, fds, &nfds, why, sizeof(why)), 1);
	assert_int_equal(rd.m.request, VU_SET_VRING_KICK);
	assert_int_equal(rd.m.fdidx.index, 1);
	assert_int_equal(nfds, 1);
	close(fds[0]);
	/* Half a header, then the front-end goes: an error, not a message. */
	assert_int_equal(write(sv[0], msg, 3), 3);
	assert_int_equal(vu_reader_step(sv[1], &rd, fds, &nfds, why, sizeof(why)), 0);
	close(sv[0]);
	assert_int_equal(vu_reader_step(sv[1], &rd, fds, &nfds, why, sizeof(why)), -1);
	assert_non_null(strstr(why, "closed mid-message"));
	close(sv[1]);
	/* Between messages: end of file. */
	assert_int_equal(socketpair(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK, 0, sv), 0);
	close(sv[0]);
	assert_int_equal(vu_reader_step(sv[1], &rd, fds, &nfds, why, sizeof(why)), -2);
	close(sv[1]);
	close(efd);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_parse_valid),
		cmocka_unit_test(test_parse_mem_table),
		cmocka_unit_test(test_parse_refusals),
		cmocka_unit_test(test_translate),
		cmocka_unit_test(test_translate_adjacent),
		cmocka_unit_test(test_vq_chain),
		cmocka_unit_test(test_vq_refusals),
		cmocka_unit_test(test_device),
		cmocka_unit_test(test_vsock_hdr),
		cmocka_unit_test(test_parse_connect),
		cmocka_unit_test(test_mem_map_short_fd),
		cmocka_unit_test(test_mem_map_memfds),
		cmocka_unit_test(test_vq_event_idx),
		cmocka_unit_test(test_reader_pieces),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
