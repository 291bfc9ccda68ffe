/* SPDX-License-Identifier: GPL-2.0 */
/*
 * results.h - the in-memory model of a vsockbatch results file and its
 * JSON load/save (jansson).  Written by `record`, read by `report`,
 * `compare` and `top --replay`.
 *
 * File schema ("format": "vsockbatch-results", "version": 1), all keys
 * required unless marked optional:
 *   format, version, tool, command_line[],
 *   kernel { release, mode ("batched"|"baseline"|"unknown"), detected_by },
 *   hooks[] (programs in use, e.g. "fentry/release_sock"),
 *   duration_ns, start_unix_ns, hist_scheme,
 *   totals { <every VB_COUNTERS name>: integer },
 *   histograms { <every VB_HISTS name>: { unit, slots[VB_MAX_SLOTS] } },
 *   flows[] { src_cid, src_port, dst_cid, dst_port, counters{...},
 *             histograms{...} },
 *   per_cpu[] { cpu, counters{...}, cost (integer, -1 = not measured) }
 *             (counters only: per-CPU histograms are not stored),
 *   cpu_cost { unit ("cycles"|"cpu-clock-ns"), source, note, measured,
 *              total, cpus[] },
 *   labels { key: string }   (optional; record --label key=value)
 *   tracer { recursion_misses, bpf_stats, run_ns, run_cnt }  (optional:
 *            the tracer's own cost; run_* only with record --bpf-stats)
 * Counters and histograms are the lists in include/vsockbatch.h.
 */
#ifndef VSOCKBATCH_RESULTS_H
#define VSOCKBATCH_RESULTS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "vsockbatch.h"

#define VB_RESULTS_FORMAT	"vsockbatch-results"
#define VB_RESULTS_VERSION	1
#define VB_HIST_SCHEME		"log2z: slot0=0, slot i=[2^(i-1),2^i-1], last open"

enum vb_kernel_mode {
	VB_MODE_UNKNOWN = 0,
	VB_MODE_BASELINE,
	VB_MODE_BATCHED,
};

enum vb_cost_unit {
	VB_COST_CYCLES = 0,	/* PERF_COUNT_HW_CPU_CYCLES */
	VB_COST_CPU_CLOCK_NS,	/* no PMU: busy ns from cpu-clock */
};

/* User-space histogram: u64 so per-CPU sums cannot wrap. */
struct vb_uhist {
	uint64_t slots[VB_MAX_SLOTS];
};

struct vb_agg {
	uint64_t cnt[VB_C_NR];
	struct vb_uhist hist[VB_H_NR];
};

struct vb_flow {
	struct vb_flow_key key;
	struct vb_agg agg;
};

struct vb_cpu {
	uint32_t cpu;
	struct vb_agg agg;
	int64_t cost;		/* in cpu_cost.unit; -1 = not measured */
};

struct vb_label {
	char *key;
	char *value;
};

struct vb_cost {
	enum vb_cost_unit unit;
	bool measured;		/* false: no counter could be opened */
	uint64_t total;		/* summed over cpus[] */
	char source[96];	/* e.g. "perf_event HW_CPU_CYCLES" */
	char note[160];		/* e.g. why cpu-clock was used */
	uint32_t *cpus;		/* CPUs the counters covered */
	size_t ncpus;
};

/* The tracer's own cost and health (optional in the file). */
struct vb_self {
	bool present;
	uint64_t recursion_misses;	/* program runs the kernel skipped */
	bool bpf_stats;			/* run_ns/run_cnt valid */
	uint64_t run_ns;		/* time inside the BPF programs */
	uint64_t run_cnt;		/* program runs */
};

struct vb_results {
	int version;
	char tool[64];
	char **argv;		/* command line of the recording */
	size_t argc;
	char kernel_release[128];
	enum vb_kernel_mode mode;
	char detected_by[160];	/* how mode was decided */
	char **hooks;
	size_t nhooks;
	uint64_t duration_ns;
	uint64_t start_unix_ns;
	struct vb_agg totals;
	struct vb_flow *flows;
	size_t nflows;
	struct vb_cpu *cpus;
	size_t ncpus;
	struct vb_cost cost;
	struct vb_label *labels;
	size_t nlabels;
	struct vb_self self;
};

/* Names and units, indexed by enum vb_counter / enum vb_hist_id. */
extern const char *const vb_counter_names[VB_C_NR];
extern const char *const vb_counter_descs[VB_C_NR];
extern const char *const vb_hist_names[VB_H_NR];
extern const char *const vb_hist_units[VB_H_NR];
extern const char *const vb_hist_descs[VB_H_NR];

const char *vb_mode_name(enum vb_kernel_mode mode);
const char *vb_cost_unit_name(enum vb_cost_unit unit);

void vb_results_init(struct vb_results *r);
void vb_results_free(struct vb_results *r);

/* Setters that copy their strings; return 0 or -ENOMEM. */
int vb_results_set_argv(struct vb_results *r, int argc, char *const argv[]);
int vb_results_add_hook(struct vb_results *r, const char *hook);
int vb_results_set_label(struct vb_results *r, const char *key,
			 const char *value);
const char *vb_results_label(const struct vb_results *r, const char *key);

/*
 * Load/save.  Return 0 on success, else a negative errno with a one-line
 * reason in errbuf: -ENOENT/-EACCES/-EIO (file), -EINVAL (malformed or
 * truncated JSON, wrong format, missing or mistyped field), -EPROTO
 * (unsupported version).
 */
int vb_results_load(const char *path, struct vb_results *r,
		    char *errbuf, size_t errlen);
int vb_results_load_string(const char *json, struct vb_results *r,
			   char *errbuf, size_t errlen);
int vb_results_save(const char *path, const struct vb_results *r,
		    char *errbuf, size_t errlen);
/* Malloc'ed JSON text (indent 0 = compact), NULL on failure. */
char *vb_results_dump_string(const struct vb_results *r, int indent);

/* Add r's labels to the JSON object root as "labels": {key: value, ...};
 * nothing when there are none.  Shared by the results file and the
 * report's JSON, which carry labels the same way. */
struct json_t;
void vb_results_labels_to_json(struct json_t *root, const struct vb_results *r);

/* a += b, a -= b (counters and histogram slots; sub clamps at 0). */
void vb_agg_add(struct vb_agg *a, const struct vb_agg *b);
void vb_agg_sub(struct vb_agg *a, const struct vb_agg *b);
/* Flow with this key, or NULL. */
const struct vb_flow *vb_results_find_flow(const struct vb_results *r,
					   const struct vb_flow_key *key);

/* Derived figures for report/top/compare (NaN where undefined). */
struct vb_metrics {
	double mean_batch_pkts;		/* batch_pkts / batches */
	double mean_batch_bytes;
	double hold_p50_ns, hold_p99_ns, hold_mean_ns;
	double dr_per_batch;		/* (inside + after) / batches */
	double pct_deferred;		/* after / (inside + after) * 100 */
	double dr_lat_p50_ns, dr_lat_p99_ns;
	double lookups_per_pkt;
	double locks_per_pkt;
	double ws_per_pkt, dr_per_pkt;
	double user_wait_p99_ns;
	double cost_per_byte;		/* cpu_cost.total / bytes (cycles or ns) */
	double worker_ns_per_byte;
};
void vb_metrics_compute(const struct vb_agg *a, const struct vb_cost *cost,
			struct vb_metrics *m);

#endif /* VSOCKBATCH_RESULTS_H */
