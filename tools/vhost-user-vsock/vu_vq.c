// SPDX-License-Identifier: GPL-2.0
/* Split virtqueue, device side, with every guest-controlled value checked. */
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "vu_vq.h"

void vu_vq_init(struct vu_vq *vq, unsigned int index)
{
	memset(vq, 0, sizeof(*vq));
	vq->index = index;
	vq->kick_fd = vq->call_fd = vq->err_fd = -1;
}

int vu_vq_map(struct vu_vq *vq, const struct vu_mem *mem, char *why,
	      size_t whylen)
{
	uint64_t n = vq->num;

	vq->desc = vq->avail = vq->used = NULL;
	if (!vq->addr_set || !vq->num || !mem->n)
		return 0;
	vq->desc = vu_uva_ptr(mem, vq->addr.desc, 16 * n);
	vq->avail = vu_uva_ptr(mem, vq->addr.avail, 4 + 2 * n + 2);
	vq->used = vu_uva_ptr(mem, vq->addr.used, 4 + 8 * n + 2);
	if (!vq->desc || !vq->avail || !vq->used) {
		snprintf(why, whylen,
			 "queue %u: ring (desc 0x%llx avail 0x%llx used 0x%llx, %u entries) outside guest memory",
			 vq->index, (unsigned long long)vq->addr.desc,
			 (unsigned long long)vq->addr.avail,
			 (unsigned long long)vq->addr.used, vq->num);
		vq->desc = vq->avail = vq->used = NULL;
		return -1;
	}
	if (((uintptr_t)vq->desc & 15) || ((uintptr_t)vq->avail & 1) ||
	    ((uintptr_t)vq->used & 3)) {
		snprintf(why, whylen, "queue %u: misaligned ring", vq->index);
		vq->desc = vq->avail = vq->used = NULL;
		return -1;
	}
	return 0;
}

int vu_vq_ready(const struct vu_vq *vq)
{
	return vq->desc && vq->kick_fd >= 0 && vq->enabled && !vq->broken;
}

/* The guest writes these concurrently: single loads with ordering. */
static uint16_t avail_idx(const struct vu_vq *vq)
{
	return __atomic_load_n((const uint16_t *)(vq->avail + 2), __ATOMIC_ACQUIRE);
}

static int fail(struct vu_vq *vq, char *why, size_t whylen, const char *what,
		unsigned int a, unsigned long long b)
{
	snprintf(why, whylen, "queue %u: %s (%u, 0x%llx); queue stopped",
		 vq->index, what, a, b);
	vq->broken = 1;
	return -1;
}

int vu_vq_has_avail(const struct vu_vq *vq)
{
	return vu_vq_ready(vq) && avail_idx(vq) != vq->last_avail;
}

int vu_vq_pop(struct vu_vq *vq, const struct vu_mem *mem, int device_writes,
	      struct vu_chain *c, char *why, size_t whylen)
{
	uint16_t idx, head, i;
	unsigned int count = 0;

	if (!vu_vq_ready(vq))
		return 0;
	idx = avail_idx(vq);
	if (idx == vq->last_avail)
		return 0;
	if ((uint16_t)(idx - vq->last_avail) > vq->num)
		return fail(vq, why, whylen, "avail index ran ahead of the ring",
			    idx, vq->last_avail);
	head = vu_le16(vq->avail + 4 + 2 * (vq->last_avail % vq->num));
	if (head >= vq->num)
		return fail(vq, why, whylen, "avail entry names a descriptor beyond the ring",
			    head, vq->num);
	c->head = head;
	c->niov = 0;
	c->len = 0;
	i = head;
	for (;;) {
		uint8_t d[16];
		uint64_t addr;
		uint32_t len;
		uint16_t flags, next;

		if (++count > vq->num)
			return fail(vq, why, whylen, "descriptor chain loops", head, count);
		memcpy(d, vq->desc + 16 * (size_t)i, sizeof(d));
		addr = vu_le64(d);
		len = vu_le32(d + 8);
		flags = vu_le16(d + 12);
		next = vu_le16(d + 14);
		if (flags & VRING_DESC_F_INDIRECT)
			return fail(vq, why, whylen, "indirect descriptor (not negotiated)", i, flags);
		if (!!(flags & VRING_DESC_F_WRITE) != !!device_writes)
			return fail(vq, why, whylen,
				    device_writes ? "read-only descriptor in a device-writable queue"
						  : "write-only descriptor in a device-readable queue",
				    i, flags);
		if (len > VU_CHAIN_MAX_BYTES - c->len)
			return fail(vq, why, whylen, "descriptor chain too long", i,
				    c->len + len);
		if (vu_gpa_iov(mem, addr, len, c->iov, &c->niov, VU_CHAIN_MAX_IOV))
			return fail(vq, why, whylen, "descriptor outside guest memory", i, addr);
		c->len += len;
		if (!(flags & VRING_DESC_F_NEXT))
			break;
		if (next >= vq->num)
			return fail(vq, why, whylen, "next descriptor beyond the ring", next, vq->num);
		i = next;
	}
	vq->last_avail++;
	return 1;
}

void vu_vq_push(struct vu_vq *vq, uint16_t head, uint32_t len)
{
	uint8_t *e;

	if (!vq->used || vq->broken)
		return;
	e = vq->used + 4 + 8 * (size_t)(vq->used_idx % vq->num);
	vu_put32(e, head);
	vu_put32(e + 4, len);
	vq->used_idx++;
	/* The element must be visible before the index that publishes it. */
	__atomic_store_n((uint16_t *)(vq->used + 2), vq->used_idx, __ATOMIC_RELEASE);
	vq->pending_signal++;
}

/* Has the used index moved past @event, going from @old to @new? */
static int need_event(uint16_t event, uint16_t new, uint16_t old)
{
	return (uint16_t)(new - event - 1) < (uint16_t)(new - old);
}

void vu_vq_signal(struct vu_vq *vq)
{
	uint16_t flags, old;
	uint64_t one = 1;
	int v;

	if (!vq->pending_signal || !vq->avail)
		return;
	vq->pending_signal = 0;
	/* Order the used-index store before reading the driver's fields. */
	__atomic_thread_fence(__ATOMIC_SEQ_CST);
	if (vq->event_idx) {
		/* used_event sits after the avail ring's entries. */
		uint16_t ev = __atomic_load_n((const uint16_t *)(vq->avail + 4 + 2 * (size_t)vq->num),
					      __ATOMIC_RELAXED);

		old = vq->signalled_used;
		v = vq->signalled_valid;
		vq->signalled_used = vq->used_idx;
		vq->signalled_valid = 1;
		if (v && !need_event(ev, vq->used_idx, old)) {
			vq->signals_saved++;
			return;
		}
	} else {
		/* The spec has the device ignore this flag under EVENT_IDX. */
		flags = __atomic_load_n((const uint16_t *)vq->avail, __ATOMIC_RELAXED);
		if (flags & VRING_AVAIL_F_NO_INTERRUPT) {
			vq->signals_saved++;
			return;
		}
	}
	vq->signals++;
	if (vq->call_fd >= 0 && write(vq->call_fd, &one, sizeof(one)) < 0) {
		/* EAGAIN: the counter is saturated, the guest will see it. */
	}
}

int vu_vq_want_kick(struct vu_vq *vq)
{
	if (!vu_vq_ready(vq))
		return 0;
	if (vq->event_idx) {
		/* avail_event sits after the used ring's entries. */
		__atomic_store_n((uint16_t *)(vq->used + 4 + 8 * (size_t)vq->num),
				 vq->last_avail, __ATOMIC_RELAXED);
		/* Publish it before looking at avail->idx again (the driver
		 * adds, then reads avail_event: one of us sees the other). */
		__atomic_thread_fence(__ATOMIC_SEQ_CST);
	}
	return avail_idx(vq) != vq->last_avail;
}
