// SPDX-License-Identifier: GPL-2.0
/*
 * vsockbatch.bpf.c - per-batch view of the virtio-vsock RX path.
 *
 * A "batch" is one lock window of an RX worker on one AF_VSOCK socket:
 * from fexit(lock_sock_nested) in worker context to release_sock() of the
 * same socket.  Baseline kernels open one window per packet; kernels with
 * the batching series keep the window open for a run of same-flow
 * packets.  The workers are virtio_transport_rx_work (guest RX),
 * vsock_loopback_work (CID 1) and vhost_vsock_handle_tx_kick (host).
 *
 * Event order inside a worker, per packet (6.12.117 + series):
 *   tracepoint vsock:virtio_transport_recv_pkt   (before lookup and lock
 *       for a packet that opens a window; inside the window for packets
 *       that join an open run)
 *   vsock_find_connected_socket()                (lookup)
 *   lock_sock_nested() returns                   (window opens)
 *   sock_def_write_space(sk) / sock_def_readable(sk)   (inside)
 *   release_sock(sk)                             (window closes)
 *   sock_def_readable(sk)                        (deferred: after)
 * So the packet seen by the tracepoint is parked per worker task
 * ("pending") and carried into the window that opens next; a closed
 * window is kept ("stashed") until the next window opens or the worker
 * returns, so that deferred data-ready calls are charged to it.
 *
 * Everything is aggregated in maps; nothing is sent per packet to user
 * space.  `enabled` (written by the loader) gates all accounting so the
 * measured interval is exactly the one the CPU counters cover.
 */
#include "vsockbatch_core.h"

/* bpf_helper_defs.h names many kernel structs only as pointer targets. */
#pragma clang diagnostic push
#pragma clang diagnostic ignored "-Wvisibility"
#include <bpf/bpf_helpers.h>
#pragma clang diagnostic pop
#include <bpf/bpf_core_read.h>
#include <bpf/bpf_tracing.h>

#include "vsockbatch.h"
#include "bits.bpf.h"

char LICENSE[] SEC("license") = "GPL";

/* Set by the loader after attach, cleared before detach. */
volatile bool enabled;

/*
 * The last socket whose sender a window left without credit, and when
 * (rxq_sample); the next window on that socket ends the wait.  One slot
 * for all workers, not one per task: the next packet may be handled by
 * another kworker thread, and a device's RX work runs one at a time.  A
 * second socket stalling before the first resumes takes the slot, so
 * with several starved flows the waits are undercounted, never counted
 * twice.  Plain globals: no map operation.
 */
__u64 cr_sk;
__u64 cr_ts;

/* One lock window of a worker on one socket. */
struct vb_window {
	__u64 sk;		/* 0 = none */
	__u64 lock_ts;		/* lock acquired */
	__u64 last_enq;		/* last packet enqueued (see below) */
	__u64 hold_ns;		/* set when the window closes */
	struct vb_flow_key flow;
	__u32 pkts;
	__u32 bytes;
	__u32 rw_pkts;
	__u32 dr_in;
	__u32 dr_after;
	__u32 ws;
	__u32 lookups;
	__u16 rxq_fill;		/* rx_bytes * 100 / buf_alloc at close */
	__u8 rxq_flags;		/* VB_RXQ_* */
	__u8 pad;
};

/* What the window's close saw of the socket's RX state (rxq_sample). */
#define VB_RXQ_READ		1	/* state read */
#define VB_RXQ_BUDGET		2	/* skb queue at its budget */
#define VB_RXQ_STALL		4	/* peer left with < 4 KiB credit */

/* Per RX-worker task state. */
struct vb_task {
	__u64 enter_ts;		/* worker function entry */
	__u32 in_worker;
	__u32 pend_valid;	/* a recv_pkt event waits for its window */
	struct vb_flow_key pend_flow;
	__u32 pend_len;
	__u32 pend_op;
	__u32 pend_lookups;
	__u32 pad;
	struct vb_window win;	/* open window */
	struct vb_window st;	/* closed window, deferred callbacks pending */
	__u64 tr_sk;		/* socket whose vsk->trans is cached ... */
	__u64 tr_vvs;		/* ... here, for this worker run */
};

/* totals, one slot per CPU: the loader sums them and keeps per-CPU rows */
struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct vb_stats);
} stats SEC(".maps");

/*
 * Per flow, per CPU: a flow is mostly handled by one worker, but per-CPU
 * values spare the atomic adds a shared value would need on every commit
 * (costly on TCG guests); the loader sums the CPUs.
 */
struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_HASH);
	__uint(max_entries, VB_MAX_FLOWS);
	__type(key, struct vb_flow_key);
	__type(value, struct vb_stats);
} flows SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, VB_MAX_TASKS);
	__type(key, __u32);
	__type(value, struct vb_task);
} tasks SEC(".maps");

/* user threads sleeping in __lock_sock(): tid -> start */
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, VB_MAX_TASKS);
	__type(key, __u32);
	__type(value, __u64);
} waits SEC(".maps");

/*
 * A zero vb_stats to insert new flows from: too big for the 512-byte BPF
 * stack, and a global would put a BPF-private type into the skeleton.
 * Never written.
 */
struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct vb_stats);
} zeroes SEC(".maps");

static __always_inline struct vb_stats *cpu_stats(void)
{
	__u32 zero = 0;

	return bpf_map_lookup_elem(&stats, &zero);
}

static __always_inline void map_full(void)
{
	struct vb_stats *s = cpu_stats();

	if (s)
		s->cnt[VB_C_MAP_FULL]++;
}

static __always_inline __u32 cur_tid(void)
{
	return (__u32)bpf_get_current_pid_tgid();
}

static __always_inline struct vb_task *cur_task(void)
{
	__u32 tid = cur_tid();

	return bpf_map_lookup_elem(&tasks, &tid);
}

/*
 * sk is a BTF-typed argument of fentry/fexit: a direct (CO-RE relocated)
 * load, cheaper than a probe-read helper call on every lock_sock().
 */
static __always_inline bool is_vsock(struct sock *sk)
{
	return sk && sk->__sk_common.skc_family == AF_VSOCK_FAMILY;
}

static __always_inline void hist_add(struct vb_hist *h, __u64 v)
{
	__u32 i = vb_slot(v);

	h->slots[i]++;
}

static __always_inline struct vb_stats *flow_stats(struct vb_flow_key *key)
{
	struct vb_stats *fs, *zero;
	__u32 idx = 0;
	long err;

	fs = bpf_map_lookup_elem(&flows, key);
	if (fs)
		return fs;
	zero = bpf_map_lookup_elem(&zeroes, &idx);
	if (!zero)
		return NULL;
	err = bpf_map_update_elem(&flows, key, zero, BPF_NOEXIST);
	if (err && err != -17 /* EEXIST: another CPU inserted it */) {
		map_full();
		return NULL;
	}
	return bpf_map_lookup_elem(&flows, key);
}

/*
 * Account a finished window (called when the next window opens or the
 * worker returns: by then any deferred data-ready call has happened).
 */
static __always_inline void commit_window(struct vb_window *w)
{
	struct vb_stats *s = cpu_stats(), *fs;
	__u64 dr = (__u64)w->dr_in + w->dr_after;
	bool data = w->rw_pkts > 0;

	if (!w->sk)
		return;
	if (s) {
		if (data) {
			s->cnt[VB_C_BATCHES]++;
			s->cnt[VB_C_BATCH_PKTS] += w->pkts;
			s->cnt[VB_C_BATCH_BYTES] += w->bytes;
			s->cnt[VB_C_HOLD_NS] += w->hold_ns;
			hist_add(&s->hist[VB_H_HOLD_NS], w->hold_ns);
			hist_add(&s->hist[VB_H_BATCH_PKTS], w->pkts);
			hist_add(&s->hist[VB_H_BATCH_BYTES], w->bytes);
			hist_add(&s->hist[VB_H_DR_PER_BATCH], dr);
			hist_add(&s->hist[VB_H_WS_PER_BATCH], w->ws);
			hist_add(&s->hist[VB_H_LOOKUPS_PER_BATCH], w->lookups);
		} else if (w->pkts) {
			s->cnt[VB_C_CTRL_WINDOWS]++;
		} else {
			s->cnt[VB_C_EMPTY_WINDOWS]++;
		}
		s->cnt[VB_C_DR_INSIDE] += w->dr_in;
		s->cnt[VB_C_DR_AFTER] += w->dr_after;
		s->cnt[VB_C_WS_BATCH] += w->ws;
		if (w->rxq_flags & VB_RXQ_READ) {
			s->cnt[VB_C_RXQ_WINDOWS]++;
			s->cnt[VB_C_RXQ_AT_BUDGET] +=
				!!(w->rxq_flags & VB_RXQ_BUDGET);
			s->cnt[VB_C_CREDIT_STALLS] +=
				!!(w->rxq_flags & VB_RXQ_STALL);
			hist_add(&s->hist[VB_H_RXQ_FILL], w->rxq_fill);
		}
	}

	fs = flow_stats(&w->flow);
	if (fs) {
		fs->cnt[VB_C_PKTS] += w->pkts;
		fs->cnt[VB_C_BYTES] += w->bytes;
		fs->cnt[VB_C_RW_PKTS] += w->rw_pkts;
		fs->cnt[VB_C_CTRL_PKTS] += w->pkts - w->rw_pkts;
		fs->cnt[VB_C_LOCK_ACQ] += 1;
		fs->cnt[VB_C_LOOKUPS] += w->lookups;
		fs->cnt[VB_C_DR_INSIDE] += w->dr_in;
		fs->cnt[VB_C_DR_AFTER] += w->dr_after;
		fs->cnt[VB_C_WS_BATCH] += w->ws;
		if (data) {
			fs->cnt[VB_C_BATCHES] += 1;
			fs->cnt[VB_C_BATCH_PKTS] += w->pkts;
			fs->cnt[VB_C_BATCH_BYTES] += w->bytes;
			fs->cnt[VB_C_HOLD_NS] += w->hold_ns;
			hist_add(&fs->hist[VB_H_HOLD_NS], w->hold_ns);
			hist_add(&fs->hist[VB_H_BATCH_PKTS], w->pkts);
			hist_add(&fs->hist[VB_H_BATCH_BYTES], w->bytes);
			hist_add(&fs->hist[VB_H_DR_PER_BATCH], dr);
			hist_add(&fs->hist[VB_H_WS_PER_BATCH], w->ws);
			hist_add(&fs->hist[VB_H_LOOKUPS_PER_BATCH],
					w->lookups);
		} else if (w->pkts) {
			fs->cnt[VB_C_CTRL_WINDOWS] += 1;
		} else {
			fs->cnt[VB_C_EMPTY_WINDOWS] += 1;
		}
	}
	w->sk = 0;
}

/* A parked packet that never reached a window (no socket, dropped). */
static __always_inline void drop_pending(struct vb_task *t)
{
	struct vb_stats *s, *fs;

	if (!t->pend_valid)
		return;
	t->pend_valid = 0;
	s = cpu_stats();
	if (s)
		s->cnt[VB_C_UNLOCKED_PKTS]++;
	fs = flow_stats(&t->pend_flow);
	if (fs) {
		fs->cnt[VB_C_UNLOCKED_PKTS] += 1;
		fs->cnt[VB_C_PKTS] += 1;
		fs->cnt[VB_C_BYTES] += t->pend_len;
		fs->cnt[VB_C_LOOKUPS] += t->pend_lookups;
	}
	t->pend_lookups = 0;
}

/* ---- RX workers ---------------------------------------------------- */

static __always_inline int worker_enter(void)
{
	struct vb_task *t, zero_task;
	__u32 tid;

	if (!enabled)
		return 0;
	tid = cur_tid();
	t = bpf_map_lookup_elem(&tasks, &tid);
	if (!t) {
		__builtin_memset(&zero_task, 0, sizeof(zero_task));
		bpf_map_update_elem(&tasks, &tid, &zero_task, BPF_NOEXIST);
		t = bpf_map_lookup_elem(&tasks, &tid);
		if (!t) {
			map_full();
			return 0;
		}
	}
	t->in_worker = 1;
	t->pend_valid = 0;
	t->pend_lookups = 0;
	t->win.sk = 0;
	t->st.sk = 0;
	t->tr_sk = 0;
	t->enter_ts = bpf_ktime_get_ns();
	return 0;
}

static __always_inline int worker_exit(void)
{
	struct vb_task *t = cur_task();
	struct vb_stats *s;
	__u64 now;

	if (!t || !t->in_worker)
		return 0;
	now = bpf_ktime_get_ns();
	t->in_worker = 0;
	commit_window(&t->st);
	if (t->win.sk) {
		/* window still open at worker return: close it here */
		t->win.hold_ns = now - t->win.lock_ts;
		commit_window(&t->win);
	}
	drop_pending(t);
	s = cpu_stats();
	if (s) {
		s->cnt[VB_C_WORKER_CALLS]++;
		s->cnt[VB_C_WORKER_NS] += now - t->enter_ts;
	}
	return 0;
}

SEC("fentry/virtio_transport_rx_work")
int BPF_PROG(rx_work_enter)
{
	return worker_enter();
}

SEC("fexit/virtio_transport_rx_work")
int BPF_PROG(rx_work_exit)
{
	return worker_exit();
}

SEC("fentry/vsock_loopback_work")
int BPF_PROG(loopback_work_enter)
{
	return worker_enter();
}

SEC("fexit/vsock_loopback_work")
int BPF_PROG(loopback_work_exit)
{
	return worker_exit();
}

SEC("fentry/vhost_vsock_handle_tx_kick")
int BPF_PROG(vhost_tx_kick_enter)
{
	return worker_enter();
}

SEC("fexit/vhost_vsock_handle_tx_kick")
int BPF_PROG(vhost_tx_kick_exit)
{
	return worker_exit();
}

/* ---- packets ------------------------------------------------------- */

static __always_inline int on_recv_pkt(__u32 src_cid, __u32 src_port,
				       __u32 dst_cid, __u32 dst_port,
				       __u32 len, __u32 op)
{
	bool rw = op == VIRTIO_VSOCK_OP_RW_NR;
	struct vb_stats *s;
	struct vb_task *t;

	if (!enabled)
		return 0;
	s = cpu_stats();
	if (s) {
		s->cnt[VB_C_PKTS]++;
		s->cnt[VB_C_BYTES] += len;
		s->cnt[rw ? VB_C_RW_PKTS : VB_C_CTRL_PKTS]++;
		if (op == VIRTIO_VSOCK_OP_CREDIT_UPDATE_NR)
			s->cnt[VB_C_CREDIT_RX]++;
		else if (op == VIRTIO_VSOCK_OP_RST_NR)
			s->cnt[VB_C_RST_RX]++;
	}
	t = cur_task();
	if (!t || !t->in_worker)
		return 0;
	if (t->win.sk) {
		/* joins the open run (patched kernels) */
		t->win.pkts++;
		t->win.bytes += len;
		t->win.rw_pkts += rw;
		t->win.last_enq = bpf_ktime_get_ns();
		return 0;
	}
	drop_pending(t);
	t->pend_valid = 1;
	t->pend_flow.src_cid = src_cid;
	t->pend_flow.src_port = src_port;
	t->pend_flow.dst_cid = dst_cid;
	t->pend_flow.dst_port = dst_port;
	t->pend_len = len;
	t->pend_op = op;
	return 0;
}

/* Preferred: BTF-typed raw tracepoint, no trace buffer formatting. */
SEC("tp_btf/virtio_transport_recv_pkt")
int BPF_PROG(recv_pkt_btf, __u32 src_cid, __u32 src_port, __u32 dst_cid,
	     __u32 dst_port, __u32 len, __u16 type, __u16 op)
{
	return on_recv_pkt(src_cid, src_port, dst_cid, dst_port, len, op);
}

/* Fallback: classic tracepoint (tracefs), record fields via CO-RE. */
SEC("tracepoint/vsock/virtio_transport_recv_pkt")
int recv_pkt_tp(struct trace_event_raw_virtio_transport_recv_pkt *ctx)
{
	return on_recv_pkt(ctx->src_cid, ctx->src_port, ctx->dst_cid,
			   ctx->dst_port, ctx->len, ctx->op);
}

SEC("fentry/vsock_find_connected_socket")
int BPF_PROG(find_connected)
{
	struct vb_stats *s;
	struct vb_task *t;

	if (!enabled)
		return 0;
	t = cur_task();
	if (!t || !t->in_worker)
		return 0;
	s = cpu_stats();
	if (s)
		s->cnt[VB_C_LOOKUPS]++;
	if (t->win.sk)
		t->win.lookups++;
	else
		t->pend_lookups++;
	return 0;
}

/* ---- the socket lock ----------------------------------------------- */

SEC("fexit/lock_sock_nested")
int BPF_PROG(lock_acquired, struct sock *sk, int subclass)
{
	struct vb_stats *s;
	struct vb_task *t;
	struct vsock_sock *vsk;
	__u64 now;

	if (!enabled || !is_vsock(sk))
		return 0;
	t = cur_task();
	if (!t || !t->in_worker)
		return 0;
	s = cpu_stats();
	if (s)
		s->cnt[VB_C_LOCK_ACQ]++;
	if (t->win.sk) {
		/* e.g. the child socket locked inside the listener's window */
		if (s)
			s->cnt[VB_C_NESTED_LOCKS]++;
		return 0;
	}
	now = bpf_ktime_get_ns();
	commit_window(&t->st);		/* its deferred phase is over */
	if (cr_sk == (__u64)sk) {
		/* the sender this socket starved sent again */
		if (s && now > cr_ts)
			s->cnt[VB_C_CREDIT_WAIT_NS] += now - cr_ts;
		cr_sk = 0;
	}

	t->win.sk = (__u64)sk;
	t->win.lock_ts = now;
	t->win.last_enq = now;	/* the opening packet is enqueued next */
	t->win.hold_ns = 0;
	t->win.dr_in = 0;
	t->win.dr_after = 0;
	t->win.ws = 0;
	t->win.rxq_flags = 0;
	t->win.rxq_fill = 0;
	t->win.lookups = t->pend_lookups;
	t->pend_lookups = 0;
	if (t->pend_valid) {
		t->pend_valid = 0;
		t->win.flow = t->pend_flow;
		t->win.pkts = 1;
		t->win.bytes = t->pend_len;
		t->win.rw_pkts = t->pend_op == VIRTIO_VSOCK_OP_RW_NR;
	} else {
		/* no packet seen (tracepoint off?): key by the socket */
		vsk = (struct vsock_sock *)sk;
		t->win.flow.src_cid = BPF_CORE_READ(vsk, remote_addr.svm_cid);
		t->win.flow.src_port = BPF_CORE_READ(vsk, remote_addr.svm_port);
		t->win.flow.dst_cid = BPF_CORE_READ(vsk, local_addr.svm_cid);
		t->win.flow.dst_port = BPF_CORE_READ(vsk, local_addr.svm_port);
		t->win.pkts = 0;
		t->win.bytes = 0;
		t->win.rw_pkts = 0;
	}
	return 0;
}

/*
 * SKB_TRUESIZE(0) of the running kernel: the skb budget of a socket is
 * buf_alloc / this many skbs (virtio_transport_recv_enqueue).
 */
static __always_inline __u32 skb_truesize0(void)
{
	__u32 a = bpf_core_type_size(struct sk_buff);
	__u32 b = bpf_core_type_size(struct skb_shared_info);

	return ((a + 63) & ~63u) + ((b + 63) & ~63u);	/* SMP_CACHE_BYTES */
}

/*
 * At a window's close, under the socket lock: how full is the RX queue
 * (bytes and skbs against their budgets), and how much credit does the
 * peer have left?  It last heard fwd_cnt = last_fwd_cnt, and has sent
 * at least fwd_cnt + rx_bytes, so it may send at most
 * buf_alloc - (fwd_cnt + rx_bytes - last_fwd_cnt) more: below one RX
 * buffer it is stalled until the reader's credit update.  One probe
 * read per window (two for a worker run's first window on a socket), no
 * map operation; the verdicts ride in the window to
 * commit_window, which counts them with the window's other figures.
 */
#define RXQ_SPAN	64	/* bytes read from fwd_cnt up to rx_queue.qlen */

static __always_inline void rxq_sample(struct vb_task *t, struct sock *sk,
				       __u64 now)
{
	const __u32 o_fwd = bpf_core_field_offset(struct virtio_vsock_sock, fwd_cnt);
	const __u32 o_last = bpf_core_field_offset(struct virtio_vsock_sock,
						   last_fwd_cnt) - o_fwd;
	const __u32 o_rxb = bpf_core_field_offset(struct virtio_vsock_sock,
						  rx_bytes) - o_fwd;
	const __u32 o_buf = bpf_core_field_offset(struct virtio_vsock_sock,
						  buf_alloc) - o_fwd;
	const __u32 o_qlen = bpf_core_field_offset(struct virtio_vsock_sock,
						   rx_queue.qlen) - o_fwd;
	struct vsock_sock *vsk = (struct vsock_sock *)sk;
	__u32 fwd, last, rx_bytes, buf_alloc, qlen, budget, ts0;
	__u8 c[RXQ_SPAN];
	__u64 vvs;
	__s64 left;

	/*
	 * One read covers the four credit counters and the queue length:
	 * they sit within RXQ_SPAN bytes of each other (6.12: 40).  The
	 * offsets are CO-RE constants, so this test is decided at load.
	 */
	if (o_last > RXQ_SPAN - 4 || o_rxb > RXQ_SPAN - 4 ||
	    o_buf > RXQ_SPAN - 4 || o_qlen > RXQ_SPAN - 4)
		return;
	/* vsk->trans is fixed for a connection: one read per worker run */
	if (t->tr_sk != (__u64)sk) {
		t->tr_vvs = (__u64)BPF_CORE_READ(vsk, trans);
		t->tr_sk = (__u64)sk;
	}
	vvs = t->tr_vvs;
	if (!vvs || bpf_probe_read_kernel(c, o_qlen + 4, (void *)(vvs + o_fwd)))
		return;
	fwd = *(__u32 *)&c[0];
	last = *(__u32 *)&c[o_last];
	rx_bytes = *(__u32 *)&c[o_rxb];
	buf_alloc = *(__u32 *)&c[o_buf];
	qlen = *(__u32 *)&c[o_qlen];
	if (!buf_alloc)
		return;
	ts0 = skb_truesize0();
	budget = ts0 ? buf_alloc / ts0 : 0;
	t->win.rxq_flags = VB_RXQ_READ;
	if (budget && qlen + 1 >= budget)
		t->win.rxq_flags |= VB_RXQ_BUDGET;
	t->win.rxq_fill = (__u16)((__u64)rx_bytes * 100 / buf_alloc);
	left = (__s64)buf_alloc - ((__s64)fwd + rx_bytes - last);
	if (left < VB_CREDIT_STALL_BYTES) {
		t->win.rxq_flags |= VB_RXQ_STALL;
		cr_sk = (__u64)sk;
		cr_ts = now;
	}
}

SEC("fentry/release_sock")
int BPF_PROG(release, struct sock *sk)
{
	struct vb_task *t;
	__u64 now;

	if (!enabled || !is_vsock(sk))
		return 0;
	t = cur_task();
	if (!t || !t->in_worker || t->win.sk != (__u64)sk)
		return 0;
	now = bpf_ktime_get_ns();
	t->win.hold_ns = now - t->win.lock_ts;
	rxq_sample(t, sk, now);
	t->st = t->win;
	t->win.sk = 0;
	return 0;
}

/* A user thread sleeping for a socket the worker (or anyone) owns. */
SEC("fentry/__lock_sock")
int BPF_PROG(user_wait_begin, struct sock *sk)
{
	struct vb_task *t;
	__u32 tid;
	__u64 now;

	if (!enabled || !is_vsock(sk))
		return 0;
	t = cur_task();
	if (t && t->in_worker)
		return 0;
	tid = cur_tid();
	now = bpf_ktime_get_ns();
	if (bpf_map_update_elem(&waits, &tid, &now, BPF_ANY))
		map_full();
	return 0;
}

SEC("fexit/__lock_sock")
int BPF_PROG(user_wait_end, struct sock *sk)
{
	struct vb_stats *s;
	__u64 *start, d;
	__u32 tid = cur_tid();

	start = bpf_map_lookup_elem(&waits, &tid);
	if (!start)
		return 0;
	d = bpf_ktime_get_ns() - *start;
	bpf_map_delete_elem(&waits, &tid);
	if (!enabled)
		return 0;
	s = cpu_stats();
	if (s) {
		s->cnt[VB_C_USER_WAITS]++;
		s->cnt[VB_C_USER_WAIT_NS] += d;
		hist_add(&s->hist[VB_H_USER_WAIT_NS], d);
	}
	return 0;
}

/* ---- callbacks ----------------------------------------------------- */

SEC("fentry/sock_def_readable")
int BPF_PROG(readable, struct sock *sk)
{
	struct vb_stats *s;
	struct vb_task *t;
	__u64 lat;

	if (!enabled || !is_vsock(sk))
		return 0;
	s = cpu_stats();
	if (!s)
		return 0;
	t = cur_task();
	if (!t || !t->in_worker) {
		s->cnt[VB_C_DR_OUTSIDE]++;
		return 0;
	}
	if (t->win.sk == (__u64)sk) {
		t->win.dr_in++;
		lat = bpf_ktime_get_ns() - t->win.last_enq;
	} else if (!t->win.sk && t->st.sk == (__u64)sk) {
		t->st.dr_after++;
		lat = bpf_ktime_get_ns() - t->st.last_enq;
	} else {
		s->cnt[VB_C_DR_OTHER]++;
		return 0;
	}
	s->cnt[VB_C_DR_LAT_NS] += lat;
	hist_add(&s->hist[VB_H_DR_LAT_NS], lat);
	return 0;
}

/*
 * On loopback this also runs for the SENDER's socket (skb_orphan ->
 * sock_wfree in skb_set_owner_sk_safe): only the window's socket counts.
 */
SEC("fentry/sock_def_write_space")
int BPF_PROG(write_space, struct sock *sk)
{
	struct vb_stats *s;
	struct vb_task *t;

	if (!enabled || !is_vsock(sk))
		return 0;
	t = cur_task();
	if (!t || !t->in_worker)
		return 0;
	if (t->win.sk == (__u64)sk) {
		t->win.ws++;
	} else if (!t->win.sk && t->st.sk == (__u64)sk) {
		t->st.ws++;
	} else {
		s = cpu_stats();
		if (s)
			s->cnt[VB_C_WS_OTHER]++;
	}
	return 0;
}

/* ---- the series' own run event (patched kernels) ------------------- */

SEC("tracepoint/vsock/virtio_transport_rx_batch")
int rx_batch_tp(struct trace_event_raw_virtio_transport_rx_batch *ctx)
{
	struct vb_flow_key key;
	struct vb_stats *s, *fs;
	__u32 pkts, bytes, reason, ws, dr;
	__u64 hold;
	int rc;

	if (!enabled)
		return 0;
	pkts = ctx->pkts;
	bytes = ctx->bytes;
	hold = ctx->hold_ns;
	reason = ctx->reason;
	ws = !!ctx->write_space;
	dr = !!ctx->data_ready;
	rc = reason < VB_KB_REASON_NR ? VB_C_KB_R_QUEUE + reason
				      : VB_C_KB_R_OTHER;
	if (rc < VB_C_KB_R_QUEUE || rc > VB_C_KB_R_OTHER)
		return 0;

	s = cpu_stats();
	if (s) {
		s->cnt[VB_C_KB_RUNS]++;
		s->cnt[VB_C_KB_PKTS] += pkts;
		s->cnt[VB_C_KB_BYTES] += bytes;
		s->cnt[VB_C_KB_HOLD_NS] += hold;
		s->cnt[VB_C_KB_WRITE_SPACE] += ws;
		s->cnt[VB_C_KB_DATA_READY] += dr;
		s->cnt[rc]++;
		hist_add(&s->hist[VB_H_KB_PKTS], pkts);
		hist_add(&s->hist[VB_H_KB_HOLD_NS], hold);
	}
	key.src_cid = ctx->src_cid;
	key.src_port = ctx->src_port;
	key.dst_cid = ctx->dst_cid;
	key.dst_port = ctx->dst_port;
	fs = flow_stats(&key);
	if (fs) {
		fs->cnt[VB_C_KB_RUNS] += 1;
		fs->cnt[VB_C_KB_PKTS] += pkts;
		fs->cnt[VB_C_KB_BYTES] += bytes;
		fs->cnt[VB_C_KB_HOLD_NS] += hold;
		fs->cnt[rc] += 1;
		hist_add(&fs->hist[VB_H_KB_PKTS], pkts);
		hist_add(&fs->hist[VB_H_KB_HOLD_NS], hold);
	}
	return 0;
}

/* ---- the reader and errors (advise) -------------------------------- */

/*
 * recv() on AF_VSOCK stream/seqpacket sockets: calls, bytes and the
 * return size, per CPU (which CPU the reader runs on).  One per-CPU
 * array lookup per recv() call, nothing per packet.
 */
SEC("fexit/vsock_connectible_recvmsg")
int BPF_PROG(recvmsg_exit, struct socket *sock, struct msghdr *msg,
	     __u64 len, int flags, int ret)
{
	struct vb_stats *s;

	if (!enabled || ret < 0)
		return 0;
	s = cpu_stats();
	if (!s)
		return 0;
	s->cnt[VB_C_RECV_CALLS]++;
	s->cnt[VB_C_RECV_BYTES] += ret;
	hist_add(&s->hist[VB_H_RECV_SIZE], ret);
	return 0;
}

/*
 * A connection reset because a packet could not be queued: the RX path
 * sets sk_err = ENOBUFS and reports it (virtio_transport_recv_connected).
 * Runs only on socket errors.
 */
SEC("fentry/sk_error_report")
int BPF_PROG(error_report, struct sock *sk)
{
	struct vb_stats *s;

	if (!enabled || !is_vsock(sk) || sk->sk_err != VB_ENOBUFS)
		return 0;
	s = cpu_stats();
	if (s)
		s->cnt[VB_C_ENOBUFS]++;
	return 0;
}
