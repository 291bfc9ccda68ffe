/* SPDX-License-Identifier: GPL-2.0 */
/*
 * export.h - `vsockbatch export`: the tracer's counts as Prometheus
 * metrics.  export.c reads the maps and publishes a snapshot;
 * export_http.c serves the latest one (libmicrohttpd's thread pool) over
 * TCP and, optionally, AF_VSOCK.
 */
#ifndef VB_EXPORT_H
#define VB_EXPORT_H

#include <pthread.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "prom.h"

/*
 * The published snapshot.  The map reader replaces it under the lock
 * (a copy of its own working snapshot); a scrape copies it under the
 * lock and formats its copy after unlocking, so a slow client never
 * holds up the reader, and scrapes run side by side.
 */
struct vb_pub {
	pthread_mutex_t lock;
	struct vb_prom_snap snap;
	bool ready;		/* a first read has been published */
	uint64_t scrapes;
};

/* The page of the latest snapshot; 0, -EAGAIN (nothing yet) or -ENOMEM. */
int vb_pub_render(struct vb_pub *p, enum vb_prom_format fmt, char **page,
		  size_t *len);

struct vb_http;

/*
 * A listening TCP socket on "ADDR:PORT" (IPv4, or [IPv6]:PORT).
 * -EINVAL: not such an address; -EADDRINUSE and the like: the bind's
 * errno; errbuf says which.
 */
int vb_http_listen_tcp(const char *spec, int *fd, char *errbuf, size_t errlen);
/* A listening AF_VSOCK socket on port (any CID); -errno + reason. */
int vb_http_listen_vsock(unsigned int port, int *fd, char *errbuf,
			 size_t errlen);
/*
 * Serve /metrics from pub on the listening socket fd (taken over) with a
 * pool of threads.  NULL + reason on failure.
 */
struct vb_http *vb_http_start(int fd, unsigned int threads, struct vb_pub *pub,
			      char *errbuf, size_t errlen);
/* Stop serving (in-flight requests end first) and free. */
void vb_http_stop(struct vb_http *h);

/* The command: export.c (dynamically linked: build/dyn/vsockbatch-export). */
int cmd_export(int argc, char **argv);

#endif
