// SPDX-License-Identifier: GPL-2.0
/* cpulist.c - parse CPU lists. */
#include <ctype.h>
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cpulist.h"

static int num(const char **p, unsigned long *v)
{
	char *end;

	if (!isdigit((unsigned char)**p))
		return -EINVAL;
	errno = 0;
	*v = strtoul(*p, &end, 10);
	if (errno || *v >= VB_MAX_CPUS)
		return -EINVAL;
	*p = end;
	return 0;
}

int vb_cpulist_parse(const char *s, uint32_t *cpus, size_t max)
{
	static bool set[VB_MAX_CPUS];
	unsigned long a, b, i;
	const char *p = s;
	size_t n = 0;

	if (!s)
		return -EINVAL;
	memset(set, 0, sizeof(set));
	for (;;) {
		if (num(&p, &a))
			return -EINVAL;
		b = a;
		if (*p == '-') {
			p++;
			if (num(&p, &b) || b < a)
				return -EINVAL;
		}
		for (i = a; i <= b; i++)
			set[i] = true;
		if (*p != ',')
			break;
		p++;		/* a number must follow */
	}
	if (*p == '\n')
		p++;
	if (*p)
		return -EINVAL;
	for (i = 0; i < VB_MAX_CPUS; i++) {
		if (!set[i])
			continue;
		if (n == max)
			return -E2BIG;
		cpus[n++] = (uint32_t)i;
	}
	return n ? (int)n : -EINVAL;
}

int vb_cpulist_online(uint32_t *cpus, size_t max)
{
	char buf[4096];
	FILE *f = fopen("/sys/devices/system/cpu/online", "r");
	int err;

	if (!f)
		return -errno;
	if (!fgets(buf, sizeof(buf), f)) {
		err = ferror(f) ? -EIO : -EINVAL;
		fclose(f);
		return err;
	}
	fclose(f);
	return vb_cpulist_parse(buf, cpus, max);
}

/* "0-1,4" of an ascending list */
static void format_list(const uint32_t *c, size_t n, char *buf, size_t len)
{
	size_t i, j, off = 0;

	buf[0] = 0;
	for (i = 0; i < n && off < len; i = j + 1) {
		for (j = i; j + 1 < n && c[j + 1] == c[j] + 1; j++)
			;
		off += (size_t)snprintf(buf + off, len - off, "%s%u", i ? "," : "",
					c[i]);
		if (j > i && off < len)
			off += (size_t)snprintf(buf + off, len - off, "-%u", c[j]);
	}
}

int vb_cpulist_check(const uint32_t *cpus, size_t n, const uint32_t *online,
		     size_t nonline, char *err, size_t errlen)
{
	char list[256];
	size_t i, j;

	for (i = 0; i < n; i++) {
		for (j = 0; j < nonline && online[j] != cpus[i]; j++)
			;
		if (j < nonline)
			continue;
		format_list(online, nonline, list, sizeof(list));
		snprintf(err, errlen, "CPU %u is not online (online: %s)",
			 cpus[i], list);
		return -EINVAL;
	}
	return 0;
}

int vb_cpulist_check_online(const uint32_t *cpus, size_t n, char *err,
			    size_t errlen)
{
	static uint32_t online[VB_MAX_CPUS];
	int k = vb_cpulist_online(online, VB_MAX_CPUS);

	if (k < 0) {
		snprintf(err, errlen, "cannot read the online CPU list: %s",
			 strerror(-k));
		return k == -EINVAL ? -EIO : k;
	}
	return vb_cpulist_check(cpus, n, online, (size_t)k, err, errlen);
}
