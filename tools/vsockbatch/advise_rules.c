// SPDX-License-Identifier: GPL-2.0
/*
 * advise_rules.c - the rules of `vsockbatch advise`, a pure function of a
 * parsed results file (struct vb_results -> struct vb_advice).
 *
 * Every rule reads counters the tracer recorded, compares one or two
 * derived figures with a fixed threshold and, when it fires, says what to
 * change.  The thresholds come from the lab's committed host->guest set
 * (results/2026-11-30-h2g: baseline / P1-P3 / P1-P5 kernels, 64 B - 64 KiB
 * packets, QEMU TCG) and from the kernel's own constants; vb_adv_rules[]
 * states each bound and why, and `vsockbatch advise --rules` prints them.
 *
 * "Busy" is the share of the recording a vCPU was not idle: the per-CPU
 * cost in cpu-clock ns (the lab has no PMU) over the recording's length.
 * The recording includes connection set-up, so a fully CPU-bound
 * transfer reads somewhat below 100 %.
 */
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "advise.h"

/* Thresholds (see vb_adv_rules[] for the reasons). */
#define PP_BYTES_PER_PKT	2048.0	/* per-packet: below this */
#define PP_BATCH_OF_ONE		1.5	/* mean run length "of 1" */
#define WK_PER_MB		256.0	/* wake-ups: data-ready calls / MB */
#define WK_RECV_BYTES		4096.0	/* mean recv() return below this */
#define RB_SHARE		0.05	/* runs / windows ending on the budget */
#define SMALL_PKT		576.0	/* ~SKB_TRUESIZE(0): ENOBUFS note */
#define CR_WAIT_SHARE		0.10	/* credit waits / recording */
#define CR_STALL_SHARE		0.20	/* windows leaving < 4 KiB credit */
/*
 * Under --sample N only 1 window in N is checked for a stall and each
 * wait found counts N times: the wait share is then a count of sampled
 * stalls scaled up, and below this many its Poisson error (> 30 %) can
 * carry it across CR_WAIT_SHARE by chance (the lab's pp-clear once: 2
 * stalls x 8 = 11.5 % of a 0.44 s recording).  --sample 1 is exact.
 */
#define CR_MIN_SAMPLED_STALLS	10
#define SC_SHARE		0.50	/* reader calls on the RX CPU */
#define IDLE_BUSY		0.65	/* worker occupancy and every vCPU */
#define IDLE_MIN_BYTES		(1u << 20)
#define ST_FLOW_MIN_PKTS	16	/* a flow counts with this many */
#define ST_TOP_SHARE		0.80	/* the top flow's share of bytes */

const struct vb_adv_rule_info vb_adv_rules[VB_ADV_NR] = {
	[VB_ADV_PER_PACKET] = {
		"per-packet",
		"Per-packet overhead dominates",
		"payload bytes per data packet < 2048 (on a baseline kernel: "
		"and runs of < 1.5 packets)",
		"each packet pays a socket lookup, a lock_sock/release_sock "
		"pair and two callbacks whatever its size; in the lab's h2g "
		"set baseline throughput grows 18x from 64 B to 1 KiB "
		"packets (1.8 -> 32 MiB/s) but only 1.5-1.8x from 1 KiB to "
		"~3.6 KiB packets, and the series, which removes those costs, "
		"gains +31 % at 1 KiB and nothing resolved from 4 KiB",
	},
	[VB_ADV_WAKEUPS] = {
		"wakeups",
		"Reader woken for every few KiB",
		"data-ready calls > 256 per MiB (< 4 KiB per call), and, "
		"when recv() was traced, mean recv() return < 4 KiB",
		"every data-ready call can wake the reader and costs it a "
		"recv() syscall; batched kernels in the lab issue 18-20 per "
		"MiB from 1 KiB packets up, baseline one per packet (1024 per "
		"MiB at 1 KiB); SO_RCVLOWAT makes the kernel skip the call "
		"until that many bytes are queued",
	},
	[VB_ADV_RX_BUDGET] = {
		"rx-budget",
		"Runs end on the RX skb budget, ENOBUFS resets",
		"any ENOBUFS reset, or > 5 % of batched runs ending on the "
		"skb budget (RXQ), or > 5 % of windows closing with the skb "
		"queue at its budget (buf_alloc / SKB_TRUESIZE(0))",
		"at the budget the next packet first pays a collapse walk of "
		"the queue under the socket lock, and a queue it cannot "
		"collapse resets the connection (ENOBUFS, 6.12.92 and later) "
		"when many packets of < ~576 B arrive faster than the reader "
		"drains them; the lab's h2g set at the default 256 KiB "
		"buffer ended 0 runs on RXQ",
	},
	[VB_ADV_CREDIT] = {
		"credit",
		"Sender stalled on credit",
		"time from a window that left the peer < 4 KiB of credit to "
		"that socket's next packet > 10 % of the recording (with "
		"--sample N > 1: from >= 10 sampled stalls), or > 20 % of "
		"windows leaving it so",
		"the sender may not have more than the receiver's buf_alloc "
		"in flight; once the window is used up it waits for a credit "
		"update, which the receiver sends only after the reader has "
		"freed all but 64 KiB of the buffer",
	},
	[VB_ADV_SAME_CPU] = {
		"same-cpu",
		"RX worker and reader on the same CPU",
		"> 50 % of the reader's recv() calls (or, without recv() "
		"tracing, of user lock waits) on the CPU that processed > 50 "
		"% of the RX packets",
		"the RX work runs on the CPU the device interrupt lands on; a "
		"reader there competes with it for the CPU and for the "
		"socket lock, instead of draining in parallel (the lab pins "
		"them apart: reader vCPU 0, interrupt vCPU 1)",
	},
	[VB_ADV_RX_IDLE] = {
		"rx-idle",
		"The guest is not the limit",
		"the RX worker ran < 65 % of the recording and every vCPU "
		"was busy < 65 % of it, >= 1 MiB received, and the credit "
		"rule not firing",
		"a transfer the guest limits keeps its RX worker or a vCPU "
		"busy: in the lab's h2g sets (16 traced runs per kernel and "
		"size) the baseline at 64 B - 1 KiB, where the series gains "
		"+31 to +78 %, keeps the worker running 70-88 % of the "
		"recording (set-up included); from 4 KiB up, where nothing "
		"resolved, it runs 40-71 % on baseline and 22-43 % with the "
		"series, and no vCPU is busier than 51 %",
	},
	[VB_ADV_STARVE] = {
		"starve",
		"One flow takes the RX worker",
		">= 2 flows with >= 16 data packets, the largest with >= 80 % "
		"of the data bytes",
		"one RX worker (one virtqueue) serves every socket of the "
		"device in arrival order; a flow that keeps the queue full "
		"delays the packets of every other flow behind its own",
	},
};

const char *vb_adv_verdict_name(enum vb_adv_verdict v)
{
	switch (v) {
	case VB_ADV_CLEAR:
		return "clear";
	case VB_ADV_FIRES:
		return "fires";
	case VB_ADV_NOT_LIMITING:
		return "not-limiting";
	case VB_ADV_NO_DATA:
		return "no-data";
	}
	return "?";
}

/* ---- what every rule reads --------------------------------------- */

struct adv_in {
	const struct vb_results *r;
	const uint64_t *c;
	double mb, dur_s;
	int rx_cpu;		/* most RX packets, -1 none */
	double rx_cpu_share;	/* its share of the packets */
	bool busy_known;	/* per-CPU busy shares available */
	double rx_busy;		/* RX CPU busy share */
	int busiest;		/* CPU with the largest busy share */
	double busiest_busy;
	bool recv_traced;
	bool enobufs_traced;
	bool rxq_read;		/* queue/credit state read at window close */
};

static bool has_hook(const struct vb_results *r, const char *label)
{
	size_t i;

	for (i = 0; i < r->nhooks; i++)
		if (!strcmp(r->hooks[i], label))
			return true;
	return false;
}

static double ratio(double a, double b)
{
	return b > 0 ? a / b : NAN;
}

static void ev(struct vb_adv_finding *f, const char *name, double v,
	       const char *unit)
{
	if (f->nev >= VB_ADV_MAX_EV)
		return;
	f->ev[f->nev].name = name;
	f->ev[f->nev].value = v;
	f->ev[f->nev].unit = unit;
	f->nev++;
}

static void say(char *buf, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
static void say(char *buf, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(buf, VB_ADV_TEXT, fmt, ap);
	va_end(ap);
}

static void verdict(struct vb_adv_finding *f, double value, double bound,
		    bool above)
{
	double s = above ? ratio(value, bound) : ratio(bound, value);

	if (isnan(s))
		s = 0;
	f->severity = s;
	f->verdict = (above ? value > bound : value < bound) ? VB_ADV_FIRES
							     : VB_ADV_CLEAR;
}

static double cpu_busy(const struct adv_in *in, const struct vb_cpu *c)
{
	return (double)c->cost / ((double)in->r->duration_ns);
}

static void adv_in_init(struct adv_in *in, const struct vb_results *r)
{
	uint64_t best = 0, all = 0;
	size_t i;

	memset(in, 0, sizeof(*in));
	in->r = r;
	in->c = r->totals.cnt;
	in->mb = (double)in->c[VB_C_BYTES] / 1048576.0;
	in->dur_s = (double)r->duration_ns / 1e9;
	in->rx_cpu = -1;
	in->busiest = -1;
	for (i = 0; i < r->ncpus; i++) {
		uint64_t p = r->cpus[i].agg.cnt[VB_C_PKTS];

		all += p;
		if (p > best) {
			best = p;
			in->rx_cpu = (int)r->cpus[i].cpu;
		}
	}
	in->rx_cpu_share = ratio((double)best, (double)all);
	/* busy shares need wall-clock-like units: cpu-clock ns */
	in->busy_known = r->cost.measured &&
			 r->cost.unit == VB_COST_CPU_CLOCK_NS &&
			 r->duration_ns > 0 && r->ncpus > 0;
	for (i = 0; in->busy_known && i < r->ncpus; i++) {
		double b;

		if (r->cpus[i].cost < 0) {
			in->busy_known = false;
			break;
		}
		b = cpu_busy(in, &r->cpus[i]);
		if ((int)r->cpus[i].cpu == in->rx_cpu)
			in->rx_busy = b;
		if (in->busiest < 0 || b > in->busiest_busy) {
			in->busiest = (int)r->cpus[i].cpu;
			in->busiest_busy = b;
		}
	}
	in->recv_traced = has_hook(r, "fexit/vsock_connectible_recvmsg");
	in->enobufs_traced = has_hook(r, "fentry/sk_error_report");
	in->rxq_read = in->c[VB_C_RXQ_WINDOWS] > 0;
}

static bool batched(const struct adv_in *in)
{
	return in->r->mode == VB_MODE_BATCHED || vb_kb_runs(in->c) > 0;
}

/* Packets per run: the kernel's own runs when it reported them. */
static double mean_run(const struct adv_in *in)
{
	/* on kernels with the rx_batch event the batches are its runs */
	return ratio((double)in->c[VB_C_BATCH_PKTS],
		     (double)in->c[VB_C_BATCHES]);
}

/* ---- the rules ---------------------------------------------------- */

static void rule_per_packet(const struct adv_in *in, struct vb_adv_finding *f)
{
	double bpp = ratio((double)in->c[VB_C_BYTES],
			   (double)in->c[VB_C_RW_PKTS]);
	double run = mean_run(in);
	double wns = ratio((double)in->c[VB_C_WORKER_NS],
			   (double)in->c[VB_C_PKTS]);
	bool base = !batched(in);

	ev(f, "bytes_per_pkt", bpp, "B");
	ev(f, "pkts_per_run", run, "pkts");
	ev(f, "worker_ns_per_pkt", wns, "ns");
	verdict(f, bpp, PP_BYTES_PER_PKT, false);
	if (f->verdict == VB_ADV_FIRES && base && !(run < PP_BATCH_OF_ONE)) {
		/* a baseline kernel that still batches: not this rule */
		f->verdict = VB_ADV_CLEAR;
	}
	say(f->evidence, "%.0f payload bytes per data packet (threshold "
	    "%.0f), %.2f packets per %s, %.0f ns of RX worker wall time per "
	    "packet.",
	    bpp, PP_BYTES_PER_PKT, run, vb_kb_runs(in->c) ? "kernel run" :
	    "lock window", wns);
	if (f->verdict != VB_ADV_FIRES)
		return;
	if (base)
		say(f->advice, "Make the sender write >= 4 KiB per send() "
		    "(one packet per write), or run a kernel with the RX "
		    "batching series: this %s kernel processes every packet "
		    "in its own lock window.", vb_mode_name(in->r->mode));
	else
		say(f->advice, "Make the sender write >= 4 KiB per send(): "
		    "the kernel already batches %.0f packets per run, but "
		    "each packet still carries only %.0f bytes.", run, bpp);
}

static void rule_wakeups(const struct adv_in *in, struct vb_adv_finding *f)
{
	double dr = (double)(in->c[VB_C_DR_INSIDE] + in->c[VB_C_DR_AFTER]);
	double per_mb = ratio(dr, in->mb);
	double rsz = ratio((double)in->c[VB_C_RECV_BYTES],
			   (double)in->c[VB_C_RECV_CALLS]);
	double uw = ratio((double)in->c[VB_C_USER_WAITS], in->mb);

	/*
	 * Data-ready is seen by sock_def_readable (version-1 files), by
	 * vsock_data_ready (full mode: the decision, per packet of the
	 * unbatched path) or by the series' rx_batch event (deferred calls).
	 */
	if (!has_hook(in->r, "fentry/sock_def_readable") &&
	    !has_hook(in->r, "fentry/vsock_data_ready") &&
	    !has_hook(in->r, "tp_btf/virtio_transport_rx_batch") &&
	    !has_hook(in->r, "tracepoint/vsock/virtio_transport_rx_batch")) {
		f->verdict = VB_ADV_NO_DATA;
		say(f->evidence, "data-ready was not traced.");
		return;
	}
	ev(f, "data_ready_per_mb", per_mb, "per MiB");
	ev(f, "user_waits_per_mb", uw, "per MiB");
	verdict(f, per_mb, WK_PER_MB, true);
	if (in->recv_traced && in->c[VB_C_RECV_CALLS]) {
		ev(f, "recv_calls_per_mb",
		   ratio((double)in->c[VB_C_RECV_CALLS], in->mb), "per MiB");
		ev(f, "mean_recv_bytes", rsz, "B");
		if (f->verdict == VB_ADV_FIRES && !(rsz < WK_RECV_BYTES))
			f->verdict = VB_ADV_CLEAR;
		say(f->evidence, "%.0f data-ready calls per MiB (threshold "
		    "%.0f), %.0f recv() calls per MiB returning %.0f B on "
		    "average (threshold %.0f), %.1f reader lock waits per MiB.",
		    per_mb, WK_PER_MB,
		    ratio((double)in->c[VB_C_RECV_CALLS], in->mb), rsz,
		    WK_RECV_BYTES, uw);
	} else {
		say(f->evidence, "%.0f data-ready calls per MiB (threshold "
		    "%.0f), %.1f reader lock waits per MiB; recv() sizes not "
		    "traced.", per_mb, WK_PER_MB, uw);
	}
	if (f->verdict == VB_ADV_FIRES)
		say(f->advice, "Set SO_RCVLOWAT on the reader's socket (e.g. "
		    "16-64 KiB, below its buffer size) and recv() into a "
		    "buffer of >= 64 KiB, so that one wake-up moves many "
		    "packets.");
}

static void rule_rx_budget(const struct adv_in *in, struct vb_adv_finding *f)
{
	double runs = ratio((double)in->c[VB_C_KB_R_RXQ],
			    (double)vb_kb_runs(in->c));
	double wins = ratio((double)in->c[VB_C_RXQ_AT_BUDGET],
			    (double)in->c[VB_C_RXQ_WINDOWS]);
	double resets = (double)in->c[VB_C_ENOBUFS];
	double bpp = ratio((double)in->c[VB_C_BYTES],
			   (double)in->c[VB_C_RW_PKTS]);
	bool any = false;

	f->verdict = VB_ADV_CLEAR;
	f->severity = 0;
	if (in->enobufs_traced) {
		any = true;
		ev(f, "enobufs_resets", resets, "");
		if (resets > 0) {
			f->verdict = VB_ADV_FIRES;
			f->severity = 10 + resets;
		}
	}
	if (vb_kb_runs(in->c)) {
		any = true;
		ev(f, "runs_ended_rxq", runs * 100, "%");
		if (runs > RB_SHARE) {
			f->verdict = VB_ADV_FIRES;
			f->severity = fmax(f->severity, runs / RB_SHARE);
		}
	}
	if (in->rxq_read) {
		any = true;
		ev(f, "windows_at_budget", wins * 100, "%");
		if (wins > RB_SHARE) {
			f->verdict = VB_ADV_FIRES;
			f->severity = fmax(f->severity, wins / RB_SHARE);
		}
	}
	if (!any) {
		f->verdict = VB_ADV_NO_DATA;
		say(f->evidence, "no batched runs, no RX queue state and no "
		    "ENOBUFS hook in this recording.");
		return;
	}
	ev(f, "bytes_per_pkt", bpp, "B");
	{
		char a[64] = "", b[64] = "", c[64] = "";

		if (in->enobufs_traced)
			snprintf(a, sizeof(a), "%.0f ENOBUFS resets, ", resets);
		if (vb_kb_runs(in->c))
			snprintf(b, sizeof(b), "%.1f %% of runs ended on the "
				 "skb budget, ", runs * 100);
		if (in->rxq_read)
			snprintf(c, sizeof(c), "%.1f %% of windows closed at "
				 "it, ", wins * 100);
		say(f->evidence, "%s%s%s%.0f B per packet (thresholds: any "
		    "reset, 5 %%).", a, b, c, bpp);
	}
	if (f->verdict != VB_ADV_FIRES)
		return;
	say(f->advice, "Raise SO_VM_SOCKETS_BUFFER_SIZE on the receiving "
	    "socket (the skb budget is buf_alloc / SKB_TRUESIZE(0)) and make "
	    "the sender write larger pieces%s.", bpp < SMALL_PKT ?
	    ": packets of < ~576 B cost more skb than payload, and 6.12.92+ "
	    "resets the connection (ENOBUFS) when they outrun the reader" : "");
}

static void rule_credit(const struct adv_in *in, struct vb_adv_finding *f)
{
	double wait = ratio((double)in->c[VB_C_CREDIT_WAIT_NS] / 1e9,
			    in->dur_s);
	double stalls = ratio((double)in->c[VB_C_CREDIT_STALLS],
			      (double)in->c[VB_C_RXQ_WINDOWS]);
	uint32_t smp = in->r->self.sample;
	bool few = smp > 1 &&
		   in->c[VB_C_CREDIT_STALLS] < CR_MIN_SAMPLED_STALLS;

	if (!in->rxq_read) {
		f->verdict = VB_ADV_NO_DATA;
		say(f->evidence, "the RX queue and credit state were not read "
		    "at window close (older tracer or light mode).");
		return;
	}
	ev(f, "credit_wait_share", wait * 100, "%");
	ev(f, "stalled_windows", stalls * 100, "%");
	ev(f, "credit_updates_rx_per_mb",
	   ratio((double)in->c[VB_C_CREDIT_RX], in->mb), "per MiB");
	if (few) {
		/* too few sampled stalls to scale up: the share alone */
		f->verdict = VB_ADV_CLEAR;
		f->severity = 0;
	} else {
		verdict(f, wait, CR_WAIT_SHARE, true);
	}
	if (stalls > CR_STALL_SHARE) {
		f->verdict = VB_ADV_FIRES;
		f->severity = fmax(f->severity, stalls / CR_STALL_SHARE);
	}
	say(f->evidence, "%.1f %% of the recording between a window that "
	    "left the sender < 4 KiB of credit and its next packet "
	    "(threshold 10 %%); %.1f %% of windows left it so (threshold "
	    "20 %%).", wait * 100, stalls * 100);
	if (few && wait > CR_WAIT_SHARE) {
		size_t n = strlen(f->evidence);

		snprintf(f->evidence + n, VB_ADV_TEXT - n,
			 "  That time is %llu sampled stalls counted %u times "
			 "each (--sample %u): too few to judge by (< %d); "
			 "--sample 1 checks every window.",
			 (unsigned long long)in->c[VB_C_CREDIT_STALLS], smp,
			 smp, CR_MIN_SAMPLED_STALLS);
	}
	if (f->verdict == VB_ADV_FIRES)
		say(f->advice, "Give the receiving socket a larger buffer "
		    "(SO_VM_SOCKETS_BUFFER_SIZE, and _MAX_SIZE if above 256 "
		    "KiB): its size is the sender's window.");
}

static void rule_same_cpu(const struct adv_in *in, struct vb_adv_finding *f)
{
	int idx = in->recv_traced && in->c[VB_C_RECV_CALLS] ? VB_C_RECV_CALLS
							   : VB_C_USER_WAITS;
	const char *what = idx == VB_C_RECV_CALLS ? "recv() calls"
						  : "reader lock waits";
	uint64_t on = 0, all = 0;
	double share;
	size_t i;

	for (i = 0; i < in->r->ncpus; i++) {
		uint64_t v = in->r->cpus[i].agg.cnt[idx];

		all += v;
		if ((int)in->r->cpus[i].cpu == in->rx_cpu)
			on = v;
	}
	if (in->rx_cpu < 0 || !all || in->r->ncpus < 2) {
		f->verdict = VB_ADV_NO_DATA;
		say(f->evidence, "%s", in->r->ncpus < 2 ?
		    "one CPU in the per-CPU rows." :
		    "no per-CPU reader activity (recv() calls or lock waits).");
		return;
	}
	share = (double)on / (double)all;
	ev(f, "rx_cpu", in->rx_cpu, "");
	ev(f, "rx_cpu_pkt_share", in->rx_cpu_share * 100, "%");
	ev(f, "reader_share_on_rx_cpu", share * 100, "%");
	verdict(f, share, SC_SHARE, true);
	if (!(in->rx_cpu_share > SC_SHARE))
		f->verdict = VB_ADV_CLEAR;
	say(f->evidence, "CPU %d processed %.0f %% of the RX packets and ran "
	    "%.0f %% of the %llu %s (threshold 50 %%).", in->rx_cpu,
	    in->rx_cpu_share * 100, share * 100, (unsigned long long)all, what);
	if (f->verdict == VB_ADV_FIRES)
		say(f->advice, "Pin the reader away from CPU %d (taskset, "
		    "sched_setaffinity), or move the device interrupt to a "
		    "CPU the reader does not use (/proc/irq/N/"
		    "smp_affinity_list): the RX work runs where it lands.",
		    in->rx_cpu);
}

static void rule_rx_idle(const struct adv_in *in, struct vb_adv_finding *f,
			 const struct vb_adv_finding *credit)
{
	double occ = ratio((double)in->c[VB_C_WORKER_NS] / 1e9, in->dur_s);
	double busy = in->busy_known ? fmax(occ, in->busiest_busy) : occ;

	if (!in->c[VB_C_WORKER_CALLS]) {
		f->verdict = VB_ADV_NO_DATA;
		say(f->evidence, "no RX worker calls were traced.");
		return;
	}
	ev(f, "worker_occupancy", occ * 100, "%");
	if (in->busy_known) {
		ev(f, "rx_cpu_busy", in->rx_busy * 100, "%");
		ev(f, "busiest_cpu", in->busiest, "");
		ev(f, "busiest_busy", in->busiest_busy * 100, "%");
	}
	ev(f, "mb_per_s", ratio(in->mb, in->dur_s), "MiB/s");
	verdict(f, busy, IDLE_BUSY, false);
	if (in->c[VB_C_BYTES] < IDLE_MIN_BYTES ||
	    credit->verdict == VB_ADV_FIRES)
		f->verdict = VB_ADV_CLEAR;
	if (in->busy_known)
		say(f->evidence, "%.2f MiB/s; the RX worker ran %.0f %% of the "
		    "%.2f s recording, RX vCPU %d was busy %.0f %%, the "
		    "busiest vCPU (%d) %.0f %% (threshold: all < 65 %%).",
		    ratio(in->mb, in->dur_s), occ * 100, in->dur_s,
		    in->rx_cpu, in->rx_busy * 100, in->busiest,
		    in->busiest_busy * 100);
	else
		say(f->evidence, "%.2f MiB/s; the RX worker ran %.0f %% of the "
		    "%.2f s recording (threshold 65 %%); vCPU busy time not "
		    "measured in cpu-clock ns.", ratio(in->mb, in->dur_s),
		    occ * 100, in->dur_s);
	if (f->verdict == VB_ADV_CLEAR && busy < IDLE_BUSY) {
		size_t n = strlen(f->evidence);

		snprintf(f->evidence + n, VB_ADV_TEXT - n, " %s",
			 credit->verdict == VB_ADV_FIRES ?
			 "Idle because the sender waits for credit (see the "
			 "credit rule), not because the limit is elsewhere." :
			 "Less than 1 MiB received: too little to judge.");
	}
	if (f->verdict == VB_ADV_FIRES)
		say(f->advice, "Look at the sender and the host side (the "
		    "device back-end, the host's CPUs, the sender's write "
		    "rate): neither the RX worker nor a vCPU is saturated, so "
		    "guest tuning is not expected to raise throughput.");
}

static void rule_starve(const struct adv_in *in, struct vb_adv_finding *f)
{
	uint64_t top = 0, all = 0;
	size_t i, n = 0, ti = 0;

	for (i = 0; i < in->r->nflows; i++) {
		const uint64_t *c = in->r->flows[i].agg.cnt;
		/* flows carry window counters (version 2) or all (1) */
		uint64_t b = c[VB_C_BYTES] ? c[VB_C_BYTES] : c[VB_C_BATCH_BYTES];

		if (c[VB_C_RW_PKTS] < ST_FLOW_MIN_PKTS &&
		    c[VB_C_BATCH_PKTS] < ST_FLOW_MIN_PKTS)
			continue;
		n++;
		all += b;
		if (b > top) {
			top = b;
			ti = i;
		}
	}
	ev(f, "data_flows", (double)n, "");
	if (n < 2) {
		f->verdict = VB_ADV_CLEAR;
		say(f->evidence, "%zu flow(s) with >= %d data packets "
		    "(threshold 2).", n, ST_FLOW_MIN_PKTS);
		return;
	}
	ev(f, "top_flow_share", ratio((double)top, (double)all) * 100, "%");
	ev(f, "flow_ends", (double)in->c[VB_C_KB_R_FLOW], "runs");
	verdict(f, ratio((double)top, (double)all), ST_TOP_SHARE, true);
	if (ratio((double)top, (double)all) >= ST_TOP_SHARE)
		f->verdict = VB_ADV_FIRES;
	{
		const struct vb_flow_key *k = &in->r->flows[ti].key;

		say(f->evidence, "%zu flows; %u:%u -> %u:%u carried %.0f %% "
		    "of the data bytes (threshold 80 %%), all through one "
		    "RX worker (CPU %d: %.0f %% of packets).", n, k->src_cid,
		    k->src_port, k->dst_cid, k->dst_port,
		    ratio((double)top, (double)all) * 100, in->rx_cpu,
		    in->rx_cpu_share * 100);
	}
	if (f->verdict == VB_ADV_FIRES)
		say(f->advice, "Bound the bulk flow's window: a smaller "
		    "SO_VM_SOCKETS_BUFFER_SIZE on its receiving socket (its "
		    "credit is how far it runs ahead), or pace its sender; "
		    "on batched kernels runs also end at the run bounds.");
}

/* ---- the engine --------------------------------------------------- */

/*
 * Findings that fired are listed causes first: where the limit is (the
 * guest or not), then what bounds the sender (credit, the queue budget),
 * then per-packet cost, then what it costs the reader.  A 64 B baseline
 * transfer fires both per-packet and wakeups; the packets are the cause.
 */
static const int causal_order[VB_ADV_NR] = {
	[VB_ADV_RX_IDLE] = 0, [VB_ADV_CREDIT] = 1, [VB_ADV_RX_BUDGET] = 2,
	[VB_ADV_PER_PACKET] = 3, [VB_ADV_SAME_CPU] = 4, [VB_ADV_WAKEUPS] = 5,
	[VB_ADV_STARVE] = 6,
};

static int rank(const struct vb_adv_finding *f)
{
	switch (f->verdict) {
	case VB_ADV_FIRES:
		return causal_order[f->rule];
	case VB_ADV_NOT_LIMITING:
		return VB_ADV_NR + causal_order[f->rule];
	case VB_ADV_CLEAR:
		return 2 * VB_ADV_NR;
	default:
		return 2 * VB_ADV_NR + 1;
	}
}

static bool guest_side(enum vb_adv_rule rule)
{
	return rule == VB_ADV_WAKEUPS || rule == VB_ADV_SAME_CPU ||
	       rule == VB_ADV_STARVE;
}

int vb_advise(const struct vb_results *r, struct vb_advice *a,
	      char *err, size_t errlen)
{
	struct adv_in in;
	size_t i, j, n = 0;
	int k;

	memset(a, 0, sizeof(*a));
	for (k = 0; k < VB_ADV_NR; k++)
		a->f[k].rule = (enum vb_adv_rule)k;
	if (!r->duration_ns) {
		snprintf(err, errlen, "the recording has no duration");
		return -EINVAL;
	}
	/*
	 * The rules weigh window counters (RX queue state, credit stalls,
	 * data-ready) against all packets and the whole duration; --duty
	 * saw them in 1 slice in N, and a stall's wait may span the slices.
	 */
	if (r->self.duty > 1) {
		snprintf(err, errlen, "recorded with --duty %u: its window counters cover 1 time slice in %u; advise needs them whole (record with -m full, no --duty)",
			 r->self.duty, r->self.duty);
		return -EINVAL;
	}
	if (!r->totals.cnt[VB_C_RW_PKTS] || !r->totals.cnt[VB_C_BYTES]) {
		snprintf(err, errlen, "no data packets were recorded (%llu "
			 "packets): record on the receiving side while data "
			 "flows", (unsigned long long)r->totals.cnt[VB_C_PKTS]);
		return -EINVAL;
	}
	adv_in_init(&in, r);
	a->mb_s = ratio(in.mb, in.dur_s);
	a->rx_cpu = in.rx_cpu;

	rule_per_packet(&in, &a->f[VB_ADV_PER_PACKET]);
	rule_wakeups(&in, &a->f[VB_ADV_WAKEUPS]);
	rule_rx_budget(&in, &a->f[VB_ADV_RX_BUDGET]);
	rule_credit(&in, &a->f[VB_ADV_CREDIT]);
	rule_same_cpu(&in, &a->f[VB_ADV_SAME_CPU]);
	rule_rx_idle(&in, &a->f[VB_ADV_RX_IDLE], &a->f[VB_ADV_CREDIT]);
	rule_starve(&in, &a->f[VB_ADV_STARVE]);

	/* No guest vCPU saturated: guest-side changes are not the limit. */
	if (a->f[VB_ADV_RX_IDLE].verdict == VB_ADV_FIRES)
		for (k = 0; k < VB_ADV_NR; k++)
			if (guest_side(k) && a->f[k].verdict == VB_ADV_FIRES)
				a->f[k].verdict = VB_ADV_NOT_LIMITING;

	/* Order: fired (causes first), not-limiting, clear, no-data. */
	for (k = 0; k < VB_ADV_NR; k++)
		a->order[n++] = (enum vb_adv_rule)k;
	for (i = 1; i < n; i++) {
		for (j = i; j > 0; j--) {
			const struct vb_adv_finding *x = &a->f[a->order[j - 1]];
			const struct vb_adv_finding *y = &a->f[a->order[j]];
			int rx = rank(x), ry = rank(y);
			enum vb_adv_rule t;

			if (rx <= ry)
				break;
			t = a->order[j - 1];
			a->order[j - 1] = a->order[j];
			a->order[j] = t;
		}
	}
	for (k = 0; k < VB_ADV_NR; k++)
		a->nfired += a->f[k].verdict == VB_ADV_FIRES;
	return 0;
}
