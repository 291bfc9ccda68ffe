// SPDX-License-Identifier: GPL-2.0
/*
 * results.c - results-file model, JSON load/save with jansson, and the
 * derived metrics every consumer shares.  Loading is strict: a file
 * that is not exactly what `record` writes is refused with a one-line
 * reason, never half-read.
 */
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <jansson.h>

#include "hist.h"
#include "exit_status.h"
#include "results.h"
#include "zread.h"

const char *const vb_counter_names[VB_C_NR] = {
#define VB_X(id, name, kind, desc) [VB_C_##id] = name,
	VB_COUNTERS(VB_X)
#undef VB_X
};
const char *const vb_counter_descs[VB_C_NR] = {
#define VB_X(id, name, kind, desc) [VB_C_##id] = desc,
	VB_COUNTERS(VB_X)
#undef VB_X
};
#define SUM false
#define MAX true
const bool vb_counter_is_max[VB_C_NR] = {
#define VB_X(id, name, kind, desc) [VB_C_##id] = kind,
	VB_COUNTERS(VB_X)
#undef VB_X
};
#undef SUM
#undef MAX
const char *const vb_hist_names[VB_H_NR] = {
#define VB_X(id, name, unit, desc) [VB_H_##id] = name,
	VB_LOG2_HISTS(VB_X)
	VB_LIN_HISTS(VB_X)
#undef VB_X
};
const char *const vb_hist_units[VB_H_NR] = {
#define VB_X(id, name, unit, desc) [VB_H_##id] = unit,
	VB_LOG2_HISTS(VB_X)
	VB_LIN_HISTS(VB_X)
#undef VB_X
};
const char *const vb_hist_descs[VB_H_NR] = {
#define VB_X(id, name, unit, desc) [VB_H_##id] = desc,
	VB_LOG2_HISTS(VB_X)
	VB_LIN_HISTS(VB_X)
#undef VB_X
};

const struct vb_flow_key vb_other_flows = {
	.src_cid = UINT32_MAX, .src_port = UINT32_MAX,
	.dst_cid = UINT32_MAX, .dst_port = UINT32_MAX,
};

const char *vb_mode_name(enum vb_kernel_mode mode)
{
	switch (mode) {
	case VB_MODE_BASELINE:
		return "baseline";
	case VB_MODE_BATCHED:
		return "batched";
	default:
		return "unknown";
	}
}

const char *vb_trace_mode_name(enum vb_trace_mode m)
{
	return m == VB_TRACE_LIGHT ? "light" :
	       m == VB_TRACE_FULL || m == VB_TRACE_FULL_NORUNS ? "full" : "auto";
}

bool vb_results_pkt_event(const struct vb_results *r)
{
	size_t i;

	/*
	 * The recv_pkt event sees every packet.  Where the series batches,
	 * light mode sees the packets in runs through the rx_batch event and
	 * every other packet at virtio_transport_recv_pkt(), which the RX
	 * workers call for nothing else.
	 */
	for (i = 0; i < r->nhooks; i++)
		if (!strcmp(r->hooks[i], "tp_btf/virtio_transport_recv_pkt") ||
		    !strcmp(r->hooks[i],
			    "tracepoint/vsock/virtio_transport_recv_pkt") ||
		    !strcmp(r->hooks[i], "fentry/virtio_transport_recv_pkt") ||
		    !strcmp(r->hooks[i], "kprobe/virtio_transport_recv_pkt"))
			return true;
	/* a file without a hooks list (version 1) had it */
	return !r->nhooks;
}

bool vb_results_reader_waits(const struct vb_results *r)
{
	size_t i, n;

	for (i = 0; i < r->nhooks; i++) {
		n = strlen(r->hooks[i]);
		if (n >= 12 && !strcmp(r->hooks[i] + n - 12, "/__lock_sock"))
			return true;
	}
	/* files without a hooks list (version 1): full mode had it */
	return !r->nhooks && r->trace != VB_TRACE_LIGHT;
}

int vb_trace_mode_parse(const char *s, enum vb_trace_mode *m)
{
	if (!strcmp(s, "light"))
		*m = VB_TRACE_LIGHT;
	else if (!strcmp(s, "full"))
		*m = VB_TRACE_FULL;
	else if (!strcmp(s, "auto"))
		*m = VB_TRACE_AUTO;
	else
		return -EINVAL;
	return 0;
}

const char *vb_cost_unit_name(enum vb_cost_unit unit)
{
	return unit == VB_COST_CYCLES ? "cycles" : "cpu-clock-ns";
}

void vb_results_init(struct vb_results *r)
{
	memset(r, 0, sizeof(*r));
	r->version = VB_RESULTS_VERSION;
	r->self.sample = 1;
	r->self.duty = 1;
	snprintf(r->tool, sizeof(r->tool), "vsockbatch");
}

static void free_strv(char **v, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		free(v[i]);
	free(v);
}

void vb_results_free(struct vb_results *r)
{
	size_t i;

	free_strv(r->argv, r->argc);
	free_strv(r->hooks, r->nhooks);
	free(r->flows);
	free(r->cpus);
	free(r->cost.cpus);
	for (i = 0; i < r->nlabels; i++) {
		free(r->labels[i].key);
		free(r->labels[i].value);
	}
	free(r->labels);
	vb_results_init(r);
}

static int strv_push(char ***v, size_t *n, const char *s)
{
	char **nv, *d = strdup(s);

	if (!d)
		return -ENOMEM;
	nv = realloc(*v, (*n + 1) * sizeof(**v));
	if (!nv) {
		free(d);
		return -ENOMEM;
	}
	nv[(*n)++] = d;
	*v = nv;
	return 0;
}

int vb_results_set_argv(struct vb_results *r, int argc, char *const argv[])
{
	int i, err;

	free_strv(r->argv, r->argc);
	r->argv = NULL;
	r->argc = 0;
	for (i = 0; i < argc; i++) {
		err = strv_push(&r->argv, &r->argc, argv[i]);
		if (err)
			return err;
	}
	return 0;
}

int vb_results_add_hook(struct vb_results *r, const char *hook)
{
	return strv_push(&r->hooks, &r->nhooks, hook);
}

int vb_results_set_label(struct vb_results *r, const char *key,
			 const char *value)
{
	struct vb_label *nl;
	char *k, *v;
	size_t i;

	v = strdup(value);
	if (!v)
		return -ENOMEM;
	for (i = 0; i < r->nlabels; i++) {
		if (!strcmp(r->labels[i].key, key)) {
			free(r->labels[i].value);
			r->labels[i].value = v;
			return 0;
		}
	}
	k = strdup(key);
	nl = realloc(r->labels, (r->nlabels + 1) * sizeof(*nl));
	if (!k || !nl) {
		free(k);
		free(v);
		if (nl)
			r->labels = nl;
		return -ENOMEM;
	}
	nl[r->nlabels].key = k;
	nl[r->nlabels].value = v;
	r->labels = nl;
	r->nlabels++;
	return 0;
}

const char *vb_results_label(const struct vb_results *r, const char *key)
{
	size_t i;

	for (i = 0; i < r->nlabels; i++)
		if (!strcmp(r->labels[i].key, key))
			return r->labels[i].value;
	return NULL;
}

/* ------------------------------------------------------------------ save */

static json_t *agg_counters_json(const struct vb_agg *a, int n)
{
	json_t *o = json_object();
	int i;

	for (i = 0; o && i < n; i++)
		json_object_set_new(o, vb_counter_names[i],
				    json_integer((json_int_t)a->cnt[i]));
	return o;
}

static json_t *slots_json(const struct vb_uhist *h, unsigned int n)
{
	json_t *a = json_array();
	unsigned int i;

	for (i = 0; a && i < n; i++)
		json_array_append_new(a, json_integer((json_int_t)h->slots[i]));
	return a;
}

static json_t *agg_hists_json(const struct vb_agg *a)
{
	json_t *o = json_object(), *h;
	int i;

	for (i = 0; o && i < VB_H_NR; i++) {
		h = json_object();
		json_object_set_new(h, "unit", json_string(vb_hist_units[i]));
		json_object_set_new(h, "scheme", json_string(vb_hist_linear(i) ?
				    VB_SCHEME_LINEAR : VB_SCHEME_LOG2));
		json_object_set_new(h, "slots", slots_json(&a->hist[i],
							   vb_hist_nslots(i)));
		json_object_set_new(o, vb_hist_names[i], h);
	}
	return o;
}

static json_t *strv_json(char *const *v, size_t n)
{
	json_t *a = json_array();
	size_t i;

	for (i = 0; a && i < n; i++)
		json_array_append_new(a, json_string(v[i]));
	return a;
}

void vb_results_labels_to_json(json_t *root, const struct vb_results *r)
{
	json_t *o;
	size_t i;

	if (!r->nlabels)
		return;
	o = json_object();
	for (i = 0; i < r->nlabels; i++)
		json_object_set_new(o, r->labels[i].key,
				    json_string(r->labels[i].value));
	json_object_set_new(root, "labels", o);
}

static json_t *results_json(const struct vb_results *r)
{
	json_t *root = json_object(), *o, *a, *e;
	size_t i;

	if (!root)
		return NULL;
	json_object_set_new(root, "format", json_string(VB_RESULTS_FORMAT));
	json_object_set_new(root, "version", json_integer(VB_RESULTS_VERSION));
	json_object_set_new(root, "tool", json_string(r->tool));
	json_object_set_new(root, "command_line", strv_json(r->argv, r->argc));

	o = json_object();
	json_object_set_new(o, "release", json_string(r->kernel_release));
	json_object_set_new(o, "mode", json_string(vb_mode_name(r->mode)));
	json_object_set_new(o, "detected_by", json_string(r->detected_by));
	json_object_set_new(root, "kernel", o);

	json_object_set_new(root, "hooks", strv_json(r->hooks, r->nhooks));
	json_object_set_new(root, "duration_ns",
			    json_integer((json_int_t)r->duration_ns));
	json_object_set_new(root, "start_unix_ns",
			    json_integer((json_int_t)r->start_unix_ns));
	json_object_set_new(root, "totals", agg_counters_json(&r->totals, VB_C_NR));
	json_object_set_new(root, "histograms", agg_hists_json(&r->totals));

	a = json_array();
	for (i = 0; i < r->nflows; i++) {
		const struct vb_flow *f = &r->flows[i];

		e = json_object();
		json_object_set_new(e, "src_cid", json_integer(f->key.src_cid));
		json_object_set_new(e, "src_port", json_integer(f->key.src_port));
		json_object_set_new(e, "dst_cid", json_integer(f->key.dst_cid));
		json_object_set_new(e, "dst_port", json_integer(f->key.dst_port));
		json_object_set_new(e, "counters", agg_counters_json(&f->agg, VB_FC_NR));
		json_array_append_new(a, e);
	}
	json_object_set_new(root, "flows", a);

	a = json_array();
	for (i = 0; i < r->ncpus; i++) {
		const struct vb_cpu *c = &r->cpus[i];

		e = json_object();
		json_object_set_new(e, "cpu", json_integer(c->cpu));
		json_object_set_new(e, "counters", agg_counters_json(&c->agg, VB_C_NR));
		json_object_set_new(e, "cost", json_integer(c->cost));
		json_array_append_new(a, e);
	}
	json_object_set_new(root, "per_cpu", a);

	o = json_object();
	json_object_set_new(o, "unit",
			    json_string(vb_cost_unit_name(r->cost.unit)));
	json_object_set_new(o, "source", json_string(r->cost.source));
	json_object_set_new(o, "note", json_string(r->cost.note));
	json_object_set_new(o, "measured", json_boolean(r->cost.measured));
	json_object_set_new(o, "total", json_integer((json_int_t)r->cost.total));
	a = json_array();
	for (i = 0; i < r->cost.ncpus; i++)
		json_array_append_new(a, json_integer(r->cost.cpus[i]));
	json_object_set_new(o, "cpus", a);
	json_object_set_new(root, "cpu_cost", o);

	vb_results_labels_to_json(root, r);
	o = json_object();
	json_object_set_new(o, "mode", json_string(vb_trace_mode_name(r->trace)));
	json_object_set_new(o, "runs_visible",
			    json_boolean(r->trace != VB_TRACE_FULL_NORUNS));
	json_object_set_new(o, "recursion_misses",
			    json_integer((json_int_t)r->self.recursion_misses));
	json_object_set_new(o, "bpf_stats", json_boolean(r->self.bpf_stats));
	json_object_set_new(o, "time_sample", json_integer(r->self.sample));
	json_object_set_new(o, "window_duty", json_integer(r->self.duty));
	json_object_set_new(o, "window_slice_ms", json_integer(r->self.slice_ms));
	json_object_set_new(o, "run_ns", json_integer((json_int_t)r->self.run_ns));
	json_object_set_new(o, "run_cnt", json_integer((json_int_t)r->self.run_cnt));
	e = json_object();
	json_object_set_new(e, "measured", json_boolean(r->self.overhead.measured));
	json_object_set_new(e, "insns_per_byte_pct", r->self.overhead.measured ?
			    json_real(r->self.overhead.pct) : json_null());
	json_object_set_new(e, "payload", json_string(r->self.overhead.payload));
	json_object_set_new(e, "source", json_string(r->self.overhead.source));
	if (r->self.overhead.measured && r->self.overhead.boots > 0) {
		json_object_set_new(e, "ci95_lo_pct",
				    json_real(r->self.overhead.lo));
		json_object_set_new(e, "ci95_hi_pct",
				    json_real(r->self.overhead.hi));
		json_object_set_new(e, "own_insns_pct",
				    json_real(r->self.overhead.direct));
		json_object_set_new(e, "boots",
				    json_integer(r->self.overhead.boots));
		json_object_set_new(e, "kernel",
				    json_string(r->self.overhead.kernel));
	}
	if (r->self.overhead.measured && r->self.overhead.per_run > 0) {
		const struct vb_overhead *ov = &r->self.overhead;

		json_object_set_new(e, "own_insns_per_run",
				    json_real(ov->per_run));
		json_object_set_new(e, "own_insns_per_run_ci95",
				    json_pack("[f, f]", ov->per_run_lo,
					      ov->per_run_hi));
		json_object_set_new(e, "set_run_len_pkts",
				    json_real(ov->run_len));
		json_object_set_new(e, "untraced_insns_per_pkt",
				    json_real(ov->untraced));
	}
	json_object_set_new(o, "overhead", e);
	json_object_set_new(root, "tracer", o);
	return root;
}

char *vb_results_dump_string(const struct vb_results *r, int indent)
{
	json_t *root = results_json(r);
	char *s;

	if (!root)
		return NULL;
	s = json_dumps(root, indent > 0 ? JSON_INDENT(indent) : JSON_COMPACT);
	json_decref(root);
	return s;
}

int vb_results_save(const char *path, const struct vb_results *r,
		    char *errbuf, size_t errlen)
{
	char *text = vb_results_dump_string(r, 2), *tmp = NULL;
	FILE *f = NULL;
	int err = 0;

	if (!text) {
		snprintf(errbuf, errlen, "out of memory while encoding JSON");
		return -ENOMEM;
	}
	/* write to a temporary file and rename: never leave a torn file */
	if (asprintf(&tmp, "%s.tmp.%d", path, (int)getpid()) < 0) {
		tmp = NULL;
		err = -ENOMEM;
		snprintf(errbuf, errlen, "out of memory");
		goto out;
	}
	f = fopen(tmp, "w");
	if (!f) {
		err = -errno;
		snprintf(errbuf, errlen, "%s: %s", tmp, strerror(errno));
		goto out;
	}
	if (fputs(text, f) == EOF || fputc('\n', f) == EOF) {
		err = -errno;
		snprintf(errbuf, errlen, "%s: write: %s", tmp, strerror(errno));
		fclose(f);
		unlink(tmp);
		goto out;
	}
	if (fclose(f)) {
		err = -errno;
		snprintf(errbuf, errlen, "%s: %s", tmp, strerror(errno));
		unlink(tmp);
		goto out;
	}
	if (rename(tmp, path)) {
		err = -errno;
		snprintf(errbuf, errlen, "%s: rename: %s", path, strerror(errno));
		unlink(tmp);
	}
out:
	free(tmp);
	free(text);
	return err;
}

/* ------------------------------------------------------------------ load */

struct ld {
	char *err;
	size_t errlen;
	bool v1;	/* a version-1 file: see load_v1_counters() */
};

static int fail(struct ld *ld, int code, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
static int fail(struct ld *ld, int code, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(ld->err, ld->errlen, fmt, ap);
	va_end(ap);
	return code;
}

static int get(struct ld *ld, json_t *obj, const char *where,
	       const char *key, json_type type, json_t **out)
{
	json_t *v = json_object_get(obj, key);
	static const char *const tn[] = {
		[JSON_OBJECT] = "an object", [JSON_ARRAY] = "an array",
		[JSON_STRING] = "a string", [JSON_INTEGER] = "an integer",
		[JSON_REAL] = "a number", [JSON_TRUE] = "a boolean",
		[JSON_FALSE] = "a boolean", [JSON_NULL] = "null",
	};

	if (!v)
		return fail(ld, -EINVAL, "missing field \"%s%s\"", where, key);
	if (json_typeof(v) != type &&
	    !(type == JSON_TRUE && json_is_boolean(v)))
		return fail(ld, -EINVAL, "field \"%s%s\" is not %s", where, key,
			    tn[type]);
	*out = v;
	return 0;
}

/*
 * tracer.overhead's per-run figures: own instructions per run, its CI,
 * the set's run length and untraced instructions per packet, each a
 * positive number (the CI around the mean).
 */
static int load_per_run(struct ld *ld, json_t *c, struct vb_overhead *ov)
{
	static const char *const num[] = { "own_insns_per_run",
		"set_run_len_pkts", "untraced_insns_per_pkt" };
	double *to[] = { &ov->per_run, &ov->run_len, &ov->untraced };
	json_t *v, *a;
	size_t i;

	for (i = 0; i < 3; i++) {
		v = json_object_get(c, num[i]);
		if (!v || !json_is_number(v) || !(json_number_value(v) > 0) ||
		    !isfinite(json_number_value(v)))
			return fail(ld, -EINVAL, "field \"tracer.overhead.%s\" is not a positive number",
				    num[i]);
		*to[i] = json_number_value(v);
	}
	a = json_object_get(c, "own_insns_per_run_ci95");
	if (!json_is_array(a) || json_array_size(a) != 2 ||
	    !json_is_number(json_array_get(a, 0)) ||
	    !json_is_number(json_array_get(a, 1)))
		return fail(ld, -EINVAL, "field \"tracer.overhead.own_insns_per_run_ci95\" is not [lo, hi]");
	ov->per_run_lo = json_number_value(json_array_get(a, 0));
	ov->per_run_hi = json_number_value(json_array_get(a, 1));
	if (!(ov->per_run_lo <= ov->per_run && ov->per_run <= ov->per_run_hi))
		return fail(ld, -EINVAL, "field \"tracer.overhead.own_insns_per_run_ci95\" does not hold own_insns_per_run");
	return 0;
}

static int get_u64(struct ld *ld, json_t *obj, const char *where,
		   const char *key, uint64_t *out)
{
	json_t *v = NULL;
	int err = get(ld, obj, where, key, JSON_INTEGER, &v);

	if (err)
		return err;
	if (json_integer_value(v) < 0)
		return fail(ld, -EINVAL, "field \"%s%s\" is negative", where,
			    key);
	*out = (uint64_t)json_integer_value(v);
	return 0;
}

static int get_u32(struct ld *ld, json_t *obj, const char *where,
		   const char *key, uint32_t *out)
{
	uint64_t v = 0;
	int err = get_u64(ld, obj, where, key, &v);

	if (err)
		return err;
	if (v > UINT32_MAX)
		return fail(ld, -EINVAL, "field \"%s%s\" out of range", where,
			    key);
	*out = (uint32_t)v;
	return 0;
}

/* An optional "tracer." integer in lo..hi; def when the file has none. */
static int get_opt_u32(struct ld *ld, json_t *obj, const char *key,
		       uint32_t lo, uint32_t hi, uint32_t def, uint32_t *out)
{
	json_t *v = json_object_get(obj, key);

	*out = def;
	if (!v)
		return 0;
	if (!json_is_integer(v) || json_integer_value(v) < lo ||
	    json_integer_value(v) > hi)
		return fail(ld, -EINVAL, "\"tracer.%s\" is not %u..%u", key,
			    lo, hi);
	*out = (uint32_t)json_integer_value(v);
	return 0;
}

static int get_str(struct ld *ld, json_t *obj, const char *where,
		   const char *key, char *buf, size_t len)
{
	json_t *v = NULL;
	int err = get(ld, obj, where, key, JSON_STRING, &v);

	if (err)
		return err;
	snprintf(buf, len, "%s", json_string_value(v));
	return 0;
}

static int get_strv(struct ld *ld, json_t *obj, const char *key,
		    char ***v, size_t *n)
{
	json_t *a = NULL, *e;
	size_t i;
	int err = get(ld, obj, "", key, JSON_ARRAY, &a);

	if (err)
		return err;
	json_array_foreach(a, i, e) {
		if (!json_is_string(e))
			return fail(ld, -EINVAL, "\"%s[%zu]\" is not a string",
				    key, i);
		if (strv_push(v, n, json_string_value(e)))
			return fail(ld, -ENOMEM, "out of memory");
	}
	return 0;
}

/*
 * A version-1 file (the tracer before light/full modes) still loads, so
 * committed sets stay readable: counters that kept their name are read,
 * the others are 0.  What changed meaning:
 *   hold_ns (lock_sock -> release_sock) is taken as window_ns;
 *   on patched kernels batches/batch_pkts/batch_bytes are the kernel's
 *   runs (kb_runs/kb_pkts/kb_bytes), as version 2 counts them;
 *   batch lengths were log2: the linear histogram and batch_max are
 *   empty (0), so only the mean length is known.
 */
static int load_v1_counters(struct ld *ld, json_t *o, const char *where,
			    struct vb_agg *a, int n)
{
	static const char *const runs[] = { "kb_runs", "kb_pkts", "kb_bytes" };
	static const int to[] = { VB_C_BATCHES, VB_C_BATCH_PKTS, VB_C_BATCH_BYTES };
	uint64_t v = 0;
	int i, err;

	for (i = 0; i < n; i++) {
		if (!json_object_get(o, vb_counter_names[i]))
			continue;
		err = get_u64(ld, o, where, vb_counter_names[i], &a->cnt[i]);
		if (err)
			return err;
	}
	a->cnt[VB_C_BATCH_MAX] = 0;
	if (json_object_get(o, "hold_ns") &&
	    (err = get_u64(ld, o, where, "hold_ns", &a->cnt[VB_C_WINDOW_NS])))
		return err;
	if (!json_object_get(o, "kb_runs") ||
	    (err = get_u64(ld, o, where, "kb_runs", &v)) || !v)
		return 0;
	for (i = 0; i < 3; i++) {
		if (!json_object_get(o, runs[i]))
			continue;
		err = get_u64(ld, o, where, runs[i], &a->cnt[to[i]]);
		if (err)
			return err;
	}
	return 0;
}

static int load_counters(struct ld *ld, json_t *o, const char *where,
			 struct vb_agg *a, int n)
{
	int i, err;

	if (ld->v1)
		return load_v1_counters(ld, o, where, a, n);
	for (i = 0; i < n; i++) {
		/*
		 * Files from before --sample lack timed_windows: their
		 * tracer timed every window.
		 */
		if (i == VB_C_TIMED &&
		    !json_object_get(o, vb_counter_names[i])) {
			a->cnt[i] = UINT64_MAX;
			continue;
		}
		/*
		 * files from before --duty: no window slices; from before
		 * the end reasons CONTENDED and CREDIT: no such runs.  0.
		 */
		if ((i == VB_C_WIN_PKTS || i == VB_C_KB_R_CONTENDED ||
		     i == VB_C_KB_R_CREDIT) &&
		    !json_object_get(o, vb_counter_names[i])) {
			a->cnt[i] = 0;
			continue;
		}
		err = get_u64(ld, o, where, vb_counter_names[i], &a->cnt[i]);
		if (err)
			return err;
	}
	if (n > VB_C_TIMED && a->cnt[VB_C_TIMED] == UINT64_MAX)
		a->cnt[VB_C_TIMED] = a->cnt[VB_C_WINDOW_NS] ?
				     a->cnt[VB_C_BATCHES] : 0;
	return 0;
}

/* Version 1: log2 histograms by name (hold_ns as window_ns), 32 slots. */
static int load_v1_hists(struct ld *ld, json_t *o, const char *where,
			 struct vb_agg *a)
{
	json_t *h, *slots, *e;
	const char *name;
	size_t j;
	int i;

	for (i = 0; i < VB_H_LOG2_NR; i++) {
		name = i == VB_H_WINDOW_NS ? "hold_ns" : vb_hist_names[i];
		h = json_object_get(o, name);
		slots = h ? json_object_get(h, "slots") : NULL;
		if (!slots)
			continue;
		if (!json_is_array(slots) || json_array_size(slots) != VB_MAX_SLOTS)
			return fail(ld, -EINVAL, "\"%s%s.slots\" is not %d counts",
				    where, name, VB_MAX_SLOTS);
		json_array_foreach(slots, j, e) {
			if (!json_is_integer(e) || json_integer_value(e) < 0)
				return fail(ld, -EINVAL,
					    "\"%s%s.slots[%zu]\" is not a count",
					    where, name, j);
			a->hist[i].slots[j] = (uint64_t)json_integer_value(e);
		}
	}
	return 0;
}

static int load_hists(struct ld *ld, json_t *o, const char *where,
		      struct vb_agg *a)
{
	char w[96];
	json_t *h = NULL, *slots = NULL, *e, *sc = NULL;
	const char *want;
	size_t j;
	int i, err;

	for (i = 0; i < VB_H_NR; i++) {
		err = get(ld, o, where, vb_hist_names[i], JSON_OBJECT, &h);
		if (err)
			return err;
		snprintf(w, sizeof(w), "%s%s.", where, vb_hist_names[i]);
		want = vb_hist_linear(i) ? VB_SCHEME_LINEAR : VB_SCHEME_LOG2;
		err = get(ld, h, w, "scheme", JSON_STRING, &sc);
		if (err)
			return err;
		if (strcmp(json_string_value(sc), want))
			return fail(ld, -EINVAL, "\"%sscheme\" is \"%s\", expected \"%s\"",
				    w, json_string_value(sc), want);
		err = get(ld, h, w, "slots", JSON_ARRAY, &slots);
		if (err)
			return err;
		if (json_array_size(slots) != vb_hist_nslots(i))
			return fail(ld, -EINVAL,
				    "\"%sslots\" has %zu entries, expected %u",
				    w, json_array_size(slots), vb_hist_nslots(i));
		json_array_foreach(slots, j, e) {
			if (!json_is_integer(e) || json_integer_value(e) < 0)
				return fail(ld, -EINVAL,
					    "\"%sslots[%zu]\" is not a count",
					    w, j);
			a->hist[i].slots[j] = (uint64_t)json_integer_value(e);
		}
	}
	return 0;
}

static int load_root(struct ld *ld, json_t *root, struct vb_results *r)
{
	json_t *v = NULL, *o = NULL, *a = NULL, *e, *c = NULL;
	char w[64], buf[32];
	const char *key;
	size_t i;
	int err;

	if (!json_is_object(root))
		return fail(ld, -EINVAL, "top level is not a JSON object");
	v = json_object_get(root, "format");
	if (!v || !json_is_string(v) ||
	    strcmp(json_string_value(v), VB_RESULTS_FORMAT))
		return fail(ld, -EINVAL,
			    "not a vsockbatch results file (\"format\" is not \"%s\")",
			    VB_RESULTS_FORMAT);
	v = json_object_get(root, "version");
	if (!v || !json_is_integer(v))
		return fail(ld, -EINVAL, "missing or non-integer \"version\"");
	ld->v1 = json_integer_value(v) == 1;
	if (!ld->v1 && json_integer_value(v) != VB_RESULTS_VERSION)
		return fail(ld, -EPROTO,
			    "unsupported results version %lld (this vsockbatch reads version %d)",
			    (long long)json_integer_value(v),
			    VB_RESULTS_VERSION);
	r->version = ld->v1 ? 1 : VB_RESULTS_VERSION;

	if ((err = get_str(ld, root, "", "tool", r->tool, sizeof(r->tool))) ||
	    (err = get_strv(ld, root, "command_line", &r->argv, &r->argc)) ||
	    (err = get(ld, root, "", "kernel", JSON_OBJECT, &o)) ||
	    (err = get_str(ld, o, "kernel.", "release", r->kernel_release,
			   sizeof(r->kernel_release))) ||
	    (err = get_str(ld, o, "kernel.", "mode", buf, sizeof(buf))) ||
	    (err = get_str(ld, o, "kernel.", "detected_by", r->detected_by,
			   sizeof(r->detected_by))))
		return err;
	if (!strcmp(buf, "batched"))
		r->mode = VB_MODE_BATCHED;
	else if (!strcmp(buf, "baseline"))
		r->mode = VB_MODE_BASELINE;
	else if (!strcmp(buf, "unknown"))
		r->mode = VB_MODE_UNKNOWN;
	else
		return fail(ld, -EINVAL, "\"kernel.mode\" is \"%s\"", buf);

	if ((err = get_strv(ld, root, "hooks", &r->hooks, &r->nhooks)) ||
	    (err = get_u64(ld, root, "", "duration_ns", &r->duration_ns)) ||
	    (err = get_u64(ld, root, "", "start_unix_ns", &r->start_unix_ns)))
		return err;
	if ((err = get(ld, root, "", "totals", JSON_OBJECT, &o)) ||
	    (err = load_counters(ld, o, "totals.", &r->totals, VB_C_NR)) ||
	    (err = get(ld, root, "", "histograms", JSON_OBJECT, &o)) ||
	    (err = ld->v1 ? load_v1_hists(ld, o, "histograms.", &r->totals)
			  : load_hists(ld, o, "histograms.", &r->totals)))
		return err;

	if ((err = get(ld, root, "", "flows", JSON_ARRAY, &a)))
		return err;
	if (json_array_size(a)) {
		r->flows = calloc(json_array_size(a), sizeof(*r->flows));
		if (!r->flows)
			return fail(ld, -ENOMEM, "out of memory");
	}
	json_array_foreach(a, i, e) {
		struct vb_flow *f = &r->flows[i];

		snprintf(w, sizeof(w), "flows[%zu].", i);
		if (!json_is_object(e))
			return fail(ld, -EINVAL, "\"flows[%zu]\" is not an object", i);
		if ((err = get_u32(ld, e, w, "src_cid", &f->key.src_cid)) ||
		    (err = get_u32(ld, e, w, "src_port", &f->key.src_port)) ||
		    (err = get_u32(ld, e, w, "dst_cid", &f->key.dst_cid)) ||
		    (err = get_u32(ld, e, w, "dst_port", &f->key.dst_port)) ||
		    (err = get(ld, e, w, "counters", JSON_OBJECT, &c)) ||
		    (err = load_counters(ld, c, w, &f->agg, VB_FC_NR)))
			return err;
		r->nflows++;
	}

	if ((err = get(ld, root, "", "per_cpu", JSON_ARRAY, &a)))
		return err;
	if (json_array_size(a)) {
		r->cpus = calloc(json_array_size(a), sizeof(*r->cpus));
		if (!r->cpus)
			return fail(ld, -ENOMEM, "out of memory");
	}
	json_array_foreach(a, i, e) {
		struct vb_cpu *cp = &r->cpus[i];

		snprintf(w, sizeof(w), "per_cpu[%zu].", i);
		if (!json_is_object(e))
			return fail(ld, -EINVAL, "\"per_cpu[%zu]\" is not an object", i);
		if ((err = get_u32(ld, e, w, "cpu", &cp->cpu)) ||
		    (err = get(ld, e, w, "counters", JSON_OBJECT, &c)) ||
		    (err = load_counters(ld, c, w, &cp->agg, VB_C_NR)) ||
		    (err = get(ld, e, w, "cost", JSON_INTEGER, &v)))
			return err;
		cp->cost = json_integer_value(v);
		if (cp->cost < -1)
			return fail(ld, -EINVAL, "\"%scost\" is negative", w);
		r->ncpus++;
	}

	if ((err = get(ld, root, "", "cpu_cost", JSON_OBJECT, &o)) ||
	    (err = get_str(ld, o, "cpu_cost.", "unit", buf, sizeof(buf))))
		return err;
	if (!strcmp(buf, "cycles"))
		r->cost.unit = VB_COST_CYCLES;
	else if (!strcmp(buf, "cpu-clock-ns"))
		r->cost.unit = VB_COST_CPU_CLOCK_NS;
	else
		return fail(ld, -EINVAL, "\"cpu_cost.unit\" is \"%s\"", buf);
	if ((err = get_str(ld, o, "cpu_cost.", "source", r->cost.source,
			   sizeof(r->cost.source))) ||
	    (err = get_str(ld, o, "cpu_cost.", "note", r->cost.note,
			   sizeof(r->cost.note))) ||
	    (err = get(ld, o, "cpu_cost.", "measured", JSON_TRUE, &v)))
		return err;
	r->cost.measured = json_is_true(v);
	if ((err = get_u64(ld, o, "cpu_cost.", "total", &r->cost.total)) ||
	    (err = get(ld, o, "cpu_cost.", "cpus", JSON_ARRAY, &a)))
		return err;
	if (json_array_size(a)) {
		r->cost.cpus = calloc(json_array_size(a), sizeof(uint32_t));
		if (!r->cost.cpus)
			return fail(ld, -ENOMEM, "out of memory");
	}
	json_array_foreach(a, i, e) {
		if (!json_is_integer(e) || json_integer_value(e) < 0 ||
		    json_integer_value(e) > UINT32_MAX)
			return fail(ld, -EINVAL, "\"cpu_cost.cpus[%zu]\" is not a CPU", i);
		r->cost.cpus[r->cost.ncpus++] = (uint32_t)json_integer_value(e);
	}

	if (ld->v1) {
		/* the old tracer: window hooks on every packet, like full */
		r->trace = VB_TRACE_FULL;
		snprintf(r->self.overhead.source, sizeof(r->self.overhead.source),
			 "version-1 file: the tracer before light/full modes");
		o = json_object_get(root, "tracer");	/* optional in v1 */
		if (o && ((err = get_u64(ld, o, "tracer.", "recursion_misses",
					 &r->self.recursion_misses)) ||
			  (err = get_u64(ld, o, "tracer.", "run_ns", &r->self.run_ns)) ||
			  (err = get_u64(ld, o, "tracer.", "run_cnt", &r->self.run_cnt))))
			return err;
		if (o && (v = json_object_get(o, "bpf_stats")))
			r->self.bpf_stats = json_is_true(v);
		goto labels;
	}
	if ((err = get(ld, root, "", "tracer", JSON_OBJECT, &o)) ||
	    (err = get_str(ld, o, "tracer.", "mode", buf, sizeof(buf))))
		return err;
	if (vb_trace_mode_parse(buf, &r->trace) || r->trace == VB_TRACE_AUTO)
		return fail(ld, -EINVAL, "\"tracer.mode\" is \"%s\"", buf);
	v = json_object_get(o, "runs_visible");	/* optional: true */
	if (v && !json_is_boolean(v))
		return fail(ld, -EINVAL, "\"tracer.runs_visible\" is not a boolean");
	if (v && json_is_false(v) && r->trace == VB_TRACE_FULL)
		r->trace = VB_TRACE_FULL_NORUNS;
	if ((err = get_u64(ld, o, "tracer.", "recursion_misses",
			   &r->self.recursion_misses)) ||
	    (err = get(ld, o, "tracer.", "bpf_stats", JSON_TRUE, &v)))
		return err;
	r->self.bpf_stats = json_is_true(v);
	/*
	 * optional: files from before --sample timed every window, files
	 * from before --duty had the window hooks always on
	 */
	if ((err = get_opt_u32(ld, o, "time_sample", 1, VB_SAMPLE_MAX, 1,
			       &r->self.sample)) ||
	    (err = get_opt_u32(ld, o, "window_duty", 1, VB_DUTY_MAX, 1,
			       &r->self.duty)) ||
	    (err = get_opt_u32(ld, o, "window_slice_ms", 0, 10000, 0,
			       &r->self.slice_ms)))
		return err;
	if (r->self.duty > 1 && r->trace != VB_TRACE_FULL)
		return fail(ld, -EINVAL, "\"tracer.window_duty\" %u needs tracer.mode full",
			    r->self.duty);
	if ((err = get_u64(ld, o, "tracer.", "run_ns", &r->self.run_ns)) ||
	    (err = get_u64(ld, o, "tracer.", "run_cnt", &r->self.run_cnt)) ||
	    (err = get(ld, o, "tracer.", "overhead", JSON_OBJECT, &c)) ||
	    (err = get(ld, c, "tracer.overhead.", "measured", JSON_TRUE, &v)))
		return err;
	r->self.overhead.measured = json_is_true(v);
	if ((err = get_str(ld, c, "tracer.overhead.", "payload",
			   r->self.overhead.payload,
			   sizeof(r->self.overhead.payload))) ||
	    (err = get_str(ld, c, "tracer.overhead.", "source",
			   r->self.overhead.source,
			   sizeof(r->self.overhead.source))))
		return err;
	if (r->self.overhead.measured) {
		v = json_object_get(c, "insns_per_byte_pct");
		if (!v || !json_is_number(v))
			return fail(ld, -EINVAL, "field \"tracer.overhead.insns_per_byte_pct\" is not a number");
		r->self.overhead.pct = json_number_value(v);
	}
	/* optional: files from before the CI'd set (boots 0) */
	if (r->self.overhead.measured &&
	    json_object_get(c, "ci95_lo_pct")) {
		static const char *const num[] = { "ci95_lo_pct",
			"ci95_hi_pct", "own_insns_pct" };
		double *to[] = { &r->self.overhead.lo, &r->self.overhead.hi,
				 &r->self.overhead.direct };
		size_t i;

		for (i = 0; i < 3; i++) {
			v = json_object_get(c, num[i]);
			if (!v || !json_is_number(v))
				return fail(ld, -EINVAL, "field \"tracer.overhead.%s\" is not a number",
					    num[i]);
			*to[i] = json_number_value(v);
		}
		v = json_object_get(c, "boots");
		if (!v || !json_is_integer(v) || json_integer_value(v) < 0 ||
		    json_integer_value(v) > 1000)
			return fail(ld, -EINVAL, "field \"tracer.overhead.boots\" is not a count");
		r->self.overhead.boots = (int)json_integer_value(v);
		if ((err = get_str(ld, c, "tracer.overhead.", "kernel",
				   r->self.overhead.kernel,
				   sizeof(r->self.overhead.kernel))))
			return err;
	}
	/* optional: a level that runs once per kernel run */
	if (r->self.overhead.measured &&
	    json_object_get(c, "own_insns_per_run") &&
	    (err = load_per_run(ld, c, &r->self.overhead)))
		return err;

labels:
	o = json_object_get(root, "labels");	/* optional */
	if (o) {
		if (!json_is_object(o))
			return fail(ld, -EINVAL, "\"labels\" is not an object");
		json_object_foreach(o, key, v) {
			if (!json_is_string(v))
				return fail(ld, -EINVAL,
					    "\"labels.%s\" is not a string", key);
			if (vb_results_set_label(r, key, json_string_value(v)))
				return fail(ld, -ENOMEM, "out of memory");
		}
	}
	return 0;
}

static int load_json(json_t *root, json_error_t *jerr, const char *name,
		     struct vb_results *r, char *errbuf, size_t errlen)
{
	struct ld ld = { errbuf, errlen, false };
	int err;

	vb_results_init(r);
	if (!root) {
		/* a file cut short ends inside a value: say "truncated" */
		if (json_error_code(jerr) == json_error_premature_end_of_input ||
		    strstr(jerr->text, "end of file"))
			snprintf(errbuf, errlen,
				 "%s: truncated (malformed JSON: input ends early at line %d): %s",
				 name, jerr->line, jerr->text);
		else
			snprintf(errbuf, errlen,
				 "%s: malformed JSON at line %d column %d: %s",
				 name, jerr->line, jerr->column, jerr->text);
		return -EINVAL;
	}
	err = load_root(&ld, root, r);
	json_decref(root);
	if (err)
		vb_results_free(r);
	return err;
}

int vb_results_load_string(const char *json, struct vb_results *r,
			   char *errbuf, size_t errlen)
{
	json_error_t jerr;
	json_t *root = json_loads(json, JSON_REJECT_DUPLICATES, &jerr);

	return load_json(root, &jerr, "<string>", r, errbuf, errlen);
}

int vb_results_load_exit(int err)
{
	return (err == -EIO || err == -ENOMEM) ? VB_EXIT_FAIL : VB_EXIT_USAGE;
}

int vb_results_load(const char *path, struct vb_results *r,
		    char *errbuf, size_t errlen)
{
	json_error_t jerr;
	json_t *root;
	size_t len;
	char *text;
	int err;

	/* plain, or gzip/zstd by the file's magic bytes (zread.h) */
	err = vb_zread_file(path, VB_ZREAD_MAX, &text, &len, errbuf, errlen);
	if (err) {
		vb_results_init(r);
		return err;
	}
	root = json_loadb(text, len, JSON_REJECT_DUPLICATES, &jerr);
	free(text);
	err = load_json(root, &jerr, path, r, errbuf, errlen);
	if (err && root) {
		/* prefix the file name to field-level reasons */
		char tmp[512];

		snprintf(tmp, sizeof(tmp), "%s", errbuf);
		snprintf(errbuf, errlen, "%s: %s", path, tmp);
	}
	return err;
}

/* --------------------------------------------------------------- metrics */

static double ratio(uint64_t a, uint64_t b)
{
	return b ? (double)a / (double)b : NAN;
}

void vb_metrics_compute(const struct vb_agg *a, const struct vb_cost *cost,
			enum vb_trace_mode trace, uint32_t duty,
			struct vb_metrics *m)
{
	const uint64_t *c = a->cnt;
	/* --duty: the window hooks' packets; else every packet */
	uint64_t wp = duty > 1 ? c[VB_C_WIN_PKTS] : c[VB_C_PKTS];
	uint64_t dr = c[VB_C_DR_INSIDE] + c[VB_C_DR_AFTER];
	uint64_t joined = c[VB_C_BATCH_PKTS] > c[VB_C_BATCHES]
			  ? c[VB_C_BATCH_PKTS] - c[VB_C_BATCHES] : 0;
	bool full = trace == VB_TRACE_FULL || trace == VB_TRACE_FULL_NORUNS;
	bool waits;

	if (trace == VB_TRACE_FULL_NORUNS) {
		/* runs invisible: nothing about batches, windows or lookups */
		vb_metrics_compute(a, cost, VB_TRACE_FULL, duty, m);
		m->mean_batch_pkts = m->mean_batch_bytes = m->batch_max = NAN;
		m->window_mean_ns = m->kb_hold_mean_ns = m->dr_per_batch = NAN;
		m->pct_deferred = m->dr_lat_mean_ns = m->lookups_per_pkt = NAN;
		m->ws_per_pkt = m->dr_per_pkt = NAN;
		return;
	}
	m->mean_batch_pkts = ratio(c[VB_C_BATCH_PKTS], c[VB_C_BATCHES]);
	m->mean_batch_bytes = ratio(c[VB_C_BATCH_BYTES], c[VB_C_BATCHES]);
	/* 0 with batches: a version-1 file, which has no exact lengths */
	m->batch_max = c[VB_C_BATCHES] && c[VB_C_BATCH_MAX]
		       ? (double)c[VB_C_BATCH_MAX] : NAN;
	/* the sum covers the timed windows only (--sample) */
	m->window_mean_ns = full ? ratio(c[VB_C_WINDOW_NS], c[VB_C_TIMED])
				 : NAN;
	m->kb_hold_mean_ns = c[VB_C_KB_HOLD_NS]
		? ratio(c[VB_C_KB_HOLD_NS], c[VB_C_BATCHES]) : NAN;
	/* light mode sees the deferred calls only (rx_batch's flag) */
	m->dr_per_batch = full ? ratio(dr, c[VB_C_BATCHES]) : NAN;
	m->pct_deferred = full && dr ? 100.0 * (double)c[VB_C_DR_AFTER] /
				       (double)dr : NAN;
	m->dr_lat_mean_ns = full ? ratio(c[VB_C_DR_LAT_NS], c[VB_C_DR_LAT_N])
				 : NAN;
	/*
	 * Every packet that does not join an open run is looked up and
	 * locked on its own (virtio_transport_recv_pkt or the series'
	 * unbatched path); a run of n packets saves n - 1 of them.
	 */
	m->lookups_per_pkt = wp >= joined ? ratio(wp - joined, wp) : NAN;
	/* write-space is only seen in the rx_batch event (patched) */
	m->ws_per_pkt = vb_kb_runs(c) ? ratio(c[VB_C_KB_WRITE_SPACE], c[VB_C_PKTS])
				      : NAN;
	m->dr_per_pkt = full ? ratio(dr, wp) : NAN;
	/*
	 * Light mode times the waits too where __lock_sock could be hooked;
	 * without one counted its figures cannot tell 0 from not measured.
	 */
	waits = full || c[VB_C_USER_WAITS];
	m->user_wait_mean_ns = waits ? ratio(c[VB_C_USER_WAIT_NS],
					     c[VB_C_USER_WAITS]) : NAN;
	m->user_waits_per_mb = waits && c[VB_C_BYTES]
		? (double)c[VB_C_USER_WAITS] * 1e6 / (double)c[VB_C_BYTES]
		: NAN;
	m->cost_per_byte = (cost && cost->measured)
				   ? ratio(cost->total, c[VB_C_BYTES]) : NAN;
	m->worker_ns_per_byte = full ? ratio(c[VB_C_WORKER_NS], c[VB_C_BYTES])
				     : NAN;
}

void vb_agg_add(struct vb_agg *a, const struct vb_agg *b)
{
	int i, j;

	for (i = 0; i < VB_C_NR; i++)
		if (!vb_counter_is_max[i])
			a->cnt[i] += b->cnt[i];
		else if (b->cnt[i] > a->cnt[i])
			a->cnt[i] = b->cnt[i];
	for (i = 0; i < VB_H_NR; i++)
		for (j = 0; j < VB_LIN_SLOTS; j++)
			a->hist[i].slots[j] += b->hist[i].slots[j];
}

static uint64_t sub0(uint64_t a, uint64_t b)
{
	return a > b ? a - b : 0;
}

void vb_agg_sub(struct vb_agg *a, const struct vb_agg *b)
{
	int i, j;

	for (i = 0; i < VB_C_NR; i++)
		if (!vb_counter_is_max[i])
			a->cnt[i] = sub0(a->cnt[i], b->cnt[i]);
	for (i = 0; i < VB_H_NR; i++)
		for (j = 0; j < VB_LIN_SLOTS; j++)
			a->hist[i].slots[j] = sub0(a->hist[i].slots[j],
						   b->hist[i].slots[j]);
}

const struct vb_flow *vb_results_find_flow(const struct vb_results *r,
					   const struct vb_flow_key *key)
{
	size_t i;

	for (i = 0; i < r->nflows; i++)
		if (!memcmp(&r->flows[i].key, key, sizeof(*key)))
			return &r->flows[i];
	return NULL;
}
