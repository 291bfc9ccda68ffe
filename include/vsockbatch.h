/* SPDX-License-Identifier: GPL-2.0 */
/*
 * vsockbatch.h - types shared by bpf/vsockbatch.bpf.c and the loader.
 *
 * Only __u32/__u64 and #defines, as in bcc's libbpf-tools <tool>.h: the BPF
 * side gets the __uNN types from vsockbatch_core.h, user space from
 * <linux/types.h>.  Counters and histograms are declared once as X-macro
 * lists so the BPF maps, the in-memory results model and the JSON field
 * names can never drift apart.
 *
 * Where each figure is counted (so that every event is counted once):
 *   - per packet (the recv_pkt tracepoint): VB_CPU_COUNTERS, in the per-CPU
 *     `stats` array only;
 *   - per lock window / kernel run: VB_FLOW_COUNTERS, in the per-flow
 *     per-CPU `flows` hash only (or, when it is full, in the `other flows`
 *     part of `stats`); user space sums the flows into the totals;
 *   - histograms: in `stats` only (per CPU, summed in user space).
 */
#ifndef VSOCKBATCH_H
#define VSOCKBATCH_H

#ifndef __bpf__
#include <linux/types.h>
#endif

#define AF_VSOCK_FAMILY		40
#define VIRTIO_VSOCK_OP_RW_NR	5	/* enum virtio_vsock_op: OP_RW */
#define VIRTIO_VSOCK_OP_RST_NR	3	/* OP_RST */
#define VIRTIO_VSOCK_OP_CREDIT_UPDATE_NR 6 /* OP_CREDIT_UPDATE */
#define VB_ENOBUFS		105	/* the errno a full RX queue sets */
/* A window that leaves the peer less credit than one RX buffer stalls it. */
#define VB_CREDIT_STALL_BYTES	4096

/*
 * Two histogram schemes:
 *  log2z (times, byte sizes): slot 0 holds only 0, slot i (i >= 1) holds
 *   [2^(i-1), 2^i - 1], the last slot is open-ended.  32 slots reach 2^30
 *   (~1 s in ns).  A value is known only to lie in its slot: consumers
 *   print slot ranges, never a finer value.
 *  linear (packet counts per batch): slot i holds exactly the value i,
 *   the last slot holds every value >= VB_LIN_SLOTS - 1; the exact
 *   maximum is kept beside it (a *_MAX counter).
 */
#define VB_MAX_SLOTS		32
#define VB_LIN_SLOTS		128
struct vb_hist {
	__u32 slots[VB_MAX_SLOTS];
};
struct vb_lhist {
	__u32 slots[VB_LIN_SLOTS];
};

/*
 * X(ID, "json_name", KIND, "what it counts"); KIND is SUM (added over CPUs
 * and flows) or MAX (the largest over CPUs and flows).
 *
 * Per window (full mode) or per kernel run (rx_batch event): per flow.
 */
#define VB_FLOW_COUNTERS(X)						\
	X(BATCHES,	"batches",	SUM, "lock windows with >= 1 data packet") \
	X(BATCH_PKTS,	"batch_pkts",	SUM, "packets inside those windows")	\
	X(BATCH_BYTES,	"batch_bytes",	SUM, "bytes inside those windows")	\
	X(BATCH_MAX,	"batch_max",	MAX, "most packets in one window")	\
	X(CTRL_WINDOWS,	"ctrl_windows",	SUM, "windows with control packets only (full mode)") \
	X(WINDOW_NS,	"window_ns",	SUM, "first packet event -> window end, summed over the timed windows (full mode)") \
	X(TIMED,	"timed_windows", SUM, "windows whose times were taken: 1 in --sample (full mode)") \
	X(DR_INSIDE,	"dr_inside",	SUM, "data-ready decisions under the lock (full mode)") \
	X(DR_AFTER,	"dr_after",	SUM, "data-ready calls at the end of a run (the series' rx_batch event)") \
	X(DR_LAT_NS,	"dr_lat_ns",	SUM, "first enqueue -> data-ready, summed (full mode)") \
	X(DR_LAT_N,	"dr_lat_n",	SUM, "data-ready latencies measured (full mode)") \
	X(KB_HOLD_NS,	"kb_hold_ns",	SUM, "rx_batch: hold_ns summed")	\
	X(KB_WRITE_SPACE, "kb_write_space", SUM, "rx_batch: runs with write_space set") \
	X(KB_R_QUEUE,	"kb_end_queue",	SUM, "runs ended: end of input")	\
	X(KB_R_FLOW,	"kb_end_flow",	SUM, "runs ended: other flow")		\
	X(KB_R_STATE,	"kb_end_state",	SUM, "runs ended: socket state")	\
	X(KB_R_PKTS,	"kb_end_pkts",	SUM, "runs ended: packet bound")	\
	X(KB_R_BYTES,	"kb_end_bytes",	SUM, "runs ended: byte bound")		\
	X(KB_R_RESCHED,	"kb_end_resched", SUM, "runs ended: need_resched")	\
	X(KB_R_RXQ,	"kb_end_rxq",	SUM, "runs ended: rx queue budget")	\
	X(KB_R_OP,	"kb_end_op",	SUM, "runs ended: non-RW packet")	\
	X(KB_R_CONTENDED, "kb_end_contended", SUM, "runs ended: a task waits for the socket lock") \
	X(KB_R_CREDIT,	"kb_end_credit", SUM, "runs ended: the sender within one run of its credit") \
	X(KB_R_OTHER,	"kb_end_other",	SUM, "runs ended: unknown reason code")

/* Per packet and per event that has no flow: per CPU. */
#define VB_CPU_COUNTERS(X)						\
	X(PKTS,		"pkts",		SUM, "packets seen by the recv_pkt tracepoint") \
	X(BYTES,	"bytes",	SUM, "payload bytes of those packets")	\
	X(RW_PKTS,	"rw_pkts",	SUM, "OP_RW (data) packets")		\
	X(CTRL_PKTS,	"ctrl_pkts",	SUM, "non-RW packets (credit, shutdown, ...)") \
	X(USER_WAITS,	"user_waits",	SUM, "waits for a vsock socket lock (full mode)") \
	X(USER_WAIT_NS,	"user_wait_ns",	SUM, "their summed wait time")		\
	X(WORKER_CALLS,	"worker_calls",	SUM, "RX worker invocations (full mode)") \
	X(WORKER_NS,	"worker_ns",	SUM, "time inside RX worker functions (full mode)") \
	X(STALE,	"stale_windows", SUM, "window state dropped without an end event (full mode)") \
	X(MAP_FULL,	"map_full",	SUM, "events whose flow did not fit the flow map (counted under 'other flows')") \
	VB_COUNTERS_ADVISE(X)

/*
 * Counters for `vsockbatch advise`: per CPU.  A version-1 file
 * lacks them (loaded as 0); the hooks list or RXQ_WINDOWS == 0 tells the
 * rules they were not measured.
 */
#define VB_COUNTERS_ADVISE(X)						\
	X(RECV_CALLS,	"recv_calls",	SUM, "user recv() calls on AF_VSOCK (returned >= 0)") \
	X(RECV_BYTES,	"recv_bytes",	SUM, "bytes those recv() calls returned") \
	X(CREDIT_RX,	"credit_rx",	SUM, "CREDIT_UPDATE packets received")	\
	X(RST_RX,	"rst_rx",	SUM, "RST packets received")		\
	X(ENOBUFS,	"enobufs_resets", SUM, "sockets reset with ENOBUFS (RX queue over budget)") \
	X(RXQ_WINDOWS,	"rxq_windows",	SUM, "worker windows whose RX queue state was read") \
	X(RXQ_AT_BUDGET, "rxq_at_budget", SUM, "windows closed with the skb queue at its budget") \
	X(CREDIT_STALLS, "credit_stalls", SUM, "windows that left the peer < 4 KiB of credit") \
	X(CREDIT_WAIT_NS, "credit_wait_ns", SUM, "credit stall -> that socket's next packet, summed") \
	X(WIN_PKTS,	"win_pkts",	SUM, "packets the window hooks saw (full --duty N: their time slices only; else 0)")

#define VB_COUNTERS(X) VB_FLOW_COUNTERS(X) VB_CPU_COUNTERS(X)

/* X(ID, "json_name", "unit", "description"): log2z histograms */
#define VB_LOG2_HISTS(X)						\
	X(WINDOW_NS,	"window_ns",	"ns",	"window time per batch (full mode)") \
	X(BATCH_BYTES,	"batch_bytes",	"bytes", "bytes per batch")		\
	X(DR_LAT_NS,	"dr_lat_ns",	"ns",	"first enqueue -> data-ready (full mode)") \
	X(USER_WAIT_NS,	"user_wait_ns",	"ns",	"socket lock wait behind the worker (full mode)") \
	X(KB_HOLD_NS,	"kb_hold_ns",	"ns",	"rx_batch: lock hold per run") \
	X(RECV_SIZE,	"recv_size",	"bytes", "bytes returned per recv()")	\
	X(RXQ_FILL,	"rxq_fill",	"%",	"RX queue bytes / buf_alloc at window close")

/* linear histograms */
#define VB_LIN_HISTS(X)							\
	X(BATCH_PKTS,	"batch_pkts",	"pkts",	"packets per batch")

enum vb_counter {
#define VB_X(id, name, kind, desc) VB_C_##id,
	VB_COUNTERS(VB_X)
#undef VB_X
	VB_C_NR
};

/* The flow counters come first: vb_flow_stats.cnt[i] is counter i. */
enum {
#define VB_X(id, name, kind, desc) VB_FC_##id,
	VB_FLOW_COUNTERS(VB_X)
#undef VB_X
	VB_FC_NR
};

/* log2z histograms first, then the linear ones */
enum vb_hist_id {
#define VB_X(id, name, unit, desc) VB_H_##id,
	VB_LOG2_HISTS(VB_X)
	VB_LIN_HISTS(VB_X)
#undef VB_X
	VB_H_NR
};

enum {
#define VB_X(id, name, unit, desc) VB_HL_##id,
	VB_LOG2_HISTS(VB_X)
#undef VB_X
	VB_H_LOG2_NR
};
#define VB_H_LIN_NR	(VB_H_NR - VB_H_LOG2_NR)

/* What a version-1 file may lack (results.c reads it as 0). */
#define VB_C_FIRST_OPTIONAL	VB_C_RECV_CALLS
#define VB_H_FIRST_OPTIONAL	VB_H_RECV_SIZE

/*
 * rx_batch tracepoint end reasons: enum virtio_vsock_rx_batch_end of the
 * series (QUEUE FLOW STATE PKTS BYTES RESCHED RXQ OP CONTENDED
 * CREDIT), mapped in order
 * onto the VB_C_KB_R_* counters; anything else counts as OTHER.
 */
#define VB_KB_REASON_NR		10

/* Per flow, per CPU: window counters only (VB_FC_NR x 8 bytes). */
struct vb_flow_stats {
	__u64 cnt[VB_FC_NR];
};

/*
 * Light mode on a kernel without the series: packets per virtio-vsock op
 * (vb_stats.op_pkts), the last slot for every op past the known ones.
 * The program counts one slot per packet; user space derives the packet,
 * data, control, credit-update and reset counters from them
 * (vb_stats_fold_ops), so that the per-packet program makes one
 * increment where it made three, and compares the op once (its bound)
 * where it compared it three times.
 */
#define VB_OP_SLOTS		16

/* Words of vb_stats.held: 2 for flags, 2 for a flow key, the counters. */
#define VB_HELD_WORDS		(4 + VB_FC_NR)

/*
 * The per-CPU `stats` slot.  cnt[0 .. VB_FC_NR) holds the windows of
 * flows that did not fit the flow map ("other flows"), the rest the
 * per-CPU counters.  `held` is the BPF side's own: light mode's runs not
 * yet added to their flow (struct vb_lpend in bpf/vsockbatch.bpf.c),
 * kept here so that the per-run program makes one map lookup, not two;
 * user space never reads it.  `op_pkts`: light mode's packets per op on
 * a kernel without the series, folded into cnt[] by user space.
 */
struct vb_stats {
	__u64 cnt[VB_C_NR];
	struct vb_hist hist[VB_H_LOG2_NR];
	struct vb_lhist lhist[VB_H_LIN_NR];
	__u64 held[VB_HELD_WORDS];
	__u64 op_pkts[VB_OP_SLOTS];
};

/* Flow = packet source -> destination as the recv_pkt tracepoint sees it. */
struct vb_flow_key {
	__u32 src_cid;
	__u32 src_port;
	__u32 dst_cid;
	__u32 dst_port;
};

#define VB_MAX_FLOWS		256

#endif /* VSOCKBATCH_H */
