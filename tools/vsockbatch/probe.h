/* SPDX-License-Identifier: GPL-2.0 */
/*
 * probe.h - which of the tracer's hooks does a kernel offer?
 *
 * Decided from BTF (vmlinux + the vsock modules' BTF), tracefs and
 * kallsyms BEFORE loading, so that a missing hook switches its programs
 * off (bpf_program__set_autoload(false)) instead of failing the load.
 * Also decides whether the kernel carries the RX batching series.
 */
#ifndef VB_PROBE_H
#define VB_PROBE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "results.h"

enum vb_hook_id {
	VB_HOOK_RECV_PKT_BTF,	/* tp_btf virtio_transport_recv_pkt */
	VB_HOOK_RECV_PKT_TP,	/* tracepoint vsock/virtio_transport_recv_pkt */
	VB_HOOK_RX_BATCH_BTF,	/* tp_btf virtio_transport_rx_batch */
	VB_HOOK_RX_BATCH_TP,	/* tracepoint vsock/virtio_transport_rx_batch */
	/* full mode only, but for LOCK_WAIT and RB_CLOSE */
	VB_HOOK_RECV_PKT_EXIT,	/* fexit virtio_transport_recv_pkt */
	VB_HOOK_DATA_READY,	/* fentry vsock_data_ready */
	VB_HOOK_RX_WORK,	/* fentry+fexit virtio_transport_rx_work */
	VB_HOOK_LOOPBACK_WORK,	/* fentry+fexit vsock_loopback_work */
	VB_HOOK_VHOST_KICK,	/* fentry+fexit vhost_vsock_handle_tx_kick */
	VB_HOOK_LOCK_WAIT,	/* fentry+fexit __lock_sock: both modes, it
				 * fires per contended lock, not per packet */
	VB_HOOK_RECVMSG,	/* fexit vsock_connectible_recvmsg (advise) */
	VB_HOOK_ERROR_REPORT,	/* fentry sk_error_report (advise: ENOBUFS) */
	/* batching without the rx_batch event (p1-3), full mode only */
	VB_HOOK_RB_RECV,	/* fentry+fexit virtio_transport_rx_batch_recv_run */
	VB_HOOK_RB_END,		/* fentry+fexit virtio_transport_rx_batch_end */
	/* batching without the rx_batch event, light mode only */
	VB_HOOK_RB_CLOSE,	/* fentry virtio_transport_rx_batch_close */
	/* batching, light mode only: the packets in no run */
	VB_HOOK_RECV_PKT_FN,	/* fentry virtio_transport_recv_pkt */
	VB_HOOK_NR
};

struct vb_hook_desc {
	const char *label;	/* "fentry/vsock_data_ready" as shown to users */
	const char *target;	/* function, tracepoint or type name */
	const char *module;	/* module defining it when vsock is modular */
	const char *progs[2];	/* BPF program names in the skeleton */
	bool full_only;		/* not attached in light mode */
	const char *kprogs[2];	/* their kprobe/kretprobe twins, if any */
	const char *klabel;	/* "kprobe/vsock_data_ready": the twins' label */
};

/* How a hook's programs attach. */
enum vb_attach {
	VB_ATTACH_NONE,
	VB_ATTACH_PREFERRED,	/* progs[]: fentry/fexit, tp_btf, tracepoint */
	VB_ATTACH_KPROBE,	/* kprogs[]: the kprobe/kretprobe fallback */
};

extern const struct vb_hook_desc vb_hooks[VB_HOOK_NR];

struct vb_probe {
	char release[128];
	bool btf;			/* vmlinux BTF could be loaded */
	bool avail[VB_HOOK_NR];
	bool use[VB_HOOK_NR];		/* chosen for `trace` (vb_probe_choose) */
	char where[VB_HOOK_NR][48];	/* "vmlinux", "vsock_loopback", ... */
	char why[VB_HOOK_NR][256];	/* reason when !avail */
	bool in_btf[VB_HOOK_NR];	/* found by BTF, before loading */
	enum vb_attach how[VB_HOOK_NR];	/* checked by loading (running kernel) */
	char fallback[VB_HOOK_NR][192];	/* why progs[] gave way to kprogs[] */
	bool loaded;			/* hooks were checked by loading */
	char vsock_hint[256];		/* what to do when vsock is missing */
	enum vb_kernel_mode mode;
	char detected_by[160];
	char tracefs[64];		/* "" if not mounted */
	bool light_ok;			/* both tracepoints usable */
	enum vb_trace_mode trace;	/* LIGHT or FULL once chosen */
};



/*
 * Probe the running kernel (btf_path NULL) or only a BTF file (then
 * modules, tracefs and kallsyms are not consulted: tracepoints count as
 * available when their BTF types are present).  Returns 0, or -ENOENT
 * with errbuf set when there is no usable vmlinux BTF.
 */
int vb_probe_kernel(struct vb_probe *p, const char *btf_path,
		    char *errbuf, size_t errlen);

/*
 * Choose the mode (AUTO: light if the kernel has both tracepoints, else
 * full) and set use[] to its hooks.  0, or -ENOENT with a one-line reason
 * when the kernel cannot support the mode.
 */
int vb_probe_choose(struct vb_probe *p, enum vb_trace_mode want,
		    char *errbuf, size_t errlen);
/*
 * Check by loading (running kernel only; attach_check.h): each hook found
 * in BTF gets its own programs loaded and attached, else its kprobe
 * twins; one that can run neither becomes unavailable with both reasons.
 * per_hook false first tries all hooks in one load (one parse of the
 * kernel's BTF, ~1 s under TCG: the usual case) and goes hook by hook
 * only if that fails.  Sets loaded, how[], fallback[], and chooses use[]
 * again for the mode chosen before (AUTO if none).
 */
void vb_probe_load(struct vb_probe *p, bool per_hook);
/* VSOCKBATCH_FORCE_KPROBE=1: skip fentry/fexit where a kprobe twin exists. */
bool vb_probe_forced_kprobe(void);
/*
 * VSOCKBATCH_NO_HELD=1: light mode on the series' kernels counts each run
 * into the flow map (rx_batch_btf), as where the drain cannot run.
 */
bool vb_probe_no_held(void);
/* The hook as it attaches: its label, or its twins' (klabel). */
const char *vb_hook_label(const struct vb_probe *p, int hook);
/* The program names the hook attaches with: progs[] or kprogs[]. */
const char *const *vb_hook_progs(const struct vb_probe *p, int hook);

/* vb_probe_choose(p, AUTO) on a copy: can this kernel be traced at all? */
int vb_probe_usable(const struct vb_probe *p, char *errbuf, size_t errlen);

/* One line per hook: "fentry/release_sock  yes  vmlinux" */
void vb_probe_print(const struct vb_probe *p, FILE *f);

#endif
