/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Split virtqueues in shared guest memory, device side.
 *
 * The guest owns the rings and may change them at any time, so every
 * field is read once into a local copy, every index is range-checked,
 * every descriptor address goes through vu_mem, and a chain longer than
 * the ring (a loop) is refused.  A queue that sees a malformed chain is
 * marked broken and not touched again until it is set up anew: that is
 * what a device does when the driver violates the spec ("needs reset").
 */
#ifndef VU_VQ_H
#define VU_VQ_H

#include <stdint.h>
#include <sys/uio.h>

#include "vu_mem.h"

#define VU_VQ_MAX_SIZE		32768u
#define VU_CHAIN_MAX_IOV	64u
/* Largest chain we accept: a 64 KiB vsock packet plus header, with room. */
#define VU_CHAIN_MAX_BYTES	(256u << 10)

#define VRING_DESC_F_NEXT	1
#define VRING_DESC_F_WRITE	2
#define VRING_DESC_F_INDIRECT	4
#define VRING_AVAIL_F_NO_INTERRUPT 1
/* Feature bit: used_event/avail_event after the rings (virtio 1.1 2.6.7-8). */
#define VIRTIO_RING_F_EVENT_IDX	29

struct vu_vq {
	unsigned int index;
	uint16_t num;			/* 0: SET_VRING_NUM not seen */
	int addr_set;
	struct vu_vring_addr addr;
	uint8_t *desc, *avail, *used;	/* host pointers, NULL if unmapped */
	uint16_t last_avail;		/* next avail entry to take */
	uint16_t used_idx;		/* next used entry to fill */
	int kick_fd, call_fd, err_fd;
	int enabled;
	int broken;
	int event_idx;			/* VIRTIO_RING_F_EVENT_IDX negotiated */
	unsigned int pending_signal;	/* used entries not yet signalled */
	uint16_t signalled_used;	/* used index at our last interrupt */
	int signalled_valid;		/* 0: the next signal is not suppressed */
	uint64_t signals, signals_saved;	/* interrupts sent / left out */
};

struct vu_chain {
	uint16_t head;
	unsigned int niov;
	uint64_t len;			/* total bytes in iov */
	struct iovec iov[VU_CHAIN_MAX_IOV];
};

void vu_vq_init(struct vu_vq *vq, unsigned int index);

/*
 * Translate the ring addresses through @mem.  0 on success (or when the
 * ring is not fully described yet), -1 with a reason if the rings do not
 * lie inside guest memory or are misaligned.
 */
int vu_vq_map(struct vu_vq *vq, const struct vu_mem *mem, char *why,
	      size_t whylen);

/* Ready to process: mapped, kick fd known, enabled, not broken. */
int vu_vq_ready(const struct vu_vq *vq);

/*
 * Take the next available chain.  @device_writes: 1 for a queue whose
 * buffers the device fills (RX), 0 for one it reads (TX); a descriptor
 * of the other direction is refused.  Returns 1 with @c filled, 0 if the
 * ring is empty, -1 (queue now broken) with a reason in @why.
 */
int vu_vq_pop(struct vu_vq *vq, const struct vu_mem *mem, int device_writes,
	      struct vu_chain *c, char *why, size_t whylen);

/* Give back the chain vu_vq_pop() returned last (nothing pushed since). */
static inline void vu_vq_unpop(struct vu_vq *vq)
{
	vq->last_avail--;
}

/* Does the ring hold a chain we have not taken?  (No side effects.) */
int vu_vq_has_avail(const struct vu_vq *vq);

/* Return chain @head to the driver with @len bytes written. */
void vu_vq_push(struct vu_vq *vq, uint16_t head, uint32_t len);

/*
 * Interrupt the driver for pushed entries, unless it asked not to be:
 * with EVENT_IDX only if the used index passed the driver's used_event,
 * else unless it set VRING_AVAIL_F_NO_INTERRUPT.
 */
void vu_vq_signal(struct vu_vq *vq);

/*
 * We are about to wait for the driver: ask it to kick us for the next
 * buffer it adds (with EVENT_IDX: avail_event = the next entry we take;
 * without it the driver always kicks).  Returns 1 if buffers arrived in
 * the meantime (process them instead of waiting), else 0.  Between two
 * calls the driver adds buffers without kicking us.
 */
int vu_vq_want_kick(struct vu_vq *vq);

#endif
