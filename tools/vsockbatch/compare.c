// SPDX-License-Identifier: GPL-2.0
/*
 * compare.c - `vsockbatch compare`: baseline vs patched results files.
 *
 * Each side is one results file or several; with several, the i-th
 * baseline file and the i-th patched file are one AB/BA pair (two runs
 * made back to back on fresh guests).  Per metric the table shows the mean
 * of each side and the paired change: 100 * (exp(mean ln(patched/base))
 * - 1), with a 95% t-interval on the log ratios once there are two pairs
 * or more (tools/lib/stats.h; method in design/anchors.md §5.2).  A
 * bootstrap over the pairs (ratio of means, fixed printed seed) is shown
 * as a cross-check, and the pair order (AB or BA, from the recordings'
 * start times) is checked for an order effect.
 *
 * Inputs that cannot be compared are refused with exit 2: a different
 * number of files per side, different results versions, different
 * payload labels, CPU cost measured in different units (cycles vs
 * cpu-clock ns), a pair whose two sides are the same recording, and a
 * recording used twice (which includes the same pair given twice): the
 * t-interval assumes independent pairs.  Different 'mode' or 'bytes'
 * labels are warned about.
 */
#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include <jansson.h>

#include "commands.h"
#include "hist.h"
#include "report.h"
#include "results.h"
#include "stats.h"
#include "stats_opts.h"

#define CMP_NAME	"vsockbatch compare"
#define CMP_MAX_FILES	1024
/* Results label holding the payload (write size) of the benchmark. */
#define LABEL_PAYLOAD	"payload"
/* Labels that should agree between the runs: warned about if not. */
#define LABEL_MODE	"mode"		/* transport: loopback, h2g */
#define LABEL_BYTES	"bytes"		/* bytes the benchmark sent */
/* Results label holding the benchmark's measured throughput in Gbit/s
 * (record --label gbps=5.4842, taken from vb-recv's JSON line). */
#define LABEL_GBPS	"gbps"

static void usage(FILE *f)
{
	fprintf(f,
"Usage: vsockbatch compare [options] BASE PATCHED\n"
"       vsockbatch compare [options] -b BASE1 -b BASE2 ... -p PATCHED1 ...\n"
"Compare baseline and patched results files (vsockbatch record output).\n"
"\n"
"BASE and PATCHED are one results file each, or comma-separated lists\n"
"(a1.json,a2.json); -b/-p may be repeated instead.  With several files the\n"
"i-th baseline and the i-th patched file form one AB/BA pair; both sides\n"
"need the same number of files.  A file may be gzip- or zstd-compressed\n"
"(told by its first bytes, not its name).\n"
"\n"
"  -b, --base FILE      add a baseline file (repeatable)\n"
"  -p, --patched FILE   add a patched file (repeatable)\n"
"      --json           one JSON document instead of the table\n"
"  -w, --wide           no line wrapped at 80 columns\n"
"      --level L        confidence level, 0.5 < L < 1 (default 0.95)\n"
"      --noise PCT      no verdict unless the whole CI is beyond +-PCT %%\n"
"                       (default 1)\n"
"      --seed N         bootstrap seed (default 0x%llx,\n"
"                       always printed)\n"
"      --iters N        bootstrap resamples, >= 100 (default %u)\n"
"  -h, --help           this text\n"
"\n"
"Change = 100 * (exp(mean over pairs of ln(patched/baseline)) - 1); the CI\n"
"is a t-interval on those log ratios, exponentiated (needs >= 2 pairs).\n"
"Throughput comes from the label '" LABEL_GBPS "' (record --label " LABEL_GBPS "=X) when\n"
"every file has it.  Refused with exit 2: different numbers of files, results\n"
"versions, '" LABEL_PAYLOAD "' labels or CPU-cost units (cycles vs cpu-clock); a\n"
"pair whose baseline and patched are the same recording (the same file, or a\n"
"copy: same start time and kernel); a recording in two pairs (such as the\n"
"same pair given twice).  Warned about: different '" LABEL_MODE "' or '" LABEL_BYTES "' labels.\n"
"Values: one format per unit; changes in %%, 2 decimals.\n",
		(unsigned long long)STATS_BOOT_SEED, STATS_BOOT_ITERS);
}

/* ------------------------------------------------------------- inputs */

struct side {
	const char *name;		/* "baseline" / "patched" */
	char **paths;
	size_t n;
	struct vb_results *res;
	struct vb_metrics *met;
};

static int add_path(struct side *s, const char *path)
{
	char **np;

	if (!*path) {
		fprintf(stderr, CMP_NAME ": empty %s file name\n", s->name);
		return VB_EXIT_USAGE;
	}
	if (s->n >= CMP_MAX_FILES) {
		fprintf(stderr, CMP_NAME ": more than %d %s files\n",
			CMP_MAX_FILES, s->name);
		return VB_EXIT_USAGE;
	}
	np = realloc(s->paths, (s->n + 1) * sizeof(*np));
	if (!np || !(np[s->n] = strdup(path))) {
		if (np)
			s->paths = np;
		fprintf(stderr, CMP_NAME ": out of memory\n");
		return VB_EXIT_FAIL;
	}
	s->paths = np;
	s->n++;
	return 0;
}

/* "a.json,b.json" -> two paths */
static int add_list(struct side *s, const char *list)
{
	char *copy = strdup(list), *p, *comma;
	int err = 0;

	if (!copy) {
		fprintf(stderr, CMP_NAME ": out of memory\n");
		return VB_EXIT_FAIL;
	}
	for (p = copy; !err; p = comma + 1) {
		comma = strchr(p, ',');
		if (comma)
			*comma = '\0';
		err = add_path(s, p);
		if (!comma)
			break;
	}
	free(copy);
	return err;
}

static void side_free(struct side *s)
{
	size_t i;

	for (i = 0; i < s->n; i++) {
		free(s->paths[i]);
		if (s->res)
			vb_results_free(&s->res[i]);
	}
	free(s->paths);
	free(s->res);
	free(s->met);
}

static int side_load(struct side *s)
{
	char err[512];
	size_t i;
	int rc;

	s->res = calloc(s->n, sizeof(*s->res));
	s->met = calloc(s->n, sizeof(*s->met));
	if (!s->res || !s->met) {
		fprintf(stderr, CMP_NAME ": out of memory\n");
		return VB_EXIT_FAIL;
	}
	for (i = 0; i < s->n; i++)
		vb_results_init(&s->res[i]);
	for (i = 0; i < s->n; i++) {
		rc = vb_results_load(s->paths[i], &s->res[i], err, sizeof(err));
		if (rc) {
			fprintf(stderr, CMP_NAME ": %s file: %s\n", s->name, err);
			return vb_results_load_exit(rc);
		}
		vb_metrics_compute(&s->res[i].totals, &s->res[i].cost,
				   s->res[i].trace, s->res[i].self.duty,
				   &s->met[i]);
	}
	return 0;
}

/* ------------------------------------------------ compatibility checks */

struct warnings {
	char *msg[16];
	size_t n;
};

static void warn_add(struct warnings *w, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
static void warn_add(struct warnings *w, const char *fmt, ...)
{
	va_list ap;

	if (w->n >= sizeof(w->msg) / sizeof(w->msg[0]))
		return;
	va_start(ap, fmt);
	if (vasprintf(&w->msg[w->n], fmt, ap) >= 0)
		w->n++;
	va_end(ap);
}

static void warn_free(struct warnings *w)
{
	size_t i;

	for (i = 0; i < w->n; i++)
		free(w->msg[i]);
}

struct input {
	struct side *side[2];	/* baseline, patched */
	size_t n;		/* pairs */
	const char *payload;	/* NULL: no payload labels */
	int cost_ok;		/* every file measured CPU cost */
	enum vb_cost_unit cost_unit;
	int have_gbps;		/* every file has the gbps label */
};

/* Visit every file of both sides: f(side index, file index). */
#define for_each_file(in, s, i) \
	for (s = 0; s < 2; s++) for (i = 0; i < (in)->side[s]->n; i++)

static int parse_gbps(const char *v, double *out)
{
	char *end;
	double d;

	errno = 0;
	d = strtod(v, &end);
	if (errno || end == v || *end || !isfinite(d) || d <= 0)
		return -EINVAL;
	*out = d;
	return 0;
}

/*
 * One recording: the same file (device and inode), or a copy of it (the
 * same start time, to the nanosecond, on the same kernel).
 */
struct file_id {
	dev_t dev;
	ino_t ino;
	bool have_stat;
};

static bool same_recording(const struct file_id *fa, const struct vb_results *a,
			   const struct file_id *fb, const struct vb_results *b)
{
	if (fa->have_stat && fb->have_stat && fa->dev == fb->dev &&
	    fa->ino == fb->ino)
		return true;
	return a->start_unix_ns && a->start_unix_ns == b->start_unix_ns &&
	       !strcmp(a->kernel_release, b->kernel_release);
}

/*
 * Refuse what would fake a sample: a pair whose two sides are one
 * recording, and one recording in two pairs (the same pair twice is the
 * common case).  Returns 0 or VB_EXIT_USAGE after a one-line reason.
 */
static int check_independent(const struct input *in)
{
	size_t n = in->n, i, j, k, l, nf = 2 * n;
	struct file_id *id = calloc(nf ? nf : 1, sizeof(*id));
	const struct vb_results *ri, *rj;
	const char *pi, *pj;
	struct stat st;
	int rc = 0;

	if (!id) {
		fprintf(stderr, CMP_NAME ": out of memory\n");
		return VB_EXIT_FAIL;
	}
	/* file f: side f / n, pair f % n */
	for (i = 0; i < nf; i++)
		if (!stat(in->side[i / n]->paths[i % n], &st)) {
			id[i].dev = st.st_dev;
			id[i].ino = st.st_ino;
			id[i].have_stat = true;
		}
	for (i = 0; i < n && !rc; i++)
		if (same_recording(&id[i], &in->side[0]->res[i], &id[n + i],
				   &in->side[1]->res[i])) {
			fprintf(stderr, CMP_NAME ": refused: pair %zu: baseline %s and patched %s are the same recording\n",
				i + 1, in->side[0]->paths[i], in->side[1]->paths[i]);
			rc = VB_EXIT_USAGE;
		}
	for (i = 0; i < n && !rc; i++)
		for (j = i + 1; j < n && !rc; j++) {
			if (same_recording(&id[i], &in->side[0]->res[i], &id[j],
					   &in->side[0]->res[j]) &&
			    same_recording(&id[n + i], &in->side[1]->res[i],
					   &id[n + j], &in->side[1]->res[j])) {
				fprintf(stderr, CMP_NAME ": refused: pairs %zu and %zu are the same pair (%s, %s) given twice\n",
					i + 1, j + 1, in->side[0]->paths[i],
					in->side[1]->paths[i]);
				rc = VB_EXIT_USAGE;
			}
		}
	for (k = 0; k < nf && !rc; k++)
		for (l = k + 1; l < nf && !rc; l++) {
			if (k % n == l % n)	/* the pair itself: done above */
				continue;
			ri = &in->side[k / n]->res[k % n];
			rj = &in->side[l / n]->res[l % n];
			if (!same_recording(&id[k], ri, &id[l], rj))
				continue;
			pi = in->side[k / n]->paths[k % n];
			pj = in->side[l / n]->paths[l % n];
			fprintf(stderr, CMP_NAME ": refused: one recording in pairs %zu and %zu (%s%s%s): pairs must be independent runs\n",
				k % n + 1, l % n + 1, pi, strcmp(pi, pj) ? ", " : "",
				strcmp(pi, pj) ? pj : "");
			rc = VB_EXIT_USAGE;
		}
	free(id);
	return rc;
}

/* Warn once when files disagree on label key (or some lack it). */
static void warn_label(const struct input *in, struct warnings *w,
		       const char *key)
{
	const char *first = NULL, *first_path = NULL, *v;
	size_t i, with = 0, total = 0;
	int s;

	for_each_file(in, s, i) {
		total++;
		v = vb_results_label(&in->side[s]->res[i], key);
		if (!v)
			continue;
		with++;
		if (!first) {
			first = v;
			first_path = in->side[s]->paths[i];
		} else if (strcmp(v, first)) {
			warn_add(w, "label '%s' differs: %s has %s=%s, %s has %s=%s",
				 key, first_path, key, first,
				 in->side[s]->paths[i], key, v);
			return;
		}
	}
	if (with && with != total)
		warn_add(w, "label '%s' in only %zu of %zu files", key, with,
			 total);
}

/* Returns 0 or VB_EXIT_USAGE after printing the reason. */
static int check_inputs(struct input *in, struct warnings *w)
{
	const struct vb_results *first = &in->side[0]->res[0], *r;
	const char *first_path = in->side[0]->paths[0], *payload_path = NULL;
	const char *cost_path = NULL, *pl, *g;
	size_t i, measured = 0, with_payload = 0, with_gbps = 0, total = 0;
	int s;
	double d;

	for_each_file(in, s, i) {
		r = &in->side[s]->res[i];
		total++;
		if (r->version != first->version) {
			fprintf(stderr, CMP_NAME ": refused: results format versions differ: %s is version %d, %s is version %d\n",
				first_path, first->version,
				in->side[s]->paths[i], r->version);
			return VB_EXIT_USAGE;
		}
		pl = vb_results_label(r, LABEL_PAYLOAD);
		if (pl) {
			if (with_payload && strcmp(pl, in->payload)) {
				fprintf(stderr, CMP_NAME ": refused: payload labels differ: %s has payload=%s, %s has payload=%s\n",
					payload_path, in->payload,
					in->side[s]->paths[i], pl);
				return VB_EXIT_USAGE;
			}
			if (!with_payload) {
				in->payload = pl;
				payload_path = in->side[s]->paths[i];
			}
			with_payload++;
		}
		if (r->cost.measured) {
			if (measured && r->cost.unit != in->cost_unit) {
				fprintf(stderr, CMP_NAME ": refused: CPU-cost units differ: %s counted %s, %s counted %s\n",
					cost_path, vb_cost_unit_name(in->cost_unit),
					in->side[s]->paths[i],
					vb_cost_unit_name(r->cost.unit));
				return VB_EXIT_USAGE;
			}
			if (!measured) {
				in->cost_unit = r->cost.unit;
				cost_path = in->side[s]->paths[i];
			}
			measured++;
		}
		g = vb_results_label(r, LABEL_GBPS);
		if (g) {
			if (parse_gbps(g, &d)) {
				fprintf(stderr, CMP_NAME ": refused: %s: label %s=\"%s\" is not a positive number\n",
					in->side[s]->paths[i], LABEL_GBPS, g);
				return VB_EXIT_USAGE;
			}
			with_gbps++;
		}
	}
	if (with_payload && with_payload != total) {
		for_each_file(in, s, i) {
			if (vb_results_label(&in->side[s]->res[i], LABEL_PAYLOAD))
				continue;
			fprintf(stderr, CMP_NAME ": refused: %s has no payload label but %s has payload=%s\n",
				in->side[s]->paths[i], payload_path, in->payload);
			return VB_EXIT_USAGE;
		}
	}
	warn_label(in, w, LABEL_MODE);
	warn_label(in, w, LABEL_BYTES);
	for_each_file(in, s, i) {
		r = &in->side[s]->res[i];
		if (r->self.duty > 1) {
			/* a CI over runs still holds: it takes in the sampling */
			warn_add(w, "%s was recorded with --duty %u: its window figures (lookups and data-ready per packet, batch lengths, window times) are estimates from the packets its slices saw, not exact counts",
				 in->side[s]->paths[i], r->self.duty);
			break;
		}
	}
	in->cost_ok = measured == total;
	if (measured && !in->cost_ok)
		warn_add(w, "CPU cost measured in only %zu of %zu files: cost per byte left out",
			 measured, total);
	in->have_gbps = with_gbps == total;
	if (with_gbps && !in->have_gbps)
		warn_add(w, "label '%s' in only %zu of %zu files: throughput left out",
			 LABEL_GBPS, with_gbps, total);

	for (i = 0; i < in->n; i++) {
		if (in->side[0]->res[i].mode == VB_MODE_BATCHED &&
		    in->side[1]->res[i].mode == VB_MODE_BASELINE)
			warn_add(w, "pair %zu: the baseline file (%s) was recorded on a batched kernel and the patched file on a baseline kernel: sides swapped?",
				 i + 1, in->side[0]->paths[i]);
	}
	return 0;
}

/* ------------------------------------------------------------- metrics */

enum better { NEUTRAL = 0, HIGHER_BETTER, LOWER_BETTER };

struct metric_def {
	const char *key;		/* JSON name, unit in the name */
	const char *label;		/* table label */
	const char *unit;
	enum better better;
	double (*get)(const struct input *in, const struct vb_results *r,
		      const struct vb_metrics *m);
};

static double get_gbps(const struct input *in, const struct vb_results *r,
		       const struct vb_metrics *m)
{
	double d;

	(void)m;
	if (!in->have_gbps || parse_gbps(vb_results_label(r, LABEL_GBPS), &d))
		return NAN;
	return d;
}

static double get_pkts(const struct input *in, const struct vb_results *r,
		       const struct vb_metrics *m)
{
	(void)in; (void)m;
	return (double)r->totals.cnt[VB_C_PKTS];
}

static double get_bytes(const struct input *in, const struct vb_results *r,
			const struct vb_metrics *m)
{
	(void)in; (void)m;
	return (double)r->totals.cnt[VB_C_BYTES];
}

static double get_cost(const struct input *in, const struct vb_results *r,
		       const struct vb_metrics *m)
{
	(void)r;
	return in->cost_ok ? m->cost_per_byte : NAN;
}

#define METRIC_GETTER(field)						\
static double get_##field(const struct input *in,			\
			  const struct vb_results *r,			\
			  const struct vb_metrics *m)			\
{									\
	(void)in; (void)r;						\
	return m->field;						\
}
METRIC_GETTER(worker_ns_per_byte)
METRIC_GETTER(lookups_per_pkt)
METRIC_GETTER(ws_per_pkt)
METRIC_GETTER(dr_per_pkt)
METRIC_GETTER(mean_batch_pkts)
METRIC_GETTER(batch_max)
METRIC_GETTER(window_mean_ns)
METRIC_GETTER(dr_lat_mean_ns)
METRIC_GETTER(user_wait_mean_ns)
METRIC_GETTER(user_waits_per_mb)

/*
 * Rows in table order; the cost row is relabelled for cpu-clock.  Every
 * row is exact per run (ratios of exact counts, or measured cost over
 * exact bytes), so a CI over runs is meaningful; histogram percentiles
 * are not rows: they are shown as the slot ranges they are known to.
 * The last rows are what batching costs: the reader's wait behind the
 * worker and the delay before the reader is told data is there.
 */
static const struct metric_def metric_defs[] = {
	{ "throughput_gbps", "throughput (Gbit/s)", "Gbit/s", HIGHER_BETTER, get_gbps },
	{ "pkts", "packets", "pkts", NEUTRAL, get_pkts },
	{ "bytes", "bytes", "bytes", NEUTRAL, get_bytes },
	{ "cycles_per_byte", "cycles per byte", "cycles/B", LOWER_BETTER, get_cost },
	{ "worker_ns_per_byte", "worker ns per byte", "ns/B", LOWER_BETTER, get_worker_ns_per_byte },
	{ "lookups_per_pkt", "lookup+lock per packet", "calls/pkt", NEUTRAL, get_lookups_per_pkt },
	{ "ws_per_pkt", "write-space per packet", "calls/pkt", NEUTRAL, get_ws_per_pkt },
	{ "dr_per_pkt", "data-ready per packet", "calls/pkt", NEUTRAL, get_dr_per_pkt },
	{ "mean_batch_pkts", "mean batch (pkts)", "pkts/batch", NEUTRAL, get_mean_batch_pkts },
	{ "batch_max", "max batch (pkts)", "pkts", NEUTRAL, get_batch_max },
	{ "window_mean_ns", "window mean (ns)", "ns", NEUTRAL, get_window_mean_ns },
	{ "user_wait_mean_ns", "reader wait mean (ns)", "ns", LOWER_BETTER, get_user_wait_mean_ns },
	{ "user_waits_per_mb", "reader waits per MB", "waits/MB", LOWER_BETTER, get_user_waits_per_mb },
	{ "dr_lat_mean_ns", "enq->ready mean (ns)", "ns", LOWER_BETTER, get_dr_lat_mean_ns },
};
#define N_METRICS (sizeof(metric_defs) / sizeof(metric_defs[0]))

struct row {
	const struct metric_def *def;
	const char *key, *label, *unit;
	double *bv, *pv;		/* per-pair values */
	double bmean, pmean;
	double change;			/* % (NaN: undefined) */
	const char *method;		/* how change was computed */
	int have_ci;
	struct stats_paired st;
	int have_boot;
	struct stats_boot boot;
	enum stats_verdict verdict;
};

struct cmp_opts {
	struct stats_opts st;	/* --level, --noise, --seed, --iters */
	int json;
	int wide;		/* -w: lines not fitted to CMP_WIDTH */
};

#define CMP_WIDTH	80

static int all_finite(const double *v, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (!isfinite(v[i]))
			return 0;
	return 1;
}

/* Returns 0, or -ENOMEM. */
static int compute_row(struct row *row, const struct input *in,
		       const struct cmp_opts *o)
{
	size_t i, n = in->n;

	row->bv = calloc(2 * n, sizeof(double));
	if (!row->bv)
		return -ENOMEM;
	row->pv = row->bv + n;
	for (i = 0; i < n; i++) {
		row->bv[i] = row->def->get(in, &in->side[0]->res[i],
					   &in->side[0]->met[i]);
		row->pv[i] = row->def->get(in, &in->side[1]->res[i],
					   &in->side[1]->met[i]);
	}
	row->change = NAN;
	row->method = "n/a";
	row->verdict = STATS_NO_CHANGE;
	if (!all_finite(row->bv, n) || !all_finite(row->pv, n)) {
		row->bmean = row->pmean = NAN;
		row->method = "undefined in some run";
		return 0;
	}
	row->bmean = stats_mean(row->bv, n);
	row->pmean = stats_mean(row->pv, n);

	switch (stats_paired(row->bv, row->pv, n, o->st.level, &row->st)) {
	case 0:
		row->change = row->st.change_pct;
		row->method = "paired log-ratio";
		row->have_ci = row->st.has_ci;
		row->verdict = stats_paired_verdict(&row->st, o->st.noise);
		break;
	case -ENOMEM:
		return -ENOMEM;
	default:
		/* A zero somewhere (e.g. no lookups at all on one side): log
		 * ratios are undefined; fall back to the ratio of means. */
		if (row->bmean > 0) {
			row->change = 100.0 * (row->pmean / row->bmean - 1.0);
			row->method = "ratio of means (a run had 0)";
		}
		return 0;
	}
	if (n >= 2) {
		int err = stats_bootstrap_pairs(row->bv, row->pv, n, o->st.level,
						o->st.iters, o->st.seed, &row->boot);

		if (err == -ENOMEM)
			return err;
		row->have_boot = !err;
	}
	return 0;
}

/*
 * p50/p99 of a histogram merged over every file of one side, as text no
 * finer than the histogram: exact values for linear histograms, slot
 * ranges for log2 ones.
 */
struct hist_shift {
	const char *key, *label, *unit;
	enum vb_hist_id id;
	bool ns;
	char b50[48], b99[48], p50[48], p99[48];
	uint64_t bn, pn;		/* samples */
	uint64_t bmax, pmax;		/* exact max (linear), 0 = unknown */
};

static void merged_pct(const struct side *s, struct hist_shift *h, bool patched)
{
	uint64_t slots[VB_LIN_SLOTS] = { 0 }, max = 0;
	unsigned int n = vb_hist_nslots(h->id);
	bool lin = vb_hist_linear(h->id);
	size_t i;
	unsigned int k;

	for (i = 0; i < s->n; i++) {
		for (k = 0; k < n; k++)
			slots[k] += s->res[i].totals.hist[h->id].slots[k];
		if (s->res[i].totals.cnt[VB_C_BATCH_MAX] > max)
			max = s->res[i].totals.cnt[VB_C_BATCH_MAX];
	}
	if (!lin)
		max = 0;
	vb_hist_pct_str(patched ? h->p50 : h->b50, sizeof(h->p50), slots, n,
			lin, 50, max, h->ns);
	vb_hist_pct_str(patched ? h->p99 : h->b99, sizeof(h->p99), slots, n,
			lin, 99, max, h->ns);
	*(patched ? &h->pn : &h->bn) = vb_hist_total(slots, n);
	*(patched ? &h->pmax : &h->bmax) = max;
}

static struct hist_shift hist_shifts[] = {
	{ .key = "batch_pkts", .label = "batch length", .unit = "pkts/batch",
	  .id = VB_H_BATCH_PKTS },
	{ .key = "window_ns", .label = "window time", .unit = "",
	  .id = VB_H_WINDOW_NS, .ns = true },
	{ .key = "kb_hold_ns", .label = "rx_batch hold", .unit = "",
	  .id = VB_H_KB_HOLD_NS, .ns = true },
	{ .key = "user_wait_ns", .label = "reader wait", .unit = "",
	  .id = VB_H_USER_WAIT_NS, .ns = true },
	{ .key = "dr_lat_ns", .label = "enqueue->data-ready", .unit = "",
	  .id = VB_H_DR_LAT_NS, .ns = true },
};
#define N_SHIFTS (sizeof(hist_shifts) / sizeof(hist_shifts[0]))

/* Order effect from the recordings' start times (0 = unknown). */
struct order_info {
	int known;			/* every pair has both start times */
	size_t n_ab, n_ba;
	int checked;
	struct stats_order ord;
};

static void order_analyse(const struct input *in, const struct row *head,
			  const struct cmp_opts *o, struct order_info *oi)
{
	int *ab;
	size_t i;

	memset(oi, 0, sizeof(*oi));
	oi->known = 1;
	for (i = 0; i < in->n; i++)
		if (!in->side[0]->res[i].start_unix_ns ||
		    !in->side[1]->res[i].start_unix_ns)
			oi->known = 0;
	if (!oi->known)
		return;
	ab = calloc(in->n, sizeof(*ab));
	if (!ab)
		return;
	for (i = 0; i < in->n; i++) {
		ab[i] = in->side[0]->res[i].start_unix_ns <
			in->side[1]->res[i].start_unix_ns;
		if (ab[i])
			oi->n_ab++;
		else
			oi->n_ba++;
	}
	if (head && head->have_ci &&
	    !stats_order_check(head->bv, head->pv, ab, in->n, o->st.level, &oi->ord))
		oi->checked = oi->ord.n_ab >= 2 && oi->ord.n_ba >= 2;
	free(ab);
}

/* ------------------------------------------------- the tracer's cost */

static const char *fmt_pct(double v, char *buf, size_t len);

/*
 * Mean measured tracer overhead of one side (% guest instructions per
 * byte, from the files' tracer.overhead), NAN unless every file has one.
 */
static double side_overhead(const struct side *s)
{
	double sum = 0;
	size_t i;

	for (i = 0; i < s->n; i++) {
		if (!s->res[i].self.overhead.measured)
			return NAN;
		sum += s->res[i].self.overhead.pct;
	}
	return s->n ? sum / (double)s->n : NAN;
}

/* One side's tracer modes: "light", "full" or "mixed". */
static const char *side_trace(const struct side *s)
{
	size_t i;

	for (i = 1; i < s->n; i++)
		if (s->res[i].trace != s->res[0].trace)
			return "mixed";
	return vb_trace_mode_name(s->res[0].trace);
}

/*
 * What the tracer alone does to a patched/baseline ratio of traced CPU
 * cost: (1 + o_patched) / (1 + o_base) - 1, in %.
 */
static double tracer_shift_pct(const struct input *in)
{
	double ob = side_overhead(in->side[0]), op = side_overhead(in->side[1]);

	return 100.0 * ((1 + op / 100) / (1 + ob / 100) - 1);
}

static void print_tracer_cost(FILE *f, const struct input *in)
{
	double ob = side_overhead(in->side[0]), op = side_overhead(in->side[1]);
	char a[32], b[32], c[32];

	fprintf(f, "\ntracer: baseline %s mode, %s; patched %s mode, %s",
	       side_trace(in->side[0]),
	       isfinite(ob) ? (snprintf(a, sizeof(a), "%+.2f%% insns/B", ob), a)
			    : "overhead not measured",
	       side_trace(in->side[1]),
	       isfinite(op) ? (snprintf(b, sizeof(b), "%+.2f%% insns/B", op), b)
			    : "overhead not measured");
	if (isfinite(ob) && isfinite(op))
		fprintf(f, "\n        its own share of a traced CPU-cost change: %s",
		       fmt_pct(tracer_shift_pct(in), c, sizeof(c)));
	fprintf(f, "\n");
}

/* Warn when a CPU-cost change lies within what the tracer alone explains. */
static void tracer_cost_check(const struct input *in, const struct row *rows,
			      size_t nrows, struct warnings *w)
{
	double t = tracer_shift_pct(in);
	size_t i;

	if (strcmp(side_trace(in->side[0]), side_trace(in->side[1])))
		warn_add(w, "the sides were traced in different modes (baseline %s, patched %s): their tracer costs differ",
			 side_trace(in->side[0]), side_trace(in->side[1]));
	for (i = 0; i < nrows; i++) {
		const struct row *r = &rows[i];

		if (r->def->get != get_cost || !isfinite(r->change))
			continue;
		if (!isfinite(t)) {
			warn_add(w, "%s: the tracer's overhead is not measured for some file: the change includes an unknown tracer cost",
				 r->label);
			continue;
		}
		if (fabs(r->change) <= fabs(t) ||
		    (r->have_ci && r->st.ci_lo_pct <= t && t <= r->st.ci_hi_pct))
			warn_add(w, "%s: the change (%+.2f%%) lies within the tracer-cost difference of the two sides (%+.2f%%): it may be the tracer's own; measure untraced",
				 r->label, r->change, t);
	}
}

/* ------------------------------------------------------------- output */

/*
 * One format per unit, whatever the value: counts and nanoseconds whole,
 * calls per packet to 4 decimals (0.0156 = one in 64), per-byte costs
 * and packets per batch to 2, Gbit/s to 3.
 */
static const char *unit_fmt(const char *unit)
{
	static const struct { const char *unit, *fmt; } fmts[] = {
		{ "pkts", "%.0f" }, { "bytes", "%.0f" }, { "ns", "%.0f" },
		{ "calls/pkt", "%.4f" }, { "pkts/batch", "%.2f" },
		{ "cycles/B", "%.2f" }, { "ns/B", "%.2f" },
		{ "Gbit/s", "%.3f" },
	};
	size_t i;

	for (i = 0; i < sizeof(fmts) / sizeof(fmts[0]); i++)
		if (!strcmp(unit, fmts[i].unit))
			return fmts[i].fmt;
	return "%.3f";
}

static const char *fmt_val(double v, const char *unit, char *buf, size_t len)
{
	if (!isfinite(v))
		snprintf(buf, len, "n/a");
	else
		snprintf(buf, len, unit_fmt(unit), v);
	return buf;
}

static const char *fmt_pct(double v, char *buf, size_t len)
{
	if (!isfinite(v))
		snprintf(buf, len, "n/a");
	else
		snprintf(buf, len, "%+.2f%%", v);
	return buf;
}

static const char *verdict_word(const struct row *r)
{
	if (!r->have_ci)
		return "";
	switch (r->verdict) {
	case STATS_HIGHER:
		return r->def->better == HIGHER_BETTER ? "better" :
		       r->def->better == LOWER_BETTER ? "worse" : "higher";
	case STATS_LOWER:
		return r->def->better == LOWER_BETTER ? "better" :
		       r->def->better == HIGHER_BETTER ? "worse" : "lower";
	default:
		return "~";
	}
}

static const char *verdict_json(const struct row *r)
{
	if (!r->have_ci)
		return NULL;
	return r->verdict == STATS_HIGHER ? "higher" :
	       r->verdict == STATS_LOWER ? "lower" : "no-change";
}

/* One path a line: a list of 16 paths is no 459-character line. */
static void print_files(FILE *f, const struct side *s)
{
	size_t i;

	for (i = 0; i < s->n; i++)
		fprintf(f, "  %-9s %s\n", i ? "" : s->name, s->paths[i]);
}

static void print_text(FILE *f, const struct input *in,
		       const struct cmp_opts *o, struct row *rows,
		       size_t nrows, const struct row *head,
		       const struct order_info *oi, const struct warnings *w)
{
	char a[32], b[32], c[32], d[32], e[32];
	size_t i;
	int lvl = (int)lround(o->st.level * 100);

	fprintf(f, "vsockbatch compare: %zu pair%s", in->n, in->n == 1 ? "" : "s");
	if (in->payload)
		fprintf(f, ", payload %s", in->payload);
	if (oi->known)
		fprintf(f, ", order %zu AB / %zu BA (by start time)", oi->n_ab, oi->n_ba);
	fprintf(f, "\n");
	print_files(f, in->side[0]);
	print_files(f, in->side[1]);
	if (in->n >= 2)
		fprintf(f, "  change = geometric mean of patched/baseline\n"
		       "  %d%% CI = t-interval on the log ratios (t=%.3f, %zu df)\n",
		       lvl, stats_t_quantile((1 + o->st.level) / 2, (double)(in->n - 1)),
		       in->n - 1);
	else
		fprintf(f, "  one pair: change = patched/baseline; no confidence interval (needs >= 2 pairs)\n");
	fprintf(f, "\n%-22s %9s %9s %9s", "metric", "baseline", "patched", "change");
	if (in->n >= 2)
		fprintf(f, "  %d%% CI", lvl);
	fprintf(f, "\n");
	for (i = 0; i < nrows; i++) {
		const struct row *r = &rows[i];

		fprintf(f, "%-22s %9s %9s %9s", r->label,
		       fmt_val(r->bmean, r->unit, a, sizeof(a)),
		       fmt_val(r->pmean, r->unit, b, sizeof(b)),
		       fmt_pct(r->change, c, sizeof(c)));
		if (r->have_ci)
			fprintf(f, "  [%s, %s] %s", fmt_pct(r->st.ci_lo_pct, d, sizeof(d)),
			       fmt_pct(r->st.ci_hi_pct, e, sizeof(e)),
			       verdict_word(r));
		else if (strcmp(r->method, "paired log-ratio") && in->n >= 2)
			fprintf(f, "  (%s)", r->method);
		fprintf(f, "\n");
	}

	fprintf(f, "\nhistogram shifts (all runs of a side merged; baseline -> patched;\n"
		"linear histograms exact, log2 ones as the slot [low, high] holding it):\n");
	for (i = 0; i < N_SHIFTS; i++) {
		const struct hist_shift *h = &hist_shifts[i];

		if (!h->bn && !h->pn)
			continue;
		fprintf(f, "  %-20s p50 %s -> %s%s%s, p99 %s -> %s%s%s\n",
			h->label, h->b50, h->p50, *h->unit ? " " : "", h->unit,
			h->b99, h->p99, *h->unit ? " " : "", h->unit);
	}
	print_tracer_cost(f, in);

	if (in->n >= 2) {
		fprintf(f, "\nbootstrap cross-check (ratio of means, %u resamples of the\n"
		       "%zu pairs, seed 0x%llx):\n",
		       o->st.iters, in->n, (unsigned long long)o->st.seed);
		for (i = 0; i < nrows; i++) {
			const struct row *r = &rows[i];

			if (!r->have_boot)
				continue;
			fprintf(f, "  %-22s %9s  [%s, %s]\n", r->label,
			       fmt_pct(r->boot.point_pct, a, sizeof(a)),
			       fmt_pct(r->boot.lo_pct, b, sizeof(b)),
			       fmt_pct(r->boot.hi_pct, c, sizeof(c)));
		}
	}

	if (oi->known && in->n >= 2 && (!oi->n_ab || !oi->n_ba))
		fprintf(f, "\nnote: every pair ran %s first: drift is not balanced out\n",
		       oi->n_ab ? "the baseline" : "the patched kernel");
	if (oi->checked && head)
		fprintf(f, "\norder check (%s): AB pairs %s, BA pairs %s: %s\n",
		       head->label, fmt_pct(oi->ord.change_ab_pct, a, sizeof(a)),
		       fmt_pct(oi->ord.change_ba_pct, b, sizeof(b)),
		       oi->ord.disagree ? "DISAGREE (order effect: check warm-up/drift)"
					: "consistent");

	if (head) {
		fprintf(f, "\n%s change: ", head->label);
		if (head->have_ci) {
			fprintf(f, "[%s %s %s] (%d%% CI, n=%zu, log-ratio t)\n",
			       fmt_pct(head->st.ci_lo_pct, a, sizeof(a)),
			       fmt_pct(head->change, b, sizeof(b)),
			       fmt_pct(head->st.ci_hi_pct, c, sizeof(c)), lvl, in->n);
			if (head->verdict == STATS_NO_CHANGE)
				fprintf(f, "No significant change: the %d%% CI reaches into +-%.2f%%.\n",
				       lvl, o->st.noise);
			else
				fprintf(f, "%s %s: the whole %d%% CI is %s %+.2f%%.\n",
				       head->def->get == get_gbps ? "Throughput" : "CPU cost per byte",
				       !strcmp(verdict_word(head), "better") ? "improved" : "regressed",
				       lvl, head->verdict == STATS_HIGHER ? "above" : "below",
				       head->verdict == STATS_HIGHER ? o->st.noise : -o->st.noise);
		} else {
			fprintf(f, "%s (n=%zu, no CI)\n", fmt_pct(head->change, a, sizeof(a)), in->n);
		}
	}
	for (i = 0; i < w->n; i++)
		fprintf(f, "warning: %s\n", w->msg[i]);
}

struct text_args {
	const struct input *in;
	const struct cmp_opts *o;
	struct row *rows;
	size_t nrows;
	const struct row *head;
	const struct order_info *oi;
	const struct warnings *w;
};

static void print_text_args(FILE *f, const void *ctx)
{
	const struct text_args *a = ctx;

	print_text(f, a->in, a->o, a->rows, a->nrows, a->head, a->oi, a->w);
}

static json_t *jnum(double v)
{
	return isfinite(v) ? json_real(v) : json_null();
}

static json_t *jvals(const double *v, size_t n)
{
	json_t *a = json_array();
	size_t i;

	for (i = 0; a && i < n; i++)
		json_array_append_new(a, jnum(v[i]));
	return a;
}

static json_t *jfiles(const struct side *s)
{
	json_t *a = json_array();
	size_t i;

	for (i = 0; a && i < s->n; i++)
		json_array_append_new(a, json_string(s->paths[i]));
	return a;
}

static int print_json(const struct input *in, const struct cmp_opts *o,
		      struct row *rows, size_t nrows, const struct row *head,
		      const struct order_info *oi, const struct warnings *w)
{
	json_t *root = json_object(), *a, *m, *x;
	char seed[32];
	size_t i;
	int err;

	if (!root)
		return -ENOMEM;
	json_object_set_new(root, "format", json_string("vsockbatch-compare"));
	json_object_set_new(root, "version", json_integer(1));
	json_object_set_new(root, "pairs", json_integer((json_int_t)in->n));
	json_object_set_new(root, "level", json_real(o->st.level));
	json_object_set_new(root, "noise_pct", json_real(o->st.noise));
	json_object_set_new(root, "method",
			    json_string("paired log-ratio t-interval; change = 100*(exp(mean ln(patched/base))-1)"));
	json_object_set_new(root, "payload",
			    in->payload ? json_string(in->payload) : json_null());
	json_object_set_new(root, "cost_unit", in->cost_ok ?
			    json_string(vb_cost_unit_name(in->cost_unit)) : json_null());
	json_object_set_new(root, "base_files", jfiles(in->side[0]));
	json_object_set_new(root, "patched_files", jfiles(in->side[1]));

	x = json_object();
	snprintf(seed, sizeof(seed), "0x%llx", (unsigned long long)o->st.seed);
	json_object_set_new(x, "statistic", json_string("ratio of means"));
	json_object_set_new(x, "iters", json_integer(o->st.iters));
	json_object_set_new(x, "seed", json_string(seed));
	json_object_set_new(root, "bootstrap", x);

	a = json_array();
	for (i = 0; i < nrows; i++) {
		const struct row *r = &rows[i];
		const char *v = verdict_json(r);

		m = json_object();
		json_object_set_new(m, "name", json_string(r->key));
		json_object_set_new(m, "unit", json_string(r->unit));
		json_object_set_new(m, "better", json_string(
			r->def->better == HIGHER_BETTER ? "higher" :
			r->def->better == LOWER_BETTER ? "lower" : "neutral"));
		json_object_set_new(m, "base", jnum(r->bmean));
		json_object_set_new(m, "patched", jnum(r->pmean));
		json_object_set_new(m, "change_pct", jnum(r->change));
		json_object_set_new(m, "method", json_string(r->method));
		json_object_set_new(m, "ci_lo_pct", r->have_ci ? jnum(r->st.ci_lo_pct) : json_null());
		json_object_set_new(m, "ci_hi_pct", r->have_ci ? jnum(r->st.ci_hi_pct) : json_null());
		json_object_set_new(m, "boot_lo_pct", r->have_boot ? jnum(r->boot.lo_pct) : json_null());
		json_object_set_new(m, "boot_hi_pct", r->have_boot ? jnum(r->boot.hi_pct) : json_null());
		json_object_set_new(m, "verdict", v ? json_string(v) : json_null());
		json_object_set_new(m, "base_values", jvals(r->bv, in->n));
		json_object_set_new(m, "patched_values", jvals(r->pv, in->n));
		json_array_append_new(a, m);
	}
	json_object_set_new(root, "metrics", a);

	a = json_array();
	for (i = 0; i < N_SHIFTS; i++) {
		const struct hist_shift *h = &hist_shifts[i];

		if (!h->bn && !h->pn)
			continue;
		m = json_object();
		json_object_set_new(m, "name", json_string(h->key));
		json_object_set_new(m, "unit", json_string(h->unit));
		json_object_set_new(m, "base_samples", json_integer((json_int_t)h->bn));
		json_object_set_new(m, "patched_samples", json_integer((json_int_t)h->pn));
		json_object_set_new(m, "scheme", json_string(vb_hist_linear(h->id) ?
				    VB_SCHEME_LINEAR : VB_SCHEME_LOG2));
		json_object_set_new(m, "base_p50", json_string(h->b50));
		json_object_set_new(m, "base_p99", json_string(h->b99));
		json_object_set_new(m, "patched_p50", json_string(h->p50));
		json_object_set_new(m, "patched_p99", json_string(h->p99));
		json_array_append_new(a, m);
	}
	json_object_set_new(root, "histograms", a);

	if (oi->known) {
		x = json_object();
		json_object_set_new(x, "ab_pairs", json_integer((json_int_t)oi->n_ab));
		json_object_set_new(x, "ba_pairs", json_integer((json_int_t)oi->n_ba));
		json_object_set_new(x, "metric", head ? json_string(head->key) : json_null());
		if (oi->checked) {
			json_object_set_new(x, "change_ab_pct", jnum(oi->ord.change_ab_pct));
			json_object_set_new(x, "change_ba_pct", jnum(oi->ord.change_ba_pct));
			json_object_set_new(x, "disagree", json_boolean(oi->ord.disagree));
		}
		json_object_set_new(root, "order", x);
	} else {
		json_object_set_new(root, "order", json_null());
	}
	json_object_set_new(root, "headline", head ? json_string(head->key) : json_null());
	x = json_object();
	json_object_set_new(x, "base_mode", json_string(side_trace(in->side[0])));
	json_object_set_new(x, "patched_mode", json_string(side_trace(in->side[1])));
	json_object_set_new(x, "base_overhead_pct", jnum(side_overhead(in->side[0])));
	json_object_set_new(x, "patched_overhead_pct", jnum(side_overhead(in->side[1])));
	json_object_set_new(x, "tracer_shift_pct", jnum(tracer_shift_pct(in)));
	json_object_set_new(root, "tracer", x);

	a = json_array();
	for (i = 0; i < w->n; i++)
		json_array_append_new(a, json_string(w->msg[i]));
	json_object_set_new(root, "warnings", a);

	err = json_dumpf(root, stdout, JSON_INDENT(2) | JSON_PRESERVE_ORDER |
			 JSON_REAL_PRECISION(12));
	if (!err)
		putchar('\n');
	json_decref(root);
	return err ? -EIO : 0;
}

/* ---------------------------------------------------------------- main */

static int parse_opts(int argc, char **argv, struct side *b, struct side *p,
		      struct cmp_opts *o)
{
	enum { O_JSON = 256 };
	static const struct option opts[] = {
		{ "base", required_argument, NULL, 'b' },
		{ "patched", required_argument, NULL, 'p' },
		{ "json", no_argument, NULL, O_JSON },
		{ "wide", no_argument, NULL, 'w' },
		STATS_OPTS_LONG,
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	int c, err, flagged = 0;

	optind = 0;	/* full getopt reset: may be called more than once */
	opterr = 0;
	while ((c = getopt_long(argc, argv, "b:p:wh", opts, NULL)) != -1) {
		switch (c) {
		case 'b':
		case 'p':
			flagged = 1;
			err = add_path(c == 'b' ? b : p, optarg);
			if (err)
				return err;
			break;
		case O_JSON:
			o->json = 1;
			break;
		case 'w':
			o->wide = 1;
			break;
		case 'h':
			usage(stdout);
			return -1;
		default:
			/* --level/--noise/--seed/--iters or an unknown option */
			err = stats_opts_parse(&o->st, CMP_NAME, usage, c, optarg,
					       argv[optind - 1]);
			if (err)
				return err;
			break;
		}
	}
	if (flagged) {
		if (optind < argc) {
			fprintf(stderr, CMP_NAME ": use either -b/-p or BASE PATCHED, not both ('%s')\n",
				argv[optind]);
			return VB_EXIT_USAGE;
		}
	} else {
		if (argc - optind != 2) {
			fprintf(stderr, CMP_NAME ": need BASE and PATCHED (got %d file argument%s)\n",
				argc - optind, argc - optind == 1 ? "" : "s");
			usage(stderr);
			return VB_EXIT_USAGE;
		}
		if ((err = add_list(b, argv[optind])) ||
		    (err = add_list(p, argv[optind + 1])))
			return err;
	}
	if (!b->n || !p->n) {
		fprintf(stderr, CMP_NAME ": need at least one %s file\n",
			b->n ? "patched" : "baseline");
		return VB_EXIT_USAGE;
	}
	if (b->n != p->n) {
		fprintf(stderr, CMP_NAME ": refused: %zu baseline file%s but %zu patched file%s: files pair up one to one\n",
			b->n, b->n == 1 ? "" : "s", p->n, p->n == 1 ? "" : "s");
		return VB_EXIT_USAGE;
	}
	return 0;
}

int cmd_compare(int argc, char **argv)
{
	struct side base = { .name = "baseline" }, pat = { .name = "patched" };
	struct cmp_opts o = {
		.st = STATS_OPTS_DEFAULT,
	};
	struct input in = { .side = { &base, &pat } };
	struct warnings w = { .n = 0 };
	struct row rows[N_METRICS];
	const struct row *head = NULL;
	struct order_info oi;
	size_t i, nrows = 0;
	int rc;

	memset(rows, 0, sizeof(rows));
	rc = parse_opts(argc, argv, &base, &pat, &o);
	if (rc) {
		rc = rc < 0 ? VB_EXIT_OK : rc;	/* --help */
		goto out;
	}
	in.n = base.n;
	if ((rc = side_load(&base)) || (rc = side_load(&pat)) ||
	    (rc = check_independent(&in)) || (rc = check_inputs(&in, &w)))
		goto out;

	for (i = 0; i < N_METRICS; i++) {
		struct row *r = &rows[nrows];

		r->def = &metric_defs[i];
		r->key = r->def->key;
		r->label = r->def->label;
		r->unit = r->def->unit;
		/* optional rows: throughput only with the label, cost only
		 * when every run measured it, in that run's unit */
		if (r->def->get == get_gbps && !in.have_gbps)
			continue;
		if (r->def->get == get_cost) {
			if (!in.cost_ok)
				continue;
			if (in.cost_unit == VB_COST_CPU_CLOCK_NS) {
				r->key = "ns_per_byte";
				r->label = "ns/byte (cpu-clock)";
				r->unit = "ns/B";
			}
		}
		if (compute_row(r, &in, &o)) {
			fprintf(stderr, CMP_NAME ": out of memory\n");
			rc = VB_EXIT_FAIL;
			nrows++;
			goto out;
		}
		nrows++;
	}
	/* headline: throughput if measured, else CPU cost per byte */
	for (i = 0; i < nrows && !head; i++)
		if (rows[i].def->get == get_gbps)
			head = &rows[i];
	for (i = 0; i < nrows && !head; i++)
		if (rows[i].def->get == get_cost)
			head = &rows[i];

	for (i = 0; i < N_SHIFTS; i++) {
		merged_pct(&base, &hist_shifts[i], false);
		merged_pct(&pat, &hist_shifts[i], true);
	}
	tracer_cost_check(&in, rows, nrows, &w);
	order_analyse(&in, head, &o, &oi);
	if (oi.checked && oi.ord.disagree)
		warn_add(&w, "order effect on %s: AB pairs %+.2f%%, BA pairs %+.2f%%",
			 head->key, oi.ord.change_ab_pct, oi.ord.change_ba_pct);

	if (o.json) {
		if (print_json(&in, &o, rows, nrows, head, &oi, &w)) {
			fprintf(stderr, CMP_NAME ": cannot write JSON output\n");
			rc = VB_EXIT_FAIL;
		}
	} else if (o.wide) {
		print_text(stdout, &in, &o, rows, nrows, head, &oi, &w);
	} else {
		struct text_args a = { &in, &o, rows, nrows, head, &oi, &w };

		vb_print_wrapped(stdout, CMP_WIDTH, print_text_args, &a);
	}
	if (fflush(stdout)) {
		fprintf(stderr, CMP_NAME ": write error on standard output\n");
		rc = VB_EXIT_FAIL;
	}
out:
	for (i = 0; i < nrows; i++)
		free(rows[i].bv);
	warn_free(&w);
	side_free(&base);
	side_free(&pat);
	return rc;
}
