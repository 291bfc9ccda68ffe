// SPDX-License-Identifier: GPL-2.0
/* One-line log messages on stderr with a monotonic timestamp. */
#include <stdarg.h>
#include <stdio.h>
#include <time.h>

#include "backend.h"

void logmsg(const char *fmt, ...)
{
	struct timespec ts;
	va_list ap;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	fprintf(stderr, "vhost-user-vsock[%ld.%03ld]: ", (long)ts.tv_sec,
		ts.tv_nsec / 1000000);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
}
