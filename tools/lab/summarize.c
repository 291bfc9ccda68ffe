// SPDX-License-Identifier: GPL-2.0
/*
 * summarize.c - `vsockbatch-lab summarize DIR`: the statistics of one AB/BA
 * experiment set written by scripts/experiment.sh.
 *
 * Input (DIR is the results set):
 *   manifest.json        the plan and the facts (written by the host):
 *                        states[] {name, ...}, runs[] {round, pos, state,
 *                        dir, status}, payloads[], plus free-form objects
 *                        (machine, experiment, ...) copied to the summary
 *   <run dir>/samples.jsonl         {"payload","metric","value"} per line
 *                                   (tests/guest/experiment-run.sh)
 *   <run dir>/traced/<payload>.json vsockbatch results file per payload
 * Output:
 *   summary.json  per comparison (baseline->patched, baseline->p1-3,
 *                 p1-3->patched), payload and metric: both means, change %,
 *                 t-interval on per-pair log ratios, bootstrap cross-check,
 *                 n pairs, order check, units
 *   report.md     cover-letter shaped tables
 *   plots/<name>.dat  gnuplot data (the host script draws them)
 * and a short headline table on stdout.
 *
 * Statistics: tools/lib/stats (design/anchors.md §5.2).  Rounds pair the
 * runs: in round i every state ran once on a fresh guest, so any two
 * states give one pair per round, AB or BA by position.
 */
#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include <jansson.h>

#include "lab.h"
#include "hist.h"
#include "results.h"
#include "stats.h"
#include "stats_opts.h"
#include "summarize.h"

#define SUM_NAME	"vsockbatch-lab summarize"
#define SUM_MAX_STATES	8
#define SUM_MAX_PAYLOADS 32
#define SUM_MAX_CPUS	16
#define SUM_FORMAT	"vsockbatch-experiment-summary"

struct sum_opts {
	struct stats_opts st;	/* --level, --noise, --seed, --iters */
	bool allow_missing;
	const char *dir;
};

/* Comparisons in report order; skipped when a state is not in the set. */
static const struct {
	const char *a, *b, *title;
} comparisons[] = {
	{ "baseline", "patched", "All patches (baseline -> P1-P5)" },
	{ "baseline", "p1-3", "P1-P3 contribution (baseline -> P1-P3)" },
	{ "p1-3", "patched", "P4-P5 contribution (P1-P3 -> P1-P5)" },
};
#define NCOMP (sizeof(comparisons) / sizeof(comparisons[0]))

struct cpu_acc {
	bool seen;
	uint64_t pkts, batches, worker_calls, worker_ns;
	int64_t cost;
};

/* The host's view of one wall-clock transfer (run dir/host-xfer.jsonl,
 * scripts/experiment.sh from scripts/xfer-watch.sh). */
struct xfer_rec {
	size_t run;			/* index into runs */
	char name[40];			/* fixed.64, tcp.4096, traced.64 ... */
	unsigned int payload;
	double host_s, guest_s;		/* window on the host; the guest's own */
	double busy, steal, qemu, backend, sender, other; /* cores; steal in % */
	bool excluded;
};

struct set {
	json_t *manifest;
	const char *state_names[SUM_MAX_STATES];
	unsigned int nstates;
	unsigned int payloads[SUM_MAX_PAYLOADS];
	unsigned int npayloads;
	struct sum_run *runs;
	const char **run_dirs;
	size_t nruns;
	unsigned int nrounds;
	struct sum_sample *samples;
	size_t nsamples, cap;
	/* traced files */
	bool have_cost_unit;
	enum vb_cost_unit cost_unit;
	char cost_unit_name[32];
	size_t ntraced;
	struct vb_uhist batch_hist[SUM_MAX_STATES][SUM_MAX_PAYLOADS];
	struct vb_uhist hold_hist[SUM_MAX_STATES][SUM_MAX_PAYLOADS];
	struct cpu_acc cpus[SUM_MAX_STATES][SUM_MAX_CPUS];
	char kernel_release[SUM_MAX_STATES][128];
	char kernel_mode[SUM_MAX_STATES][16];
	double level;		/* confidence level, for headings */
	int rx_cpu;		/* manifest's experiment.rx_cpu; -1: none */
	bool icount;		/* experiment.clock == "icount" */
	/* host load per transfer and the exclusion rule (NaN: off) */
	struct xfer_rec *xfers;
	size_t nxfers, xcap;
	double max_other, max_steal;
	const char *rule;
	size_t runs_no_host;	/* runs that measured but have no host record */
	size_t dropped_samples;	/* samples of excluded transfers */
	size_t dropped_traced;	/* traced files of excluded transfers */
};

/* Power of the "smallest detectable change" column (stats_paired_mde_pct). */
#define SUM_MDE_POWER	0.8
/* icount: idle share of a transfer above which its counts are flagged. */
#define SUM_WARP_MAX_PCT	50

static void usage(FILE *f)
{
	fprintf(f,
"Usage: vsockbatch-lab summarize [options] DIR\n"
"Statistics of an AB/BA experiment set written by scripts/experiment.sh.\n"
"\n"
"Reads DIR/manifest.json, each run's samples.jsonl and traced/*.json;\n"
"writes DIR/summary.json, DIR/report.md and DIR/plots/NAME.dat, and prints\n"
"the headline table.\n"
"\n"
"      --allow-missing  drop a pair whose other run has no value (counted\n"
"                       and reported) instead of refusing the set\n"
"      --level L        confidence level, 0.5 < L < 1 (default 0.95)\n"
"      --noise PCT      verdict only when the whole CI is beyond +-PCT %%\n"
"                       (default 1)\n"
"      --seed N         bootstrap seed (default 0x%llx, always printed)\n"
"      --iters N        bootstrap resamples, >= 100 (default %u)\n"
"  -h, --help           this text\n"
"\n"
"Change = 100 * (exp(mean over pairs of ln(B/A)) - 1); the CI is a\n"
"t-interval on the per-pair log ratios, exponentiated.  Refused with\n"
"exit 2: a plan whose rounds do not hold every state once, samples that\n"
"match no planned run or appear twice, a missing value on one side of a\n"
"pair (without --allow-missing), traced files whose payload label or\n"
"CPU-cost unit disagree.\n",
		(unsigned long long)STATS_BOOT_SEED, STATS_BOOT_ITERS);
}

static int state_index(const struct set *s, const char *name)
{
	unsigned int i;

	for (i = 0; i < s->nstates; i++)
		if (!strcmp(s->state_names[i], name))
			return (int)i;
	return -1;
}

static int payload_index(const struct set *s, unsigned int p)
{
	unsigned int i;

	for (i = 0; i < s->npayloads; i++)
		if (s->payloads[i] == p)
			return (int)i;
	return -1;
}

static int add_sample(struct set *s, const struct sum_run *run,
		      unsigned int payload, enum sum_metric m, double v)
{
	struct sum_sample *n;

	if (s->nsamples == s->cap) {
		s->cap = s->cap ? 2 * s->cap : 256;
		n = realloc(s->samples, s->cap * sizeof(*n));
		if (!n)
			return -ENOMEM;
		s->samples = n;
	}
	s->samples[s->nsamples++] = (struct sum_sample){
		.round = run->round, .pos = run->pos, .state = run->state,
		.payload = payload, .metric = m, .value = v,
	};
	return 0;
}

/* ------------------------------------------------------------- loading */

static int load_manifest(struct set *s, const char *dir)
{
	char path[4096];
	json_error_t jerr;
	json_t *a, *v, *run;
	size_t i;

	snprintf(path, sizeof(path), "%s/manifest.json", dir);
	s->manifest = json_load_file(path, 0, &jerr);
	if (!s->manifest) {
		fprintf(stderr, SUM_NAME ": %s: %s (line %d)\n", path, jerr.text,
			jerr.line);
		return VB_EXIT_USAGE;
	}
	a = json_object_get(s->manifest, "states");
	if (!json_is_array(a) || !json_array_size(a) ||
	    json_array_size(a) > SUM_MAX_STATES) {
		fprintf(stderr, SUM_NAME ": %s: 'states' must list 1..%d states\n",
			path, SUM_MAX_STATES);
		return VB_EXIT_USAGE;
	}
	json_array_foreach(a, i, v) {
		const char *n = json_string_value(json_object_get(v, "name"));

		if (!n || !*n) {
			fprintf(stderr, SUM_NAME ": %s: state %zu has no name\n", path, i);
			return VB_EXIT_USAGE;
		}
		s->state_names[s->nstates++] = n;
		if (state_index(s, n) != (int)s->nstates - 1) {
			fprintf(stderr, SUM_NAME ": %s: state '%s' listed twice\n", path, n);
			return VB_EXIT_USAGE;
		}
	}
	s->rx_cpu = -1;
	s->icount = !strcmp(json_string_value(json_object_get(json_object_get(s->manifest,
				"experiment"), "clock")) ?: "wall", "icount");
	{
		json_t *ex = json_object_get(json_object_get(s->manifest, "experiment"),
					     "exclusion");
		json_t *mo = json_object_get(ex, "max_other_cores");
		json_t *ms = json_object_get(ex, "max_steal_pct");

		if ((mo && !json_is_number(mo) && !json_is_null(mo)) ||
		    (ms && !json_is_number(ms) && !json_is_null(ms))) {
			fprintf(stderr, SUM_NAME ": %s: experiment.exclusion limits must be numbers or null\n",
				path);
			return VB_EXIT_USAGE;
		}
		s->max_other = json_is_number(mo) ? json_number_value(mo) : NAN;
		s->max_steal = json_is_number(ms) ? json_number_value(ms) : NAN;
		s->rule = json_string_value(json_object_get(ex, "rule"));
	}
	v = json_object_get(json_object_get(s->manifest, "experiment"), "rx_cpu");
	if (v) {
		if (!json_is_integer(v) || json_integer_value(v) < 0 ||
		    json_integer_value(v) >= SUM_MAX_CPUS) {
			fprintf(stderr, SUM_NAME ": %s: experiment.rx_cpu must be a CPU number below %d\n",
				path, SUM_MAX_CPUS);
			return VB_EXIT_USAGE;
		}
		s->rx_cpu = (int)json_integer_value(v);
	}
	a = json_object_get(s->manifest, "payloads");
	if (!json_is_array(a) || !json_array_size(a) ||
	    json_array_size(a) > SUM_MAX_PAYLOADS) {
		fprintf(stderr, SUM_NAME ": %s: 'payloads' must list 1..%d sizes\n",
			path, SUM_MAX_PAYLOADS);
		return VB_EXIT_USAGE;
	}
	json_array_foreach(a, i, v) {
		json_int_t p = json_integer_value(v);

		if (!json_is_integer(v) || p <= 0 || p > (1 << 30) ||
		    payload_index(s, (unsigned int)p) >= 0) {
			fprintf(stderr, SUM_NAME ": %s: bad or repeated payload at index %zu\n",
				path, i);
			return VB_EXIT_USAGE;
		}
		s->payloads[s->npayloads++] = (unsigned int)p;
	}
	a = json_object_get(s->manifest, "runs");
	if (!json_is_array(a) || !json_array_size(a)) {
		fprintf(stderr, SUM_NAME ": %s: no 'runs'\n", path);
		return VB_EXIT_USAGE;
	}
	s->nruns = json_array_size(a);
	s->runs = calloc(s->nruns, sizeof(*s->runs));
	s->run_dirs = calloc(s->nruns, sizeof(*s->run_dirs));
	if (!s->runs || !s->run_dirs) {
		fprintf(stderr, SUM_NAME ": out of memory\n");
		return VB_EXIT_FAIL;
	}
	json_array_foreach(a, i, run) {
		json_t *r = json_object_get(run, "round");
		json_t *p = json_object_get(run, "pos");
		json_t *st = json_object_get(run, "status");
		const char *name = json_string_value(json_object_get(run, "state"));
		const char *d = json_string_value(json_object_get(run, "dir"));
		int idx = name ? state_index(s, name) : -1;

		if (!json_is_integer(r) || !json_is_integer(p) ||
		    !json_is_integer(st) || idx < 0 || !d ||
		    json_integer_value(r) < 0 || json_integer_value(p) < 0 ||
		    strstr(d, "..")) {
			fprintf(stderr, SUM_NAME ": %s: run %zu needs round, pos, status (integers), a known state and a dir inside the set\n",
				path, i);
			return VB_EXIT_USAGE;
		}
		s->runs[i] = (struct sum_run){
			.round = (unsigned int)json_integer_value(r),
			.pos = (unsigned int)json_integer_value(p),
			.state = (unsigned int)idx,
			.status = (int)json_integer_value(st),
		};
		s->run_dirs[i] = d;
	}
	return 0;
}

static double jget(json_t *o, const char *k)
{
	json_t *v = json_object_get(o, k);

	return json_is_number(v) ? json_number_value(v) : NAN;
}

/* The run's host-xfer.jsonl, the rule applied to each transfer.  A run
 * without one (older sets, icount sets before it existed, a watcher that
 * saw nothing) keeps all its samples and is counted. */
static int load_xfers(struct set *s, const char *dir, size_t ri)
{
	char path[4096], line[1024];
	unsigned int lineno = 0;
	json_error_t jerr;
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s/host-xfer.jsonl", dir, s->run_dirs[ri]);
	f = fopen(path, "r");
	if (!f) {
		if (errno != ENOENT) {
			fprintf(stderr, SUM_NAME ": %s: %s\n", path, strerror(errno));
			return VB_EXIT_FAIL;
		}
		if (s->runs[ri].status == 0)
			s->runs_no_host++;
		return 0;
	}
	while (fgets(line, sizeof(line), f)) {
		struct xfer_rec *x;
		json_t *o;
		const char *name;

		lineno++;
		o = json_loads(line, 0, &jerr);
		name = json_string_value(json_object_get(o, "xfer"));
		if (!o || !name || strlen(name) >= sizeof(x->name) ||
		    !json_is_integer(json_object_get(o, "payload")) ||
		    !isfinite(jget(o, "busy_cores")) || !isfinite(jget(o, "other_cores"))) {
			fprintf(stderr, SUM_NAME ": %s:%u: not a host transfer record (xfer, payload, busy_cores, other_cores ...)\n",
				path, lineno);
			json_decref(o);
			fclose(f);
			return VB_EXIT_USAGE;
		}
		if (s->nxfers == s->xcap) {
			struct xfer_rec *n;

			s->xcap = s->xcap ? 2 * s->xcap : 256;
			n = realloc(s->xfers, s->xcap * sizeof(*n));
			if (!n) {
				json_decref(o);
				fclose(f);
				fprintf(stderr, SUM_NAME ": out of memory\n");
				return VB_EXIT_FAIL;
			}
			s->xfers = n;
		}
		x = &s->xfers[s->nxfers++];
		memset(x, 0, sizeof(*x));
		x->run = ri;
		snprintf(x->name, sizeof(x->name), "%s", name);
		x->payload = (unsigned int)json_integer_value(json_object_get(o, "payload"));
		x->host_s = jget(o, "host_s");
		x->guest_s = jget(o, "guest_s");
		x->busy = jget(o, "busy_cores");
		x->steal = jget(o, "steal_pct");
		x->qemu = jget(o, "qemu_cores");
		x->backend = jget(o, "backend_cores");
		x->sender = jget(o, "sender_cores");
		x->other = jget(o, "other_cores");
		/* warm-up transfers are never measured: nothing to exclude */
		x->excluded = strncmp(name, "warmup.", 7) &&
			sum_xfer_excluded(x->other, x->steal, s->max_other, s->max_steal);
		json_decref(o);
	}
	fclose(f);
	return 0;
}

static bool xfer_excluded(const struct set *s, size_t ri, const char *name)
{
	size_t i;

	for (i = 0; i < s->nxfers; i++)
		if (s->xfers[i].run == ri && !strcmp(s->xfers[i].name, name))
			return s->xfers[i].excluded;
	return false;
}

static int load_samples(struct set *s, const char *dir, size_t ri)
{
	const struct sum_run *run = &s->runs[ri];
	char path[4096], line[1024];
	json_error_t jerr;
	unsigned int lineno = 0;
	FILE *f;
	int rc = 0;

	snprintf(path, sizeof(path), "%s/%s/samples.jsonl", dir, s->run_dirs[ri]);
	f = fopen(path, "r");
	if (!f) {
		/* A guest that failed before measuring: no pair from it. */
		if (errno == ENOENT && run->status != 0)
			return 0;
		fprintf(stderr, SUM_NAME ": %s: %s\n", path, strerror(errno));
		return errno == ENOENT ? VB_EXIT_USAGE : VB_EXIT_FAIL;
	}
	while (fgets(line, sizeof(line), f)) {
		json_t *o, *v;
		const char *m;
		json_int_t p;
		int mi;

		lineno++;
		if (line[0] == '\n')
			continue;
		o = json_loads(line, 0, &jerr);
		m = json_string_value(json_object_get(o, "metric"));
		v = json_object_get(o, "value");
		p = json_integer_value(json_object_get(o, "payload"));
		mi = m ? sum_metric_find(m) : -1;
		if (!o || mi < 0 || !json_is_number(v) ||
		    !json_is_integer(json_object_get(o, "payload")) || p <= 0 ||
		    sum_metrics[mi].from_results) {
			fprintf(stderr, SUM_NAME ": %s:%u: not a sample line (payload, a known metric measured by the guest script, value)\n",
				path, lineno);
			json_decref(o);
			rc = VB_EXIT_USAGE;
			break;
		}
		m = json_string_value(json_object_get(o, "xfer"));
		if (m && xfer_excluded(s, ri, m)) {
			/* the exclusion rule: this transfer measured the host */
			s->dropped_samples++;
			json_decref(o);
			continue;
		}
		if (add_sample(s, run, (unsigned int)p, mi, json_number_value(v))) {
			json_decref(o);
			rc = VB_EXIT_FAIL;
			break;
		}
		json_decref(o);
	}
	fclose(f);
	return rc;
}

static int load_traced(struct set *s, const char *dir, size_t ri)
{
	const struct sum_run *run = &s->runs[ri];
	struct vb_results r;
	struct vb_metrics m;
	char path[4096], err[512];
	const char *lab;
	unsigned int pi, st = run->state;
	size_t c;
	int rc;

	for (pi = 0; pi < s->npayloads; pi++) {
		unsigned int p = s->payloads[pi];

		snprintf(path, sizeof(path), "traced.%u", p);
		if (xfer_excluded(s, ri, path)) {
			s->dropped_traced++;
			continue;
		}
		snprintf(path, sizeof(path), "%s/%s/traced/%u.json", dir,
			 s->run_dirs[ri], p);
		vb_results_init(&r);
		rc = vb_results_load(path, &r, err, sizeof(err));
		if (rc == -ENOENT) {
			vb_results_free(&r);
			continue;	/* untraced set, or a failed transfer */
		}
		if (rc) {
			fprintf(stderr, SUM_NAME ": %s\n", err);
			vb_results_free(&r);
			return rc == -EIO ? VB_EXIT_FAIL : VB_EXIT_USAGE;
		}
		lab = vb_results_label(&r, "payload");
		if (!lab || strtoul(lab, NULL, 10) != p) {
			fprintf(stderr, SUM_NAME ": %s: payload label '%s' is not %u\n",
				path, lab ? lab : "(none)", p);
			vb_results_free(&r);
			return VB_EXIT_USAGE;
		}
		if (!s->have_cost_unit) {
			s->have_cost_unit = true;
			s->cost_unit = r.cost.unit;
		} else if (s->cost_unit != r.cost.unit) {
			fprintf(stderr, SUM_NAME ": %s: CPU cost in %s, earlier files in %s: not comparable\n",
				path, vb_cost_unit_name(r.cost.unit),
				vb_cost_unit_name(s->cost_unit));
			vb_results_free(&r);
			return VB_EXIT_USAGE;
		}
		snprintf(s->kernel_release[st], sizeof(s->kernel_release[st]),
			 "%s", r.kernel_release);
		snprintf(s->kernel_mode[st], sizeof(s->kernel_mode[st]), "%s",
			 vb_mode_name(r.mode));
		vb_metrics_compute(&r.totals, &r.cost, r.trace, r.self.duty, &m);
		s->ntraced++;
#define ADD(metric, val) \
		if (isfinite(val) && add_sample(s, run, p, metric, val)) \
			goto oom
		ADD(SUM_M_BATCH_PKTS, m.mean_batch_pkts);
		/* full mode: window time; light: the kernel's lock hold */
		ADD(SUM_M_HOLD_MEAN, r.trace == VB_TRACE_FULL ? m.window_mean_ns
							      : m.kb_hold_mean_ns);
		ADD(SUM_M_DR_PER_PKT, m.dr_per_pkt);
		ADD(SUM_M_WS_PER_PKT, m.ws_per_pkt);
		ADD(SUM_M_LOOKUPS_PER_PKT, m.lookups_per_pkt);
		if (r.cost.measured)
			ADD(SUM_M_COST_PER_BYTE, m.cost_per_byte);
		if (r.cost.measured && s->rx_cpu >= 0 && r.totals.cnt[VB_C_BYTES]) {
			/* The cover letter's "Guest CPU1" figure: the vCPU the
			 * RX worker was pinned to, per byte received. */
			for (c = 0; c < r.ncpus; c++)
				if (r.cpus[c].cpu == (unsigned int)s->rx_cpu &&
				    r.cpus[c].cost > 0)
					ADD(SUM_M_COST_RX_CPU, (double)r.cpus[c].cost /
					    (double)r.totals.cnt[VB_C_BYTES]);
		}
		ADD(SUM_M_WORKER_NS_PER_BYTE, m.worker_ns_per_byte);
#undef ADD
		/* the plots show log2 slots: fold the exact batch lengths */
		for (c = 0; c < VB_LIN_SLOTS; c++)
			s->batch_hist[st][pi].slots[vb_hist_slot(c, VB_MAX_SLOTS)] +=
				r.totals.hist[VB_H_BATCH_PKTS].slots[c];
		for (c = 0; c < VB_MAX_SLOTS; c++)
			s->hold_hist[st][pi].slots[c] +=
				r.totals.hist[r.trace == VB_TRACE_FULL ? VB_H_WINDOW_NS
						: VB_H_KB_HOLD_NS].slots[c];
		for (c = 0; c < r.ncpus; c++) {
			struct cpu_acc *a;

			if (r.cpus[c].cpu >= SUM_MAX_CPUS)
				continue;
			a = &s->cpus[st][r.cpus[c].cpu];
			a->seen = true;
			a->pkts += r.cpus[c].agg.cnt[VB_C_PKTS];
			a->batches += r.cpus[c].agg.cnt[VB_C_BATCHES];
			a->worker_calls += r.cpus[c].agg.cnt[VB_C_WORKER_CALLS];
			a->worker_ns += r.cpus[c].agg.cnt[VB_C_WORKER_NS];
			if (r.cpus[c].cost > 0)
				a->cost += r.cpus[c].cost;
		}
		vb_results_free(&r);
	}
	return 0;
oom:
	vb_results_free(&r);
	fprintf(stderr, SUM_NAME ": out of memory\n");
	return VB_EXIT_FAIL;
}

/* ------------------------------------------------------------ analysis */

struct comp {
	unsigned int a, b;
	const char *title;
	struct sum_row rows[SUM_MAX_PAYLOADS][SUM_M_NR];
};

static const char *unit_of(const struct set *s, enum sum_metric m)
{
	if (m == SUM_M_COST_PER_BYTE || m == SUM_M_COST_RX_CPU)
		return s->have_cost_unit && s->cost_unit == VB_COST_CYCLES ?
			"cycles/byte" : "cpu-clock-ns/byte";
	return sum_metrics[m].unit;
}

static const char *verdict_name(const struct sum_row *r)
{
	if (!r->ok || !r->st.has_ci)
		return "no CI";
	switch (r->verdict) {
	case STATS_HIGHER: return "higher";
	case STATS_LOWER: return "lower";
	default: return "no significant change";
	}
}

/* Per-state mean and t-interval of the mean (unpaired; for the plots). */
static void state_mean_ci(const struct set *s, unsigned int st,
			  unsigned int payload, enum sum_metric m,
			  double level, double *mean, double *lo, double *hi)
{
	double v[4096];
	size_t i, n = 0;
	double sd, t;

	for (i = 0; i < s->nsamples && n < 4096; i++)
		if (s->samples[i].state == st && s->samples[i].payload == payload &&
		    s->samples[i].metric == m)
			v[n++] = s->samples[i].value;
	*mean = *lo = *hi = NAN;
	if (!n)
		return;
	*mean = stats_mean(v, n);
	*lo = *hi = *mean;
	if (n < 2)
		return;
	sd = stats_sd(v, n);
	t = stats_t_quantile((1 + level) / 2, (double)(n - 1));
	*lo = *mean - t * sd / sqrt((double)n);
	*hi = *mean + t * sd / sqrt((double)n);
}

/* ------------------------------------------------------------- outputs */

static json_t *jnum(double v)
{
	return isfinite(v) ? json_real(v) : json_null();
}

static json_t *row_json(const struct set *s, const struct comp *c,
			const struct sum_row *r)
{
	json_t *o = json_object();

	json_object_set_new(o, "payload", json_integer(r->payload));
	json_object_set_new(o, "metric", json_string(sum_metrics[r->metric].name));
	json_object_set_new(o, "unit", json_string(unit_of(s, r->metric)));
	json_object_set_new(o, "traced", json_boolean(sum_metrics[r->metric].traced));
	json_object_set_new(o, "n_pairs", json_integer((json_int_t)r->pairs.n));
	json_object_set_new(o, "n_ab", json_integer((json_int_t)r->pairs.n_ab));
	json_object_set_new(o, "n_ba", json_integer((json_int_t)(r->pairs.n - r->pairs.n_ab)));
	json_object_set_new(o, "dropped_pairs", json_integer((json_int_t)r->pairs.dropped));
	json_object_set_new(o, "baseline_state", json_string(s->state_names[c->a]));
	json_object_set_new(o, "patched_state", json_string(s->state_names[c->b]));
	json_object_set_new(o, "baseline", jnum(r->mean_a));
	json_object_set_new(o, "patched", jnum(r->mean_b));
	json_object_set_new(o, "change_pct", jnum(r->ok ? r->st.change_pct : NAN));
	json_object_set_new(o, "ci_low_pct", jnum(r->ok && r->st.has_ci ? r->st.ci_lo_pct : NAN));
	json_object_set_new(o, "ci_high_pct", jnum(r->ok && r->st.has_ci ? r->st.ci_hi_pct : NAN));
	json_object_set_new(o, "verdict", json_string(verdict_name(r)));
	json_object_set_new(o, "mde_pct", jnum(r->ok ? stats_paired_mde_pct(&r->st, SUM_MDE_POWER) : NAN));
	if (r->has_boot) {
		json_t *b = json_object();

		json_object_set_new(b, "point_pct", jnum(r->boot.point_pct));
		json_object_set_new(b, "low_pct", jnum(r->boot.lo_pct));
		json_object_set_new(b, "high_pct", jnum(r->boot.hi_pct));
		json_object_set_new(o, "bootstrap", b);
	}
	if (r->has_order) {
		json_t *b = json_object();

		json_object_set_new(b, "change_ab_pct", jnum(r->order.change_ab_pct));
		json_object_set_new(b, "change_ba_pct", jnum(r->order.change_ba_pct));
		json_object_set_new(b, "disagree", json_boolean(r->order.disagree));
		json_object_set_new(o, "order", b);
	}
	if (!r->ok)
		json_object_set_new(o, "why_no_stats", json_string(r->why));
	return o;
}

static bool row_has_data(const struct sum_row *r)
{
	return r->pairs.n || r->pairs.dropped;
}

/*
 * The values of metrics ma and mb of one state and payload in the same
 * boot, round by round, where both are positive: a[k], b[k] (at most max
 * rounds).  Returns k.
 */
static size_t same_boot_pairs(const struct set *s, unsigned int st,
			      unsigned int payload, enum sum_metric ma,
			      enum sum_metric mb, double *a, double *b, size_t max)
{
	unsigned int r;
	size_t i, k = 0;

	for (r = 0; r < s->nrounds && k < max; r++) {
		double x = NAN, y = NAN;

		for (i = 0; i < s->nsamples; i++) {
			const struct sum_sample *z = &s->samples[i];

			if (z->round != r || z->state != st || z->payload != payload)
				continue;
			if (z->metric == ma)
				x = z->value;
			else if (z->metric == mb)
				y = z->value;
		}
		if (x > 0 && y > 0) {
			a[k] = x;
			b[k++] = y;
		}
	}
	return k;
}

/* Mean of v[0..k) and its t-interval at the set's level (lo = hi = mean
 * below 2 values; NaN for none). */
static void mean_t_interval(const struct set *s, const double *v, size_t k,
			    double *mean, double *lo, double *hi)
{
	double u, t;

	*mean = *lo = *hi = NAN;
	if (!k)
		return;
	*mean = *lo = *hi = stats_mean(v, k);
	if (k < 2)
		return;
	u = stats_sd(v, k) / sqrt((double)k);
	t = stats_t_quantile((1 + s->level) / 2, (double)(k - 1));
	*lo = *mean - t * u;
	*hi = *mean + t * u;
}

/*
 * The tracer's own cost per state, the same payload in the same boot, as
 * mean and t-interval over the rounds.  icount: traced / untraced
 * instructions per byte - 1, both exact counts.  Wall clock: the time per
 * byte, untraced / traced throughput of the 64 KiB-recv() transfer - 1
 * (the traced transfer is payload * scale bytes, the untraced one sized
 * by time).  It differs between kernels because the tracer's work is per
 * lock window.
 */
static void tracer_cost(const struct set *s, unsigned int st, unsigned int payload,
			double *mean, double *lo, double *hi, size_t *n)
{
	double a[256], b[256], v[256];
	size_t i, k;

	if (s->icount) {
		k = same_boot_pairs(s, st, payload, SUM_M_INSN_PER_BYTE,
				    SUM_M_INSN_TRACED, a, b, 256);
	} else {
		/* a = traced rate, b = untraced rate: b / a = time ratio */
		k = same_boot_pairs(s, st, payload, SUM_M_TPUT_TRACED,
				    SUM_M_TPUT_FIXED, a, b, 256);
	}
	for (i = 0; i < k; i++)
		v[i] = 100.0 * (b[i] / a[i] - 1.0);
	*n = k;
	mean_t_interval(s, v, k, mean, lo, hi);
}

static json_t *tracer_cost_json(const struct set *s)
{
	json_t *a = json_array();
	unsigned int st, pi;

	for (st = 0; st < s->nstates; st++)
		for (pi = 0; pi < s->npayloads; pi++) {
			double m, lo, hi;
			size_t n;
			json_t *o;

			tracer_cost(s, st, s->payloads[pi], &m, &lo, &hi, &n);
			if (!n)
				continue;
			o = json_object();
			json_object_set_new(o, "state", json_string(s->state_names[st]));
			json_object_set_new(o, "payload", json_integer(s->payloads[pi]));
			json_object_set_new(o, "n_runs", json_integer((json_int_t)n));
			json_object_set_new(o, "overhead_pct", jnum(m));
			json_object_set_new(o, "ci_low_pct", jnum(n > 1 ? lo : NAN));
			json_object_set_new(o, "ci_high_pct", jnum(n > 1 ? hi : NAN));
			json_array_append_new(a, o);
		}
	return a;
}

/*
 * A within-run ratio per state: num / den of the same payload in the same
 * boot (vsock over TCP, say), as the geometric mean over the runs with a
 * t-interval on the log ratios.  Both sides ran back to back in one
 * guest, so the boot's own speed cancels.
 */
static void run_ratio(const struct set *s, unsigned int st, unsigned int payload,
		      enum sum_metric num, enum sum_metric den, double *mean,
		      double *lo, double *hi, size_t *n)
{
	double a[256], b[256], v[256];
	size_t i, k;

	k = same_boot_pairs(s, st, payload, num, den, a, b, 256);
	for (i = 0; i < k; i++)
		v[i] = log(a[i] / b[i]);
	*n = k;
	mean_t_interval(s, v, k, mean, lo, hi);
	*mean = exp(*mean);	/* NaN stays NaN */
	*lo = exp(*lo);
	*hi = exp(*hi);
}

static json_t *host_load_json(const struct set *s)
{
	json_t *o = json_object(), *all = json_array();
	size_t i, nex = 0;

	for (i = 0; i < s->nxfers; i++) {
		const struct xfer_rec *x = &s->xfers[i];
		const struct sum_run *r = &s->runs[x->run];

		nex += x->excluded;
		json_array_append_new(all, json_pack("{s:s,s:s,s:i,s:s,s:i,s:o,s:o,s:o,s:o,s:o,s:o,s:o,s:o,s:b}",
			"run", s->run_dirs[x->run], "state", s->state_names[r->state],
			"round", r->round, "xfer", x->name, "payload", x->payload,
			"host_s", jnum(x->host_s), "guest_s", jnum(x->guest_s),
			"busy_cores", jnum(x->busy), "steal_pct", jnum(x->steal),
			"qemu_cores", jnum(x->qemu), "backend_cores", jnum(x->backend),
			"sender_cores", jnum(x->sender), "other_cores", jnum(x->other),
			"excluded", x->excluded));
	}
	json_object_set_new(o, "rule", json_string(s->rule ? s->rule : "none"));
	json_object_set_new(o, "max_other_cores", jnum(s->max_other));
	json_object_set_new(o, "max_steal_pct", jnum(s->max_steal));
	json_object_set_new(o, "transfers", json_integer((json_int_t)s->nxfers));
	json_object_set_new(o, "excluded", json_integer((json_int_t)nex));
	json_object_set_new(o, "dropped_samples", json_integer((json_int_t)s->dropped_samples));
	json_object_set_new(o, "dropped_traced_files", json_integer((json_int_t)s->dropped_traced));
	json_object_set_new(o, "runs_without_host_record", json_integer((json_int_t)s->runs_no_host));
	json_object_set_new(o, "per_transfer", all);
	return o;
}

static json_t *tcp_ratio_json(const struct set *s)
{
	static const struct { const char *name; enum sum_metric num, den; } rs[] = {
		{ "tput_vsock_over_tcp", SUM_M_TPUT_FIXED, SUM_M_TPUT_TCP },
		{ "eff_vsock_over_tcp", SUM_M_EFF, SUM_M_EFF_TCP },
		{ "rtt_vsock_over_tcp", SUM_M_RTT_MEAN, SUM_M_RTT_TCP_MEAN },
	};
	json_t *a = json_array();
	unsigned int st, pi, k;

	for (k = 0; k < sizeof(rs) / sizeof(rs[0]); k++)
		for (st = 0; st < s->nstates; st++)
			for (pi = 0; pi < s->npayloads; pi++) {
				double m, lo, hi;
				size_t n;

				run_ratio(s, st, s->payloads[pi], rs[k].num, rs[k].den,
					  &m, &lo, &hi, &n);
				if (!n)
					continue;
				json_array_append_new(a, json_pack("{s:s,s:s,s:i,s:i,s:o,s:o,s:o}",
					"ratio", rs[k].name, "state", s->state_names[st],
					"payload", s->payloads[pi], "n_runs", (int)n,
					"ratio_mean", jnum(m), "ci_low", jnum(n > 1 ? lo : NAN),
					"ci_high", jnum(n > 1 ? hi : NAN)));
			}
	return a;
}

static int write_summary(const struct set *s, struct comp *comps, size_t ncomp,
			 const struct sum_opts *o)
{
	json_t *root = json_object(), *carr = json_array(), *meth = json_object();
	json_t *runs = json_array(), *wcpu = json_object(), *kern = json_object();
	char path[4096], seed[32];
	const char *keys[] = { "label", "date", "quick", "pairs", "command",
			       "states", "machine", "experiment", "rtt_sizes",
			       "payloads", "started", "finished", "elapsed_s",
			       "pairs_planned" };
	size_t i, k, pi;
	unsigned int st, m, cpu;

	json_object_set_new(root, "format", json_string(SUM_FORMAT));
	json_object_set_new(root, "version", json_integer(1));
	for (k = 0; k < sizeof(keys) / sizeof(keys[0]); k++) {
		json_t *v = json_object_get(s->manifest, keys[k]);

		if (v)
			json_object_set(root, keys[k], v);
	}
	snprintf(seed, sizeof(seed), "0x%llx", (unsigned long long)o->st.seed);
	json_object_set_new(meth, "ci", json_string("t-interval on per-pair log ratios ln(B/A), exponentiated"));
	json_object_set_new(meth, "change", json_string("100*(exp(mean ln(B/A))-1)"));
	json_object_set_new(meth, "level", json_real(o->st.level));
	json_object_set_new(meth, "noise_pct", json_real(o->st.noise));
	json_object_set_new(meth, "bootstrap", json_pack("{s:s,s:i,s:s}",
		"statistic", "ratio of means over resampled pairs, percentile interval",
		"iters", (json_int_t)o->st.iters, "seed", seed));
	json_object_set_new(meth, "pairing", json_string("one pair per round; rounds alternate the run order (AB/BA)"));
	json_object_set_new(meth, "missing", json_string(o->allow_missing ?
		"incomplete pairs dropped and counted (dropped_pairs)" :
		"incomplete pairs refused"));
	json_object_set_new(root, "method", meth);
	json_object_set_new(root, "rounds", json_integer(s->nrounds));
	json_object_set_new(root, "traced_files", json_integer((json_int_t)s->ntraced));
	json_object_set_new(root, "cost_unit", json_string(unit_of(s, SUM_M_COST_PER_BYTE)));
	for (st = 0; st < s->nstates; st++) {
		json_t *cp = json_object();

		json_object_set_new(kern, s->state_names[st], json_pack("{s:s,s:s}",
			"release_traced", s->kernel_release[st],
			"mode_detected", s->kernel_mode[st]));
		for (cpu = 0; cpu < SUM_MAX_CPUS; cpu++) {
			const struct cpu_acc *a = &s->cpus[st][cpu];
			char key[8];

			if (!a->seen)
				continue;
			snprintf(key, sizeof(key), "%u", cpu);
			json_object_set_new(cp, key, json_pack("{s:I,s:I,s:I,s:I,s:I}",
				"pkts", (json_int_t)a->pkts,
				"batches", (json_int_t)a->batches,
				"worker_calls", (json_int_t)a->worker_calls,
				"worker_ns", (json_int_t)a->worker_ns,
				"cost", (json_int_t)a->cost));
		}
		json_object_set_new(wcpu, s->state_names[st], cp);
	}
	json_object_set_new(root, "tracer_kernels", kern);
	json_object_set_new(root, "per_cpu_traced", wcpu);
	json_object_set_new(root, "clock", json_string(s->icount ? "icount" : "wall"));
	json_object_set_new(root, "tracer_overhead", tracer_cost_json(s));
	json_object_set_new(root, "host_load", host_load_json(s));
	json_object_set_new(root, "vsock_vs_tcp", tcp_ratio_json(s));
	for (i = 0; i < s->nruns; i++)
		json_array_append_new(runs, json_pack("{s:i,s:i,s:s,s:s,s:i}",
			"round", s->runs[i].round, "pos", s->runs[i].pos,
			"state", s->state_names[s->runs[i].state],
			"dir", s->run_dirs[i], "status", s->runs[i].status));
	json_object_set_new(root, "runs", runs);
	for (i = 0; i < ncomp; i++) {
		json_t *c = json_object(), *rows = json_array();

		json_object_set_new(c, "name", json_sprintf("%s->%s",
			s->state_names[comps[i].a], s->state_names[comps[i].b]));
		json_object_set_new(c, "title", json_string(comps[i].title));
		json_object_set_new(c, "baseline_state", json_string(s->state_names[comps[i].a]));
		json_object_set_new(c, "patched_state", json_string(s->state_names[comps[i].b]));
		for (pi = 0; pi < s->npayloads; pi++)
			for (m = 0; m < SUM_M_NR; m++)
				if (row_has_data(&comps[i].rows[pi][m]))
					json_array_append_new(rows,
						row_json(s, &comps[i], &comps[i].rows[pi][m]));
		json_object_set_new(c, "rows", rows);
		json_array_append_new(carr, c);
	}
	json_object_set_new(root, "comparisons", carr);
	snprintf(path, sizeof(path), "%s/summary.json", o->dir);
	if (json_dump_file(root, path, JSON_INDENT(1) | JSON_SORT_KEYS |
			   JSON_REAL_PRECISION(8))) {
		fprintf(stderr, SUM_NAME ": cannot write %s\n", path);
		json_decref(root);
		return VB_EXIT_FAIL;
	}
	json_decref(root);
	return 0;
}

/* One cover-letter table: payload | A | B | change (CI) [| extra]. */
static void md_table(FILE *f, const struct set *s, const struct comp *c,
		     enum sum_metric m, enum sum_metric counts,
		     const char *heading)
{
	char b1[64], b2[64], b3[96], b4[24], pl[16], c1[32], c2[32];
	bool any = false;
	unsigned int pi;
	double mde;

	for (pi = 0; pi < s->npayloads; pi++)
		any |= row_has_data(&c->rows[pi][m]);
	if (!any)
		return;
	fprintf(f, "\n%s (%s):\n\n", heading, unit_of(s, m));
	/* icount's efficiency: bytes per 1000 guest instructions, derived */
	bool per_kinsn = m == SUM_M_INSN_PER_BYTE;

	fprintf(f, "| payload | %s | %s | change (%.0f%% CI) | n | MDE |",
		s->state_names[c->a], s->state_names[c->b], 100 * s->level);
	if (counts != SUM_M_NR)
		fprintf(f, " recv() (%s/%s) |", s->state_names[c->a],
			s->state_names[c->b]);
	if (per_kinsn)
		fprintf(f, " bytes per 1000 insns (%s/%s) |", s->state_names[c->a],
			s->state_names[c->b]);
	fputc('\n', f);
	fprintf(f, "|---|---:|---:|---|---:|---:|%s\n",
		counts != SUM_M_NR || per_kinsn ? "---:|" : "");
	for (pi = 0; pi < s->npayloads; pi++) {
		const struct sum_row *r = &c->rows[pi][m];

		if (!row_has_data(r))
			continue;
		mde = r->ok ? stats_paired_mde_pct(&r->st, SUM_MDE_POWER) : NAN;
		if (isfinite(mde))
			snprintf(b4, sizeof(b4), "%.2g%%", mde);
		else
			snprintf(b4, sizeof(b4), "-");
		fprintf(f, "| %s | %s | %s | %s | %zu%s | %s |",
			sum_payload_label(s->payloads[pi], pl, sizeof(pl)),
			sum_fmt_value(r->mean_a, b1, sizeof(b1)),
			sum_fmt_value(r->mean_b, b2, sizeof(b2)),
			sum_fmt_change(r, b3, sizeof(b3)), r->pairs.n,
			r->pairs.dropped ? " (+dropped)" : "", b4);
		if (counts != SUM_M_NR) {
			const struct sum_row *rc = &c->rows[pi][counts];

			fprintf(f, " %s/%s |",
				sum_fmt_value(round(rc->mean_a), c1, sizeof(c1)),
				sum_fmt_value(round(rc->mean_b), c2, sizeof(c2)));
		}
		if (per_kinsn)
			fprintf(f, " %s/%s |",
				sum_fmt_value(1000 / r->mean_a, c1, sizeof(c1)),
				sum_fmt_value(1000 / r->mean_b, c2, sizeof(c2)));
		fputc('\n', f);
	}
}

/* Tracer figures of one comparison: the two means per metric, no CI. */
static void md_tracer(FILE *f, const struct set *s, const struct comp *c)
{
	static const enum sum_metric ms[] = {
		SUM_M_BATCH_PKTS, SUM_M_HOLD_MEAN, SUM_M_DR_PER_PKT,
		SUM_M_WS_PER_PKT, SUM_M_LOOKUPS_PER_PKT, SUM_M_WORKER_NS_PER_BYTE,
	};
	char b1[32], b2[32], pl[16];
	unsigned int pi, k;
	bool any = false;

	for (pi = 0; pi < s->npayloads; pi++)
		any |= row_has_data(&c->rows[pi][SUM_M_BATCH_PKTS]);
	if (!any)
		return;
	fprintf(f, "\nTracer view (means over the traced runs, %s / %s):\n\n"
		"| payload | pkts/batch | hold mean ns | data-ready/pkt | write-space/pkt | lookups/pkt | worker ns/byte |\n"
		"|---|---:|---:|---:|---:|---:|---:|\n",
		s->state_names[c->a], s->state_names[c->b]);
	for (pi = 0; pi < s->npayloads; pi++) {
		fprintf(f, "| %s |", sum_payload_label(s->payloads[pi], pl, sizeof(pl)));
		for (k = 0; k < sizeof(ms) / sizeof(ms[0]); k++) {
			const struct sum_row *r = &c->rows[pi][ms[k]];

			fprintf(f, " %s / %s |",
				sum_fmt_value(r->mean_a, b1, sizeof(b1)),
				sum_fmt_value(r->mean_b, b2, sizeof(b2)));
		}
		fputc('\n', f);
	}
}

static void md_order(FILE *f, const struct set *s, const struct comp *c)
{
	char pl[16];
	unsigned int pi, m;
	int n = 0;

	for (pi = 0; pi < s->npayloads; pi++)
		for (m = 0; m < SUM_M_NR; m++) {
			const struct sum_row *r = &c->rows[pi][m];

			if (r->has_order && r->order.disagree) {
				if (!n++)
					fprintf(f, "\nOrder effect (AB and BA pairs disagree beyond their CIs):\n\n");
				fprintf(f, "- %s %s: AB %+.2f%% (n=%zu), BA %+.2f%% (n=%zu)\n",
					sum_payload_label(s->payloads[pi], pl, sizeof(pl)),
					sum_metrics[m].name, r->order.change_ab_pct,
					r->order.n_ab, r->order.change_ba_pct, r->order.n_ba);
			}
			if (r->pairs.dropped)
				fprintf(f, "- %s %s: %zu incomplete pair(s) dropped\n",
					sum_payload_label(s->payloads[pi], pl, sizeof(pl)),
					sum_metrics[m].name, r->pairs.dropped);
		}
	if (!n)
		fprintf(f, "\nOrder check: AB and BA pairs agree within their CIs for every row (or too few pairs per order to tell).\n");
}

static void md_boot(FILE *f, const struct set *s, const struct comp *c,
		    enum sum_metric m)
{
	char pl[16];
	unsigned int pi;
	int n = 0;

	for (pi = 0; pi < s->npayloads; pi++) {
		const struct sum_row *r = &c->rows[pi][m];

		if (!r->has_boot)
			continue;
		if (!n++)
			fprintf(f, "\nBootstrap cross-check, %s (ratio of means, percentile):", sum_metrics[m].name);
		fprintf(f, "%s %s %+.2f%% [%+.2f%%, %+.2f%%]", n > 1 ? ";" : "",
			sum_payload_label(s->payloads[pi], pl, sizeof(pl)),
			r->boot.point_pct, r->boot.lo_pct, r->boot.hi_pct);
	}
	if (n)
		fputc('\n', f);
}

/* Host->guest sets name the RX worker's vCPU in their manifest; loopback
 * ones have none (rx_cpu stays -1). */
static bool set_is_h2g(const struct set *s)
{
	return s->rx_cpu >= 0;
}

static void md_comparison(FILE *f, const struct set *s, const struct comp *c,
			  bool full)
{
	fprintf(f, "\n## %s\n", c->title);
	md_table(f, s, c, SUM_M_INSN_PER_BYTE, SUM_M_NR,
		 "Guest instructions per received byte, all vCPUs, fixed 64K receiver, untraced (icount, exact count from accept() to EOF)");
	md_table(f, s, c, s->rx_cpu == 0 ? SUM_M_INSN_CPU0 : SUM_M_INSN_CPU1, SUM_M_NR,
		 s->rx_cpu >= 0 ?
		 "Guest instructions per received byte on the RX worker's vCPU (the cover letter's Guest CPU1 table), untraced (icount)" :
		 "Guest instructions per received byte on vCPU 1 (the sender's; the loopback worker runs where it was queued), untraced (icount)");
	md_table(f, s, c, s->rx_cpu == 0 ? SUM_M_INSN_CPU1 : SUM_M_INSN_CPU0, SUM_M_NR,
		 "Guest instructions per received byte on vCPU 0 (the receiver's), untraced (icount)");
	md_table(f, s, c, SUM_M_INSN_KERNEL, SUM_M_NR,
		 "Kernel-mode guest instructions per received byte, all vCPUs, untraced (icount)");
	md_table(f, s, c, SUM_M_INSN_MATCH, SUM_M_NR,
		 "Guest instructions per received byte, recv() size = write size, untraced (icount)");
	md_table(f, s, c, SUM_M_TPUT_FIXED, SUM_M_NR,
		 s->icount ?
		 "RX rate in guest time, 64K recv() size, SO_RCVLOWAT=1 (icount: guest time is instructions of both vCPUs in turn, so this is work, not parallel throughput)" :
		 "End-to-end RX throughput, 64K recv() size, SO_RCVLOWAT=1");
	md_table(f, s, c, SUM_M_TPUT_MATCH, SUM_M_RECV_MATCH,
		 "Fixed-syscall stress test, recv() size = sender write size");
	if (full) {
		md_table(f, s, c, SUM_M_RECV_FIXED, SUM_M_NR,
			 "recv() calls with the 64K receiver");
		md_table(f, s, c, SUM_M_RX_NVCSW, SUM_M_NR,
			 "Reader wake-ups: the receiver's sleeps in recv() per MiB (voluntary context switches, getrusage), 64K receiver, untraced");
		md_table(f, s, c, SUM_M_TX_NVCSW, SUM_M_NR,
			 "Sender waits: the loopback sender's sleeps per MiB (voluntary context switches: credit or buffer waits), untraced");
		md_table(f, s, c, SUM_M_RTT_MEAN, SUM_M_NR,
			 "Request-response latency, ping-pong mean RTT");
		md_table(f, s, c, SUM_M_RTT_P50, SUM_M_NR, "Ping-pong RTT p50");
		md_table(f, s, c, SUM_M_RTT_P99, SUM_M_NR, "Ping-pong RTT p99");
		md_table(f, s, c, SUM_M_RTT_P999, SUM_M_NR,
			 "Ping-pong RTT p99.9 (from 1000 or more round trips only)");
	}
	md_table(f, s, c, SUM_M_STAT_NS_PER_BYTE, SUM_M_NR,
		 "CPU cost per received byte, all vCPUs, fixed 64K receiver, untraced run (busy time from /proc/stat, 10 ms ticks)");
	md_table(f, s, c, SUM_M_STAT_RX_NS_PER_BYTE, SUM_M_NR,
		 "CPU cost per received byte on the RX worker's vCPU (the cover letter's Guest CPU1 table), fixed 64K receiver, untraced run (/proc/stat)");
	md_table(f, s, c, SUM_M_EFF, SUM_M_NR,
		 "Efficiency: RX throughput per busy vCPU, all vCPUs, fixed 64K receiver, untraced, wall clock (/proc/stat)");
	md_table(f, s, c, SUM_M_EFF_RX, SUM_M_NR,
		 "Efficiency on the RX worker's vCPU: throughput per busy RX vCPU, untraced, wall clock (/proc/stat)");
	md_table(f, s, c, SUM_M_TPUT_TCP, SUM_M_NR,
		 set_is_h2g(s) ?
		 "Control: the same transfer over TCP from the host through the guest's virtio-net NIC, untraced, wall clock (the series does not touch TCP: a change here is the boots' or the host's, not the patches')" :
		 "Control: the same transfer over TCP on 127.0.0.1, untraced, wall clock (the series does not touch TCP: a change here is the boots' or the host's, not the patches')");
	if (full)
		md_table(f, s, c, SUM_M_RTT_TCP_MEAN, SUM_M_NR,
			 "Control: ping-pong mean RTT over TCP, untraced, wall clock");
	md_table(f, s, c, SUM_M_COST_PER_BYTE, SUM_M_NR,
		 "CPU cost per received byte, all vCPUs, fixed 64K receiver, traced run (includes the tracer's own cost, which is per lock window: larger on unbatched kernels)");
	if (s->rx_cpu >= 0)
		md_table(f, s, c, SUM_M_COST_RX_CPU, SUM_M_NR,
			 "CPU cost per received byte on the RX worker's vCPU, fixed 64K receiver, traced run (tracer cost included)");
	md_table(f, s, c, SUM_M_INSN_TRACED, SUM_M_NR,
		 "Guest instructions per received byte under vsockbatch record, all vCPUs (icount; the tracer's own cost included)");
	if (full)
		md_table(f, s, c, SUM_M_TPUT_TRACED, SUM_M_NR,
			 "RX throughput of the traced runs (tracer overhead included: not comparable with the untraced tables)");
	md_tracer(f, s, c);
	md_boot(f, s, c, SUM_M_TPUT_FIXED);
	md_order(f, s, c);
}

/*
 * icount: how much of each transfer's guest time was warped idle time.
 * Large shares mean the guest waited (host->guest: for the host) and,
 * with a periodic tick, ran a timer interrupt at every warp: such counts
 * include idle-tick work that depends on how long the host took.
 */
static void md_warp(FILE *f, const struct set *s)
{
	char pl[16];
	unsigned int st, pi;
	bool any = false, bad = false;
	size_t i;

	for (i = 0; i < s->nsamples; i++)
		any |= s->samples[i].metric == SUM_M_WARP_PCT;
	if (!any)
		return;
	fprintf(f, "\n## Idle share of guest time (icount)\n\n"
		"Largest idle (warped) share of a fixed-64K transfer's guest time, per state\n"
		"(100 * (1 - instructions / guest ns)).  A warp ends at the next timer\n"
		"event; with the lab's periodic 250 Hz tick that is at most 4 ms, so each\n"
		"4 ms of idle guest time costs every vCPU a timer interrupt.  Where the\n"
		"guest idled for most of a transfer (> %d %%), those ticks are a large part\n"
		"of its count and grow with how long the host took: such counts measure\n"
		"the waiting, not the work.\n\n| payload |", SUM_WARP_MAX_PCT);
	for (st = 0; st < s->nstates; st++)
		fprintf(f, " %s |", s->state_names[st]);
	fprintf(f, "\n|---|");
	for (st = 0; st < s->nstates; st++)
		fprintf(f, "---:|");
	fputc('\n', f);
	for (pi = 0; pi < s->npayloads; pi++) {
		fprintf(f, "| %s |", sum_payload_label(s->payloads[pi], pl, sizeof(pl)));
		for (st = 0; st < s->nstates; st++) {
			double mx = -1;

			for (i = 0; i < s->nsamples; i++)
				if (s->samples[i].metric == SUM_M_WARP_PCT &&
				    s->samples[i].state == st &&
				    s->samples[i].payload == s->payloads[pi] &&
				    s->samples[i].value > mx)
					mx = s->samples[i].value;
			if (mx < 0)
				fprintf(f, " - |");
			else
				fprintf(f, " %.1f%% |", mx);
			bad |= mx > SUM_WARP_MAX_PCT;
		}
		fputc('\n', f);
	}
	if (bad)
		fprintf(f, "\n**Warning:** some transfers idled for more than %d %% of their guest time:\n"
			"their instruction counts are not a measure of work.\n", SUM_WARP_MAX_PCT);
}

static void md_tracer_cost(FILE *f, const struct set *s)
{
	char pl[16];
	unsigned int st, pi;
	bool any = false;

	for (st = 0; st < s->nstates; st++)
		for (pi = 0; pi < s->npayloads; pi++) {
			double m, lo, hi;
			size_t n;

			tracer_cost(s, st, s->payloads[pi], &m, &lo, &hi, &n);
			if (!n)
				continue;
			if (!any) {
				if (s->icount)
					fprintf(f, "\n## The tracer's own cost (measured)\n\n"
						"Guest instructions per byte of the traced transfer (`vsockbatch record`)\n"
						"over the untraced one of the same payload in the same boot, minus 1;\n"
						"mean and %.0f%% t-interval over the runs (icount: both are exact counts).\n\n"
						"| state | payload | tracer cost | n |\n|---|---|---:|---:|\n",
						100 * s->level);
				else
					fprintf(f, "\n## The tracer's own cost (measured)\n\n"
						"Wall-clock time per byte of the traced transfer (`vsockbatch record`,\n"
						"64 KiB recv(), payload x scale bytes) over the untraced one of the same\n"
						"payload in the same boot (sized to last the set's transfer time), minus 1:\n"
						"untraced / traced throughput - 1; mean and %.0f%% t-interval over the runs.\n"
						"Wall clock, so host noise is in it; the icount sets count it exactly.\n\n"
						"| state | payload | tracer cost | n |\n|---|---|---:|---:|\n",
						100 * s->level);
				any = true;
			}
			if (n > 1)
				fprintf(f, "| %s | %s | %+.1f%% [%+.1f%%, %+.1f%%] | %zu |\n",
					s->state_names[st],
					sum_payload_label(s->payloads[pi], pl, sizeof(pl)),
					m, lo, hi, n);
			else
				fprintf(f, "| %s | %s | %+.1f%% (no CI) | %zu |\n",
					s->state_names[st],
					sum_payload_label(s->payloads[pi], pl, sizeof(pl)), m, n);
		}
}

static int cmp_dbl(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

/* median of the finite values in v[0..n) (sorted in place); NaN if none */
static double median(double *v, size_t n)
{
	size_t i, k = 0;

	for (i = 0; i < n; i++)
		if (isfinite(v[i]))
			v[k++] = v[i];
	if (!k)
		return NAN;
	qsort(v, k, sizeof(*v), cmp_dbl);
	return k % 2 ? v[k / 2] : (v[k / 2 - 1] + v[k / 2]) / 2;
}

static void md_host_load(FILE *f, const struct set *s)
{
	static const char *kinds[] = { "fixed", "match", "tcp", "traced" };
	size_t i, k, nex = 0;
	unsigned int st;
	double *v;

	if (!s->nxfers && !s->runs_no_host)
		return;
	for (i = 0; i < s->nxfers; i++)
		nex += s->xfers[i].excluded;
	fprintf(f, "\n## Host load per transfer and the exclusion rule (sampled on the host's clock)\n\n"
		"Each transfer was framed on the guest's console and the host sampled its\n"
		"own /proc/stat and QEMU's (and in h2g the back-end's and the host sender's)\n"
		"CPU time at both ends (scripts/xfer-watch.sh).  Cores are busy ticks over\n"
		"all ticks times the host's CPUs; other = host busy - QEMU - back-end -\n"
		"sender: the load that was not this experiment.\n\n"
		"Rule (fixed in the manifest before the runs): %s",
		s->rule ? s->rule : "none");
	if (isfinite(s->max_other) || isfinite(s->max_steal))
		fprintf(f, " (max other %.3g cores, max steal %.3g %%)", s->max_other, s->max_steal);
	fprintf(f, ".\n\n%zu transfers with a host record, **%zu excluded** (%zu samples and %zu traced files dropped, so their pairs are incomplete and dropped);\n"
		"%zu run(s) without a host record (all their samples kept).\n",
		s->nxfers, nex, s->dropped_samples, s->dropped_traced, s->runs_no_host);
	if (!s->nxfers)
		return;
	v = calloc(s->nxfers, sizeof(*v));
	if (!v)
		return;
	fprintf(f, "\nMedians per state and kind of transfer (warm-ups left out):\n\n"
		"| state | transfer | n | excluded | host s | guest s | host busy cores | steal %% | QEMU cores | back-end cores | sender cores | other cores (max) |\n"
		"|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|\n");
	for (st = 0; st < s->nstates; st++)
		for (k = 0; k < sizeof(kinds) / sizeof(kinds[0]); k++) {
			size_t n = 0, ne = 0, len = strlen(kinds[k]);
			double med[8], mx = NAN;
			unsigned int q;

			for (q = 0; q < 8; q++) {
				n = 0;
				for (i = 0; i < s->nxfers; i++) {
					const struct xfer_rec *x = &s->xfers[i];
					const double vals[8] = { x->host_s, x->guest_s, x->busy,
						x->steal, x->qemu, x->backend, x->sender, x->other };

					if (s->runs[x->run].state != st ||
					    strncmp(x->name, kinds[k], len) || x->name[len] != '.')
						continue;
					v[n++] = vals[q];
					if (q == 7 && !(x->other <= mx))
						mx = x->other;
					if (q == 0)
						ne += x->excluded;
				}
				med[q] = median(v, n);
			}
			if (!n)
				continue;
			fprintf(f, "| %s | %s | %zu | %zu | %.2f | %.2f | %.2f | %.1f | %.2f | %.2f | %.2f | %.2f (%.2f) |\n",
				s->state_names[st], kinds[k], n, ne, med[0], med[1], med[2],
				med[3], med[4], med[5], med[6], med[7], mx);
		}
	free(v);
	if (!nex)
		return;
	fprintf(f, "\nExcluded transfers:\n\n");
	for (i = 0; i < s->nxfers; i++) {
		const struct xfer_rec *x = &s->xfers[i];

		if (x->excluded)
			fprintf(f, "- %s %s: other %.2f cores, steal %.1f %%, host busy %.2f, QEMU %.2f cores, %.2f s\n",
				s->run_dirs[x->run], x->name, x->other, x->steal,
				x->busy, x->qemu, x->host_s);
	}
}

static void md_ratio_cell(FILE *f, const struct set *s, unsigned int st,
			  unsigned int payload, enum sum_metric num, enum sum_metric den)
{
	double m, lo, hi;
	size_t n;

	run_ratio(s, st, payload, num, den, &m, &lo, &hi, &n);
	if (!n)
		fprintf(f, " - |");
	else if (n < 2)
		fprintf(f, " %.3f (n=1) |", m);
	else
		fprintf(f, " %.3f [%.3f, %.3f] |", m, lo, hi);
}

/* Per state mean of a metric at a payload, formatted; "-" without one. */
static const char *state_cell(const struct set *s, unsigned int st,
			      unsigned int payload, enum sum_metric m,
			      char *buf, size_t len)
{
	double mean, lo, hi;

	state_mean_ci(s, st, payload, m, s->level, &mean, &lo, &hi);
	if (!isfinite(mean))
		return "-";
	return sum_fmt_value(mean, buf, len);
}

/* Whether the set holds any sample of metric m. */
static bool has_metric(const struct set *s, enum sum_metric m)
{
	size_t i;

	for (i = 0; i < s->nsamples; i++)
		if (s->samples[i].metric == m)
			return true;
	return false;
}

static void md_tcp(FILE *f, const struct set *s)
{
	char b[6][32], pl[16];
	unsigned int st, pi;

	if (!has_metric(s, SUM_M_TPUT_TCP))
		return;
	fprintf(f, "\n## vsock beside TCP (same guest, same transfers; untraced, wall clock)\n\n");
	if (set_is_h2g(s))
		fprintf(f, "The fixed 64K-receiver transfer once more over TCP, from the host through\n"
			"the guest's virtio-net NIC in the same boot (host vb-sender --tcp to guest\n"
			"vb-recv --tcp: same writes, receiver, pinning and duration, Nagle on, default\n"
			"buffers, as a user gets it; QEMU's virtio-net on a tap device, see the\n"
			"manifest's tcp_note).  vsock is the lab's vhost-user-vsock back-end, TCP\n"
			"crosses the host's TCP stack, the tap and QEMU.\n");
	else
		fprintf(f, "The fixed 64K-receiver transfer once more over TCP on 127.0.0.1 in the same\n"
			"boot (vb-sender/vb-recv --tcp: same writes, receiver and pinning, Nagle on,\n"
			"default buffers, as a user gets it; time-bounded like iperf -t, see the\n"
			"manifest's tcp_note).\n");
	fprintf(f, "vsock/TCP is the geometric mean of the per-run ratios with a %.0f%%\n"
		"t-interval on their logs (each run is its own pair): above 1, vsock is faster.\n"
		"Efficiency = Gbit/s per busy vCPU (/proc/stat, all vCPUs).\n",
		100 * s->level);
	for (st = 0; st < s->nstates; st++) {
		fprintf(f, "\n%s:\n\n| payload | vsock Gbit/s | TCP Gbit/s | vsock/TCP | vsock Gbit/s per vCPU | TCP Gbit/s per vCPU | vsock/TCP efficiency |\n"
			"|---|---:|---:|---:|---:|---:|---:|\n", s->state_names[st]);
		for (pi = 0; pi < s->npayloads; pi++) {
			unsigned int p = s->payloads[pi];

			fprintf(f, "| %s | %s | %s |", sum_payload_label(p, pl, sizeof(pl)),
				state_cell(s, st, p, SUM_M_TPUT_FIXED, b[0], sizeof(b[0])),
				state_cell(s, st, p, SUM_M_TPUT_TCP, b[1], sizeof(b[1])));
			md_ratio_cell(f, s, st, p, SUM_M_TPUT_FIXED, SUM_M_TPUT_TCP);
			fprintf(f, " %s | %s |",
				state_cell(s, st, p, SUM_M_EFF, b[2], sizeof(b[2])),
				state_cell(s, st, p, SUM_M_EFF_TCP, b[3], sizeof(b[3])));
			md_ratio_cell(f, s, st, p, SUM_M_EFF, SUM_M_EFF_TCP);
			fputc('\n', f);
		}
	}
	if (!has_metric(s, SUM_M_RTT_TCP_MEAN))
		return;
	fprintf(f, "\nPing-pong mean RTT, vsock and TCP (us; vsock/TCP below 1: vsock answers sooner):\n\n"
		"| state | size | vsock RTT | TCP RTT | vsock/TCP |\n|---|---|---:|---:|---:|\n");
	for (st = 0; st < s->nstates; st++)
		for (pi = 0; pi < s->npayloads; pi++) {
			unsigned int p = s->payloads[pi];
			double m, lo, hi;

			state_mean_ci(s, st, p, SUM_M_RTT_TCP_MEAN, s->level, &m, &lo, &hi);
			if (!isfinite(m))
				continue;
			fprintf(f, "| %s | %s | %s | %s |", s->state_names[st],
				sum_payload_label(p, pl, sizeof(pl)),
				state_cell(s, st, p, SUM_M_RTT_MEAN, b[4], sizeof(b[4])),
				sum_fmt_value(m, b[5], sizeof(b[5])));
			md_ratio_cell(f, s, st, p, SUM_M_RTT_MEAN, SUM_M_RTT_TCP_MEAN);
			fputc('\n', f);
		}
}

/* Throughput beside efficiency per state (Stefan Hajnoczi's request):
 * wall clock from /proc/stat, icount from instruction counts. */
static void md_efficiency(FILE *f, const struct set *s)
{
	bool wall = has_metric(s, SUM_M_EFF), ic = has_metric(s, SUM_M_INSN_PER_BYTE);
	char b[4][32], pl[16];
	unsigned int st, pi;

	if (!wall && !ic)
		return;
	fprintf(f, "\n## Efficiency beside throughput (untraced)\n\n");
	if (wall)
		fprintf(f, "Wall clock: Gbit/s per busy vCPU = bits received / busy vCPU time during\n"
			"the transfer (/proc/stat ticks, all vCPUs; in h2g also the RX worker's vCPU\n"
			"alone).  A kernel that moves the same bytes with fewer busy vCPU-seconds\n"
			"is more efficient even where the host's noise hides a throughput change.\n\n");
	if (ic)
		fprintf(f, "Instruction count: bytes received per 1000 guest instructions (all vCPUs,\n"
			"= 1000 / insns per byte): work per byte, independent of the host.\n\n");
	fprintf(f, "| state | payload | Gbit/s (%s) |%s%s\n|---|---|---:|%s%s\n",
		s->icount ? "guest time" : "wall clock",
		wall ? " Gbit/s per busy vCPU |" : "",
		ic ? " bytes per 1000 insns |" : "",
		wall ? "---:|" : "", ic ? "---:|" : "");
	for (st = 0; st < s->nstates; st++)
		for (pi = 0; pi < s->npayloads; pi++) {
			unsigned int p = s->payloads[pi];
			double m, lo, hi;

			fprintf(f, "| %s | %s | %s |", s->state_names[st],
				sum_payload_label(p, pl, sizeof(pl)),
				state_cell(s, st, p, SUM_M_TPUT_FIXED, b[0], sizeof(b[0])));
			if (wall)
				fprintf(f, " %s |", state_cell(s, st, p, SUM_M_EFF, b[1], sizeof(b[1])));
			if (ic) {
				state_mean_ci(s, st, p, SUM_M_INSN_PER_BYTE, s->level, &m, &lo, &hi);
				fprintf(f, " %s |", isfinite(m) ? sum_fmt_value(1000 / m, b[2], sizeof(b[2])) : "-");
			}
			fputc('\n', f);
		}
}

static void md_where(FILE *f, const struct set *s)
{
	const char *worker, *pinning;
	unsigned int st, cpu;
	bool any = false;
	json_t *exp;

	for (st = 0; st < s->nstates; st++)
		for (cpu = 0; cpu < SUM_MAX_CPUS; cpu++)
			any |= s->cpus[st][cpu].seen;
	if (!any)
		return;
	/* Sets from before the host->guest mode have no rx_worker: loopback. */
	exp = json_object_get(s->manifest, "experiment");
	worker = json_string_value(json_object_get(exp, "rx_worker"));
	pinning = json_string_value(json_object_get(exp, "pinning"));
	fprintf(f, "\n## Where the RX worker ran (traced runs, all payloads summed)\n\n"
		"%s.  Packets and RX worker\n"
		"calls (%s) counted per CPU by the tracer:\n\n"
		"| state | CPU | packets | batches | worker calls | worker time ms | busy %s |\n",
		pinning ? pinning : "Receiver pinned to vCPU 0, sender to vCPU 1",
		worker ? worker : "vsock_loopback_work",
		s->have_cost_unit && s->cost_unit == VB_COST_CYCLES ? "cycles" : "cpu-clock ms");
	fprintf(f, "|---|---:|---:|---:|---:|---:|---:|\n");
	for (st = 0; st < s->nstates; st++)
		for (cpu = 0; cpu < SUM_MAX_CPUS; cpu++) {
			const struct cpu_acc *a = &s->cpus[st][cpu];

			if (!a->seen)
				continue;
			fprintf(f, "| %s | %u | %llu | %llu | %llu | %.1f | %.1f |\n",
				s->state_names[st], cpu,
				(unsigned long long)a->pkts,
				(unsigned long long)a->batches,
				(unsigned long long)a->worker_calls,
				a->worker_ns / 1e6,
				s->have_cost_unit && s->cost_unit == VB_COST_CYCLES ?
					(double)a->cost : a->cost / 1e6);
		}
}

static int write_report(const struct set *s, struct comp *comps, size_t ncomp,
			const struct sum_opts *o)
{
	const char *label = json_string_value(json_object_get(s->manifest, "label"));
	const char *cmd = json_string_value(json_object_get(s->manifest, "command"));
	json_t *mach = json_object_get(s->manifest, "machine");
	json_t *exp = json_object_get(s->manifest, "experiment");
	json_t *states = json_object_get(s->manifest, "states");
	char path[4096];
	const char *k;
	json_t *v;
	size_t i;
	FILE *f;

	snprintf(path, sizeof(path), "%s/report.md", o->dir);
	f = fopen(path, "w");
	if (!f) {
		fprintf(stderr, SUM_NAME ": %s: %s\n", path, strerror(errno));
		return VB_EXIT_FAIL;
	}
	fprintf(f, "# vsockbatch AB/BA experiment: %s\n\n", label ? label : "(no label)");
	if (cmd)
		fprintf(f, "Reproduce: `%s`\n\n", cmd);
	fprintf(f, "%u round(s); in every round each kernel state ran once on a fresh guest, the\n"
		"order alternating between rounds (forward, reversed), so each comparison\n"
		"below has one AB or BA pair per round.\n\n", s->nrounds);
	if (json_integer_value(json_object_get(s->manifest, "pairs_planned")) >
	    (json_int_t)s->nrounds)
		fprintf(f, "**Interrupted set:** %lld rounds were planned, %u completed.\n\n",
			(long long)json_integer_value(json_object_get(s->manifest, "pairs_planned")),
			s->nrounds);
	fprintf(f, "Method: change = 100*(exp(mean ln(B/A)) - 1) over the pairs; the CI is a\n"
		"%.0f%% t-interval on the per-pair log ratios, exponentiated (needs 2 pairs).\n"
		"Cross-check: bootstrap over the pairs (ratio of means, %u resamples,\n"
		"percentile interval, seed 0x%llx).  n = complete pairs.  MDE = the smallest\n"
		"change these pairs would detect with 80%% power (paired t-test at the CI's\n"
		"level, observed spread): a row whose CI includes 0 is \"not resolved\", and\n"
		"rules out only changes larger than its MDE.\n\n",
		100 * o->st.level, o->st.iters, (unsigned long long)o->st.seed);
	if (s->icount)
		fprintf(f, "Clock: **icount** (QEMU -icount shift=0,sleep=off).  Guest time is the\n"
			"guest's instruction count and every vCPU runs in turn in one host\n"
			"thread: the insns/byte tables are exact per-vCPU counts of the work done,\n"
			"independent of the host's load; the Gbit/s and RTT figures are in guest\n"
			"time, so they measure work on the critical path, not the parallel\n"
			"throughput of real CPUs.  Wall-clock sets measure that.\n\n");
	else
		fprintf(f, "Clock: **wall** (TCG at full speed): throughput and RTT in the guest's\n"
			"clock, which follows the host's; they are as noisy as the host is busy.\n\n");
	fprintf(f, "CPU cost unit: %s%s\n", unit_of(s, SUM_M_COST_PER_BYTE),
		s->have_cost_unit && s->cost_unit == VB_COST_CPU_CLOCK_NS ?
		" - no PMU under QEMU TCG, so the tracer reports busy CPU time\n"
		"(cpu-clock) in ns per received byte, not cycles per byte." : ".");
	fprintf(f, "\n## Setup\n\n");
	json_array_foreach(states, i, v) {
		const char *kk;
		json_t *vv;

		fprintf(f, "- state `%s`:", json_string_value(json_object_get(v, "name")));
		json_object_foreach(v, kk, vv)
			if (strcmp(kk, "name") && json_is_string(vv))
				fprintf(f, " %s=%s", kk, json_string_value(vv));
		fputc('\n', f);
	}
	json_object_foreach(mach, k, v) {
		char *t = json_dumps(v, JSON_ENCODE_ANY);

		fprintf(f, "- machine %s: %s\n", k, t ? t : "?");
		free(t);
	}
	json_object_foreach(exp, k, v) {
		char *t = json_dumps(v, JSON_ENCODE_ANY);

		fprintf(f, "- experiment %s: %s\n", k, t ? t : "?");
		free(t);
	}
	for (i = 0; i < ncomp; i++)
		md_comparison(f, s, &comps[i], i == 0);
	md_tracer_cost(f, s);
	md_warp(f, s);
	md_efficiency(f, s);
	md_tcp(f, s);
	md_host_load(f, s);
	md_where(f, s);
	fprintf(f, "\n## Plots\n\n"
		"- plots/tput-fixed.svg, plots/tput-match.svg: throughput vs payload per state, mean with %.0f%% t-interval of the runs\n"
		"- plots/change.svg: paired change vs payload with the %.0f%% CI (log-ratio t-interval)\n"
		"- plots/nsbyte.svg: CPU cost per byte vs payload%s\n"
		"- plots/hist-batch.svg, plots/hist-hold.svg: packets per batch and lock hold per batch, share of batches per log2 slot\n"
		"(PNG next to each SVG.)\n", 100 * o->st.level, 100 * o->st.level,
		s->rx_cpu >= 0 ? "; plots/nsbyte-rx.svg: the same on the RX worker's vCPU only" : "");
	if (fclose(f)) {
		fprintf(stderr, SUM_NAME ": %s: write failed\n", path);
		return VB_EXIT_FAIL;
	}
	return 0;
}

static FILE *open_dat(const struct sum_opts *o, const char *name)
{
	char path[4096];
	FILE *f;

	snprintf(path, sizeof(path), "%s/plots/%s", o->dir, name);
	f = fopen(path, "w");
	if (!f)
		fprintf(stderr, SUM_NAME ": %s: %s\n", path, strerror(errno));
	return f;
}

static void dat_num(FILE *f, double v)
{
	if (isfinite(v))
		fprintf(f, " %.9g", v);
	else
		fprintf(f, " NaN");
}

/* change.dat-style data: payload, then per comparison change % lo hi. */
static void write_change_dat(FILE *f, const struct set *s, const struct comp *comps,
			     size_t ncomp, enum sum_metric m)
{
	unsigned int pi;
	size_t i;

	fprintf(f, "# payload, then per comparison (");
	for (i = 0; i < ncomp; i++)
		fprintf(f, "%s%s->%s", i ? " " : "", s->state_names[comps[i].a],
			s->state_names[comps[i].b]);
	fprintf(f, "): %s change %% lo hi\n", sum_metrics[m].name);
	for (pi = 0; pi < s->npayloads; pi++) {
		fprintf(f, "%u", s->payloads[pi]);
		for (i = 0; i < ncomp; i++) {
			const struct sum_row *r = &comps[i].rows[pi][m];
			bool ci = r->ok && r->st.has_ci;

			dat_num(f, r->ok ? r->st.change_pct : NAN);
			dat_num(f, ci ? r->st.ci_lo_pct : (r->ok ? r->st.change_pct : NAN));
			dat_num(f, ci ? r->st.ci_hi_pct : (r->ok ? r->st.change_pct : NAN));
		}
		fputc('\n', f);
	}
}

static int write_plots(const struct set *s, struct comp *comps, size_t ncomp,
		       const struct sum_opts *o)
{
	static const struct { const char *file; enum sum_metric m; } per_state[] = {
		{ "tput-fixed.dat", SUM_M_TPUT_FIXED },
		{ "tput-match.dat", SUM_M_TPUT_MATCH },
		{ "nsbyte.dat", SUM_M_COST_PER_BYTE },
		{ "nsbyte-rx.dat", SUM_M_COST_RX_CPU },	/* only with rx_cpu */
		{ "insn.dat", SUM_M_INSN_PER_BYTE },	/* only with icount */
		{ "insn-rx.dat", SUM_M_INSN_CPU1 },	/* icount, with rx_cpu */
	};
	/* Every run's own value, for the points drawn over the means. */
	static const struct { const char *file; enum sum_metric m; } per_run[] = {
		{ "runs-tput-fixed.dat", SUM_M_TPUT_FIXED },
		{ "runs-insn.dat", SUM_M_INSN_PER_BYTE },
	};
	char path[4096];
	unsigned int pi, st, k, c;
	size_t i;
	FILE *f;

	snprintf(path, sizeof(path), "%s/plots", o->dir);
	if (mkdir(path, 0755) && errno != EEXIST) {
		fprintf(stderr, SUM_NAME ": %s: %s\n", path, strerror(errno));
		return VB_EXIT_FAIL;
	}
	for (k = 0; k < sizeof(per_state) / sizeof(per_state[0]); k++) {
		if ((per_state[k].m == SUM_M_COST_RX_CPU || per_state[k].m == SUM_M_INSN_CPU1) &&
		    s->rx_cpu < 0)
			continue;
		if ((per_state[k].m == SUM_M_INSN_PER_BYTE || per_state[k].m == SUM_M_INSN_CPU1) &&
		    !s->icount)
			continue;
		f = open_dat(o, per_state[k].file);
		if (!f)
			return VB_EXIT_FAIL;
		fprintf(f, "# payload, then per state (");
		for (st = 0; st < s->nstates; st++)
			fprintf(f, "%s%s", st ? " " : "", s->state_names[st]);
		fprintf(f, "): mean lo hi; %s, %s\n", sum_metrics[per_state[k].m].name,
			unit_of(s, per_state[k].m));
		for (pi = 0; pi < s->npayloads; pi++) {
			fprintf(f, "%u", s->payloads[pi]);
			for (st = 0; st < s->nstates; st++) {
				double m, lo, hi;

				state_mean_ci(s, st, s->payloads[pi], per_state[k].m,
					      o->st.level, &m, &lo, &hi);
				dat_num(f, m);
				dat_num(f, lo);
				dat_num(f, hi);
			}
			fputc('\n', f);
		}
		fclose(f);
	}
	for (k = 0; k < sizeof(per_run) / sizeof(per_run[0]); k++) {
		if (per_run[k].m == SUM_M_INSN_PER_BYTE && !s->icount)
			continue;
		f = open_dat(o, per_run[k].file);
		if (!f)
			return VB_EXIT_FAIL;
		fprintf(f, "# payload state_index round value; %s, %s; states:",
			sum_metrics[per_run[k].m].name, unit_of(s, per_run[k].m));
		for (st = 0; st < s->nstates; st++)
			fprintf(f, " %u=%s", st, s->state_names[st]);
		fputc('\n', f);
		for (i = 0; i < s->nsamples; i++)
			if (s->samples[i].metric == per_run[k].m)
				fprintf(f, "%u %u %u %.9g\n", s->samples[i].payload,
					s->samples[i].state, s->samples[i].round,
					s->samples[i].value);
		fclose(f);
	}
	f = open_dat(o, "change.dat");
	if (!f)
		return VB_EXIT_FAIL;
	write_change_dat(f, s, comps, ncomp, SUM_M_TPUT_FIXED);
	fclose(f);
	if (s->icount) {
		f = open_dat(o, "change-insn.dat");
		if (!f)
			return VB_EXIT_FAIL;
		write_change_dat(f, s, comps, ncomp,
				 s->rx_cpu >= 0 ? SUM_M_INSN_CPU1 : SUM_M_INSN_PER_BYTE);
		fclose(f);
	}
	/* Histograms: one gnuplot data block per payload (index = payload
	 * order), rows = log2 slots from the first to the last non-empty
	 * one across the states, columns = share of batches per state. */
	for (k = 0; k < 2; k++) {
		f = open_dat(o, k ? "hist-hold.dat" : "hist-batch.dat");
		if (!f)
			return VB_EXIT_FAIL;
		fprintf(f, "# %s: per payload block: slot low high, then share of batches per state (",
			k ? "lock hold ns per batch" : "packets per batch");
		for (st = 0; st < s->nstates; st++)
			fprintf(f, "%s%s", st ? " " : "", s->state_names[st]);
		fprintf(f, ")\n");
		for (pi = 0; pi < s->npayloads; pi++) {
			int first = -1, last = -1;

			fprintf(f, "%s# payload %u\n", pi ? "\n\n" : "", s->payloads[pi]);
			for (c = 0; c < VB_MAX_SLOTS; c++)
				for (st = 0; st < s->nstates; st++) {
					const struct vb_uhist *h = k ? &s->hold_hist[st][pi]
								     : &s->batch_hist[st][pi];
					if (h->slots[c]) {
						if (first < 0)
							first = (int)c;
						last = (int)c;
					}
				}
			if (first < 0) {
				/* keep the block: gnuplot indexes must line up */
				fprintf(f, "0 0 0");
				for (st = 0; st < s->nstates; st++)
					fprintf(f, " 0");
				fputc('\n', f);
				continue;
			}
			for (c = (unsigned int)first; c <= (unsigned int)last; c++) {
				uint64_t lo, hi;

				vb_hist_bounds(c, VB_MAX_SLOTS, &lo, &hi);
				fprintf(f, "%u %llu %llu", c, (unsigned long long)lo,
					(unsigned long long)(hi == UINT64_MAX ? lo * 2 : hi));
				for (st = 0; st < s->nstates; st++) {
					const struct vb_uhist *h = k ? &s->hold_hist[st][pi]
								     : &s->batch_hist[st][pi];
					uint64_t tot = vb_hist_total(h->slots, VB_MAX_SLOTS);

					dat_num(f, tot ? (double)h->slots[c] / (double)tot : 0);
				}
				fputc('\n', f);
			}
		}
		fclose(f);
	}
	return 0;
}

/* Headline: baseline -> patched, fixed and matched throughput. */
static void print_headline(const struct set *s, const struct comp *c)
{
	static const enum sum_metric ms[] = {
		SUM_M_TPUT_FIXED, SUM_M_TPUT_MATCH, SUM_M_STAT_NS_PER_BYTE,
		SUM_M_STAT_RX_NS_PER_BYTE, SUM_M_EFF, SUM_M_COST_PER_BYTE,
		SUM_M_COST_RX_CPU,
	};
	char b1[32], b2[32], b3[96], pl[16];
	unsigned int pi, k;

	printf("%s (%u round(s), change = geometric mean of per-round ratios)\n", c->title, s->nrounds);
	printf("%-7s %-18s %10s %10s  %s\n", "payload", "metric",
	       s->state_names[c->a], s->state_names[c->b], "change (95% CI)");
	for (k = 0; k < sizeof(ms) / sizeof(ms[0]); k++)
		for (pi = 0; pi < s->npayloads; pi++) {
			const struct sum_row *r = &c->rows[pi][ms[k]];

			if (!row_has_data(r))
				continue;
			printf("%-7s %-18s %10s %10s  %s\n",
			       sum_payload_label(s->payloads[pi], pl, sizeof(pl)),
			       sum_metrics[ms[k]].name,
			       sum_fmt_value(r->mean_a, b1, sizeof(b1)),
			       sum_fmt_value(r->mean_b, b2, sizeof(b2)),
			       sum_fmt_change(r, b3, sizeof(b3)));
		}
}

/* ---------------------------------------------------------------- main */

static int parse_opts(int argc, char **argv, struct sum_opts *o)
{
	enum { O_MISSING = 256 };
	static const struct option opts[] = {
		{ "allow-missing", no_argument, NULL, O_MISSING },
		STATS_OPTS_LONG,
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	int c, err;

	optind = 0;
	opterr = 0;
	while ((c = getopt_long(argc, argv, "h", opts, NULL)) != -1) {
		switch (c) {
		case O_MISSING:
			o->allow_missing = true;
			break;
		case 'h':
			usage(stdout);
			return -1;
		default:
			/* --level/--noise/--seed/--iters or an unknown option */
			err = stats_opts_parse(&o->st, SUM_NAME, usage, c, optarg,
					       argv[optind - 1]);
			if (err)
				return err;
			break;
		}
	}
	if (optind != argc - 1) {
		fprintf(stderr, SUM_NAME ": exactly one results directory expected\n");
		usage(stderr);
		return VB_EXIT_USAGE;
	}
	o->dir = argv[optind];
	return 0;
}

static void set_free(struct set *s)
{
	json_decref(s->manifest);
	free(s->runs);
	free(s->run_dirs);
	free(s->samples);
	free(s->xfers);
}

int cmd_summarize(int argc, char **argv)
{
	struct sum_opts o = {
		.st = STATS_OPTS_DEFAULT,
	};
	struct comp *comps = NULL;
	struct set *s;
	char err[512];
	size_t i, ncomp = 0;
	unsigned int pi, m;
	int rc;

	rc = parse_opts(argc, argv, &o);
	if (rc)
		return rc < 0 ? VB_EXIT_OK : rc;
	s = calloc(1, sizeof(*s));
	comps = calloc(NCOMP, sizeof(*comps));
	if (!s || !comps) {
		fprintf(stderr, SUM_NAME ": out of memory\n");
		free(s);
		free(comps);
		return VB_EXIT_FAIL;
	}
	s->level = o.st.level;
	rc = load_manifest(s, o.dir);
	if (rc)
		goto out;
	if (sum_check_plan(s->runs, s->nruns, s->nstates, &s->nrounds, err,
			   sizeof(err))) {
		fprintf(stderr, SUM_NAME ": %s/manifest.json: %s\n", o.dir, err);
		rc = VB_EXIT_USAGE;
		goto out;
	}
	for (i = 0; i < s->nruns; i++) {
		rc = load_xfers(s, o.dir, i);
		if (!rc)
			rc = load_samples(s, o.dir, i);
		if (!rc)
			rc = load_traced(s, o.dir, i);
		if (rc)
			goto out;
	}
	if (sum_check_samples(s->samples, s->nsamples, s->runs, s->nruns, err,
			      sizeof(err))) {
		fprintf(stderr, SUM_NAME ": %s\n", err);
		rc = VB_EXIT_USAGE;
		goto out;
	}
	for (i = 0; i < s->nsamples; i++)
		if (payload_index(s, s->samples[i].payload) < 0) {
			fprintf(stderr, SUM_NAME ": a %s sample has payload %u, which the manifest does not list\n",
				sum_metrics[s->samples[i].metric].name,
				s->samples[i].payload);
			rc = VB_EXIT_USAGE;
			goto out;
		}
	for (i = 0; i < NCOMP; i++) {
		int a = state_index(s, comparisons[i].a);
		int b = state_index(s, comparisons[i].b);
		struct comp *c = &comps[ncomp];

		if (a < 0 || b < 0)
			continue;
		c->a = (unsigned int)a;
		c->b = (unsigned int)b;
		c->title = comparisons[i].title;
		ncomp++;
		for (pi = 0; pi < s->npayloads; pi++)
			for (m = 0; m < SUM_M_NR; m++) {
				if (sum_row_compute(&c->rows[pi][m], s->samples,
						    s->nsamples, s->nrounds, c->a,
						    c->b, s->payloads[pi], m,
						    o.allow_missing, o.st.level,
						    o.st.iters, o.st.seed, o.st.noise,
						    err, sizeof(err))) {
					fprintf(stderr, SUM_NAME ": %s\n", err);
					rc = VB_EXIT_USAGE;
					goto out;
				}
			}
	}
	if (!ncomp) {
		fprintf(stderr, SUM_NAME ": no comparison possible: the set needs two of baseline, p1-3, patched\n");
		rc = VB_EXIT_USAGE;
		goto out;
	}
	rc = write_summary(s, comps, ncomp, &o);
	if (!rc)
		rc = write_report(s, comps, ncomp, &o);
	if (!rc)
		rc = write_plots(s, comps, ncomp, &o);
	if (!rc)
		print_headline(s, &comps[0]);
out:
	for (i = 0; i < ncomp; i++)
		for (pi = 0; pi < SUM_MAX_PAYLOADS; pi++)
			for (m = 0; m < SUM_M_NR; m++)
				sum_row_free(&comps[i].rows[pi][m]);
	free(comps);
	set_free(s);
	free(s);
	return rc;
}
