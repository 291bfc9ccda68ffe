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
