/* SPDX-License-Identifier: GPL-2.0 */
/*
 * results.h - the in-memory model of a vsockbatch results file and its
 * JSON load/save (jansson).  Written by `record`, read by `report`,
 * `compare` and `top --replay`.
 *
 * File schema ("format": "vsockbatch-results", "version": 2), all keys
 * required unless marked optional:
 *   format, version, tool, command_line[],
 *   kernel { release, mode ("batched"|"baseline"|"unknown"), detected_by },
 *   tracer { mode ("light"|"full"), recursion_misses, bpf_stats, run_ns,
 *            run_cnt (run_* only with record --bpf-stats),
 *            overhead { measured, insns_per_byte_pct, payload, source } }
 *            (the tracer's own cost for this mode and kernel, as measured
 *            by the committed overhead set; measured false = no figure),
 *   hooks[] (programs in use, e.g. "fentry/vsock_data_ready"),
 *   duration_ns, start_unix_ns,
 *   totals { <every VB_COUNTERS name>: integer },
 *   histograms { <every histogram name>: { unit, scheme ("log2z"|"linear"),
 *                slots[VB_MAX_SLOTS or VB_LIN_SLOTS] } },
 *   flows[] { src_cid, src_port, dst_cid, dst_port,
 *             counters { <every VB_FLOW_COUNTERS name> } },
 *   per_cpu[] { cpu, counters{...}, cost (integer, -1 = not measured) },
 *   cpu_cost { unit ("cycles"|"cpu-clock-ns"), source, note, measured,
 *              total, cpus[] },
 *   labels { key: string }   (optional; record --label key=value)
 * Counters and histograms are the lists in include/vsockbatch.h.
 * Version 1 files (the tracer before light/full modes: log2 batch
 * lengths, 6 hooks per packet) are refused with a reason.
 */
#ifndef VSOCKBATCH_RESULTS_H
#define VSOCKBATCH_RESULTS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "vsockbatch.h"

#define VB_RESULTS_FORMAT	"vsockbatch-results"
#define VB_RESULTS_VERSION	2
#define VB_SCHEME_LOG2		"log2z"
#define VB_SCHEME_LINEAR	"linear"

enum vb_kernel_mode {
	VB_MODE_UNKNOWN = 0,
	VB_MODE_BASELINE,
	VB_MODE_BATCHED,
};

enum vb_cost_unit {
	VB_COST_CYCLES = 0,	/* PERF_COUNT_HW_CPU_CYCLES */
	VB_COST_CPU_CLOCK_NS,	/* no PMU: busy ns from cpu-clock */
};

/* What the tracer attached: see bpf/vsockbatch.bpf.c and README. */
enum vb_trace_mode {
	VB_TRACE_AUTO = 0,	/* light where the kernel allows it, else full */
	VB_TRACE_LIGHT,		/* the two vsock tracepoints only */
	VB_TRACE_FULL,		/* + vsock function hooks: window timings */
	/*
	 * Full mode on a kernel that batches but has no rx_batch event (the
	 * series without its tracepoint patch, e.g. the lab's p1-3): its
	 * runs are invisible (no generic lock hook), so batch and window
	 * figures are not measured.  Saved as mode "full", runs_visible false.
	 */
	VB_TRACE_FULL_NORUNS,
};

/*
 * User-space histogram: u64 so per-CPU sums cannot wrap.  Log2z
 * histograms use the first VB_MAX_SLOTS slots (vb_hist_nslots()).
 */
struct vb_uhist {
	uint64_t slots[VB_LIN_SLOTS];
};

struct vb_agg {
	uint64_t cnt[VB_C_NR];
	struct vb_uhist hist[VB_H_NR];
};

/* Flow key of the "other flows" row: windows of flows the flow map had no
 * room for (map_full counts them). */
extern const struct vb_flow_key vb_other_flows;

/* A flow: window counters only (the VB_FLOW_COUNTERS part of agg). */
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

/*
 * The tracer's measured overhead for a mode, kernel and payload: guest
 * instructions per byte, traced vs untraced (QEMU -icount), from the
 * committed overhead set.
 */
struct vb_overhead {
	bool measured;
	double pct;		/* +x % instructions per byte (transfer) */
	/* with boots > 0 (0: an older file, which has pct alone): */
	double lo, hi;		/* pct's 95 % CI */
	double direct;		/* the tracer's own instructions, % */
	int boots;		/* n behind the figures */
	/*
	 * A level that runs once per kernel run (light with the series):
	 * its own instructions per run with their 95 % CI, the set's mean
	 * run length (direct is per_run / run_len / untraced) and untraced
	 * instructions per packet.  per_run 0: a per-packet level.
	 */
	double per_run, per_run_lo, per_run_hi;
	double run_len;
	double untraced;
	char payload[16];	/* payload of the measurement used */
	char kernel[32];	/* kernel measured ("?": not this one) */
	char source[96];	/* results set */
};

/*
 * Full mode times 1 window in `sample` (a power of two): clock reads,
 * time histograms and the RX queue sample cost per timed window only,
 * counts stay exact.  record/export/top --sample; 1 times every window.
 */
#define VB_SAMPLE_DEFAULT	8
#define VB_SAMPLE_MAX		1024

/*
 * Full mode --duty N (kernels without the series): the window hooks are
 * attached one time slice in N; every packet is still counted, and the
 * window figures per packet divide by the packets the window hooks saw
 * (VB_C_WIN_PKTS).  1: always attached.
 */
#define VB_DUTY_MAX		64

/* The tracer's own cost and health. */
struct vb_self {
	uint64_t recursion_misses;	/* program runs the kernel skipped */
	bool bpf_stats;			/* run_ns/run_cnt valid */
	uint64_t run_ns;		/* time inside the BPF programs */
	uint64_t run_cnt;		/* program runs */
	uint32_t sample;		/* full mode: 1 window in this many timed */
	uint32_t duty;			/* full mode: window hooks 1 slice in N */
	uint32_t slice_ms;		/* --duty: an on slice (0 without) */
	struct vb_overhead overhead;
};

struct vb_results {
	int version;
	char tool[64];
	char **argv;		/* command line of the recording */
	size_t argc;
	char kernel_release[128];
	enum vb_kernel_mode mode;
	char detected_by[160];	/* how mode was decided */
	enum vb_trace_mode trace;	/* LIGHT or FULL */
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

/* The rx_batch end reason of counter VB_C_KB_R_QUEUE + i: "queue", ... */
static inline const char *vb_end_reason_name(int i)
{
	return vb_counter_names[VB_C_KB_R_QUEUE + i] + sizeof("kb_end_") - 1;
}
extern const char *const vb_counter_descs[VB_C_NR];
extern const char *const vb_hist_names[VB_H_NR];
extern const char *const vb_hist_units[VB_H_NR];
extern const char *const vb_hist_descs[VB_H_NR];
/* SUM or MAX: how a counter combines over CPUs and flows. */
extern const bool vb_counter_is_max[VB_C_NR];

/* rx_batch events seen (every run ends with exactly one reason). */
static inline uint64_t vb_kb_runs(const uint64_t *cnt)
{
	uint64_t n = 0;
	int i;

	for (i = VB_C_KB_R_QUEUE; i <= VB_C_KB_R_OTHER; i++)
		n += cnt[i];
	return n;
}

static inline bool vb_hist_linear(int h)
{
	return h >= VB_H_LOG2_NR;
}

static inline unsigned int vb_hist_nslots(int h)
{
	return vb_hist_linear(h) ? VB_LIN_SLOTS : VB_MAX_SLOTS;
}

const char *vb_mode_name(enum vb_kernel_mode mode);
const char *vb_trace_mode_name(enum vb_trace_mode m);
/*
 * The recording saw every packet: the per-packet recv_pkt event, or, in
 * light mode where the series batches, virtio_transport_recv_pkt() for
 * the packets in no run.  Without either, light mode on a batched kernel
 * counts the runs' data packets only.
 */
bool vb_results_pkt_event(const struct vb_results *r);
/* The recording timed the tasks that slept in lock_sock() (__lock_sock). */
bool vb_results_reader_waits(const struct vb_results *r);
/* "light"/"full"/"auto" -> mode; -EINVAL otherwise. */
int vb_trace_mode_parse(const char *s, enum vb_trace_mode *m);
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
 * truncated JSON, wrong format, missing or mistyped field; corrupt or
 * truncated compressed data), -EPROTO (unsupported version).
 * vb_results_load() reads gzip- and zstd-compressed files too, told
 * apart by their magic bytes, not their names (zread.h).
 */
int vb_results_load(const char *path, struct vb_results *r,
		    char *errbuf, size_t errlen);
int vb_results_load_string(const char *json, struct vb_results *r,
			   char *errbuf, size_t errlen);
/*
 * The exit status for a vb_results_load() error: a file the user named
 * that is missing, unreadable or not a results file is bad input
 * (VB_EXIT_USAGE); only a read error or no memory is a runtime failure.
 */
int vb_results_load_exit(int err);
int vb_results_save(const char *path, const struct vb_results *r,
		    char *errbuf, size_t errlen);
/* Malloc'ed JSON text (indent 0 = compact), NULL on failure. */
char *vb_results_dump_string(const struct vb_results *r, int indent);

/* Add r's labels to the JSON object root as "labels": {key: value, ...};
 * nothing when there are none.  Shared by the results file and the
 * report's JSON, which carry labels the same way. */
struct json_t;
void vb_results_labels_to_json(struct json_t *root, const struct vb_results *r);

/*
 * a += b, a -= b (counters and histogram slots; sub clamps at 0).  MAX
 * counters: add keeps the larger; sub keeps a's (a max has no delta).
 */
void vb_agg_add(struct vb_agg *a, const struct vb_agg *b);
void vb_agg_sub(struct vb_agg *a, const struct vb_agg *b);
/* Flow with this key, or NULL. */
const struct vb_flow *vb_results_find_flow(const struct vb_results *r,
					   const struct vb_flow_key *key);

/*
 * Derived figures for report/top/compare (NaN where undefined).  Every
 * one is exact per run (a ratio of exact counts, or the measured CPU
 * cost over exact bytes): percentiles of log2 histograms are not here,
 * they are slot ranges (tools/lib/hist.h).
 */
struct vb_metrics {
	double mean_batch_pkts;		/* batch_pkts / batches */
	double mean_batch_bytes;
	double batch_max;		/* exact */
	double window_mean_ns;		/* full mode */
	double kb_hold_mean_ns;		/* rx_batch's hold_ns, per run */
	double dr_per_batch;		/* (inside + after) / batches */
	double pct_deferred;		/* after / (inside + after) * 100 */
	double dr_lat_mean_ns;		/* full mode */
	double lookups_per_pkt;		/* socket lookup + lock per packet */
	double ws_per_pkt;		/* rx_batch write_space (patched) */
	double dr_per_pkt;
	double user_wait_mean_ns;	/* full mode */
	double user_waits_per_mb;	/* MB = 10^6 bytes */
	double cost_per_byte;		/* cpu_cost.total / bytes (cycles or ns) */
	double worker_ns_per_byte;	/* full mode */
};
/*
 * trace: what recorded a (full-mode figures are NaN in light mode);
 * duty: the recording's --duty (1: window hooks always attached; else the
 * per-packet window figures divide by the packets those hooks saw).
 */
void vb_metrics_compute(const struct vb_agg *a, const struct vb_cost *cost,
			enum vb_trace_mode trace, uint32_t duty,
			struct vb_metrics *m);

#endif /* VSOCKBATCH_RESULTS_H */
