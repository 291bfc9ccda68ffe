/* SPDX-License-Identifier: GPL-2.0 */
/*
 * corecheck.h - check the tracer's CO-RE relocations against a kernel's
 * BTF without loading anything into that (or this) kernel.
 *
 * Reads the CO-RE records of the BPF object's .BTF.ext, resolves every
 * field access path by member NAME against the target BTF (vmlinux plus
 * optional module BTF, e.g. a guest's vmlinux and .ko files) the way
 * libbpf does for field relocations, and tells per program whether it
 * would relocate and whether its attach target exists.
 */
#ifndef VB_CORECHECK_H
#define VB_CORECHECK_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct btf;

#define VB_CC_MAX_TARGETS 8

struct vb_cc_relo {
	char prog_sec[96];	/* ELF section, e.g. "fexit/lock_sock_nested" */
	char path[160];		/* "sock.__sk_common.skc_family" */
	unsigned int kind;	/* enum bpf_core_relo_kind */
	bool ok;
	uint32_t local_off;	/* byte offset in the local (header) type */
	uint32_t target_off;	/* byte offset in the target kernel */
	char target[48];	/* which BTF resolved it */
	char why[128];
};

struct vb_cc_prog {
	char sec[96];
	char name[64];
	bool target_exists;	/* attach target in the target BTF */
	int nrelo, nfail;
};

struct vb_cc_result {
	struct vb_cc_relo *relos;
	size_t nrelos;
	struct vb_cc_prog progs[32];
	size_t nprogs;
};

/*
 * elf/elf_sz: the BPF object (skeleton bytes).  targets[0] is vmlinux BTF,
 * further ones module (split) BTF; names label them in the output.
 * Returns 0 or -errno with errbuf set (object unreadable).
 */
int vb_corecheck(const void *elf, size_t elf_sz, struct btf **targets,
		 const char **names, int ntargets, struct vb_cc_result *res,
		 char *errbuf, size_t errlen);
void vb_cc_result_free(struct vb_cc_result *res);

#endif
