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
#include <sys/types.h>

#include "results.h"

/* cpu_cost.source strings (fixtures must carry exactly these) */
#define VB_COST_SRC_CYCLES	"perf_event PERF_COUNT_HW_CPU_CYCLES, CPU-wide"
#define VB_COST_SRC_CPU_CLOCK	"perf_event PERF_COUNT_SW_CPU_CLOCK x non-idle share (/proc/stat)"

/*
 * The system calls cost.c makes, replaceable by a test double
 * (tests/unit/test_cost.c): open returns an fd or -1 with errno set;
 * proc_stat returns malloc'ed /proc/stat text or NULL.
 */
struct perf_event_attr;
struct vb_perf_ops {
	int (*open)(const struct perf_event_attr *attr, int cpu);
	ssize_t (*read)(int fd, void *buf, size_t n);
	int (*ioctl)(int fd, unsigned long req);
	int (*close)(int fd);
	char *(*proc_stat)(void);
};
/* NULL restores the real system calls. */
void vb_cost_set_ops(const struct vb_perf_ops *ops);

/*
 * Fallbacks: cycles; on ENOENT/EOPNOTSUPP/ENODEV/ENXIO (no PMU) or
 * EACCES/EPERM/EBUSY (refused, PMU busy) cpu-clock with a labelled note;
 * any other failure: not measured, with the reason.
 */
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

/*
 * Costs of successive intervals (top, record -i).  The difference of two
 * cumulative cpu-clock reads is no interval cost: each is the counter
 * times the busy share *since start*, and an idle interval lowers that
 * share, so the second can be the smaller (an unsigned wrap).  A mark
 * holds the raw counters and /proc/stat ticks of the last read; the
 * interval's cost is its own counter delta times its own busy share.
 */
struct vb_cost_mark {
	double *raw;		/* counter values (multiplex-scaled) */
	uint64_t *busy, *total;	/* /proc/stat ticks (cpu-clock only) */
};

/* A mark at vb_cost_start() time.  0 or -ENOMEM. */
int vb_cost_mark_init(const struct vb_costctr *c, struct vb_cost_mark *m);
/*
 * vals[n] = cost of each CPU since the mark, then the mark moves to now.
 * span_ns (may be NULL): for cpu-clock, the time the counters themselves
 * counted over the interval, a CPU's mean; 0 for cycles.  A busy share
 * is cost / span: the caller's own clock read is not taken at the
 * counters' instants, and a late read on a loaded machine would put a
 * fully busy interval over 100 %.
 */
int vb_cost_read_interval(struct vb_costctr *c, struct vb_cost_mark *m,
			  uint64_t *vals, double *span_ns);
void vb_cost_mark_free(struct vb_cost_mark *m);
/*
 * One CPU's cost from its counter delta draw and, for cpu-clock, its busy
 * and total tick deltas db/dt: draw * db / dt (0 without ticks), never
 * below 0.  Cycles: draw.
 */
uint64_t vb_cost_interval(enum vb_cost_unit unit, double draw, uint64_t db,
			  uint64_t dt);
void vb_cost_close(struct vb_costctr *c);
/* Fill r->cost and r->cpus[].cost from a final read. */
int vb_cost_fill(struct vb_costctr *c, struct vb_results *r);

/* /proc/stat ticks of one CPU (busy = not idle/iowait); for tests too. */
int vb_proc_stat_cpu(const char *text, uint32_t cpu, uint64_t *busy,
		     uint64_t *total);

#endif
