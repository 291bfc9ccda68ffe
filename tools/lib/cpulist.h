/* SPDX-License-Identifier: GPL-2.0 */
/* cpulist.h - "0,2-3" style CPU lists (sysfs format, -C options). */
#ifndef VB_CPULIST_H
#define VB_CPULIST_H

#include <stddef.h>
#include <stdint.h>

#define VB_MAX_CPUS 1024

/*
 * Parse a list like "0,2-3" into ascending unique CPU numbers.  Returns the
 * count (> 0), or -EINVAL (syntax, range reversed, CPU >= VB_MAX_CPUS,
 * empty) / -E2BIG (more than max entries).
 */
int vb_cpulist_parse(const char *s, uint32_t *cpus, size_t max);
/* The online CPUs from /sys/devices/system/cpu/online (or -errno). */
int vb_cpulist_online(uint32_t *cpus, size_t max);
/*
 * Is every cpus[i] in online[0..nonline)?  0, or -EINVAL with "CPU 5 is
 * not online (online: 0-1)" in err.
 */
int vb_cpulist_check(const uint32_t *cpus, size_t n, const uint32_t *online,
		     size_t nonline, char *err, size_t errlen);
/* vb_cpulist_check against the running system; -errno if unreadable. */
int vb_cpulist_check_online(const uint32_t *cpus, size_t n, char *err,
			    size_t errlen);

#endif
