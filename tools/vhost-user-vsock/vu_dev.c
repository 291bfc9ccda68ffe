// SPDX-License-Identifier: GPL-2.0
/* vhost-user back-end: what each message does to the device. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "vu_dev.h"

void vu_dev_init(struct vu_dev *dev, uint64_t guest_cid)
{
	unsigned int i;

	memset(dev, 0, sizeof(*dev));
	dev->guest_cid = guest_cid;
	dev->offered = VU_DEV_FEATURES;
	for (i = 0; i < VU_NR_VQS; i++)
		vu_vq_init(&dev->vq[i], i);
}

static void close_fd(int *fd)
{
	if (*fd >= 0)
		close(*fd);
	*fd = -1;
}

void vu_dev_reset(struct vu_dev *dev)
{
	uint64_t offered = dev->offered;
	unsigned int i;

	for (i = 0; i < VU_NR_VQS; i++) {
		close_fd(&dev->vq[i].kick_fd);
		close_fd(&dev->vq[i].call_fd);
		close_fd(&dev->vq[i].err_fd);
	}
	vu_mem_unmap(&dev->mem);
	vu_dev_init(dev, dev->guest_cid);
	dev->offered = offered;
}

static int set_nonblock(int fd)
{
	int fl = fcntl(fd, F_GETFL);

	return fl < 0 ? -1 : fcntl(fd, F_SETFL, fl | O_NONBLOCK);
}

static struct vu_vq *queue(struct vu_dev *dev, uint32_t index, const char *req,
			   char *why, size_t whylen)
{
	if (index >= VU_NR_VQS) {
		snprintf(why, whylen, "%s: queue %u (device has %u)", req, index,
			 VU_NR_VQS);
		return NULL;
	}
	return &dev->vq[index];
}

int vu_dev_handle(struct vu_dev *dev, const struct vu_msg *m, int *fds,
		  uint8_t *reply, size_t *replylen, unsigned int *vq_changed,
		  char *why, size_t whylen)
{
	const char *name = vu_request_name(m->request);
	unsigned int nfds = vu_msg_fds_expected(m), i;
	struct vu_vq *vq;
	uint8_t cfg[8];
	int ret = 0;

	*replylen = 0;
	switch (m->request) {
	case VU_GET_FEATURES:
		*replylen = vu_reply_u64(reply, m->request, dev->offered);
		break;
	case VU_SET_FEATURES:
		if (m->u64 & ~dev->offered) {
			snprintf(why, whylen, "%s: 0x%llx has bits we did not offer",
				 name, (unsigned long long)m->u64);
			return -1;
		}
		dev->features = m->u64;
		for (i = 0; i < VU_NR_VQS; i++) {
			dev->vq[i].event_idx = !!(m->u64 & (1ull << VIRTIO_RING_F_EVENT_IDX));
			dev->vq[i].signalled_valid = 0;
		}
		/* Without the protocol extension, rings start enabled. */
		if (!(dev->features & (1ull << VU_F_PROTOCOL_FEATURES)))
			for (i = 0; i < VU_NR_VQS; i++)
				dev->vq[i].enabled = 1;
		*vq_changed |= (1u << VU_NR_VQS) - 1;
		break;
	case VU_GET_PROTOCOL_FEATURES:
		*replylen = vu_reply_u64(reply, m->request, VU_DEV_PROTOCOL_FEATURES);
		break;
	case VU_SET_PROTOCOL_FEATURES:
		if (m->u64 & ~VU_DEV_PROTOCOL_FEATURES) {
			snprintf(why, whylen, "%s: 0x%llx has bits we did not offer",
				 name, (unsigned long long)m->u64);
			return -1;
		}
		dev->protocol_features = m->u64;
		break;
	case VU_SET_OWNER:
		dev->owner = 1;
		break;
	case VU_RESET_OWNER:
		vu_dev_reset(dev);
		*vq_changed |= (1u << VU_NR_VQS) - 1;
		break;
	case VU_GET_QUEUE_NUM:
		*replylen = vu_reply_u64(reply, m->request, VU_NR_VQS);
		break;
	case VU_SET_MEM_TABLE:
		ret = vu_mem_map(&dev->mem, m->mem.r, m->mem.nregions, fds, why, whylen);
		for (i = 0; i < nfds; i++)
			close(fds[i]);	/* the mappings keep the memory */
		if (ret)
			return -1;
		for (i = 0; i < VU_NR_VQS; i++) {
			if (vu_vq_map(&dev->vq[i], &dev->mem, why, whylen))
				return -1;
		}
		*vq_changed |= (1u << VU_NR_VQS) - 1;
		break;
	case VU_SET_VRING_NUM:
		if (!(vq = queue(dev, m->state.index, name, why, whylen)))
			return -1;
		if (m->state.num == 0 || m->state.num > VU_VQ_MAX_SIZE ||
		    (m->state.num & (m->state.num - 1))) {
			snprintf(why, whylen, "%s: size %u is not a power of two <= %u",
				 name, m->state.num, VU_VQ_MAX_SIZE);
			return -1;
		}
		vq->num = (uint16_t)m->state.num;
		if (vu_vq_map(vq, &dev->mem, why, whylen))
			return -1;
		*vq_changed |= 1u << vq->index;
		break;
	case VU_SET_VRING_ADDR:
		if (!(vq = queue(dev, m->addr.index, name, why, whylen)))
			return -1;
		if (m->addr.flags) {
			snprintf(why, whylen, "%s: flags 0x%x (logging not supported)",
				 name, m->addr.flags);
			return -1;
		}
		vq->addr = m->addr;
		vq->addr_set = 1;
		if (vu_vq_map(vq, &dev->mem, why, whylen))
			return -1;
		*vq_changed |= 1u << vq->index;
		break;
	case VU_SET_VRING_BASE:
		if (!(vq = queue(dev, m->state.index, name, why, whylen)))
			return -1;
		if (m->state.num > 0xffff) {
			snprintf(why, whylen, "%s: base %u > 65535", name, m->state.num);
			return -1;
		}
		/* Split rings: the used index restarts where avail does. */
		vq->last_avail = vq->used_idx = (uint16_t)m->state.num;
		vq->broken = 0;
		vq->signalled_valid = 0;
		break;
	case VU_GET_VRING_BASE:
		if (!(vq = queue(dev, m->state.index, name, why, whylen)))
			return -1;
		/* Stops the ring: no processing until a new kick fd arrives. */
		close_fd(&vq->kick_fd);
		*replylen = vu_reply_state(reply, m->request, vq->index, vq->last_avail);
		*vq_changed |= 1u << vq->index;
		break;
	case VU_SET_VRING_KICK:
	case VU_SET_VRING_CALL:
	case VU_SET_VRING_ERR:
		if (!(vq = queue(dev, m->fdidx.index, name, why, whylen))) {
			for (i = 0; i < nfds; i++)
				close(fds[i]);
			return -1;
		}
		{
			int *slot = m->request == VU_SET_VRING_KICK ? &vq->kick_fd :
				    m->request == VU_SET_VRING_CALL ? &vq->call_fd :
				    &vq->err_fd;

			close_fd(slot);
			*slot = nfds ? fds[0] : -1;
			/*
			 * One thread serves everything: a blocking call fd
			 * (counter at its maximum) would hang it in write(),
			 * a blocking kick fd in read().
			 */
			if (*slot >= 0 && set_nonblock(*slot) < 0) {
				snprintf(why, whylen, "%s: fcntl(O_NONBLOCK): %s", name,
					 strerror(errno));
				close_fd(slot);
				return -1;
			}
		}
		if (m->request == VU_SET_VRING_KICK && !(dev->features & (1ull << VU_F_PROTOCOL_FEATURES)))
			vq->enabled = 1;
		*vq_changed |= 1u << vq->index;
		break;
	case VU_SET_VRING_ENABLE:
		if (!(vq = queue(dev, m->state.index, name, why, whylen)))
			return -1;
		if (m->state.num > 1) {
			snprintf(why, whylen, "%s: value %u (0 or 1)", name, m->state.num);
			return -1;
		}
		vq->enabled = m->state.num;
		*vq_changed |= 1u << vq->index;
		break;
	case VU_GET_CONFIG:
		/* struct virtio_vsock_config { le64 guest_cid; } */
		if (m->config.offset > sizeof(cfg) ||
		    m->config.size > sizeof(cfg) - m->config.offset) {
			snprintf(why, whylen, "%s: bytes %u..%u of an 8-byte config",
				 name, m->config.offset, m->config.offset + m->config.size);
			return -1;
		}
		vu_put64(cfg, dev->guest_cid);
		*replylen = vu_reply_config(reply, m->config.offset, m->config.size,
					    m->config.flags, cfg + m->config.offset);
		break;
	case VU_SET_CONFIG:
		snprintf(why, whylen, "%s: the vsock config is read-only", name);
		return -1;
	default:
		for (i = 0; i < nfds; i++)
			close(fds[i]);
		snprintf(why, whylen, "%s not supported", name);
		return -1;
	}
	return 0;
}
