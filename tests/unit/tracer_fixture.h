/* SPDX-License-Identifier: GPL-2.0 */
/*
 * tracer_fixture.h - a results model with known numbers, shared by the
 * results/report/top unit tests.  Numbers (batched variant):
 *   1000 packets, 64000 bytes, all RW; 250 batches of 4 packets;
 *   hold 250 x [2048, 4095] ns; 250 data-ready after unlock, 0 inside;
 *   250 lookups; cost 3,200,000 in the chosen unit on CPUs 0,1.
 * Baseline variant: 1000 batches of 1 packet, 1000 data-ready inside,
 *   1000 lookups, hold in [1024, 2047].
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
	vb_results_add_hook(r, "fexit/lock_sock_nested");
	vb_results_add_hook(r, "fentry/release_sock");
	r->duration_ns = 2000000000ULL;
	r->start_unix_ns = 1700000000000000000ULL;

	t->cnt[VB_C_PKTS] = 1000;
	t->cnt[VB_C_BYTES] = 64000;
	t->cnt[VB_C_RW_PKTS] = 1000;
	t->cnt[VB_C_BATCHES] = batches;
	t->cnt[VB_C_BATCH_PKTS] = 1000;
	t->cnt[VB_C_BATCH_BYTES] = 64000;
	t->cnt[VB_C_LOCK_ACQ] = batches;
	t->cnt[VB_C_LOOKUPS] = batches;
	t->cnt[VB_C_HOLD_NS] = batches * (batched ? 3000 : 1500);
	t->cnt[VB_C_DR_INSIDE] = batched ? 0 : 1000;
	t->cnt[VB_C_DR_AFTER] = batched ? 250 : 0;
	t->cnt[VB_C_WS_BATCH] = batches;
	t->cnt[VB_C_WS_OTHER] = 1000;
	t->cnt[VB_C_WORKER_CALLS] = 100;
	t->cnt[VB_C_WORKER_NS] = 6400000;
	t->hist[VB_H_HOLD_NS].slots[batched ? 12 : 11] = batches;
	t->hist[VB_H_BATCH_PKTS].slots[batched ? 3 : 1] = batches;
	t->hist[VB_H_BATCH_BYTES].slots[batched ? 9 : 7] = batches;
	t->hist[VB_H_DR_PER_BATCH].slots[1] = batches;
	t->hist[VB_H_DR_LAT_NS].slots[batched ? 10 : 8] = batches;
	if (batched) {
		t->cnt[VB_C_KB_RUNS] = 250;
		t->cnt[VB_C_KB_PKTS] = 1000;
		t->cnt[VB_C_KB_R_FLOW] = 200;
		t->cnt[VB_C_KB_R_QUEUE] = 50;
		t->hist[VB_H_KB_PKTS].slots[3] = 250;
	}

	r->flows = calloc(2, sizeof(*r->flows));
	r->nflows = 2;
	r->flows[0].key = k1;
	r->flows[0].agg = *t;
	r->flows[1].key = k2;
	r->flows[1].agg.cnt[VB_C_PKTS] = 3;
	r->flows[1].agg.cnt[VB_C_CTRL_PKTS] = 3;
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

	r->self.present = true;
	r->self.recursion_misses = 0;
	r->self.bpf_stats = batched;
	r->self.run_ns = batched ? 5000000 : 0;
	r->self.run_cnt = batched ? 9000 : 0;

	vb_results_set_label(r, "payload", "64");
	vb_results_set_label(r, "kernel", batched ? "patched" : "baseline");
}

#endif
