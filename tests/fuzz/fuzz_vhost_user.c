// SPDX-License-Identifier: GPL-2.0
/*
 * libFuzzer target for the vhost-user back-end's input handling.
 *
 * An input is: a 16-bit length L, L bytes of vhost-user messages (each
 * cut at the size its header claims, or at the end of the section), then
 * the initial contents of a 16 KiB guest memory region.  The messages are
 * applied to a fresh device; queues they did not set up get a default
 * layout in that memory, so the descriptor walker always sees fuzzed
 * rings.  Every chain the walker accepts then has all of its bytes read
 * (TX) or written (RX): ASan flags any iovec that strays outside guest
 * memory, UBSan any arithmetic that overflows.  Messages that need fds are
 * parsed but not applied (no fds here); the memory table is installed
 * directly.
 */
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "vu_dev.h"
#include "vu_mem.h"
#include "vu_msg.h"
#include "vu_vq.h"

#define RAM_SIZE	0x4000u
#define RAM_UVA		0x7f0000000000ull
#define NO_FD		(1 << 29)	/* "a kick fd", never a real one */

static uint8_t ram[RAM_SIZE] __attribute__((aligned(4096)));

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	uint8_t reply[VU_HDR_SIZE + VU_MAX_PAYLOAD];
	struct vu_region r = { .gpa = 0x1000, .size = RAM_SIZE, .uva = RAM_UVA, .host = ram };
	static struct vu_dev dev;
	size_t off = 0, i, end;
	unsigned int q, n;
	char why[256];

	if (size < 2)
		return 0;
	end = 2 + vu_le16(data);
	if (end > size)
		end = size;
	memset(ram, 0, sizeof(ram));
	memcpy(ram, data + end, size - end < RAM_SIZE ? size - end : RAM_SIZE);
	off = 2;
	vu_dev_init(&dev, 3);
	if (vu_mem_set(&dev.mem, &r, 1, why, sizeof(why)))
		__builtin_trap();

	while (end - off >= VU_HDR_SIZE) {
		const uint8_t *p = data + off;
		size_t len = VU_HDR_SIZE + vu_le32(p + 8);
		unsigned int changed = 0;
		int fds[VU_MAX_FDS];
		struct vu_msg m;
		size_t rlen;

		if (len > end - off || len < VU_HDR_SIZE)
			len = end - off;
		off += len;
		if (vu_msg_parse(p, len, 0, &m, why, sizeof(why)))
			continue;
		if (vu_msg_fds_expected(&m))
			__builtin_trap();	/* parsed with the wrong fd count */
		vu_dev_handle(&dev, &m, fds, reply, &rlen, &changed, why, sizeof(why));
		if (rlen > sizeof(reply))
			__builtin_trap();
		if (!dev.mem.n)		/* RESET_OWNER dropped it: put it back */
			vu_mem_set(&dev.mem, &r, 1, why, sizeof(why));
	}

	for (q = 0; q < VU_NR_VQS; q++) {
		struct vu_vq *vq = &dev.vq[q];
		struct vu_chain c;

		if (vu_vq_map(vq, &dev.mem, why, sizeof(why)) || !vq->desc) {
			/* Default rings: 16 entries at 0x1000 * (q + 1). */
			vu_vq_init(vq, q);
			vq->num = 16;
			vq->addr.desc = RAM_UVA + 0x1000 * (q + 1);
			vq->addr.avail = vq->addr.desc + 0x100;
			vq->addr.used = vq->addr.desc + 0x200;
			vq->addr_set = 1;
			if (vu_vq_map(vq, &dev.mem, why, sizeof(why)) || !vq->desc)
				__builtin_trap();
		}
		vq->kick_fd = NO_FD;
		vq->enabled = 1;
		for (n = 0; n < 64 && vu_vq_pop(vq, &dev.mem, q == VU_VQ_RX, &c, why, sizeof(why)) > 0; n++) {
			volatile uint8_t sum = 0;
			uint64_t total = 0;
			unsigned int k;

			for (k = 0; k < c.niov; k++) {
				if (q == VU_VQ_RX)
					memset(c.iov[k].iov_base, 0xa5, c.iov[k].iov_len);
				else
					for (i = 0; i < c.iov[k].iov_len; i++)
						sum += ((uint8_t *)c.iov[k].iov_base)[i];
				total += c.iov[k].iov_len;
			}
			if (total != c.len || c.len > VU_CHAIN_MAX_BYTES || c.head >= vq->num)
				__builtin_trap();
			vu_vq_push(vq, c.head, (uint32_t)c.len);
		}
		vq->kick_fd = -1;
	}
	/* Only the table we installed: nothing to unmap. */
	memset(&dev.mem, 0, sizeof(dev.mem));
	return 0;
}
