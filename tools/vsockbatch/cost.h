/* SPDX-License-Identifier: GPL-2.0 */
/*
 * cost.h - CPU cost of the measured interval on chosen CPUs.
 *
 * Cycles: one CPU-wide PERF_COUNT_HW_CPU_CYCLES counter per CPU (unhalted
 * cycles, so idle costs nothing).  Without a PMU (TCG guests, this build
 * host: ENOENT/EOPNOTSUPP/ENODEV/ENXIO) the fallback is the cpu-clock
 * software event.  A CPU-wide cpu-clock counts wall time including idle,
 * so it is scaled by the CPU's non-idle share of the same interval from
 * /proc/stat (tick sampled): unit "cpu-clock-ns" = busy nanoseconds.
 * The unit travels with every number; the two are never mixed.
 */
#ifndef VB_COST_H
#define VB_COST_H

#include <stddef.h>
#include <stdint.h>

#include "results.h"

struct vb_costctr {
	enum vb_cost_unit unit;
	bool open;		/* counters are usable */
	size_t n;
	uint32_t *cpus;
	int *fds;
	uint64_t *busy0, *total0;	/* /proc/stat ticks at start */
	char source[96];
	char note[160];
};

/*
 * Open counters on cpus[0..n).  Never fatal for the measurement: when no
 * counter can be opened, open stays false and note says why.  Returns
 * -ENOMEM only.
 */
int vb_cost_open(struct vb_costctr *c, const uint32_t *cpus, size_t n);
int vb_cost_start(struct vb_costctr *c);
/* Cumulative value per CPU since start (vals[n]), in c->unit. */
int vb_cost_read(struct vb_costctr *c, uint64_t *vals);
void vb_cost_close(struct vb_costctr *c);
/* Fill r->cost and r->cpus[].cost from a final read. */
int vb_cost_fill(struct vb_costctr *c, struct vb_results *r);

/* /proc/stat ticks of one CPU (busy = not idle/iowait); for tests too. */
int vb_proc_stat_cpu(const char *text, uint32_t cpu, uint64_t *busy,
		     uint64_t *total);

#endif
