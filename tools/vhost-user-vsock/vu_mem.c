// SPDX-License-Identifier: GPL-2.0
/* Guest memory table and bounds-checked address translation. */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>

#include "vu_mem.h"

/* Overflow-safe "[a, a + alen) inside [b, b + blen)". */
static int range_in(uint64_t a, uint64_t alen, uint64_t b, uint64_t blen)
{
	if (a < b)
		return 0;
	if (a - b > blen)
		return 0;
	return alen <= blen - (a - b);
}

static int overlaps(uint64_t a, uint64_t alen, uint64_t b, uint64_t blen)
{
	return a < b + blen && b < a + alen;
}

static int check_table(const struct vu_region *r, unsigned int n,
		       char *why, size_t whylen)
{
	unsigned int i, j;

	if (n == 0 || n > VU_MAX_MEM_REGIONS) {
		snprintf(why, whylen, "memory table with %u regions", n);
		return -1;
	}
	for (i = 0; i < n; i++) {
		if (r[i].size == 0 || r[i].gpa + r[i].size < r[i].gpa ||
		    r[i].uva + r[i].size < r[i].uva) {
			snprintf(why, whylen, "memory region %u is empty or wraps", i);
			return -1;
		}
		for (j = 0; j < i; j++) {
			if (overlaps(r[i].gpa, r[i].size, r[j].gpa, r[j].size)) {
				snprintf(why, whylen,
					 "memory regions %u and %u overlap in guest physical space",
					 j, i);
				return -1;
			}
		}
	}
	return 0;
}

int vu_mem_set(struct vu_mem *mem, const struct vu_region *regions,
	       unsigned int n, char *why, size_t whylen)
{
	if (check_table(regions, n, why, whylen))
		return -1;
	vu_mem_unmap(mem);
	memcpy(mem->r, regions, n * sizeof(*regions));
	mem->n = n;
	return 0;
}

int vu_mem_map(struct vu_mem *mem, const struct vu_mem_region *regions,
	       unsigned int n, const int *fds, char *why, size_t whylen)
{
	struct vu_region r[VU_MAX_MEM_REGIONS];
	unsigned int i;

	if (n == 0 || n > VU_MAX_MEM_REGIONS) {
		snprintf(why, whylen, "memory table with %u regions", n);
		return -1;
	}
	memset(r, 0, sizeof(r));
	for (i = 0; i < n; i++) {
		r[i].gpa = regions[i].guest_phys_addr;
		r[i].size = regions[i].memory_size;
		r[i].uva = regions[i].userspace_addr;
	}
	if (check_table(r, n, why, whylen))
		return -1;
	for (i = 0; i < n; i++) {
		uint64_t len = regions[i].mmap_offset + regions[i].memory_size;
		struct stat st;
		void *p;

		if (len < regions[i].memory_size || len > SIZE_MAX) {
			snprintf(why, whylen, "memory region %u: offset + size overflows", i);
			goto fail;
		}
		/*
		 * A mapping past the end of its file is valid, but touching
		 * those pages raises SIGBUS: a front-end that announces more
		 * than its fd holds would kill us on the first descriptor
		 * there.  Guest RAM is a memfd or a (hugetlbfs) file.
		 */
		if (fstat(fds[i], &st) < 0) {
			snprintf(why, whylen, "memory region %u: fstat: %s", i, strerror(errno));
			goto fail;
		}
		if (!S_ISREG(st.st_mode)) {
			snprintf(why, whylen, "memory region %u: fd is not a memfd or a file (mode 0%o)",
				 i, (unsigned int)st.st_mode & S_IFMT);
			goto fail;
		}
		if ((uint64_t)st.st_size < len) {
			snprintf(why, whylen,
				 "memory region %u: offset %llu + size %llu is beyond the end of its fd (%llu bytes)",
				 i, (unsigned long long)regions[i].mmap_offset,
				 (unsigned long long)regions[i].memory_size,
				 (unsigned long long)st.st_size);
			goto fail;
		}
		p = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_SHARED, fds[i], 0);
		if (p == MAP_FAILED) {
			snprintf(why, whylen, "memory region %u: mmap of %llu bytes: %s",
				 i, (unsigned long long)len, strerror(errno));
			goto fail;
		}
		r[i].map_base = p;
		r[i].map_len = len;
		r[i].host = (uint8_t *)p + regions[i].mmap_offset;
	}
	vu_mem_unmap(mem);
	memcpy(mem->r, r, sizeof(r));
	mem->n = n;
	return 0;
fail:
	while (i-- > 0)
		munmap(r[i].map_base, r[i].map_len);
	return -1;
}

void vu_mem_unmap(struct vu_mem *mem)
{
	unsigned int i;

	for (i = 0; i < mem->n; i++)
		if (mem->r[i].map_base)
			munmap(mem->r[i].map_base, mem->r[i].map_len);
	memset(mem, 0, sizeof(*mem));
}

void *vu_gpa_ptr(const struct vu_mem *mem, uint64_t gpa, uint64_t len)
{
	unsigned int i;

	for (i = 0; i < mem->n; i++) {
		const struct vu_region *r = &mem->r[i];

		if (range_in(gpa, len, r->gpa, r->size) && gpa - r->gpa < r->size)
			return r->host + (gpa - r->gpa);
	}
	return NULL;
}

void *vu_uva_ptr(const struct vu_mem *mem, uint64_t uva, uint64_t len)
{
	unsigned int i;

	for (i = 0; i < mem->n; i++) {
		const struct vu_region *r = &mem->r[i];

		if (range_in(uva, len, r->uva, r->size) && uva - r->uva < r->size)
			return r->host + (uva - r->uva);
	}
	return NULL;
}

int vu_gpa_iov(const struct vu_mem *mem, uint64_t gpa, uint64_t len,
	       struct iovec *iov, unsigned int *niov, unsigned int max)
{
	while (len > 0) {
		const struct vu_region *hit = NULL;
		uint64_t chunk;
		unsigned int i;

		for (i = 0; i < mem->n; i++) {
			if (gpa >= mem->r[i].gpa &&
			    gpa - mem->r[i].gpa < mem->r[i].size) {
				hit = &mem->r[i];
				break;
			}
		}
		if (!hit || *niov >= max)
			return -1;
		chunk = hit->size - (gpa - hit->gpa);
		if (chunk > len)
			chunk = len;
		iov[*niov].iov_base = hit->host + (gpa - hit->gpa);
		iov[*niov].iov_len = chunk;
		(*niov)++;
		gpa += chunk;
		len -= chunk;
	}
	return 0;
}
