// SPDX-License-Identifier: GPL-2.0
/*
 * One-line log messages on stderr with a monotonic timestamp.  Lines a
 * guest or a host program can cause go through logmsg_rl(): a token
 * bucket, so that a guest sending bad packets at full speed cannot fill
 * the disk of whoever keeps the log, nor slow the loop down to the speed
 * of stderr.
 */
#include <stdarg.h>
#include <stdio.h>
#include <time.h>

#include "backend.h"

uint64_t now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + ts.tv_nsec;
}

void (*log_sink)(const char *line);

static void vlog(const char *fmt, va_list ap)
{
	struct timespec ts;
	char line[1024];

	if (log_sink) {
		vsnprintf(line, sizeof(line), fmt, ap);
		log_sink(line);
		return;
	}
	clock_gettime(CLOCK_MONOTONIC, &ts);
	fprintf(stderr, "vhost-user-vsock[%ld.%03ld]: ", (long)ts.tv_sec,
		ts.tv_nsec / 1000000);
	vfprintf(stderr, fmt, ap);
	fputc('\n', stderr);
}

void logmsg(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vlog(fmt, ap);
	va_end(ap);
}

void logmsg_rl(const char *fmt, ...)
{
	/* Tokens in thousandths: LOG_RATE a second, at most LOG_BURST. */
	static uint64_t tokens = LOG_BURST * 1000ull, last;
	static unsigned long long suppressed;
	uint64_t now = now_ms();
	va_list ap;

	if (last) {
		tokens += (now - last) * LOG_RATE;
		if (tokens > LOG_BURST * 1000ull)
			tokens = LOG_BURST * 1000ull;
	}
	last = now;
	if (tokens < 1000) {
		suppressed++;
		return;
	}
	tokens -= 1000;
	if (suppressed) {
		logmsg("(%llu log lines left out: more than %u a second)", suppressed,
		       LOG_RATE);
		suppressed = 0;
	}
	va_start(ap, fmt);
	vlog(fmt, ap);
	va_end(ap);
}

void log_clean(char *dst, size_t dstlen, const char *src, size_t n)
{
	size_t o = 0, i;

	if (!dstlen)
		return;
	for (i = 0; i < n && src[i] && o + 5 < dstlen; i++) {
		unsigned char c = (unsigned char)src[i];

		if (c >= 0x20 && c < 0x7f && c != '\\')
			dst[o++] = (char)c;
		else
			o += snprintf(dst + o, dstlen - o, "\\x%02x", c);
	}
	dst[o] = 0;
}
