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

/* Write a whole reply; -1 on error. */
int vu_write_all(int sock, const uint8_t *buf, size_t len);

#endif
