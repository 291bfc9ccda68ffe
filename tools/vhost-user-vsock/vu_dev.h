/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The vhost-user back-end state of one vsock device: negotiated features,
 * guest memory and the two data queues (RX 0, TX 1; QEMU keeps the event
 * queue to itself).  vu_dev_handle() applies one parsed message.
 */
#ifndef VU_DEV_H
#define VU_DEV_H

#include <stddef.h>
#include <stdint.h>

#include "vu_mem.h"
#include "vu_msg.h"
#include "vu_vq.h"

#define VU_NR_VQS	2
#define VU_VQ_RX	0	/* device -> guest */
#define VU_VQ_TX	1	/* guest -> device */

/*
 * What we offer: virtio 1.0, the protocol-feature extension, and
 * EVENT_IDX (interrupts and kicks only where the other side asks).
 */
#define VU_DEV_FEATURES	((1ull << VIRTIO_F_VERSION_1) | \
			 (1ull << VU_F_PROTOCOL_FEATURES) | \
			 (1ull << VIRTIO_RING_F_EVENT_IDX))
/* CONFIG: QEMU's vhost-user-vsock reads the guest CID with GET_CONFIG. */
#define VU_DEV_PROTOCOL_FEATURES (1ull << VU_PROTOCOL_F_CONFIG)

struct vu_dev {
	uint64_t guest_cid;
	uint64_t offered;		/* VU_DEV_FEATURES, less what is switched off */
	uint64_t features;		/* acked by SET_FEATURES */
	uint64_t protocol_features;	/* acked by SET_PROTOCOL_FEATURES */
	int owner;
	struct vu_mem mem;
	struct vu_vq vq[VU_NR_VQS];
};

void vu_dev_init(struct vu_dev *dev, uint64_t guest_cid);
/* Drop memory, close queue fds: the front-end went away. */
void vu_dev_reset(struct vu_dev *dev);

/*
 * Apply @m.  @fds (vu_msg_fds_expected(m) of them) become the device's
 * or are closed, whatever the outcome.  If the message needs a reply it
 * is encoded into @reply (VU_HDR_SIZE + VU_MAX_PAYLOAD bytes) and its
 * length stored in @replylen (else 0).  *@vq_changed gets the bit of each
 * queue whose readiness may have changed.  0, or -1 with a reason.
 */
int vu_dev_handle(struct vu_dev *dev, const struct vu_msg *m, int *fds,
		  uint8_t *reply, size_t *replylen, unsigned int *vq_changed,
		  char *why, size_t whylen);

#endif
