/* SPDX-License-Identifier: GPL-2.0 */
/*
 * vsockbatch.h - types shared by bpf/vsockbatch.bpf.c and the loader.
 *
 * Only __u32/__u64 and #defines, as in bcc's libbpf-tools <tool>.h: the BPF
 * side gets the __uNN types from vsockbatch_core.h, user space from
 * <linux/types.h>.  Counters and histograms are declared once as X-macro
 * lists so the BPF maps, the in-memory results model and the JSON field
 * names can never drift apart.
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
 * log2 histograms, bcc style (__u32 slots), but slot 0 holds only the
 * value 0 so "no data-ready call in this batch" and "one call" differ:
 *   slot 0 = 0, slot i (i >= 1) = [2^(i-1), 2^i - 1], last slot open-ended.
 * 32 slots reach 2^30 ns (~1 s) for times, more than any batch needs.
 */
#define VB_MAX_SLOTS		32
struct vb_hist {
	__u32 slots[VB_MAX_SLOTS];
};

/* X(ID, "json_name", "what it counts") */
#define VB_COUNTERS(X)							\
	X(PKTS,		"pkts",		"packets seen by the recv_pkt tracepoint") \
	X(BYTES,	"bytes",	"payload bytes of those packets")	\
	X(RW_PKTS,	"rw_pkts",	"OP_RW (data) packets")		\
	X(CTRL_PKTS,	"ctrl_pkts",	"non-RW packets (credit, shutdown, ...)") \
	X(BATCHES,	"batches",	"lock windows with >= 1 RW packet")	\
	X(BATCH_PKTS,	"batch_pkts",	"packets inside those windows")	\
	X(BATCH_BYTES,	"batch_bytes",	"bytes inside those windows")	\
	X(CTRL_WINDOWS,	"ctrl_windows",	"lock windows with control packets only") \
	X(EMPTY_WINDOWS, "empty_windows", "worker lock windows with no packet seen") \
	X(UNLOCKED_PKTS, "unlocked_pkts", "packets that opened no window (no socket)") \
	X(LOCK_ACQ,	"lock_acq",	"worker lock_sock acquisitions (AF_VSOCK)") \
	X(NESTED_LOCKS,	"nested_locks",	"locks taken while a window was open") \
	X(LOOKUPS,	"lookups",	"vsock_find_connected_socket calls in workers") \
	X(HOLD_NS,	"hold_ns",	"lock hold time summed over batches") \
	X(DR_INSIDE,	"dr_inside",	"data-ready calls while the worker held the lock") \
	X(DR_AFTER,	"dr_after",	"data-ready calls after the window closed") \
	X(DR_OTHER,	"dr_other",	"data-ready calls in a worker, no matching window") \
	X(DR_OUTSIDE,	"dr_outside",	"data-ready calls outside RX workers")	\
	X(DR_LAT_NS,	"dr_lat_ns",	"last enqueue -> data-ready, summed")	\
	X(WS_BATCH,	"ws_batch",	"write-space calls on the batch's socket") \
	X(WS_OTHER,	"ws_other",	"write-space calls on other sockets in workers") \
	X(USER_WAITS,	"user_waits",	"user threads waiting for a socket lock") \
	X(USER_WAIT_NS,	"user_wait_ns",	"their summed wait time")		\
	X(WORKER_CALLS,	"worker_calls",	"RX worker invocations")		\
	X(WORKER_NS,	"worker_ns",	"time inside RX worker functions")	\
	X(KB_RUNS,	"kb_runs",	"rx_batch tracepoint events (patched)")	\
	X(KB_PKTS,	"kb_pkts",	"packets reported by rx_batch")		\
	X(KB_BYTES,	"kb_bytes",	"bytes reported by rx_batch")		\
	X(KB_HOLD_NS,	"kb_hold_ns",	"hold_ns reported by rx_batch")		\
	X(KB_WRITE_SPACE, "kb_write_space", "rx_batch runs with write_space set") \
	X(KB_DATA_READY, "kb_data_ready", "rx_batch runs with data_ready set") \
	X(KB_R_QUEUE,	"kb_end_queue",	"runs ended: end of input")		\
	X(KB_R_FLOW,	"kb_end_flow",	"runs ended: other flow")		\
	X(KB_R_STATE,	"kb_end_state",	"runs ended: socket state")		\
	X(KB_R_PKTS,	"kb_end_pkts",	"runs ended: packet bound")		\
	X(KB_R_BYTES,	"kb_end_bytes",	"runs ended: byte bound")		\
	X(KB_R_RESCHED,	"kb_end_resched", "runs ended: need_resched")		\
	X(KB_R_RXQ,	"kb_end_rxq",	"runs ended: rx queue budget")		\
	X(KB_R_OP,	"kb_end_op",	"runs ended: non-RW packet")		\
	X(KB_R_OTHER,	"kb_end_other",	"runs ended: unknown reason code")	\
	X(MAP_FULL,	"map_full",	"events lost because a map was full") \
	VB_COUNTERS_ADVISE(X)

/*
 * Counters for `vsockbatch advise` (issue 13), newer than the first
 * results files: a file without them loads with zeros, and the hooks
 * list or RXQ_WINDOWS == 0 tells the rules they were not measured.
 */
#define VB_COUNTERS_ADVISE(X)						\
	X(RECV_CALLS,	"recv_calls",	"user recv() calls on AF_VSOCK (returned >= 0)") \
	X(RECV_BYTES,	"recv_bytes",	"bytes those recv() calls returned")	\
	X(CREDIT_RX,	"credit_rx",	"CREDIT_UPDATE packets received")	\
	X(RST_RX,	"rst_rx",	"RST packets received")			\
	X(ENOBUFS,	"enobufs_resets", "sockets reset with ENOBUFS (RX queue over budget)") \
	X(RXQ_WINDOWS,	"rxq_windows",	"worker windows whose RX queue state was read") \
	X(RXQ_AT_BUDGET, "rxq_at_budget", "windows closed with the skb queue at its budget") \
	X(CREDIT_STALLS, "credit_stalls", "windows that left the peer < 4 KiB of credit") \
	X(CREDIT_WAIT_NS, "credit_wait_ns", "credit stall -> that socket's next packet, summed")

/* The first counter a results file may lack (see VB_COUNTERS_ADVISE). */
#define VB_C_FIRST_OPTIONAL	VB_C_RECV_CALLS

#define VB_HISTS(X)							\
	X(HOLD_NS,	"hold_ns",	"ns",		"lock hold time per batch") \
	X(BATCH_PKTS,	"batch_pkts",	"pkts",		"packets per batch")	\
	X(BATCH_BYTES,	"batch_bytes",	"bytes",	"bytes per batch")	\
	X(DR_PER_BATCH,	"dr_per_batch",	"calls",	"data-ready calls per batch") \
	X(WS_PER_BATCH,	"ws_per_batch",	"calls",	"write-space calls per batch") \
	X(LOOKUPS_PER_BATCH, "lookups_per_batch", "calls", "lookups per batch") \
	X(DR_LAT_NS,	"dr_lat_ns",	"ns",		"last enqueue -> data-ready") \
	X(USER_WAIT_NS,	"user_wait_ns",	"ns",		"user wait behind the worker") \
	X(KB_PKTS,	"kb_pkts",	"pkts",		"rx_batch: packets per run") \
	X(KB_HOLD_NS,	"kb_hold_ns",	"ns",		"rx_batch: hold time per run") \
	X(RECV_SIZE,	"recv_size",	"bytes",	"bytes returned per recv()") \
	X(RXQ_FILL,	"rxq_fill",	"%",		"RX queue bytes / buf_alloc at window close")

/* The first histogram a results file may lack. */
#define VB_H_FIRST_OPTIONAL	VB_H_RECV_SIZE

enum vb_counter {
#define VB_X(id, name, desc) VB_C_##id,
	VB_COUNTERS(VB_X)
#undef VB_X
	VB_C_NR
};

enum vb_hist_id {
#define VB_X(id, name, unit, desc) VB_H_##id,
	VB_HISTS(VB_X)
#undef VB_X
	VB_H_NR
};

/*
 * rx_batch tracepoint end reasons: enum virtio_vsock_rx_batch_end of the
 * series (QUEUE FLOW STATE PKTS BYTES RESCHED RXQ OP), mapped in order
 * onto the VB_C_KB_R_* counters; anything else counts as OTHER.
 */
#define VB_KB_REASON_NR		8

/* One aggregate: totals (per-CPU map, summed) and one per flow. */
struct vb_stats {
	__u64 cnt[VB_C_NR];
	struct vb_hist hist[VB_H_NR];
};

/* Flow = packet source -> destination as the recv_pkt tracepoint sees it. */
struct vb_flow_key {
	__u32 src_cid;
	__u32 src_port;
	__u32 dst_cid;
	__u32 dst_port;
};

#define VB_MAX_FLOWS		256
#define VB_MAX_TASKS		1024

#endif /* VSOCKBATCH_H */
