/* SPDX-License-Identifier: GPL-2.0 */
/*
 * prom.h - the exporter's page: a snapshot of the tracer's cumulative
 * counts and its formatting as Prometheus text exposition (version
 * 0.0.4) or OpenMetrics 1.0.0.
 *
 * The formatter is a pure function of the snapshot (no BPF, no clock),
 * so the unit tests feed it fixture data and lint the page with
 * promtool.  export.c builds snapshots (prom_snap.c folds each map read
 * into one) and serves the latest.
 */
#ifndef VB_PROM_H
#define VB_PROM_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "results.h"

/* Ports tracked with their own series: --max-ports' default and cap. */
#define VB_PROM_PORTS_DEFAULT	16
#define VB_PROM_PORTS_MAX	VB_MAX_FLOWS

/* Overhead rows (payloads) a snapshot carries for its mode and kernel. */
#define VB_PROM_OVERHEAD_MAX	8

/* Window counters of one destination port, cumulative. */
struct vb_prom_port {
	uint32_t port;
	uint64_t cnt[VB_FC_NR];
	unsigned int quiet;	/* collections without traffic */
};

struct vb_prom_cpu {
	uint32_t cpu;
	uint64_t cnt[VB_C_NR];	/* the per-CPU counters (VB_CPU_COUNTERS) */
};

struct vb_prom_snap {
	char kernel_release[128];
	enum vb_kernel_mode kernel;
	enum vb_trace_mode trace;
	uint32_t time_sample;	/* full mode: 1 window in this many timed */
	/*
	 * The series' rx_batch event is attached: run-end reasons, hold
	 * times and write-space are measured (a batched kernel without it,
	 * the lab's p1-3, shows its runs to full mode but not these).
	 */
	bool rx_batch_event;
	/* the recv_pkt event is attached: control packets are counted */
	bool pkt_event;
	/* the tracer's measured cost, one row per measured payload */
	struct vb_overhead overhead[VB_PROM_OVERHEAD_MAX];
	size_t noverhead;
	/*
	 * Cumulative since the tracer was enabled: window counters summed
	 * over every flow ever seen, per-CPU counters and histograms
	 * summed over CPUs.
	 */
	struct vb_agg totals;
	struct vb_prom_cpu *cpus;
	size_t ncpus;
	/*
	 * Per destination port (only with ports_on): at most max_ports,
	 * quiet ones aged out after port_age collections; other_port holds
	 * the windows of ports beyond the bound and of flows the BPF flow
	 * map had no room for.
	 */
	bool ports_on;
	unsigned int max_ports, port_age;
	struct vb_prom_port *ports;
	size_t nports;
	uint64_t other_port[VB_FC_NR];
	uint64_t ports_aged;
	/* fold state: the flows' growth summed, the other-flows row last seen */
	uint64_t drained[VB_FC_NR];
	uint64_t prev_other[VB_FC_NR];
	/* lookups + locks: never below an earlier snapshot's (see prom_snap.c) */
	uint64_t lookups;
	uint64_t missed_runs;		/* programs' recursion misses */
	uint64_t collections;		/* map reads so far */
	double collect_seconds;		/* the last map read's duration */
	double start_unix_seconds;	/* when the tracer was enabled */
	uint64_t heap_bytes;		/* the exporter's malloc'ed bytes in use */
};

void vb_prom_snap_init(struct vb_prom_snap *s);
void vb_prom_snap_free(struct vb_prom_snap *s);
/* dst = a deep copy of src (dst freed first); 0 or -ENOMEM. */
int vb_prom_snap_copy(struct vb_prom_snap *dst, const struct vb_prom_snap *src);

/*
 * Fold one collection with a flow tracker (vb_collect: each flow's growth
 * since the last read, the other-flows row and per-CPU counters
 * cumulative) into s.  0 or -ENOMEM.
 */
int vb_prom_snap_fold(struct vb_prom_snap *s, const struct vb_results *r);

enum vb_prom_format {
	VB_PROM_TEXT = 0,	/* text/plain; version=0.0.4 */
	VB_PROM_OPENMETRICS,	/* application/openmetrics-text; version=1.0.0 */
};

/* Content-Type of a format. */
const char *vb_prom_content_type(enum vb_prom_format fmt);
/*
 * The format an HTTP Accept header asks for: OpenMetrics only when it
 * names application/openmetrics-text (with q > 0), else text.
 */
enum vb_prom_format vb_prom_negotiate(const char *accept);

/* The page (malloc'ed, NUL-terminated, length in *len), or NULL. */
char *vb_prom_format(const struct vb_prom_snap *s, enum vb_prom_format fmt,
		     size_t *len);

#endif
