/* SPDX-License-Identifier: GPL-2.0 */
/*
 * tracer.h - bcc-style life cycle of bpf/vsockbatch.bpf.c:
 * probe -> open -> configure (autoload off for hooks the kernel lacks)
 * -> load -> attach each program (optional hooks may fail with a warning)
 * -> enable ... disable -> destroy.
 */
#ifndef VB_TRACER_H
#define VB_TRACER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "probe.h"
#include "results.h"

struct vsockbatch_bpf;
struct bpf_link;

struct vb_tracer {
	struct vsockbatch_bpf *skel;
	struct vb_probe probe;
	struct bpf_link *links[VB_HOOK_NR][2];
	bool attached[VB_HOOK_NR];
};

/* libbpf messages: warnings only with verbose. */
void vb_libbpf_verbose(bool verbose);

/*
 * Everything up to attach, in mode (AUTO: light where the kernel has the
 * rx_batch tracepoint, else full).  0, or -errno with a one-line reason.
 */
int vb_tracer_start(struct vb_tracer *t, enum vb_trace_mode mode,
		    char *errbuf, size_t errlen);
/* Gate accounting in the BPF programs (.bss enabled). */
void vb_tracer_enable(struct vb_tracer *t, bool on);
/* Packets so far (all CPUs): a cheap activity probe. */
uint64_t vb_tracer_activity(struct vb_tracer *t);
/*
 * The tracer's own cost: recursion misses of every attached program
 * (always counted by the kernel) and, if stats_fd >= 0 (from
 * bpf_enable_stats(BPF_STATS_RUN_TIME)), time spent in the programs.
 */
int vb_tracer_self(struct vb_tracer *t, bool stats, struct vb_self *out);
/* Kernel facts and attached hooks into the results model. */
int vb_tracer_describe(const struct vb_tracer *t, struct vb_results *r);
void vb_tracer_stop(struct vb_tracer *t);

#endif
