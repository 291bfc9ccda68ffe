/* SPDX-License-Identifier: GPL-2.0 */
/*
 * tracer_fixture.h - a results model with known numbers, shared by the
 * results/report/top unit tests.  Full mode.  Numbers (batched variant):
 *   1000 packets, 64000 bytes, all RW; 250 batches of 4 packets (max 4);
 *   window 250 x 3000 ns, in [2048, 4095]; rx_batch hold 250 x 2500 ns;
 *   250 data-ready after unlock, 0 inside, latency 250 x 800 ns;
 *   write_space in 250 runs; 10 reader waits of 50 us;
 *   cost 3,200,000 in the chosen unit on CPUs 0,1; overhead +4.50 %.
 * Baseline variant: 1000 batches of 1 packet, window 1000 x 1500 ns in
 *   [1024, 2047], 1000 data-ready inside (latency 600 ns), 2 reader waits
 *   of 20 us, overhead +4.00 %.
 */
#ifndef TRACER_FIXTURE_H
#define TRACER_FIXTURE_H

#include <string.h>

#include "../../tools/vsockbatch/results.h"

static inline void fixture_results(struct vb_results *r, bool batched,
				   enum vb_cost_unit unit)
{
	static char *argv[] = { "record", "-o", "x.json", "--", "vsock_perf" };
	uint64_t batches = batched ? 250 : 1000;
	struct vb_agg *t = &r->totals;
	struct vb_flow_key k1 = { 1, 1025, 1, 1234 }, k2 = { 2, 5000, 3, 80 };
	int i;

	vb_results_init(r);
	vb_results_set_argv(r, 5, argv);
	snprintf(r->kernel_release, sizeof(r->kernel_release), "6.12.117");
	r->mode = batched ? VB_MODE_BATCHED : VB_MODE_BASELINE;
	snprintf(r->detected_by, sizeof(r->detected_by),
		 batched ? "kallsyms: virtio_transport_rx_batch_recv present"
			 : "no virtio_transport_rx_batch_* in kallsyms or BTF");
	vb_results_add_hook(r, "tp_btf/virtio_transport_recv_pkt");
	vb_results_add_hook(r, "fexit/virtio_transport_recv_pkt");
	r->duration_ns = 2000000000ULL;
	r->start_unix_ns = 1700000000000000000ULL;

	r->trace = VB_TRACE_FULL;
	t->cnt[VB_C_PKTS] = 1000;
	t->cnt[VB_C_BYTES] = 64000;
	t->cnt[VB_C_RW_PKTS] = 1000;
	t->cnt[VB_C_BATCHES] = batches;
	t->cnt[VB_C_BATCH_PKTS] = 1000;
	t->cnt[VB_C_BATCH_BYTES] = 64000;
	t->cnt[VB_C_BATCH_MAX] = batched ? 4 : 1;
	t->cnt[VB_C_WINDOW_NS] = batches * (batched ? 3000 : 1500);
	t->cnt[VB_C_TIMED] = batches;	/* --sample 1: every window timed */
	t->cnt[VB_C_DR_INSIDE] = batched ? 0 : 1000;
	t->cnt[VB_C_DR_AFTER] = batched ? 250 : 0;
	t->cnt[VB_C_DR_LAT_NS] = batches * (batched ? 800 : 600);
	t->cnt[VB_C_DR_LAT_N] = batches;
	t->cnt[VB_C_USER_WAITS] = batched ? 10 : 2;
	t->cnt[VB_C_USER_WAIT_NS] = batched ? 500000 : 40000;
	t->cnt[VB_C_WORKER_CALLS] = 100;
	t->cnt[VB_C_WORKER_NS] = 6400000;
	t->hist[VB_H_WINDOW_NS].slots[batched ? 12 : 11] = batches;
	t->hist[VB_H_BATCH_PKTS].slots[batched ? 4 : 1] = batches;
	t->hist[VB_H_BATCH_BYTES].slots[batched ? 9 : 7] = batches;
	t->hist[VB_H_DR_LAT_NS].slots[10] = batches;
	t->hist[VB_H_USER_WAIT_NS].slots[batched ? 16 : 15] = batched ? 10 : 2;
	if (batched) {
		t->cnt[VB_C_KB_HOLD_NS] = 250 * 2500;
		t->cnt[VB_C_KB_WRITE_SPACE] = 250;
		t->cnt[VB_C_KB_R_FLOW] = 200;
		t->cnt[VB_C_KB_R_QUEUE] = 50;
		t->hist[VB_H_KB_HOLD_NS].slots[12] = 250;
	}

	/* flows hold window counters only */
	r->flows = calloc(2, sizeof(*r->flows));
	r->nflows = 2;
	r->flows[0].key = k1;
	for (i = 0; i < VB_FC_NR; i++)
		r->flows[0].agg.cnt[i] = t->cnt[i];
	r->flows[1].key = k2;
	r->flows[1].agg.cnt[VB_C_CTRL_WINDOWS] = 3;

	r->cpus = calloc(2, sizeof(*r->cpus));
	r->ncpus = 2;
	for (i = 0; i < 2; i++) {
		r->cpus[i].cpu = (uint32_t)i;
		r->cpus[i].cost = 1600000;
	}
	r->cpus[0].agg = *t;

	r->cost.unit = unit;
	r->cost.measured = true;
	r->cost.total = 3200000;
	snprintf(r->cost.source, sizeof(r->cost.source), "%s",
		 unit == VB_COST_CYCLES ? "perf_event PERF_COUNT_HW_CPU_CYCLES, CPU-wide"
					: "perf_event PERF_COUNT_SW_CPU_CLOCK x non-idle share (/proc/stat)");
	if (unit == VB_COST_CPU_CLOCK_NS)
		snprintf(r->cost.note, sizeof(r->cost.note),
			 "no PMU (cycles: No such file or directory): cost is busy CPU time in ns (cpu-clock), not cycles");
	r->cost.cpus = calloc(2, sizeof(uint32_t));
	r->cost.cpus[0] = 0;
	r->cost.cpus[1] = 1;
	r->cost.ncpus = 2;

	r->self.recursion_misses = 0;
	r->self.overhead.measured = true;
	r->self.overhead.pct = batched ? 4.5 : 4.0;
	snprintf(r->self.overhead.payload, sizeof(r->self.overhead.payload), "64");
	snprintf(r->self.overhead.source, sizeof(r->self.overhead.source),
		 "results/test-set (icount)");
	r->self.bpf_stats = batched;
	r->self.run_ns = batched ? 5000000 : 0;
	r->self.run_cnt = batched ? 9000 : 0;

	vb_results_set_label(r, "payload", "64");
	vb_results_set_label(r, "kernel", batched ? "patched" : "baseline");
}

/*
 * The overhead cell of a level that runs once per kernel run: 200 [192,
 * 208] own instructions per run in the set's runs of 5 packets of 4000
 * untraced instructions each (1.00 % there), 8 boots.
 */
static inline void fixture_per_run(struct vb_results *r)
{
	struct vb_overhead *o = &r->self.overhead;

	r->trace = VB_TRACE_LIGHT;
	o->lo = -0.5;
	o->hi = 0.5;
	o->direct = 1.0;
	o->boots = 8;
	snprintf(o->kernel, sizeof(o->kernel), "patched");
	o->per_run = 200;
	o->per_run_lo = 192;
	o->per_run_hi = 208;
	o->run_len = 5;
	o->untraced = 4000;
}

#endif
