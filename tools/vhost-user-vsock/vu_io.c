// SPDX-License-Identifier: GPL-2.0
/*
 * vhost-user framing on a Unix stream socket.  The front-end sends the
 * fds of a message with its header (one sendmsg), so they are collected
 * from the header read; the payload is read only after the header passed
 * vu_hdr_parse(), so its size is bounded before we read a byte of it.
 */
#include <errno.h>
#include <poll.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <sys/socket.h>

#include "vu_io.h"

static void close_fds(int *fds, unsigned int *nfds)
{
	unsigned int i;

	for (i = 0; i < *nfds; i++)
		close(fds[i]);
	*nfds = 0;
}

/* Collect SCM_RIGHTS fds; -1 if there were more than we can hold. */
static int take_fds(struct msghdr *mh, int *fds, unsigned int *nfds)
{
	struct cmsghdr *cm;
	int over = 0;

	for (cm = CMSG_FIRSTHDR(mh); cm; cm = CMSG_NXTHDR(mh, cm)) {
		size_t i, n;

		if (cm->cmsg_level != SOL_SOCKET || cm->cmsg_type != SCM_RIGHTS)
			continue;
		n = (cm->cmsg_len - CMSG_LEN(0)) / sizeof(int);
		for (i = 0; i < n; i++) {
			int fd;

			memcpy(&fd, CMSG_DATA(cm) + i * sizeof(int), sizeof(int));
			if (*nfds < VU_MAX_FDS)
				fds[(*nfds)++] = fd;
			else {
				close(fd);
				over = 1;
			}
		}
	}
	if (mh->msg_flags & MSG_CTRUNC)
		over = 1;
	return over ? -1 : 0;
}

int vu_read_msg(int sock, uint8_t *buf, struct vu_msg *m, int *fds,
		unsigned int *nfds, char *why, size_t whylen)
{
	union {
		char b[CMSG_SPACE(VU_MAX_FDS * sizeof(int))];
		struct cmsghdr align;
	} ctl;
	size_t got = 0, want;
	ssize_t n;

	*nfds = 0;
	while (got < VU_HDR_SIZE) {
		struct iovec iov = { buf + got, VU_HDR_SIZE - got };
		struct msghdr mh = {
			.msg_iov = &iov, .msg_iovlen = 1,
			.msg_control = ctl.b, .msg_controllen = sizeof(ctl.b),
		};

		n = recvmsg(sock, &mh, MSG_CMSG_CLOEXEC);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0) {
			if (n == 0 && got == 0) {
				close_fds(fds, nfds);
				return 0;
			}
			snprintf(why, whylen, "reading a message header: %s",
				 n ? strerror(errno) : "connection closed mid-header");
			close_fds(fds, nfds);
			return -1;
		}
		if (take_fds(&mh, fds, nfds)) {
			snprintf(why, whylen, "more than %u fds with one message", VU_MAX_FDS);
			close_fds(fds, nfds);
			return -1;
		}
		got += n;
	}
	if (vu_hdr_parse(buf, VU_HDR_SIZE, m, why, whylen)) {
		close_fds(fds, nfds);
		return -1;
	}
	want = VU_HDR_SIZE + m->size;
	while (got < want) {
		n = read(sock, buf + got, want - got);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0) {
			snprintf(why, whylen, "%s: payload: %s", vu_request_name(m->request),
				 n ? strerror(errno) : "connection closed mid-payload");
			close_fds(fds, nfds);
			return -1;
		}
		got += n;
	}
	if (vu_msg_parse(buf, want, *nfds, m, why, whylen)) {
		close_fds(fds, nfds);
		return -1;
	}
	return 1;
}

void vu_reader_init(struct vu_reader *r)
{
	memset(r, 0, sizeof(*r));
}

void vu_reader_reset(struct vu_reader *r)
{
	close_fds(r->fds, &r->nfds);
	vu_reader_init(r);
}

int vu_reader_step(int sock, struct vu_reader *r, int *fds, unsigned int *nfds,
		   char *why, size_t whylen)
{
	union {
		char b[CMSG_SPACE(VU_MAX_FDS * sizeof(int))];
		struct cmsghdr align;
	} ctl;
	unsigned int i;
	size_t want;
	ssize_t n;

	*nfds = 0;
	for (;;) {
		want = r->have_hdr ? VU_HDR_SIZE + r->m.size : VU_HDR_SIZE;
		if (r->got == want)
			break;
		{
			struct iovec iov = { r->buf + r->got, want - r->got };
			struct msghdr mh = {
				.msg_iov = &iov, .msg_iovlen = 1,
				.msg_control = ctl.b, .msg_controllen = sizeof(ctl.b),
			};

			n = recvmsg(sock, &mh, MSG_CMSG_CLOEXEC | MSG_DONTWAIT);
			if (n < 0 && errno == EINTR)
				continue;
			if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK))
				return 0;
			if (n <= 0) {
				if (n == 0 && r->got == 0) {
					vu_reader_reset(r);
					return -2;
				}
				snprintf(why, whylen, "reading a message: %s",
					 n ? strerror(errno) : "connection closed mid-message");
				vu_reader_reset(r);
				return -1;
			}
			if (take_fds(&mh, r->fds, &r->nfds)) {
				snprintf(why, whylen, "more than %u fds with one message",
					 VU_MAX_FDS);
				vu_reader_reset(r);
				return -1;
			}
		}
		r->got += n;
		if (!r->have_hdr && r->got == VU_HDR_SIZE) {
			if (vu_hdr_parse(r->buf, VU_HDR_SIZE, &r->m, why, whylen)) {
				vu_reader_reset(r);
				return -1;
			}
			r->have_hdr = 1;
		}
	}
	if (vu_msg_parse(r->buf, want, r->nfds, &r->m, why, whylen)) {
		vu_reader_reset(r);
		return -1;
	}
	for (i = 0; i < r->nfds; i++)
		fds[i] = r->fds[i];
	*nfds = r->nfds;
	r->nfds = 0;
	r->got = 0;
	r->have_hdr = 0;
	return 1;
}

int vu_write_all(int sock, const uint8_t *buf, size_t len)
{
	while (len) {
		ssize_t n = send(sock, buf, len, MSG_NOSIGNAL);

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) {
			struct pollfd p = { .fd = sock, .events = POLLOUT };

			if (poll(&p, 1, 1000) == 1)
				continue;
			errno = ETIMEDOUT;
			return -1;
		}
		if (n <= 0)
			return -1;
		buf += n;
		len -= n;
	}
	return 0;
}
