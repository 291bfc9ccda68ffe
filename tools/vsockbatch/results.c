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
#include "results.h"

const char *const vb_counter_names[VB_C_NR] = {
#define VB_X(id, name, desc) [VB_C_##id] = name,
	VB_COUNTERS(VB_X)
#undef VB_X
};
const char *const vb_counter_descs[VB_C_NR] = {
#define VB_X(id, name, desc) [VB_C_##id] = desc,
	VB_COUNTERS(VB_X)
#undef VB_X
};
const char *const vb_hist_names[VB_H_NR] = {
#define VB_X(id, name, unit, desc) [VB_H_##id] = name,
	VB_HISTS(VB_X)
#undef VB_X
};
const char *const vb_hist_units[VB_H_NR] = {
#define VB_X(id, name, unit, desc) [VB_H_##id] = unit,
	VB_HISTS(VB_X)
#undef VB_X
};
const char *const vb_hist_descs[VB_H_NR] = {
#define VB_X(id, name, unit, desc) [VB_H_##id] = desc,
	VB_HISTS(VB_X)
#undef VB_X
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

const char *vb_cost_unit_name(enum vb_cost_unit unit)
{
	return unit == VB_COST_CYCLES ? "cycles" : "cpu-clock-ns";
}

void vb_results_init(struct vb_results *r)
{
	memset(r, 0, sizeof(*r));
	r->version = VB_RESULTS_VERSION;
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

static json_t *agg_counters_json(const struct vb_agg *a)
{
	json_t *o = json_object();
	int i;

	for (i = 0; o && i < VB_C_NR; i++)
		json_object_set_new(o, vb_counter_names[i],
				    json_integer((json_int_t)a->cnt[i]));
	return o;
}

static json_t *slots_json(const struct vb_uhist *h)
{
	json_t *a = json_array();
	int i;

	for (i = 0; a && i < VB_MAX_SLOTS; i++)
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
		json_object_set_new(h, "slots", slots_json(&a->hist[i]));
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
	json_object_set_new(root, "hist_scheme", json_string(VB_HIST_SCHEME));
	json_object_set_new(root, "totals", agg_counters_json(&r->totals));
	json_object_set_new(root, "histograms", agg_hists_json(&r->totals));

	a = json_array();
	for (i = 0; i < r->nflows; i++) {
		const struct vb_flow *f = &r->flows[i];

		e = json_object();
		json_object_set_new(e, "src_cid", json_integer(f->key.src_cid));
		json_object_set_new(e, "src_port", json_integer(f->key.src_port));
		json_object_set_new(e, "dst_cid", json_integer(f->key.dst_cid));
		json_object_set_new(e, "dst_port", json_integer(f->key.dst_port));
		json_object_set_new(e, "counters", agg_counters_json(&f->agg));
		json_object_set_new(e, "histograms", agg_hists_json(&f->agg));
		json_array_append_new(a, e);
	}
	json_object_set_new(root, "flows", a);

	a = json_array();
	for (i = 0; i < r->ncpus; i++) {
		const struct vb_cpu *c = &r->cpus[i];

		e = json_object();
		json_object_set_new(e, "cpu", json_integer(c->cpu));
		json_object_set_new(e, "counters", agg_counters_json(&c->agg));
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
	if (r->self.present) {
		o = json_object();
		json_object_set_new(o, "recursion_misses",
				    json_integer((json_int_t)r->self.recursion_misses));
		json_object_set_new(o, "bpf_stats", json_boolean(r->self.bpf_stats));
		json_object_set_new(o, "run_ns", json_integer((json_int_t)r->self.run_ns));
		json_object_set_new(o, "run_cnt", json_integer((json_int_t)r->self.run_cnt));
		json_object_set_new(root, "tracer", o);
	}
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

static int load_counters(struct ld *ld, json_t *o, const char *where,
			 struct vb_agg *a)
{
	int i, err;

	for (i = 0; i < VB_C_NR; i++) {
		/* newer counters: absent in older files, read as 0 */
		if (i >= VB_C_FIRST_OPTIONAL &&
		    !json_object_get(o, vb_counter_names[i]))
			continue;
		err = get_u64(ld, o, where, vb_counter_names[i], &a->cnt[i]);
		if (err)
			return err;
	}
	return 0;
}

static int load_hists(struct ld *ld, json_t *o, const char *where,
		      struct vb_agg *a)
{
	char w[96];
	json_t *h = NULL, *slots = NULL, *e;
	size_t j;
	int i, err;

	for (i = 0; i < VB_H_NR; i++) {
		if (i >= VB_H_FIRST_OPTIONAL &&
		    !json_object_get(o, vb_hist_names[i]))
			continue;
		err = get(ld, o, where, vb_hist_names[i], JSON_OBJECT, &h);
		if (err)
			return err;
		snprintf(w, sizeof(w), "%s%s.", where, vb_hist_names[i]);
		err = get(ld, h, w, "slots", JSON_ARRAY, &slots);
		if (err)
			return err;
		if (json_array_size(slots) != VB_MAX_SLOTS)
			return fail(ld, -EINVAL,
				    "\"%sslots\" has %zu entries, expected %d",
				    w, json_array_size(slots), VB_MAX_SLOTS);
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
	if (json_integer_value(v) != VB_RESULTS_VERSION)
		return fail(ld, -EPROTO,
			    "unsupported results version %lld (this vsockbatch reads version %d)",
			    (long long)json_integer_value(v),
			    VB_RESULTS_VERSION);
	r->version = VB_RESULTS_VERSION;

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
	    (err = get_u64(ld, root, "", "start_unix_ns", &r->start_unix_ns)) ||
	    (err = get(ld, root, "", "hist_scheme", JSON_STRING, &v)))
		return err;
	if (strcmp(json_string_value(v), VB_HIST_SCHEME))
		return fail(ld, -EINVAL, "unknown \"hist_scheme\" \"%s\"",
			    json_string_value(v));
	if ((err = get(ld, root, "", "totals", JSON_OBJECT, &o)) ||
	    (err = load_counters(ld, o, "totals.", &r->totals)) ||
	    (err = get(ld, root, "", "histograms", JSON_OBJECT, &o)) ||
	    (err = load_hists(ld, o, "histograms.", &r->totals)))
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
		    (err = load_counters(ld, c, w, &f->agg)) ||
		    (err = get(ld, e, w, "histograms", JSON_OBJECT, &c)) ||
		    (err = load_hists(ld, c, w, &f->agg)))
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
		    (err = load_counters(ld, c, w, &cp->agg)) ||
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

	o = json_object_get(root, "tracer");	/* optional */
	if (o) {
		if (!json_is_object(o))
			return fail(ld, -EINVAL, "\"tracer\" is not an object");
		if ((err = get_u64(ld, o, "tracer.", "recursion_misses",
				   &r->self.recursion_misses)) ||
		    (err = get(ld, o, "tracer.", "bpf_stats", JSON_TRUE, &v)))
			return err;
		r->self.bpf_stats = json_is_true(v);
		if ((err = get_u64(ld, o, "tracer.", "run_ns", &r->self.run_ns)) ||
		    (err = get_u64(ld, o, "tracer.", "run_cnt", &r->self.run_cnt)))
			return err;
		r->self.present = true;
	}

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
	struct ld ld = { errbuf, errlen };
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

int vb_results_load(const char *path, struct vb_results *r,
		    char *errbuf, size_t errlen)
{
	json_error_t jerr;
	json_t *root;
	FILE *f;
	int err;

	f = fopen(path, "r");
	if (!f) {
		err = -errno;
		snprintf(errbuf, errlen, "%s: %s", path, strerror(errno));
		vb_results_init(r);
		return err;
	}
	root = json_loadf(f, JSON_REJECT_DUPLICATES, &jerr);
	if (!root && ferror(f)) {
		err = -EIO;
		snprintf(errbuf, errlen, "%s: read error", path);
		fclose(f);
		vb_results_init(r);
		return err;
	}
	fclose(f);
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
			struct vb_metrics *m)
{
	const uint64_t *c = a->cnt;
	uint64_t dr = c[VB_C_DR_INSIDE] + c[VB_C_DR_AFTER];

	m->mean_batch_pkts = ratio(c[VB_C_BATCH_PKTS], c[VB_C_BATCHES]);
	m->mean_batch_bytes = ratio(c[VB_C_BATCH_BYTES], c[VB_C_BATCHES]);
	m->hold_mean_ns = ratio(c[VB_C_HOLD_NS], c[VB_C_BATCHES]);
	m->hold_p50_ns = vb_hist_percentile(a->hist[VB_H_HOLD_NS].slots,
					    VB_MAX_SLOTS, 50);
	m->hold_p99_ns = vb_hist_percentile(a->hist[VB_H_HOLD_NS].slots,
					    VB_MAX_SLOTS, 99);
	m->dr_per_batch = ratio(dr, c[VB_C_BATCHES]);
	m->pct_deferred = dr ? 100.0 * (double)c[VB_C_DR_AFTER] / (double)dr
			     : NAN;
	m->dr_lat_p50_ns = vb_hist_percentile(a->hist[VB_H_DR_LAT_NS].slots,
					      VB_MAX_SLOTS, 50);
	m->dr_lat_p99_ns = vb_hist_percentile(a->hist[VB_H_DR_LAT_NS].slots,
					      VB_MAX_SLOTS, 99);
	m->lookups_per_pkt = ratio(c[VB_C_LOOKUPS], c[VB_C_PKTS]);
	m->locks_per_pkt = ratio(c[VB_C_LOCK_ACQ], c[VB_C_PKTS]);
	m->ws_per_pkt = ratio(c[VB_C_WS_BATCH], c[VB_C_PKTS]);
	m->dr_per_pkt = ratio(dr, c[VB_C_PKTS]);
	m->user_wait_p99_ns =
		vb_hist_percentile(a->hist[VB_H_USER_WAIT_NS].slots,
				   VB_MAX_SLOTS, 99);
	m->cost_per_byte = (cost && cost->measured)
				   ? ratio(cost->total, c[VB_C_BYTES]) : NAN;
	m->worker_ns_per_byte = ratio(c[VB_C_WORKER_NS], c[VB_C_BYTES]);
}

void vb_agg_add(struct vb_agg *a, const struct vb_agg *b)
{
	int i, j;

	for (i = 0; i < VB_C_NR; i++)
		a->cnt[i] += b->cnt[i];
	for (i = 0; i < VB_H_NR; i++)
		for (j = 0; j < VB_MAX_SLOTS; j++)
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
		a->cnt[i] = sub0(a->cnt[i], b->cnt[i]);
	for (i = 0; i < VB_H_NR; i++)
		for (j = 0; j < VB_MAX_SLOTS; j++)
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
