/* SPDX-License-Identifier: GPL-2.0 */
/*
 * tracer.h - bcc-style life cycle of bpf/vsockbatch.bpf.c:
 * probe -> open -> configure (autoload off for hooks the kernel lacks)
 * -> load -> attach each program (optional hooks may fail with a warning)
 * -> enable ... disable -> destroy.  Light mode's single program is
 * attached once at start to check it, then at enable and detached at
 * disable: it has no flag of its own to test.
 */
#ifndef VB_TRACER_H
#define VB_TRACER_H

#include <signal.h>
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
	/* attached by vb_tracer_enable only: its program tests no flag */
	bool on_enable[VB_HOOK_NR];
	/* set by the caller's signal handler: stop attaching */
	const volatile sig_atomic_t *cancel;
	uint64_t attach_ns;	/* probe to last attach, CLOCK_MONOTONIC */
	/* full mode: 1 window in this many timed (0: VB_SAMPLE_DEFAULT) */
	uint32_t sample;
	/* light: runs held per CPU and drained (rx_batch_held attached) */
	bool held;
	/*
	 * full --duty N (kernels without the series): the window hooks
	 * (sliced[]) are attached for one slice of VB_SLICE_NS in N;
	 * recv_pkt_light (duty_light) counts every packet.  0 or 1: off.
	 */
	uint32_t duty;
	bool sliced[VB_HOOK_NR];
	struct bpf_link *duty_light;
	bool recording;		/* between enable on and off */
	bool slice_on;
	uint64_t slice_next_ns;	/* next toggle, CLOCK_MONOTONIC */
	uint64_t slices;	/* on slices begun */
	uint64_t slice_ns;	/* on slice length (VB_SLICE_NS or the env's) */
};

/*
 * --duty: an on slice's length; the off slices last (N - 1) times it.
 * Each on/off pair re-registers the fentry/fexit hooks with ftrace, whose
 * walk of every traceable function costs ~21 million guest instructions
 * on the lab's 6.12 (results/2026-12-07-duty-toggle), the work of ~5,000
 * 64 B packets: at 250 ms slices it was 17 instructions per packet at
 * N = 16 and 9 at N = 32 (results/2026-12-07-tracer-cost-duty).
 * VSOCKBATCH_SLICE_MS (1 .. 10000) overrides it, for tests.
 */
#define VB_SLICE_NS	250000000ULL

/*
 * "N" for CMD's --duty: an integer in 1..VB_DUTY_MAX, else -EINVAL after
 * one line on stderr saying so.
 */
int vb_duty_parse(const char *cmd, const char *s, uint32_t *out);
/* The on slice's length: VB_SLICE_NS, or VSOCKBATCH_SLICE_MS if valid. */
uint64_t vb_slice_ns(void);

/*
 * "N" for CMD's --sample: a power of two in 1..VB_SAMPLE_MAX, else
 * -EINVAL after one line on stderr saying so.
 */
int vb_sample_parse(const char *cmd, const char *s, uint32_t *out);

/* libbpf messages: warnings only with verbose. */
void vb_libbpf_verbose(bool verbose);

/*
 * Everything up to attach, in mode (AUTO: light where the kernel has the
 * rx_batch tracepoint, else full).  0, or -errno with a one-line reason;
 * -EINTR (everything undone) once *cancel is set, checked between the
 * steps: a load or an attach is not cut in the middle, so a Ctrl-C costs
 * at most the step under way (about a second under TCG).  cancel may be
 * NULL.  With progress, one line before the load says what is attached.
 * -EDOM: t->duty > 1 where it does not apply (the kernel or the mode).
 */
int vb_tracer_start(struct vb_tracer *t, enum vb_trace_mode mode,
		    const volatile sig_atomic_t *cancel, bool progress,
		    char *errbuf, size_t errlen);
/*
 * Start (on) or end the measured interval: the .bss `enabled` flag that
 * gates the full-mode programs, and the attach (detach) of light mode's
 * program.  0, or -errno with a one-line reason when that attach fails
 * (it attached at start).  Off always succeeds.
 */
int vb_tracer_enable(struct vb_tracer *t, bool on, char *errbuf,
		     size_t errlen);
/*
 * --duty: toggle the window hooks when a slice ends (now, CLOCK_MONOTONIC)
 * and say when the next one ends (*next_ns; UINT64_MAX without --duty or
 * outside the interval).  0, or -errno with a one-line reason when an
 * attach fails: the window hooks then stay off for the rest of the
 * recording, which keeps what they saw.
 */
int vb_tracer_slice(struct vb_tracer *t, uint64_t now, uint64_t *next_ns,
		    char *errbuf, size_t errlen);
/* Packets so far (all CPUs): a cheap activity probe. */
uint64_t vb_tracer_activity(struct vb_tracer *t);
/*
 * The tracer's own cost: recursion misses of every attached program
 * (always counted by the kernel) and, if stats_fd >= 0 (from
 * bpf_enable_stats(BPF_STATS_RUN_TIME)), time spent in the programs.
 */
int vb_tracer_self(struct vb_tracer *t, bool stats, struct vb_self *out);
/* Some hook is attached as a kprobe (the fallback of fentry/fexit). */
bool vb_tracer_kprobes(const struct vb_tracer *t);
/* Kernel facts and attached hooks into the results model. */
int vb_tracer_describe(const struct vb_tracer *t, struct vb_results *r);
void vb_tracer_stop(struct vb_tracer *t);

#endif
