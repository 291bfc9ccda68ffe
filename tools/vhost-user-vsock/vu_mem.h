/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Guest memory as the front-end shares it (SET_MEM_TABLE): up to 8
 * regions, each an fd we mmap.  Every guest address the device touches
 * goes through a translation that checks the whole [addr, addr + len)
 * range lies inside mapped memory; nothing else dereferences guest
 * addresses.
 */
#ifndef VU_MEM_H
#define VU_MEM_H

#include <stddef.h>
#include <stdint.h>
#include <sys/uio.h>

#include "vu_msg.h"

struct vu_region {
	uint64_t gpa;		/* guest physical address of the first byte */
	uint64_t size;
	uint64_t uva;		/* front-end (QEMU) virtual address */
	uint8_t *host;		/* our mapping of the first byte */
	void *map_base;		/* what to munmap (NULL: not ours) */
	size_t map_len;
};

struct vu_mem {
	unsigned int n;
	struct vu_region r[VU_MAX_MEM_REGIONS];
};

/*
 * Replace @mem by the regions of a SET_MEM_TABLE message, mmapping
 * @fds[i] for region i.  On failure @mem is unchanged (and the fds are
 * the caller's to close); -1 with a reason in @why.
 */
int vu_mem_map(struct vu_mem *mem, const struct vu_mem_region *regions,
	       unsigned int n, const int *fds, char *why, size_t whylen);

/*
 * Install regions whose host memory already exists (tests, fuzzing).
 * Refuses overlapping or wrapping regions like vu_mem_map does.
 */
int vu_mem_set(struct vu_mem *mem, const struct vu_region *regions,
	       unsigned int n, char *why, size_t whylen);

void vu_mem_unmap(struct vu_mem *mem);

/* Host pointer for [gpa, gpa + len) if one region holds all of it. */
void *vu_gpa_ptr(const struct vu_mem *mem, uint64_t gpa, uint64_t len);
/* The same for a front-end virtual address (ring addresses). */
void *vu_uva_ptr(const struct vu_mem *mem, uint64_t uva, uint64_t len);

/*
 * Append [gpa, gpa + len) as host iovecs to @iov (which has @*niov used
 * entries out of @max), splitting at region boundaries.  -1 if any byte is
 * unmapped or @iov would overflow.
 */
int vu_gpa_iov(const struct vu_mem *mem, uint64_t gpa, uint64_t len,
	       struct iovec *iov, unsigned int *niov, unsigned int max);

#endif
