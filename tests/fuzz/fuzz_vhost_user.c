// SPDX-License-Identifier: GPL-2.0
/*
 * libFuzzer target for the vhost-user back-end's input handling: what a
 * front-end can send, with real file descriptors.
 *
 * An input is: a 16-bit length L, L bytes of vhost-user messages (each
 * cut at the size its header claims, or at the end of the section), then
 * the initial contents of guest memory.  The messages are applied to a
 * fresh device as the back-end applies them, fds included:
 *   SET_MEM_TABLE gets one real memfd per region, sized offset + size
 *     (or half that when bits 0-1 of the region's guest address are both
 *     set: the SIGBUS case, which must be refused), so regions are really
 *     mmapped and translation runs over several real mappings;
 *   SET_VRING_KICK/CALL/ERR get an eventfd unless they say "no fd".
 * The memory contents are copied into every mapped region, then queues
 * the messages did not set up get a default layout in the first region
 * big enough (or in a static buffer), so the descriptor walker always
 * sees fuzzed rings.  Every chain it accepts has all of its bytes read
 * (TX) or written (RX): a translation outside a mapping is a SEGV, past
 * the end of a memfd a SIGBUS, outside the static buffer an ASan report;
 * UBSan flags arithmetic that overflows.  No fd may be left open.
 */
#include <fcntl.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <unistd.h>
#include <sys/eventfd.h>
#include <sys/mman.h>

#include "vu_dev.h"
#include "vu_mem.h"
#include "vu_msg.h"
#include "vu_vq.h"

#define RAM_SIZE	0x4000u
#define RAM_UVA		0x7f0000000000ull
#define NO_FD		(1 << 29)	/* "a kick fd", never a real one */
/* Regions larger than this are announced with a 1-page memfd (refused). */
#define MEMFD_MAX	(4u << 20)

static uint8_t ram[RAM_SIZE] __attribute__((aligned(4096)));

static int lowest_free_fd(void)
{
	int fd = open("/dev/null", O_RDONLY | O_CLOEXEC);

	if (fd >= 0)
		close(fd);
	return fd;
}

/* Real fds for a parsed message that wants some: @fds, their number. */
static unsigned int make_fds(const struct vu_msg *m, int *fds)
{
	unsigned int i, n = 0;

	if (m->kind == VU_P_FDIDX)
		return m->fdidx.nofd ? 0 : (fds[0] = eventfd(0, EFD_CLOEXEC), 1);
	if (m->kind != VU_P_MEM)
		return 0;
	for (i = 0; i < m->mem.nregions; i++) {
		const struct vu_mem_region *r = &m->mem.r[i];
		uint64_t len = r->mmap_offset + r->memory_size;

		if (len > MEMFD_MAX || len < r->memory_size)
			len = 4096;
		else if ((r->guest_phys_addr & 3) == 3)
			len /= 2;	/* shorter than announced */
		fds[n] = memfd_create("fuzz-guest", MFD_CLOEXEC);
		if (fds[n] < 0 || ftruncate(fds[n], len) < 0)
			__builtin_trap();
		n++;
	}
	return n;
}

/* Rings the messages left undescribed: 16 entries in @base's region. */
static int default_rings(struct vu_dev *dev, struct vu_vq *vq, unsigned int q,
			 uint64_t base)
{
	char why[256];

	vu_vq_init(vq, q);
	vq->num = 16;
	vq->addr.desc = base + 0x1000 * (q + 1);
	vq->addr.avail = vq->addr.desc + 0x100;
	vq->addr.used = vq->addr.desc + 0x200;
	vq->addr_set = 1;
	return vu_vq_map(vq, &dev->mem, why, sizeof(why)) == 0 && vq->desc;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	uint8_t reply[VU_HDR_SIZE + VU_MAX_PAYLOAD];
	struct vu_region r = { .gpa = 0x1000, .size = RAM_SIZE, .uva = RAM_UVA, .host = ram };
	static struct vu_dev dev;
	size_t off = 0, i, end, clen;
	const uint8_t *content;
	unsigned int q, n;
	int fd0 = lowest_free_fd();
	char why[256];

	if (size < 2)
		return 0;
	end = 2 + vu_le16(data);
	if (end > size)
		end = size;
	content = data + end;
	clen = size - end < RAM_SIZE ? size - end : RAM_SIZE;
	memset(ram, 0, sizeof(ram));
	memcpy(ram, content, clen);
	off = 2;
	vu_dev_init(&dev, 3);
	if (vu_mem_set(&dev.mem, &r, 1, why, sizeof(why)))
		__builtin_trap();

	while (end - off >= VU_HDR_SIZE) {
		const uint8_t *p = data + off;
		size_t len = VU_HDR_SIZE + vu_le32(p + 8);
		unsigned int changed = 0, nfds, k;
		int fds[VU_MAX_FDS];
		struct vu_msg m;
		size_t rlen;

		if (len > end - off || len < VU_HDR_SIZE)
			len = end - off;
		off += len;
		/* Parse once without fds to learn how many it wants... */
		if (vu_msg_parse(p, len, 0, &m, why, sizeof(why)) &&
		    (vu_hdr_parse(p, len, &m, why, sizeof(why)) ||
		     (m.kind != VU_P_MEM && m.kind != VU_P_FDIDX)))
			continue;
		if (m.kind == VU_P_MEM) {
			if (len < VU_HDR_SIZE + 4)
				continue;
			k = vu_le32(p + VU_HDR_SIZE);
			if (k == 0 || k > VU_MAX_MEM_REGIONS ||
			    vu_msg_parse(p, len, k, &m, why, sizeof(why)))
				continue;
		} else if (m.kind == VU_P_FDIDX &&
			   vu_msg_parse(p, len, 1, &m, why, sizeof(why)) &&
			   vu_msg_parse(p, len, 0, &m, why, sizeof(why))) {
			continue;
		}
		/* ...then hand it real ones, as the front-end's sendmsg() would. */
		nfds = make_fds(&m, fds);
		if (nfds != vu_msg_fds_expected(&m))
			__builtin_trap();
		vu_dev_handle(&dev, &m, fds, reply, &rlen, &changed, why, sizeof(why));
		if (rlen > sizeof(reply))
			__builtin_trap();
		if (!dev.mem.n)		/* RESET_OWNER dropped it: put it back */
			vu_mem_set(&dev.mem, &r, 1, why, sizeof(why));
	}

	/* The guest's memory: the same bytes in every region we mapped. */
	for (n = 0; n < dev.mem.n; n++)
		if (dev.mem.r[n].map_base)
			memcpy(dev.mem.r[n].host, content,
			       clen < dev.mem.r[n].size ? clen : dev.mem.r[n].size);

	for (q = 0; q < VU_NR_VQS; q++) {
		struct vu_vq *vq = &dev.vq[q];
		struct vu_chain c;

		if (vu_vq_map(vq, &dev.mem, why, sizeof(why)) || !vq->desc) {
			if (vq->kick_fd >= 0)
				close(vq->kick_fd);
			if (vq->call_fd >= 0)
				close(vq->call_fd);
			if (vq->err_fd >= 0)
				close(vq->err_fd);
			if (!(dev.mem.r[0].size >= RAM_SIZE &&
			      default_rings(&dev, vq, q, dev.mem.r[0].uva)) &&
			    !(vu_mem_set(&dev.mem, &r, 1, why, sizeof(why)) == 0 &&
			      default_rings(&dev, vq, q, RAM_UVA)))
				__builtin_trap();
			/* Re-mapped onto ram: the other queue's pointers moved too. */
			if (q == 0 && vu_vq_map(&dev.vq[1], &dev.mem, why, sizeof(why)))
				dev.vq[1].desc = NULL;
		}
		if (vq->kick_fd >= 0)
			close(vq->kick_fd);
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
		vu_vq_signal(vq);
		vq->kick_fd = -1;
	}
	/* Unmaps the memfd regions (the static one is not ours), closes fds. */
	vu_dev_reset(&dev);
	if (lowest_free_fd() != fd0)
		__builtin_trap();	/* a message's fd was leaked */
	return 0;
}
