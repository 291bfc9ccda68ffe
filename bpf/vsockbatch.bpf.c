// SPDX-License-Identifier: GPL-2.0
/*
 * vsockbatch.bpf.c - per-batch view of the virtio-vsock RX path.
 *
 * A "batch" is one lock window of an RX worker on one AF_VSOCK socket
 * that holds at least one data packet.  Baseline kernels open one window
 * per packet; kernels with the batching series keep it open for a run of
 * same-flow packets and say so with the vsock:virtio_transport_rx_batch
 * event, once per run, right after the unlock.
 *
 * Two modes; the loader switches the programs of the other off before
 * loading (bpf_program__set_autoload) and sets `full_mode` and
 * `time_mask` in .rodata, so the light programs carry no dead full-mode
 * code either.  Costs per level, measured: scripts/tracer-cost.sh.
 *
 * light, kernels with the series' rx_batch event (the default there):
 *   that event alone, once per run: 1 program (rx_batch_held), 1
 *   per-CPU array lookup (inlined); the run's counters wait in the
 *   CPU's slot (lpend): 1 flow hash lookup per change of flow or
 *   drain (+ 1 update the first time a flow is seen); the
 *   reader drains the slots before each read (lpend_drain).  The run's
 *   pkts and bytes are the packet counts, added at the drain: control
 *   packets and packets outside runs are not seen.
 * light, stock kernels: the recv_pkt event alone, per packet: 1 program,
 *   1 per-CPU array lookup; it reads only the packet's len and op.
 *
 * full (every kernel; the default on kernels without the rx_batch event)
 *   adds what the window timings and the costs of batching need, from
 *   vsock functions only -- no hook on a function every socket of the
 *   system calls per packet (lock_sock_nested, release_sock,
 *   sock_def_readable, ...).  The RX worker's window is a per-CPU slot
 *   (wslots); a reader's lock wait is task-local storage.  Times are
 *   taken for 1 window in (time_mask + 1) (--sample, default 8): the
 *   clock reads, time histograms and the RX queue sample; counts are
 *   exact.
 *     recv_pkt, per packet: + 1 slot lookup (array, inlined, and
 *       bpf_get_current_task); a timed window's first packet reads the
 *       clock.
 *     fentry vsock_data_ready, per data packet processed outside a run
 *       (every data packet on baseline): 1 slot lookup; timed: 1 clock
 *       read, 1 array lookup, the RX queue sample (1 probe read).
 *     fexit virtio_transport_recv_pkt, per packet of the unbatched entry
 *       point (every packet on baseline, vhost on both): 1 slot lookup,
 *       1 array lookup; timed: 1 clock read.  The window's counters wait
 *       in the slot: 1 flow hash lookup per 16 windows of a flow.
 *     rx_batch, per run: + 1 slot lookup; timed: 1 clock read and the RX
 *       queue sample of the run's socket; the classic tracepoint, as
 *       tp_btf may not read its void * skaddr.
 *     fexit vsock_connectible_recvmsg, per recv() call, and fentry
 *       sk_error_report, per socket error: 1 array lookup (advise).
 *     RX worker fentry/fexit, per worker call: 1 slot lookup, 1 clock
 *       read, 1 array lookup (exit), and the slot's held windows into
 *       the flow map.
 *     fentry/fexit __lock_sock, per contended socket lock only (a reader
 *       waiting for the worker): 1 slot lookup, 1 task-storage get, 1
 *       clock read.
 *
 * Baseline window: recv_pkt fires at the top of virtio_transport_recv_pkt
 * (before lookup and lock), vsock_data_ready runs under the lock, and the
 * function returns after release_sock + sock_put.  So "window time" is
 * lookup + lock + processing + unlock of the packet.
 * Patched run: the opening packet's recv_pkt event fires before lookup
 * and lock, joining packets' events fire inside the run (and with them
 * their programs: on such a kernel full mode lengthens the hold it
 * measures), the end-of-run readable callback runs under the lock, and
 * the rx_batch event (with the kernel's own pkts, bytes, hold_ns and
 * flags) fires right after the unlock.  "Window time" is then first
 * packet event -> rx_batch event.
 *
 * Everything is aggregated in maps; nothing is sent per packet to user
 * space.  `enabled` (written by the loader) gates all accounting so the
 * measured interval is exactly the one the CPU counters cover.  The two
 * light programs that are their mode's only hook (recv_pkt_light,
 * rx_batch_held) test no flag: the loader attaches them when it would
 * set the flag and detaches them when it would clear it, which delimits
 * the same interval without a load and a branch per packet or run.
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

/*
 * Set by the loader after attach, cleared before detach (the light
 * programs above are attached and detached instead).
 */
volatile bool enabled;
/* Set by the loader before load: full mode (see above). */
const volatile bool full_mode;
/*
 * Full mode: the times of one window in (time_mask + 1) are taken (clock
 * reads, window and data-ready latency histograms, the RX queue sample);
 * counts stay exact.  0 times every window (--sample 1).
 */
const volatile __u32 time_mask;
/*
 * Full mode --duty N (kernels without the series): recv_pkt_light counts
 * every packet exactly, and the window hooks (recv_pkt_btf or _tp,
 * data_ready, recv_pkt_exit) are attached for one time slice in N only.
 * Their dispatch is most of full mode's cost on such kernels (three
 * hooks per packet, ~290 instructions on the lab's 6.12 at 64 B), which
 * no program body sheds; attached for 1/N of the time it costs 1/N.
 * The window opener then counts the packets it saw (VB_C_WIN_PKTS):
 * the denominator of every per-packet window figure.
 */
const volatile bool win_sliced;

/*
 * The last flow whose sender a window left without credit, and when
 * (rxq_sample); the next window of that flow, in any worker task, ends
 * the wait: the next packet may be handled by another kworker thread.
 * A second flow stalling first takes the slot, so with several starved
 * flows waits are undercounted, never counted twice.  Plain globals: no
 * map operation.  (advise, #13)
 */
__u64 cr_src, cr_dst;	/* cid << 32 | port: no BPF type in the skeleton */
__u64 cr_ts;

/* A reader's lock wait (task storage: readers sleep and migrate). */
struct vb_reader {
	__u64 wait_ts;		/* __lock_sock entered */
};

/* The RX worker's state, in its CPU's slot (wslots, below). */
struct vb_task {
	__u64 first_ts;		/* first packet event of the open window */
	__u64 enter_ts;		/* worker function entered */
	__u64 dr_lat;		/* first packet -> first data-ready */
	__u64 rb_sk;		/* p1-3: the run open before this call ... */
	struct vb_flow_key rb_flow;	/* ... its flow ... */
	__u32 rb_pkts, rb_bytes;	/* ... and size */
	__u32 rb_valid;		/* rb_* noted by the call's entry */
	__u64 tr_sk;		/* socket whose vsk->trans is cached ... */
	__u64 tr_vvs;		/* ... here (fixed for a connection) */
	struct vb_flow_key flow;
	__u32 open;		/* a window is open */
	__u32 pkts;
	__u32 bytes;
	__u32 rw_pkts;
	__u32 dr;		/* data-ready decisions inside it */
	__u32 in_worker;
	__u32 timed;		/* this window's times are taken */
	__u32 seq;		/* windows opened here: picks the timed ones */
	/*
	 * Window counters of the windows just closed, not yet added to
	 * their flow's entry: one flow-map lookup per VB_PEND_MAX windows
	 * of a flow (and at the worker's return) instead of one per window.
	 */
	struct vb_flow_key pkey;
	__u32 pn;		/* windows held here */
	__u64 pend[VB_FC_NR];
};

/* Most windows a slot holds before adding them to the flow map. */
#define VB_PEND_MAX	16

/* one slot per CPU; see struct vb_stats */
struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct vb_stats);
} stats SEC(".maps");

/*
 * Window counters per flow, per CPU: a flow is mostly handled by one
 * worker, but per-CPU values spare the atomic adds a shared value would
 * need on every window (costly on TCG guests); the loader sums the CPUs.
 * Counters only (VB_FC_NR x 8 bytes per CPU): histograms are per CPU.
 */
struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_HASH);
	__uint(max_entries, VB_MAX_FLOWS);
	__type(key, struct vb_flow_key);
	__type(value, struct vb_flow_stats);
} flows SEC(".maps");

/* Readers waiting for the socket lock: they sleep and may migrate. */
struct {
	__uint(type, BPF_MAP_TYPE_TASK_STORAGE);
	__uint(map_flags, BPF_F_NO_PREALLOC);
	__type(key, int);
	__type(value, struct vb_reader);
} tasks SEC(".maps");

/*
 * The RX worker's window, one slot per CPU.  The guest's RX work runs on
 * bound workqueues (virtio_vsock_workqueue, vsock-loopback: both
 * alloc_workqueue(..., 0, 0) in 6.12, WQ_PERCPU in 7.2), whose
 * kworkers never leave their CPU, so the hooks of one packet (recv_pkt,
 * data_ready, the fexit) meet on one slot.  `owner` is the task that holds it: a task that preempts the
 * worker and opens a window on the same CPU takes the slot, and the
 * window it found open is counted stale, like any window without an end.
 * Per hook this is a per-CPU array lookup and bpf_get_current_task(),
 * where task storage was a bpf_task_storage_get() (a hash of the task's
 * storages, then a cache slot).
 */
struct vb_wslot {
	__u64 owner;
	struct vb_task t;
};

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct vb_wslot);
} wslots SEC(".maps");

/*
 * Light mode on the series' kernels: the runs of the flow this CPU saw
 * last, not yet added to its flow's entry -- one flow-hash lookup per
 * change of flow (or drain) instead of one per run, which was a third of
 * the level's cost at 64 B (hash, lookup and key compare: 28 of 88
 * instructions per packet).  No bound on the runs held: the reader
 * drains every CPU's slot before it reads the flow map (lpend_drain
 * below), so what it reads is exact however many wait (the bound of 16
 * that full mode's windows keep cost a flush per 16 runs).  `busy` is
 * set while rx_batch counts into the slot: the drain runs on the slot's
 * CPU in an IPI, which may interrupt
 * it there, and then leaves the slot alone (the reader tries again).
 * The slot is the tail of the CPU's stats value (vb_stats.held): one
 * lookup per run finds both.
 */
struct vb_lpend {
	__u32 busy;
	__u32 n;		/* runs held */
	struct vb_flow_key key;
	__u64 cnt[VB_FC_NR];
};

_Static_assert(sizeof(struct vb_lpend) <=
	       sizeof(((struct vb_stats *)0)->held),
	       "vb_stats.held holds a vb_lpend");

static __always_inline struct vb_lpend *held_runs(struct vb_stats *s)
{
	return (struct vb_lpend *)s->held;
}

/*
 * The key of the one-slot per-CPU arrays, in .rodata: its address is one
 * instruction, where a key on the stack is a store and an address
 * computation before every lookup (the lookup itself is inlined).
 */
static const __u32 slot_key = 0;

static __always_inline struct vb_stats *cpu_stats(void)
{
	return bpf_map_lookup_elem(&stats, &slot_key);
}

static __always_inline struct vb_reader *reader_state(bool create)
{
	return bpf_task_storage_get(&tasks, bpf_get_current_task_btf(), 0,
				    create ? BPF_LOCAL_STORAGE_GET_F_CREATE : 0);
}

/*
 * sk is a BTF-typed argument of fentry/fexit: a direct (CO-RE relocated)
 * load, cheaper than a probe-read helper call.
 */
/* The same test where sk is a plain pointer (kprobe fallback). */
static __always_inline bool is_vsock_read(struct sock *sk)
{
	return sk && BPF_CORE_READ(sk, __sk_common.skc_family) ==
		     AF_VSOCK_FAMILY;
}

static __always_inline bool is_vsock(struct sock *sk)
{
	return sk && sk->__sk_common.skc_family == AF_VSOCK_FAMILY;
}

static __always_inline void hist_add(struct vb_stats *s, int h, __u64 v)
{
	__u32 i = vb_slot(v);

	if (h >= 0 && h < VB_H_LOG2_NR)
		s->hist[h].slots[i]++;
}

static __always_inline void lhist_add(struct vb_stats *s, int h, __u64 v)
{
	/* 64-bit: a 32-bit index costs a zero-extension (shift pair) */
	__u64 i = v < VB_LIN_SLOTS - 1 ? v : VB_LIN_SLOTS - 1;

	/* keep the mask past clang: the bound the verifier sees (6.1) */
	barrier_var(i);
	i &= VB_LIN_SLOTS - 1;
	h -= VB_H_LOG2_NR;
	if (h >= 0 && h < VB_H_LIN_NR)
		s->lhist[h].slots[i]++;
}

/*
 * The flow's per-CPU counters; for a flow the map has no room for, the
 * "other flows" counters of this CPU's stats slot, so totals stay exact.
 */
/*
 * A new flow's initial value: a global (.bss), not a stack copy, which
 * clang zeroes on every call, found or not (21 stores).
 */
static struct vb_flow_stats flow_zero;

static __always_inline __u64 *flow_cnt(struct vb_stats *s,
				       struct vb_flow_key *key)
{
	struct vb_flow_stats *fs;
	long err;

	fs = bpf_map_lookup_elem(&flows, key);
	if (fs)
		return fs->cnt;
	err = bpf_map_update_elem(&flows, key, &flow_zero, BPF_NOEXIST);
	if (!err || err == -17 /* EEXIST: another CPU inserted it */) {
		fs = bpf_map_lookup_elem(&flows, key);
		if (fs)
			return fs->cnt;
	}
	s->cnt[VB_C_MAP_FULL]++;
	return s->cnt;
}

static __always_inline void count_batch(struct vb_stats *s, __u64 *fc,
					__u32 pkts, __u32 bytes)
{
	fc[VB_FC_BATCHES]++;
	fc[VB_FC_BATCH_PKTS] += pkts;
	fc[VB_FC_BATCH_BYTES] += bytes;
	if (pkts > fc[VB_FC_BATCH_MAX])
		fc[VB_FC_BATCH_MAX] = pkts;
	lhist_add(s, VB_H_BATCH_PKTS, pkts);
	hist_add(s, VB_H_BATCH_BYTES, bytes);
}

/*
 * Counters a slot holds (h) into their flow's entry (fc), zeroed after:
 * full mode's windows (pend_flush) and, with runs, light mode's runs
 * (lpend_flush), which also carry the rx_batch counters.
 */
#define HELD_ADD(i) do { fc[i] += h[i]; h[i] = 0; } while (0)

static __always_inline void held_add(__u64 *fc, __u64 *h, const bool runs)
{
	int i;

	HELD_ADD(VB_FC_BATCHES);
	HELD_ADD(VB_FC_BATCH_PKTS);
	HELD_ADD(VB_FC_BATCH_BYTES);
	HELD_ADD(VB_FC_CTRL_WINDOWS);
	HELD_ADD(VB_FC_WINDOW_NS);
	HELD_ADD(VB_FC_TIMED);
	HELD_ADD(VB_FC_DR_INSIDE);
	HELD_ADD(VB_FC_DR_LAT_NS);
	HELD_ADD(VB_FC_DR_LAT_N);
	if (h[VB_FC_BATCH_MAX] > fc[VB_FC_BATCH_MAX])
		fc[VB_FC_BATCH_MAX] = h[VB_FC_BATCH_MAX];
	h[VB_FC_BATCH_MAX] = 0;
	if (!runs)
		return;
	HELD_ADD(VB_FC_DR_AFTER);
	HELD_ADD(VB_FC_KB_HOLD_NS);
	HELD_ADD(VB_FC_KB_WRITE_SPACE);
#pragma unroll
	for (i = VB_FC_KB_R_QUEUE; i <= VB_FC_KB_R_OTHER; i++)
		HELD_ADD(i);
}

/*
 * Add the windows a slot holds to their flow's entry.  Also at the
 * worker's return, enabled or not: they were counted while enabled.
 */
static __always_inline void pend_flush(struct vb_task *t, struct vb_stats *s)
{
	if (!t->pn)
		return;
	held_add(flow_cnt(s, &t->pkey), t->pend, false);
	t->pn = 0;
}

/*
 * The runs a light slot holds into their flow's entry.  Light mode has
 * no per-packet event: the CPU's packet counters are the runs' data
 * packets, added here, per flush, rather than per run; the runs' count
 * is the slot's n.  The reader drains before it reads them, so they are
 * exact when read.  Not inlined: the per-run program then keeps fewer
 * registers live, and the JIT saves and restores fewer on every run.
 */
static __noinline void lpend_flush(struct vb_lpend *p, struct vb_stats *s)
{
	__u64 pkts = p->cnt[VB_FC_BATCH_PKTS];

	p->cnt[VB_FC_BATCHES] = p->n;
	s->cnt[VB_C_PKTS] += pkts;
	s->cnt[VB_C_RW_PKTS] += pkts;
	s->cnt[VB_C_BYTES] += p->cnt[VB_FC_BATCH_BYTES];
	held_add(flow_cnt(s, &p->key), p->cnt, true);
	p->n = 0;
}

/*
 * This CPU's worker slot if the current task holds it (or, with create,
 * takes it: the windows it holds go to the flow map first, an open
 * window counts stale).
 */
static __always_inline struct vb_task *worker_state(bool create)
{
	__u64 cur = bpf_get_current_task();
	struct vb_wslot *w;
	struct vb_stats *s;

	w = bpf_map_lookup_elem(&wslots, &slot_key);
	if (!w)
		return NULL;
	if (w->owner == cur)
		return &w->t;
	if (!create)
		return NULL;
	s = cpu_stats();
	if (s) {
		pend_flush(&w->t, s);
		if (w->t.open)
			s->cnt[VB_C_STALE]++;
	}
	__builtin_memset(&w->t, 0, sizeof(w->t));
	w->owner = cur;
	return &w->t;
}

static __always_inline bool same_flow(const struct vb_flow_key *a,
				      const struct vb_flow_key *b)
{
	return a->src_cid == b->src_cid && a->src_port == b->src_port &&
	       a->dst_cid == b->dst_cid && a->dst_port == b->dst_port;
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
 * Full mode, under the socket lock (baseline: the packet's data-ready
 * decision; patched: the end of a run): how full is the RX queue (bytes
 * and skbs against their budgets), and how much credit has the peer
 * left?  It last heard fwd_cnt = last_fwd_cnt and has sent at least
 * fwd_cnt + rx_bytes, so it may send at most buf_alloc - (fwd_cnt +
 * rx_bytes - last_fwd_cnt) more: below one RX buffer it is stalled until
 * the reader's credit update.  No map operation.  A
 * stall is timed until the next window of the same flow in any task
 * (on_recv_pkt): the sender's credit wait.  One probe read per sample
 * (two for a socket's first).  (advise)
 */
#define RXQ_SPAN	64	/* bytes read from fwd_cnt up to rx_queue.qlen */

static __always_inline void rxq_sample(struct vb_stats *s, struct vb_task *t,
				       struct sock *sk, __u64 now)
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
	/* vsk->trans is fixed for a connection: read it once per socket */
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
	s->cnt[VB_C_RXQ_WINDOWS]++;
	if (budget && qlen + 1 >= budget)
		s->cnt[VB_C_RXQ_AT_BUDGET]++;
	hist_add(s, VB_H_RXQ_FILL, (__u64)rx_bytes * 100 / buf_alloc);
	left = (__s64)buf_alloc - ((__s64)fwd + rx_bytes - last);
	if (left < VB_CREDIT_STALL_BYTES) {
		s->cnt[VB_C_CREDIT_STALLS]++;
		cr_src = (__u64)t->flow.src_cid << 32 | t->flow.src_port;
		cr_dst = (__u64)t->flow.dst_cid << 32 | t->flow.dst_port;
		cr_ts = now;
	}
}

/* ---- packets ------------------------------------------------------- */

/*
 * Every packet: its counts.  Only len and op are read first, so that the
 * light level (stock kernels: this event alone) loads nothing else.
 */
static __always_inline struct vb_stats *count_pkt(__u32 len, __u32 op)
{
	struct vb_stats *s;

	if (!enabled)
		return NULL;
	s = cpu_stats();
	if (!s)
		return NULL;
	s->cnt[VB_C_PKTS]++;
	s->cnt[VB_C_BYTES] += len;
	s->cnt[op == VIRTIO_VSOCK_OP_RW_NR ? VB_C_RW_PKTS : VB_C_CTRL_PKTS]++;
	if (op == VIRTIO_VSOCK_OP_CREDIT_UPDATE_NR)
		s->cnt[VB_C_CREDIT_RX]++;
	else if (op == VIRTIO_VSOCK_OP_RST_NR)
		s->cnt[VB_C_RST_RX]++;
	return s;
}

/* Full mode: the packet opens a window or joins the open run. */
static __always_inline int on_recv_pkt(struct vb_stats *s,
				       __u32 src_cid, __u32 src_port,
				       __u32 dst_cid, __u32 dst_port,
				       __u32 len, __u32 op)
{
	bool rw = op == VIRTIO_VSOCK_OP_RW_NR;
	struct vb_task *t;
	__u64 now;

	t = worker_state(true);
	if (!t)
		return 0;
	/*
	 * Only a data packet joins an open run, and only a run of data
	 * packets (a control packet ends the run before its own event).  An
	 * open window that cannot be a run was left by a packet whose window
	 * end had no event (the series' unbatched path): drop it.
	 */
	if (t->open && rw && t->rw_pkts == t->pkts) {
		t->pkts++;
		t->bytes += len;
		t->rw_pkts++;
		return 0;
	}
	if (t->open)
		s->cnt[VB_C_STALE]++;
	t->open = 1;
	t->timed = !(t->seq++ & time_mask);
	t->first_ts = t->timed ? bpf_ktime_get_ns() : 0;
	t->flow.src_cid = src_cid;
	t->flow.src_port = src_port;
	t->flow.dst_cid = dst_cid;
	t->flow.dst_port = dst_port;
	t->pkts = 1;
	t->bytes = len;
	t->rw_pkts = rw;
	t->dr = 0;
	if (cr_ts && cr_src == ((__u64)src_cid << 32 | src_port) &&
	    cr_dst == ((__u64)dst_cid << 32 | dst_port)) {
		/*
		 * The sender a window starved sent again.  Only timed
		 * windows look for stalls: each wait found stands for
		 * time_mask + 1 windows' worth.
		 */
		now = t->first_ts ?: bpf_ktime_get_ns();
		if (now > cr_ts)
			s->cnt[VB_C_CREDIT_WAIT_NS] +=
				(now - cr_ts) * (time_mask + 1);
		cr_ts = 0;
	}
	return 0;
}

/*
 * --duty: the packet was counted by recv_pkt_light; count it as one the
 * window hooks saw.  Attached in the interval's on slices, and once at
 * start to prove the hook: `enabled` keeps that attach out of the counts.
 */
static __always_inline struct vb_stats *count_win_pkt(void)
{
	struct vb_stats *s;

	if (!enabled)
		return NULL;
	s = cpu_stats();
	if (s)
		s->cnt[VB_C_WIN_PKTS]++;
	return s;
}

/*
 * Preferred: BTF-typed raw tracepoint, no trace buffer formatting.  The
 * arguments (src_cid, src_port, dst_cid, dst_port, len, type, op) are
 * read from ctx where they are needed, not all at entry as BPF_PROG
 * would: light mode reads two of them.
 */
SEC("tp_btf/virtio_transport_recv_pkt")
int recv_pkt_btf(__u64 *ctx)
{
	__u32 len = (__u32)ctx[4], op = (__u16)ctx[6];
	struct vb_stats *s = win_sliced ? count_win_pkt() : count_pkt(len, op);

	if (!s || !full_mode)
		return 0;
	return on_recv_pkt(s, (__u32)ctx[0], (__u32)ctx[1], (__u32)ctx[2],
			   (__u32)ctx[3], len, op);
}

/*
 * Light mode on a kernel without the series: this event is the only
 * hook, so its body is the level's cost beside the tracepoint's dispatch
 * (~65 instructions on 6.12, which no program sheds).  Per packet: the
 * CPU's slot, the payload bytes and one per-op counter, from which user
 * space derives packets, data and control packets, credit updates and
 * resets (vb_stats_fold_ops).  recv_pkt_btf, which light mode ran before,
 * also tested the mode, made three increments and compared the op three
 * times: 65 instructions per packet against this one's 39 on the lab's
 * 6.12 baseline (results/2026-12-06-tracer-cost-light-prog), 35 since it
 * stopped testing `enabled` (results/2026-12-06-tracer-cost-attach).
 * len and op arrive zero-extended to u64 (see held_run), so they are
 * used as read.  Loaded in light mode only, attached only while
 * recording: it tests neither the mode nor `enabled`.
 */
SEC("tp_btf/virtio_transport_recv_pkt")
int recv_pkt_light(__u64 *ctx)
{
	struct vb_stats *s;
	__u64 op;

	s = cpu_stats();
	if (!s)
		return 0;
	s->cnt[VB_C_BYTES] += ctx[4];
	op = ctx[6];
	if (op > VB_OP_SLOTS - 1)
		op = VB_OP_SLOTS - 1;
	s->op_pkts[op]++;
	return 0;
}

/* Fallback: classic tracepoint (tracefs), record fields via CO-RE. */
SEC("tracepoint/vsock/virtio_transport_recv_pkt")
int recv_pkt_tp(struct trace_event_raw_virtio_transport_recv_pkt *ctx)
{
	__u32 len = ctx->len, op = ctx->op;
	struct vb_stats *s = win_sliced ? count_win_pkt() : count_pkt(len, op);

	if (!s || !full_mode)
		return 0;
	return on_recv_pkt(s, ctx->src_cid, ctx->src_port, ctx->dst_cid,
			   ctx->dst_port, len, op);
}

/* ---- baseline windows (full mode) ---------------------------------- */

/* Under the socket lock, once per data packet of the unbatched path. */
static __always_inline int on_data_ready(struct sock *sk)
{
	struct vb_stats *s;
	struct vb_task *t;
	__u64 lat, now;

	if (!enabled)
		return 0;
	t = worker_state(false);
	if (!t || !t->open)
		return 0;
	t->dr++;
	if (t->dr > 1 || !t->timed)
		return 0;
	s = cpu_stats();
	if (!s)
		return 0;
	now = bpf_ktime_get_ns();
	lat = now - t->first_ts;
	hist_add(s, VB_H_DR_LAT_NS, lat);
	rxq_sample(s, t, sk, now);
	/* the sum goes with the window, per flow, when it ends */
	t->dr_lat = lat;
	return 0;
}

SEC("fentry/vsock_data_ready")
int BPF_PROG(data_ready, struct sock *sk)
{
	return on_data_ready(sk);
}

/* After release_sock() + sock_put(): the packet's window is over. */
static __always_inline int on_recv_pkt_exit(void)
{
	struct vb_stats *s;
	struct vb_task *t;
	__u64 d, *fc;

	if (!enabled)
		return 0;
	t = worker_state(false);
	if (!t || !t->open)
		return 0;
	s = cpu_stats();
	if (!s)
		return 0;
	t->open = 0;
	/* the window's counters wait in the slot (pend_flush) */
	if (t->pn >= VB_PEND_MAX ||
	    (t->pn && !same_flow(&t->pkey, &t->flow)))
		pend_flush(t, s);
	t->pkey = t->flow;
	t->pn++;
	fc = t->pend;
	if (t->rw_pkts) {
		count_batch(s, fc, t->pkts, t->bytes);
		if (t->timed) {
			d = bpf_ktime_get_ns() - t->first_ts;
			fc[VB_FC_WINDOW_NS] += d;
			fc[VB_FC_TIMED]++;
			hist_add(s, VB_H_WINDOW_NS, d);
		}
	} else {
		fc[VB_FC_CTRL_WINDOWS]++;
	}
	if (t->dr) {
		fc[VB_FC_DR_INSIDE] += t->dr;
		if (t->timed) {
			fc[VB_FC_DR_LAT_NS] += t->dr_lat;
			fc[VB_FC_DR_LAT_N]++;
		}
	}
	return 0;
}

SEC("fexit/virtio_transport_recv_pkt")
int BPF_PROG(recv_pkt_exit)
{
	return on_recv_pkt_exit();
}

/* ---- the series' run event (patched kernels, both modes) ----------- */

/*
 * A run's counters into fc (its flow's entry, or a light slot's held
 * counters).  reason is the series' end code; the bound is for the
 * verifier (an unknown code is OTHER).
 */
static __always_inline void count_run(struct vb_stats *s, __u64 *fc,
				      __u32 pkts, __u32 bytes, __u64 hold,
				      __u32 reason, bool ws, bool dr)
{
	int rc = reason < VB_KB_REASON_NR ? reason : VB_KB_REASON_NR;

	count_batch(s, fc, pkts, bytes);
	fc[VB_FC_KB_HOLD_NS] += hold;
	fc[VB_FC_KB_WRITE_SPACE] += ws;
	fc[VB_FC_DR_AFTER] += dr;
	/* keep the check past clang, which folds it into the index */
	barrier_var(rc);
	if (rc >= 0 && rc <= VB_FC_KB_R_OTHER - VB_FC_KB_R_QUEUE)
		fc[VB_FC_KB_R_QUEUE + rc]++;
	hist_add(s, VB_H_KB_HOLD_NS, hold);
}

/*
 * Full mode, the classic event, and light mode where the held runs
 * cannot be drained (rx_batch_btf): one flow-hash lookup per run.
 */
static __always_inline int on_rx_batch(const void *skaddr,
				       __u32 src_cid, __u32 src_port,
				       __u32 dst_cid, __u32 dst_port,
				       __u32 pkts, __u32 bytes, __u64 hold,
				       __u32 reason, bool ws, bool dr)
{
	struct vb_flow_key key = {
		.src_cid = src_cid, .src_port = src_port,
		.dst_cid = dst_cid, .dst_port = dst_port,
	};
	struct vb_stats *s;
	struct vb_task *t;
	__u64 *fc, now, d;

	if (!enabled)
		return 0;
	s = cpu_stats();
	if (!s)
		return 0;
	if (!full_mode) {
		/* light: no recv_pkt program; the run's data packets */
		s->cnt[VB_C_PKTS] += pkts;
		s->cnt[VB_C_BYTES] += bytes;
		s->cnt[VB_C_RW_PKTS] += pkts;
	}
	fc = flow_cnt(s, &key);
	count_run(s, fc, pkts, bytes, hold, reason, ws, dr);
	if (!full_mode)
		return 0;

	t = worker_state(false);
	if (!t || !t->open)
		return 0;
	t->open = 0;
	/*
	 * Readable callbacks through vsock_data_ready() inside the run (a
	 * kernel that wakes the reader at the first readable packet) are
	 * under the lock; the one the event flags, at the run's end, is
	 * counted by count_run() whether or not it went through there.
	 */
	if (t->dr > dr)
		fc[VB_FC_DR_INSIDE] += t->dr - dr;
	if (!t->timed)
		return 0;
	now = bpf_ktime_get_ns();
	d = now - t->first_ts;
	if (skaddr)
		rxq_sample(s, t, (struct sock *)skaddr, now);
	fc[VB_FC_WINDOW_NS] += d;
	fc[VB_FC_TIMED]++;
	hist_add(s, VB_H_WINDOW_NS, d);
	if (t->dr) {
		/* the first call's latency went to the histogram then */
		fc[VB_FC_DR_LAT_NS] += t->dr_lat;
		fc[VB_FC_DR_LAT_N]++;
	} else if (dr) {
		/* the run's only readable callback, at its end */
		fc[VB_FC_DR_LAT_NS] += d;
		fc[VB_FC_DR_LAT_N]++;
		hist_add(s, VB_H_DR_LAT_NS, d);
	}
	return 0;
}

/*
 * A run into a light slot's held counters (fc; its histograms are not
 * held: rx_batch_held adds them), the arguments read from ctx as u64:
 * tp_btf passes each one zero-extended (the kernel's
 * __CAST_TO_U64), so pkts, bytes and the two bools need no truncation
 * (each (__u32) cast costs a shift pair), a bool is 0 or 1 and the __u8
 * reason at most 255; the bound keeps the index inside the counters.
 */
_Static_assert(VB_FC_KB_R_QUEUE + VB_KB_REASON_NR == VB_FC_KB_R_OTHER,
	       "an unknown end reason counts as OTHER");

static __always_inline void held_run(__u64 *fc, const __u64 *ctx)
{
	__u64 pkts = ctx[5];
	__u64 rc = ctx[8];

	/* fc[VB_FC_BATCHES]: the slot's n, set at the flush */
	fc[VB_FC_BATCH_PKTS] += pkts;
	fc[VB_FC_BATCH_BYTES] += ctx[6];
	if (pkts > fc[VB_FC_BATCH_MAX])
		fc[VB_FC_BATCH_MAX] = pkts;
	fc[VB_FC_KB_HOLD_NS] += ctx[7];
	fc[VB_FC_KB_WRITE_SPACE] += ctx[9];
	fc[VB_FC_DR_AFTER] += ctx[10];
	if (rc > VB_KB_REASON_NR)
		rc = VB_KB_REASON_NR;
	fc[VB_FC_KB_R_QUEUE + rc]++;
}

/*
 * Light mode on the series' kernels: the run goes to this CPU's slot
 * (struct vb_lpend), drained by the reader (lpend_drain).  Attached
 * only where the drain runs (tools/vsockbatch/lpend.c); elsewhere light
 * mode attaches rx_batch_btf.  It tests no flag: loaded in light mode
 * only, attached only while recording.  The arguments (skaddr, src_cid,
 * src_port, dst_cid,
 * dst_port, pkts, bytes, hold_ns, reason, write_space, data_ready) are
 * read from ctx where they are used: loaded all at entry, as BPF_PROG
 * does, they were spilled to the stack around the map lookup.  The key
 * is compared field by field, the peer's port first (the field that
 * tells a guest's flows apart), and stored only when a hold starts.
 * The histograms are the CPU's, which the drain never touches: they are
 * added once the slot is free again, and clang then needs two
 * callee-saved registers, not four (with them inside, it kept the stats
 * pointer twice and a spare: two more pushes and pops per run).
 */
SEC("tp_btf/virtio_transport_rx_batch")
int rx_batch_held(__u64 *ctx)
{
	struct vb_lpend *p;
	struct vb_stats *s;
	__u32 n;

	s = cpu_stats();
	if (!s)
		return 0;
	p = held_runs(s);
	p->busy = 1;
	barrier();
	n = p->n;
	if (!n || p->key.src_port != ctx[2] ||
	    p->key.dst_port != ctx[4] || p->key.src_cid != ctx[1] ||
	    p->key.dst_cid != ctx[3]) {
		if (n)
			lpend_flush(p, s);
		p->key.src_cid = ctx[1];
		p->key.src_port = ctx[2];
		p->key.dst_cid = ctx[3];
		p->key.dst_port = ctx[4];
		n = 0;
	}
	p->n = n + 1;
	held_run(p->cnt, ctx);
	barrier();
	p->busy = 0;
	lhist_add(s, VB_H_BATCH_PKTS, ctx[5]);
	hist_add(s, VB_H_BATCH_BYTES, ctx[6]);
	hist_add(s, VB_H_KB_HOLD_NS, ctx[7]);
	return 0;
}

/*
 * Full mode where the classic event is missing, and light mode where the
 * held runs cannot be drained: one flow-hash lookup per run.  tp_btf may
 * not read a void * argument ("not a struct"): no socket here, so no RX
 * queue sample; full mode prefers the classic event.
 */
SEC("tp_btf/virtio_transport_rx_batch")
int rx_batch_btf(__u64 *ctx)
{
	return on_rx_batch(NULL, (__u32)ctx[1], (__u32)ctx[2], (__u32)ctx[3],
			   (__u32)ctx[4], (__u32)ctx[5], (__u32)ctx[6], ctx[7],
			   (__u8)ctx[8], (bool)ctx[9], (bool)ctx[10]);
}

SEC("tracepoint/vsock/virtio_transport_rx_batch")
int rx_batch_tp(struct trace_event_raw_virtio_transport_rx_batch *ctx)
{
	return on_rx_batch(ctx->skaddr, ctx->src_cid, ctx->src_port,
			   ctx->dst_cid, ctx->dst_port, ctx->pkts, ctx->bytes,
			   ctx->hold_ns, ctx->reason, ctx->write_space,
			   ctx->data_ready);
}

/*
 * Run by the reader on each CPU (BPF_PROG_TEST_RUN, BPF_F_TEST_RUN_ON_CPU:
 * an IPI there, interrupts off) before it reads the flow map: that CPU's
 * held runs into the flow map.  Returns 1, and leaves the slot alone,
 * when it interrupted rx_batch counting into it.  Never attached.
 */
SEC("raw_tp")
int lpend_drain(void *ctx)
{
	struct vb_lpend *p;
	struct vb_stats *s;

	s = cpu_stats();
	if (!s)
		return 0;
	p = held_runs(s);
	if (p->busy)
		return 1;
	if (p->n)
		lpend_flush(p, s);
	return 0;
}

/* ---- RX workers (full mode) ---------------------------------------- */

static __always_inline int worker_enter(void)
{
	struct vb_task *t;

	if (!enabled)
		return 0;
	t = worker_state(true);
	if (!t)
		return 0;
	/* a window cannot outlive the worker call that opened it */
	t->open = 0;
	t->in_worker = 1;
	t->enter_ts = bpf_ktime_get_ns();
	return 0;
}

static __always_inline int worker_exit(void)
{
	struct vb_stats *s;
	struct vb_task *t;

	t = worker_state(false);
	if (!t || !t->in_worker)
		return 0;
	t->in_worker = 0;
	s = cpu_stats();
	if (!s)
		return 0;
	pend_flush(t, s);
	if (!enabled)
		return 0;
	if (t->open) {
		s->cnt[VB_C_STALE]++;
		t->open = 0;
	}
	s->cnt[VB_C_WORKER_CALLS]++;
	s->cnt[VB_C_WORKER_NS] += bpf_ktime_get_ns() - t->enter_ts;
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

/* ---- readers waiting behind the worker (both modes) ---------------- */

/*
 * __lock_sock() is the slow path of lock_sock(): it only runs when the
 * socket is owned, so these fire per contended lock, not per packet.
 */
static __always_inline bool in_worker(void)
{
	struct vb_task *w = worker_state(false);

	return w && w->in_worker;
}

/*
 * Light mode keeps no worker slot: there the task's flags tell kernel
 * threads and workqueue workers (the RX workers among them) from
 * readers.  The values have not changed since 2.6.
 */
#define VB_PF_WQ_WORKER		0x00000020
#define VB_PF_KTHREAD		0x00200000

static __always_inline bool in_kernel_thread(void)
{
	struct task_struct *t = bpf_get_current_task_btf();

	return t->flags & (VB_PF_WQ_WORKER | VB_PF_KTHREAD);
}

static __always_inline int on_user_wait_begin(void)
{
	struct vb_reader *t;

	if (full_mode ? in_worker() : in_kernel_thread())
		return 0;
	t = reader_state(true);
	if (!t)
		return 0;
	t->wait_ts = bpf_ktime_get_ns();
	return 0;
}

SEC("fentry/__lock_sock")
int BPF_PROG(user_wait_begin, struct sock *sk)
{
	if (!enabled || !is_vsock(sk))
		return 0;
	return on_user_wait_begin();
}

/* wait_ts is only set for AF_VSOCK sockets (above) */
static __always_inline int on_user_wait_end(void)
{
	struct vb_stats *s;
	struct vb_reader *t;
	__u64 d;

	t = reader_state(false);
	if (!t || !t->wait_ts)
		return 0;
	d = bpf_ktime_get_ns() - t->wait_ts;
	t->wait_ts = 0;
	s = cpu_stats();
	if (!enabled || !s)
		return 0;
	s->cnt[VB_C_USER_WAITS]++;
	s->cnt[VB_C_USER_WAIT_NS] += d;
	hist_add(s, VB_H_USER_WAIT_NS, d);
	return 0;
}

SEC("fexit/__lock_sock")
int BPF_PROG(user_wait_end, struct sock *sk)
{
	if (!is_vsock(sk))
		return 0;
	return on_user_wait_end();
}

/* ---- the reader and errors (full mode; advise) --------------------- */

/*
 * recv() on AF_VSOCK stream/seqpacket sockets: calls, bytes and the
 * return size, per CPU (which CPU the reader runs on).  One per-CPU
 * array lookup per recv() call, nothing per packet.
 */
static __always_inline int on_recvmsg_exit(int ret)
{
	struct vb_stats *s;

	if (!enabled || ret < 0)
		return 0;
	s = cpu_stats();
	if (!s)
		return 0;
	s->cnt[VB_C_RECV_CALLS]++;
	s->cnt[VB_C_RECV_BYTES] += ret;
	hist_add(s, VB_H_RECV_SIZE, ret);
	return 0;
}

SEC("fexit/vsock_connectible_recvmsg")
int BPF_PROG(recvmsg_exit, struct socket *sock, struct msghdr *msg,
	     __u64 len, int flags, int ret)
{
	return on_recvmsg_exit(ret);
}

/*
 * A connection reset because a packet could not be queued: the RX path
 * sets sk_err = ENOBUFS and reports it (virtio_transport_recv_connected).
 * Runs only on socket errors.
 */
static __always_inline int on_enobufs(void)
{
	struct vb_stats *s = cpu_stats();

	if (s)
		s->cnt[VB_C_ENOBUFS]++;
	return 0;
}

SEC("fentry/sk_error_report")
int BPF_PROG(error_report, struct sock *sk)
{
	if (!enabled || !is_vsock(sk) || sk->sk_err != VB_ENOBUFS)
		return 0;
	return on_enobufs();
}

/* ---- kprobe fallback (full mode) ------------------------------------
 *
 * Twins of the fentry/fexit programs above for kernels where those cannot
 * run (no BPF trampoline: CONFIG_DYNAMIC_FTRACE_WITH_DIRECT_CALLS off, or
 * a verifier that refuses them), as libbpf-tools keep them: the same
 * bodies, arguments from pt_regs, the socket family read with
 * BPF_CORE_READ (sk is a plain pointer here, not a BTF one).  The loader
 * picks per hook (tools/vsockbatch/probe.h, kprogs[]).  Dearer per event:
 * an int3 (and a probe read) instead of a trampoline and a direct load.
 */

SEC("kprobe/vsock_data_ready")
int BPF_KPROBE(data_ready_kp, struct sock *sk)
{
	return on_data_ready(sk);
}

SEC("kretprobe/virtio_transport_recv_pkt")
int BPF_KRETPROBE(recv_pkt_exit_kp)
{
	return on_recv_pkt_exit();
}

SEC("kprobe/virtio_transport_rx_work")
int BPF_KPROBE(rx_work_enter_kp)
{
	return worker_enter();
}

SEC("kretprobe/virtio_transport_rx_work")
int BPF_KRETPROBE(rx_work_exit_kp)
{
	return worker_exit();
}

SEC("kprobe/vsock_loopback_work")
int BPF_KPROBE(loopback_work_enter_kp)
{
	return worker_enter();
}

SEC("kretprobe/vsock_loopback_work")
int BPF_KRETPROBE(loopback_work_exit_kp)
{
	return worker_exit();
}

SEC("kprobe/vhost_vsock_handle_tx_kick")
int BPF_KPROBE(vhost_tx_kick_enter_kp)
{
	return worker_enter();
}

SEC("kretprobe/vhost_vsock_handle_tx_kick")
int BPF_KRETPROBE(vhost_tx_kick_exit_kp)
{
	return worker_exit();
}

SEC("kprobe/__lock_sock")
int BPF_KPROBE(user_wait_begin_kp, struct sock *sk)
{
	if (!enabled || !is_vsock_read(sk))
		return 0;
	return on_user_wait_begin();
}

SEC("kretprobe/__lock_sock")
int BPF_KRETPROBE(user_wait_end_kp)
{
	return on_user_wait_end();
}

SEC("kretprobe/vsock_connectible_recvmsg")
int BPF_KRETPROBE(recvmsg_exit_kp, int ret)
{
	return on_recvmsg_exit(ret);
}

SEC("kprobe/sk_error_report")
int BPF_KPROBE(error_report_kp, struct sock *sk)
{
	if (!enabled || !is_vsock_read(sk) ||
	    BPF_CORE_READ(sk, sk_err) != VB_ENOBUFS)
		return 0;
	return on_enobufs();
}

/* ---- kernels that batch without the rx_batch event (full mode) ----- */

/*
 * The series' patches 1-3 without its tracepoint (the lab's p1-3): a run
 * is the state in struct virtio_vsock_rx_batch, which the exported
 * virtio_transport_rx_batch_recv_run()/_end() change.  Before a call,
 * note the open run; after it, a run that is gone (another socket, none,
 * or no packet added) closed in the call: with the packet if it joined
 * first (the run's counts grew by it), else without.  2 programs per
 * packet in a run (a packet in no run goes to virtio_transport_recv_pkt()
 * instead), only on such kernels (probe: VB_HOOK_RB_RECV).
 */
static __always_inline int rb_enter(struct virtio_vsock_rx_batch *b)
{
	struct vb_task *t;

	if (!enabled)
		return 0;
	t = worker_state(true);
	if (!t)
		return 0;
	t->rb_sk = (__u64)BPF_CORE_READ(b, sk);
	t->rb_pkts = BPF_CORE_READ(b, pkts);
	t->rb_bytes = BPF_CORE_READ(b, bytes);
	t->rb_valid = 1;
	if (!t->rb_sk)
		return 0;
	t->rb_flow.src_cid = BPF_CORE_READ(b, src.svm_cid);
	t->rb_flow.src_port = BPF_CORE_READ(b, src.svm_port);
	t->rb_flow.dst_cid = BPF_CORE_READ(b, dst.svm_cid);
	t->rb_flow.dst_port = BPF_CORE_READ(b, dst.svm_port);
	return 0;
}

static __always_inline int rb_exit(struct virtio_vsock_rx_batch *b)
{
	__u32 pkts, bytes, n, nb;
	struct vb_stats *s;
	struct vb_task *t;
	__u64 sk, *fc, d;

	if (!enabled)
		return 0;
	t = worker_state(false);
	if (!t || !t->rb_valid)
		return 0;
	t->rb_valid = 0;
	sk = (__u64)BPF_CORE_READ(b, sk);
	pkts = BPF_CORE_READ(b, pkts);
	bytes = BPF_CORE_READ(b, bytes);
	if (!t->rb_sk) {
		/*
		 * No run before.  None now either: the packet's run opened
		 * and closed in the call (one packet: not counted), or it
		 * was in none; its window ends here, so that the next
		 * packet's does not grow it.
		 */
		if (!sk)
			t->open = 0;
		return 0;
	}
	if (sk == t->rb_sk && pkts > t->rb_pkts)
		return 0;		/* joined, still open */
	/* closed in this call, after taking the packet if it grew */
	n = t->rb_pkts;
	nb = t->rb_bytes;
	if (!sk && pkts == t->rb_pkts + 1) {
		n = pkts;
		nb = bytes;
	}
	t->rb_sk = 0;
	s = cpu_stats();
	if (!s)
		return 0;
	fc = flow_cnt(s, &t->rb_flow);
	count_batch(s, fc, n, nb);
	if (t->open) {
		if (t->dr)
			fc[VB_FC_DR_INSIDE] += t->dr;
		if (t->timed) {
			d = bpf_ktime_get_ns() - t->first_ts;
			fc[VB_FC_WINDOW_NS] += d;
			fc[VB_FC_TIMED]++;
			hist_add(s, VB_H_WINDOW_NS, d);
			if (t->dr) {
				fc[VB_FC_DR_LAT_NS] += t->dr_lat;
				fc[VB_FC_DR_LAT_N]++;
			}
		}
		t->open = 0;
	}
	return 0;
}

SEC("fentry/virtio_transport_rx_batch_recv_run")
int BPF_PROG(rb_recv_enter, struct virtio_vsock_rx_batch *b)
{
	return rb_enter(b);
}

SEC("fexit/virtio_transport_rx_batch_recv_run")
int BPF_PROG(rb_recv_exit, struct virtio_vsock_rx_batch *b)
{
	return rb_exit(b);
}

/*
 * Light mode where the series batches without its rx_batch event: the
 * run as the run-close function receives it, once per run.  Packets,
 * bytes and the flow, and whether the readable callback is due at the
 * end (it is then called: data only grows under the lock); no hold time
 * and no end reason, which only the event carries.  1 array lookup and
 * 1 flow hash lookup per run.
 */
SEC("fentry/virtio_transport_rx_batch_close")
int BPF_PROG(rb_close, struct virtio_vsock_rx_batch *b)
{
	struct vb_flow_key key;
	struct vb_stats *s;
	__u32 pkts, bytes;
	__u64 *fc;

	if (!enabled)
		return 0;
	s = cpu_stats();
	if (!s)
		return 0;
	key.src_cid = b->src.svm_cid;
	key.src_port = b->src.svm_port;
	key.dst_cid = b->dst.svm_cid;
	key.dst_port = b->dst.svm_port;
	pkts = b->pkts;
	bytes = b->bytes;
	s->cnt[VB_C_PKTS] += pkts;
	s->cnt[VB_C_RW_PKTS] += pkts;
	s->cnt[VB_C_BYTES] += bytes;
	fc = flow_cnt(s, &key);
	count_batch(s, fc, pkts, bytes);
	if (bpf_core_field_exists(b->data_ready))
		fc[VB_FC_DR_AFTER] += b->data_ready;
	return 0;
}

/*
 * Light mode where the series batches: a packet in no run goes through
 * virtio_transport_recv_pkt(), which the series' RX workers call for
 * nothing else (a packet of another kind or socket type, or one that the
 * next packet would not join).  Counted as recv_pkt_light counts every
 * packet on a kernel that does not batch: its bytes and its op.  The
 * header is read as stored, little endian, as the lab's targets are.
 */
static __always_inline int count_unbatched(void *head)
{
	/* len, type, op: consecutive in the header (the virtio spec's) */
	struct {
		__u32 len;
		__u16 type;
		__u16 op;
	} f;
	struct vb_stats *s;
	__u32 op;

	if (!enabled)
		return 0;
	s = cpu_stats();
	if (!s)
		return 0;
	/* one read for both fields */
	if (bpf_probe_read_kernel(&f, sizeof(f), head +
				  bpf_core_field_offset(struct virtio_vsock_hdr,
							len)))
		return 0;
	s->cnt[VB_C_BYTES] += f.len;
	op = f.op;
	if (op > VB_OP_SLOTS - 1)
		op = VB_OP_SLOTS - 1;
	s->op_pkts[op]++;
	return 0;
}

/* fentry's skb is typed: skb->head is a direct load, no helper call */
SEC("fentry/virtio_transport_recv_pkt")
int BPF_PROG(recv_pkt_unbatched, void *t, struct sk_buff *skb)
{
	return count_unbatched(skb->head);
}

SEC("kprobe/virtio_transport_recv_pkt")
int BPF_KPROBE(recv_pkt_unbatched_kp, void *t, struct sk_buff *skb)
{
	return count_unbatched(BPF_CORE_READ(skb, head));
}

SEC("fentry/virtio_transport_rx_batch_end")
int BPF_PROG(rb_end_enter, struct virtio_vsock_rx_batch *b)
{
	return rb_enter(b);
}

SEC("fexit/virtio_transport_rx_batch_end")
int BPF_PROG(rb_end_exit, struct virtio_vsock_rx_batch *b)
{
	return rb_exit(b);
}
