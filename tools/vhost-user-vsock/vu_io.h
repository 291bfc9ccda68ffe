/* SPDX-License-Identifier: GPL-2.0 */
/* Reading one vhost-user message (and its fds) from the front-end socket. */
#ifndef VU_IO_H
#define VU_IO_H

#include <stddef.h>
#include <stdint.h>

#include "vu_msg.h"

/*
 * Read one message into @buf (VU_HDR_SIZE + VU_MAX_PAYLOAD bytes) and
 * parse it into @m.  Received fds land in @fds/@nfds.  Returns 1 for a
 * valid message (fds are the caller's), 0 at end of file, -1 for a
 * malformed message or I/O error with a reason in @why (any received fds
 * are closed then).
 */
int vu_read_msg(int sock, uint8_t *buf, struct vu_msg *m, int *fds,
		unsigned int *nfds, char *why, size_t whylen);

/*
 * The same, for a non-blocking socket: a message arrives in as many reads
 * as it takes, and what is read so far waits in @r, so that a front-end
 * that sends half a message stalls nothing but itself.
 */
struct vu_reader {
	uint8_t buf[VU_HDR_SIZE + VU_MAX_PAYLOAD];
	size_t got;
	int fds[VU_MAX_FDS];
	unsigned int nfds;
	int have_hdr;
	struct vu_msg m;
};

void vu_reader_init(struct vu_reader *r);
/* Close the fds of a message not read to its end. */
void vu_reader_reset(struct vu_reader *r);
/*
 * Read what @sock has.  1: a whole valid message in r->m, its payload in
 * r->buf and its fds in @fds/@nfds (the caller's from now on; call again
 * for the next message); 0: incomplete, wait for more; -1: malformed or
 * an I/O error (reason in @why, fds closed); -2: end of file between
 * messages.
 */
int vu_reader_step(int sock, struct vu_reader *r, int *fds, unsigned int *nfds,
		   char *why, size_t whylen);

/*
 * Write a whole reply.  On a non-blocking socket waits up to 1 s for room
 * (a reply is small; a front-end that reads none in a second is gone).
 * -1 on error.
 */
int vu_write_all(int sock, const uint8_t *buf, size_t len);

#endif
