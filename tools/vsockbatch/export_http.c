// SPDX-License-Identifier: GPL-2.0
/*
 * export_http.c - the exporter's HTTP side: libmicrohttpd with a thread
 * pool on a socket bound by us (so that a port in use is reported before
 * the tracer is attached), the page rendered from a copy of the
 * published snapshot.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include <linux/vm_sockets.h>
#include <microhttpd.h>

#include "export.h"

struct vb_http {
	struct MHD_Daemon *d;
	struct vb_pub *pub;
};

int vb_pub_render(struct vb_pub *p, enum vb_prom_format fmt, char **page,
		  size_t *len)
{
	struct vb_prom_snap copy;
	int err = 0;

	vb_prom_snap_init(&copy);
	pthread_mutex_lock(&p->lock);
	if (!p->ready)
		err = -EAGAIN;
	else
		err = vb_prom_snap_copy(&copy, &p->snap);
	if (!err)
		p->scrapes++;
	pthread_mutex_unlock(&p->lock);
	if (!err) {
		*page = vb_prom_format(&copy, fmt, len);
		if (!*page)
			err = -ENOMEM;
	}
	vb_prom_snap_free(&copy);
	return err;
}

static int listen_on(int fd, const struct sockaddr *sa, socklen_t salen,
		     const char *what, char *errbuf, size_t errlen)
{
	int one = 1, err;

	/* a restarted exporter must not wait out TIME_WAIT */
	if (sa->sa_family != AF_VSOCK)
		setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
	if (bind(fd, sa, salen) || listen(fd, 64)) {
		err = -errno;
		snprintf(errbuf, errlen, "cannot listen on %s: %s", what,
			 strerror(errno));
		close(fd);
		return err;
	}
	return 0;
}

int vb_http_listen_tcp(const char *spec, int *fd, char *errbuf, size_t errlen)
{
	struct sockaddr_storage ss;
	struct sockaddr_in *in4 = (struct sockaddr_in *)&ss;
	struct sockaddr_in6 *in6 = (struct sockaddr_in6 *)&ss;
	const char *colon = strrchr(spec, ':'), *orig = spec;
	char host[64], *end;
	unsigned long port;
	size_t hlen;
	bool v6;

	memset(&ss, 0, sizeof(ss));
	if (!colon || colon == spec)
		goto bad;
	errno = 0;
	port = strtoul(colon + 1, &end, 10);
	if (errno || *end || end == colon + 1 || port == 0 || port > 65535)
		goto bad;
	hlen = (size_t)(colon - spec);
	v6 = spec[0] == '[';
	if (v6 && (hlen < 3 || spec[hlen - 1] != ']'))
		goto bad;
	if (v6) {
		spec++;
		hlen -= 2;
	}
	if (hlen >= sizeof(host))
		goto bad;
	memcpy(host, spec, hlen);
	host[hlen] = 0;
	if (v6) {
		in6->sin6_family = AF_INET6;
		in6->sin6_port = htons((uint16_t)port);
		if (inet_pton(AF_INET6, host, &in6->sin6_addr) != 1)
			goto bad;
	} else {
		in4->sin_family = AF_INET;
		in4->sin_port = htons((uint16_t)port);
		if (inet_pton(AF_INET, host, &in4->sin_addr) != 1)
			goto bad;
	}
	*fd = socket(ss.ss_family, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (*fd < 0) {
		snprintf(errbuf, errlen, "socket: %s", strerror(errno));
		return -errno;
	}
	return listen_on(*fd, (struct sockaddr *)&ss,
			 v6 ? sizeof(*in6) : sizeof(*in4), orig, errbuf, errlen);
bad:
	snprintf(errbuf, errlen,
		 "invalid listen address '%s' (want ADDR:PORT, e.g. 127.0.0.1:9477 or [::1]:9477)",
		 orig);
	return -EINVAL;
}

int vb_http_listen_vsock(unsigned int port, int *fd, char *errbuf,
			 size_t errlen)
{
	struct sockaddr_vm vm;
	char what[48];

	memset(&vm, 0, sizeof(vm));
	vm.svm_family = AF_VSOCK;
	vm.svm_cid = VMADDR_CID_ANY;
	vm.svm_port = port;
	snprintf(what, sizeof(what), "vsock port %u", port);
	*fd = socket(AF_VSOCK, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (*fd < 0) {
		snprintf(errbuf, errlen, "AF_VSOCK socket: %s", strerror(errno));
		return -errno;
	}
	return listen_on(*fd, (struct sockaddr *)&vm, sizeof(vm), what, errbuf,
			 errlen);
}

static enum MHD_Result reply(struct MHD_Connection *c, unsigned int status,
			     char *body, size_t len, bool owned,
			     const char *type)
{
	struct MHD_Response *r;
	enum MHD_Result ret;

	r = MHD_create_response_from_buffer(len, body, owned ?
					    MHD_RESPMEM_MUST_FREE :
					    MHD_RESPMEM_PERSISTENT);
	if (!r) {
		if (owned)
			free(body);
		return MHD_NO;
	}
	MHD_add_response_header(r, MHD_HTTP_HEADER_CONTENT_TYPE, type);
	ret = MHD_queue_response(c, status, r);
	MHD_destroy_response(r);
	return ret;
}

static enum MHD_Result on_request(void *cls, struct MHD_Connection *c,
				  const char *url, const char *method,
				  const char *version, const char *upload,
				  size_t *upload_len, void **con_cls)
{
	static char index[] = "vsockbatch export: metrics at /metrics\n";
	static char notfound[] = "not found: the metrics are at /metrics\n";
	static char notyet[] = "no map read yet: retry in a second\n";
	static char nomem[] = "out of memory\n";
	static char method_na[] = "GET or HEAD only\n";
	static const char *plain = "text/plain; charset=utf-8";
	struct vb_http *h = cls;
	enum vb_prom_format fmt;
	char *page;
	size_t len;
	int err;

	(void)version;
	(void)upload;
	(void)con_cls;
	if (*upload_len)
		return MHD_NO;	/* a GET has no body */
	if (strcmp(method, "GET") && strcmp(method, "HEAD"))
		return reply(c, MHD_HTTP_METHOD_NOT_ALLOWED, method_na,
			     sizeof(method_na) - 1, false, plain);
	if (!strcmp(url, "/"))
		return reply(c, MHD_HTTP_OK, index, sizeof(index) - 1, false,
			     plain);
	if (strcmp(url, "/metrics"))
		return reply(c, MHD_HTTP_NOT_FOUND, notfound,
			     sizeof(notfound) - 1, false, plain);
	fmt = vb_prom_negotiate(MHD_lookup_connection_value(c, MHD_HEADER_KIND,
							    MHD_HTTP_HEADER_ACCEPT));
	err = vb_pub_render(h->pub, fmt, &page, &len);
	if (err == -EAGAIN)
		return reply(c, MHD_HTTP_SERVICE_UNAVAILABLE, notyet,
			     sizeof(notyet) - 1, false, plain);
	if (err)
		return reply(c, MHD_HTTP_INTERNAL_SERVER_ERROR, nomem,
			     sizeof(nomem) - 1, false, plain);
	return reply(c, MHD_HTTP_OK, page, len, true,
		     vb_prom_content_type(fmt));
}

struct vb_http *vb_http_start(int fd, unsigned int threads, struct vb_pub *pub,
			      char *errbuf, size_t errlen)
{
	struct vb_http *h = calloc(1, sizeof(*h));

	if (!h) {
		snprintf(errbuf, errlen, "out of memory");
		close(fd);
		return NULL;
	}
	h->pub = pub;
	/*
	 * Bounded: at most 64 connections, idle ones dropped after 10 s,
	 * so a stuck or hostile client costs a bounded amount of memory.
	 * MHD_USE_ITC: stop wakes the pool through an eventfd, not by
	 * shutdown() of the listening socket, which does not wake an
	 * AF_VSOCK listener's epoll (the exporter hung in
	 * MHD_stop_daemon() on SIGTERM with --vsock-port).
	 */
	h->d = MHD_start_daemon(MHD_USE_INTERNAL_POLLING_THREAD | MHD_USE_EPOLL |
				MHD_USE_ITC,
				0, NULL, NULL, on_request, h,
				MHD_OPTION_LISTEN_SOCKET, fd,
				MHD_OPTION_THREAD_POOL_SIZE, threads,
				MHD_OPTION_CONNECTION_LIMIT, 64,
				MHD_OPTION_CONNECTION_TIMEOUT, 10,
				MHD_OPTION_END);
	if (!h->d) {
		snprintf(errbuf, errlen, "cannot start the HTTP server (libmicrohttpd)");
		close(fd);
		free(h);
		return NULL;
	}
	return h;
}

void vb_http_stop(struct vb_http *h)
{
	if (!h)
		return;
	/* MHD closes the listening socket it was given */
	MHD_stop_daemon(h->d);
	free(h);
}
