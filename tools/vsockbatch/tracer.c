// SPDX-License-Identifier: GPL-2.0
/* tracer.c - load and attach the CO-RE tracer, hooks chosen by probing. */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include <stdlib.h>

#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "collect.h"
#include "lpend.h"
#include "tracer.h"
#include "vsockbatch.skel.h"

static bool libbpf_verbose;

static int print_fn(enum libbpf_print_level level, const char *fmt,
		    va_list args)
{
	if (level == LIBBPF_DEBUG || (!libbpf_verbose && level == LIBBPF_INFO))
		return 0;
	if (!libbpf_verbose)
		return 0;
	return vfprintf(stderr, fmt, args);
}

void vb_libbpf_verbose(bool verbose)
{
	libbpf_verbose = verbose;
	libbpf_set_print(print_fn);
}

static uint64_t mono_now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ULL + (uint64_t)ts.tv_nsec;
}

static bool cancelled(const struct vb_tracer *t, char *errbuf, size_t errlen)
{
	if (!t->cancel || !*t->cancel)
		return false;
	snprintf(errbuf, errlen, "interrupted (signal %d) while attaching",
		 (int)*t->cancel);
	return true;
}

/* Hooks without which the mode measures nothing: attach failure is fatal. */
static bool hook_required(const struct vb_probe *p, int hook)
{
	switch (hook) {
	case VB_HOOK_RECV_PKT_BTF:
	case VB_HOOK_RECV_PKT_TP:
		return true;
	case VB_HOOK_RX_BATCH_BTF:
	case VB_HOOK_RX_BATCH_TP:
		return p->trace == VB_TRACE_LIGHT;
	case VB_HOOK_RECV_PKT_EXIT:
		return !p->light_ok;
	case VB_HOOK_RB_CLOSE:
		return true;	/* chosen only as light mode's run source */
	case VB_HOOK_RECV_PKT_FN:
		return true;	/* light mode's only sight of packets in no run */
	default:
		return false;
	}
}

/*
 * Light mode through the tp_btf rx_batch program: runs held per CPU
 * (lpend.h).  The classic-tracepoint fallback counts each run straight
 * into the flow map: no drain to load or run.
 */
static bool uses_lpend(const struct vb_probe *p)
{
	return p->trace == VB_TRACE_LIGHT && p->use[VB_HOOK_RX_BATCH_BTF];
}

/*
 * Light mode's own program for hook i, or NULL: its rx_batch hook
 * attaches rx_batch_held where the held runs can be drained (t->held),
 * else rx_batch_btf, which looks up the flow map per run; its recv_pkt
 * hook (a kernel without the series) recv_pkt_light.  Each is its mode's
 * only hook and tests no `enabled` flag: it is attached while recording
 * only (vb_tracer_enable).
 */
static const char *const *light_progs(const struct vb_tracer *t, int i)
{
	static const char *const held[2] = { "rx_batch_held", NULL };
	static const char *const light_pkt[2] = { "recv_pkt_light", NULL };

	if (i == VB_HOOK_RX_BATCH_BTF && t->held)
		return held;
	if (i == VB_HOOK_RECV_PKT_BTF && t->probe.trace == VB_TRACE_LIGHT)
		return light_pkt;
	return NULL;
}

/* The programs hook i attaches. */
static const char *const *hook_progs(const struct vb_tracer *t, int i)
{
	const char *const *light = light_progs(t, i);

	return light ? light : vb_hook_progs(&t->probe, i);
}

static void detach_hook(struct vb_tracer *t, int i)
{
	int j;

	for (j = 0; j < 2; j++) {
		bpf_link__destroy(t->links[i][j]);
		t->links[i][j] = NULL;
	}
}

/*
 * Attach hook i's programs not attached yet; all or none.  0, or -errno
 * with "failed to attach HOOK: reason" in errbuf.
 */
static int attach_hook(struct vb_tracer *t, int i, char *errbuf,
		       size_t errlen)
{
	const char *const *progs = hook_progs(t, i);
	struct bpf_program *prog;
	int j, err;

	for (j = 0; j < 2 && progs[j]; j++) {
		if (t->links[i][j])
			continue;
		prog = bpf_object__find_program_by_name(t->skel->obj, progs[j]);
		t->links[i][j] = prog ? bpf_program__attach(prog) : NULL;
		if (!t->links[i][j]) {
			err = prog ? -errno : -ENOENT;
			detach_hook(t, i);
			snprintf(errbuf, errlen, "failed to attach %s: %s",
				 vb_hook_label(&t->probe, i), strerror(-err));
			return err;
		}
	}
	return 0;
}

/*
 * --duty: the hooks attached per on slice, in the order they go on: the
 * window's ends first, its opener last, so that no window opens without
 * its end attached (they go off in the reverse order).  Only hooks in use.
 */
static const int slice_hooks[] = {
	VB_HOOK_RECV_PKT_EXIT, VB_HOOK_DATA_READY, VB_HOOK_RECV_PKT_BTF,
};
#define SLICE_HOOKS_NR	(int)(sizeof(slice_hooks) / sizeof(slice_hooks[0]))

/*
 * --duty N applies where full mode's cost is its per-packet hooks: a
 * kernel without the series, traced through the tp_btf recv_pkt event
 * (recv_pkt_light, which counts every packet, is a tp_btf program).
 */
static int duty_check(const struct vb_tracer *t, char *errbuf, size_t errlen)
{
	const struct vb_probe *p = &t->probe;

	if (t->duty <= 1)
		return 0;
	if (p->trace != VB_TRACE_FULL || p->mode != VB_MODE_BASELINE) {
		snprintf(errbuf, errlen,
			 "--duty slices full mode's window hooks on a kernel without the series; this %s kernel is traced in %s mode (light mode there measures every run)",
			 vb_mode_name(p->mode), vb_trace_mode_name(p->trace));
		return -EDOM;
	}
	if (!p->use[VB_HOOK_RECV_PKT_BTF]) {
		snprintf(errbuf, errlen,
			 "--duty needs the tp_btf recv_pkt hook, which this kernel lacks (%s)",
			 p->why[VB_HOOK_RECV_PKT_BTF]);
		return -EDOM;
	}
	return 0;
}

/* Detach and free what one attempt left. */
static void teardown(struct vb_tracer *t)
{
	int i;

	for (i = 0; i < VB_HOOK_NR; i++) {
		detach_hook(t, i);
		t->attached[i] = false;
		t->on_enable[i] = false;
		t->sliced[i] = false;
	}
	bpf_link__destroy(t->duty_light);
	t->duty_light = NULL;
	vsockbatch_bpf__destroy(t->skel);
	t->skel = NULL;
	t->held = false;
}

/*
 * Open, load and attach the programs probe chose.  strict (the first
 * attempt, before any per-hook check): any failure fails, so that the
 * caller can check hook by hook and find fallbacks.  Otherwise an
 * optional hook that does not attach is dropped with a warning.
 */
static int load_and_attach(struct vb_tracer *t, bool strict, char *errbuf,
			   size_t errlen)
{
	struct bpf_program *prog;
	const char *label;
	int i, j, err;

	t->skel = vsockbatch_bpf__open();
	if (!t->skel) {
		err = -errno;
		snprintf(errbuf, errlen, "failed to open BPF object: %s",
			 strerror(errno));
		return err;
	}
	t->skel->rodata->full_mode = t->probe.trace != VB_TRACE_LIGHT;
	if (!t->sample)
		t->sample = VB_SAMPLE_DEFAULT;
	t->skel->rodata->time_mask = t->sample - 1;
	t->skel->rodata->win_sliced = t->duty > 1;
	/* every program off, then the chosen ones of each hook in use on */
	bpf_object__for_each_program(prog, t->skel->obj)
		bpf_program__set_autoload(prog, false);
	for (i = 0; i < VB_HOOK_NR; i++) {
		const char *const *progs = hook_progs(t, i);

		for (j = 0; j < 2 && progs[j] && t->probe.use[i]; j++) {
			prog = bpf_object__find_program_by_name(t->skel->obj,
								progs[j]);
			if (!prog) {
				snprintf(errbuf, errlen,
					 "BPF object has no program %s",
					 progs[j]);
				return -ENOENT;
			}
			bpf_program__set_autoload(prog, true);
		}
	}
	/*
	 * light on the series' kernels holds runs per CPU: the program that
	 * holds them and their drain, beside rx_batch_btf for a kernel that
	 * cannot run the drain (known only once it is loaded)
	 */
	if (t->duty > 1)
		bpf_program__set_autoload(t->skel->progs.recv_pkt_light, true);
	if (uses_lpend(&t->probe)) {
		bpf_program__set_autoload(t->skel->progs.rx_batch_held, true);
		bpf_program__set_autoload(t->skel->progs.lpend_drain, true);
	}
	err = vsockbatch_bpf__load(t->skel);
	if (cancelled(t, errbuf, errlen))
		return -EINTR;
	if (err) {
		snprintf(errbuf, errlen,
			 "failed to load BPF object: %s (rerun with -v for libbpf and verifier output)",
			 strerror(-err));
		return err;
	}
	if (uses_lpend(&t->probe)) {
		if (vb_probe_no_held()) {
			/* the fallback below, on a kernel that has no need */
			bpf_program__unload(t->skel->progs.lpend_drain);
			fprintf(stderr, "vsockbatch: note: VSOCKBATCH_NO_HELD=1: light mode looks up the flow map per run\n");
		} else if (!(t->held = vb_lpend_setup(t->skel))) {
			fprintf(stderr, "vsockbatch: note: this kernel cannot run the held-runs drain on a chosen CPU; light mode looks up the flow map per run\n");
		}
		/* the program of the two not attached */
		bpf_program__unload(t->held ? t->skel->progs.rx_batch_btf
					    : t->skel->progs.rx_batch_held);
	}
	for (i = 0; i < VB_HOOK_NR; i++) {
		const char *const *progs = hook_progs(t, i);

		if (!t->probe.use[i])
			continue;
		if (cancelled(t, errbuf, errlen))
			return -EINTR;
		for (j = 0; j < 2 && progs[j]; j++) {
			prog = bpf_object__find_program_by_name(t->skel->obj,
								progs[j]);
			t->links[i][j] = bpf_program__attach(prog);
			if (!t->links[i][j]) {
				err = -errno;
				break;
			}
		}
		if (j == 2 || !progs[j]) {
			t->attached[i] = true;
			/*
			 * attached once to prove the hook takes it, then
			 * left off until the interval starts: a program
			 * without the flag counts from its attach on
			 */
			if (light_progs(t, i)) {
				detach_hook(t, i);
				t->on_enable[i] = true;
			}
			continue;
		}
		label = vb_hook_label(&t->probe, i);
		if (strict || hook_required(&t->probe, i)) {
			snprintf(errbuf, errlen, "failed to attach %s: %s",
				 label, strerror(-err));
			return err;
		}
		/* undo a half-attached pair: enter without exit is useless */
		detach_hook(t, i);
		t->probe.use[i] = false;
		fprintf(stderr, "vsockbatch: warning: %s not attached (%s); "
			"its figures will be 0\n", label, strerror(-err));
	}
	if (t->duty > 1) {
		/* proved once, like light mode's program; on at enable */
		t->duty_light = bpf_program__attach(t->skel->progs.recv_pkt_light);
		if (!t->duty_light) {
			err = -errno;
			snprintf(errbuf, errlen,
				 "failed to attach recv_pkt_light (--duty): %s",
				 strerror(-err));
			return err;
		}
		bpf_link__destroy(t->duty_light);
		t->duty_light = NULL;
		for (i = 0; i < SLICE_HOOKS_NR; i++) {
			if (!t->attached[slice_hooks[i]])
				continue;
			detach_hook(t, slice_hooks[i]);
			t->sliced[slice_hooks[i]] = true;
		}
	}
	return 0;
}

/* Programs the chosen hooks attach (entry and exit count twice). */
static int count_programs(const struct vb_probe *p)
{
	int i, j, n = 0;

	for (i = 0; i < VB_HOOK_NR; i++) {
		const char *const *progs = vb_hook_progs(p, i);

		for (j = 0; j < 2 && progs[j] && p->use[i]; j++)
			n++;
	}
	return n;
}

static int start(struct vb_tracer *t, enum vb_trace_mode mode, bool progress,
		 char *errbuf, size_t errlen)
{
	char first[256];
	int i, err;

	libbpf_set_print(print_fn);
	err = vb_probe_kernel(&t->probe, NULL, errbuf, errlen);
	if (err)
		return err;
	err = vb_probe_choose(&t->probe, mode, errbuf, errlen);
	if (!err)
		err = duty_check(t, errbuf, errlen);
	if (err)
		return err;
	if (cancelled(t, errbuf, errlen))
		return -EINTR;
	if (progress)
		fprintf(stderr, "vsockbatch: loading and attaching %d programs (%s mode); Ctrl-C cancels\n",
			count_programs(&t->probe),
			vb_trace_mode_name(t->probe.trace));
	if (!vb_probe_forced_kprobe()) {
		err = load_and_attach(t, true, first, sizeof(first));
		if (!err || err == -EINTR) {
			if (err)
				snprintf(errbuf, errlen, "%s", first);
			return err;
		}
		teardown(t);
	}
	if (cancelled(t, errbuf, errlen))
		return -EINTR;
	vb_probe_load(&t->probe, true);
	if (cancelled(t, errbuf, errlen))
		return -EINTR;
	err = vb_probe_choose(&t->probe, mode, errbuf, errlen);
	if (!err)
		err = duty_check(t, errbuf, errlen);
	if (err)
		return err;
	for (i = 0; i < VB_HOOK_NR; i++)
		if (t->probe.use[i] && t->probe.how[i] == VB_ATTACH_KPROBE)
			fprintf(stderr, "vsockbatch: %s instead of %s: %s\n",
				vb_hook_label(&t->probe, i), vb_hooks[i].label,
				t->probe.fallback[i]);
	return load_and_attach(t, false, errbuf, errlen);
}

/*
 * The real load is the first check: on a kernel that takes everything
 * (the usual case) nothing is loaded twice -- each load parses the
 * kernel's BTF, ~1 s under TCG.  Only when it fails are the hooks
 * checked one by one (vb_probe_load), which finds the kprobe fallbacks
 * and names a hook that cannot run, and the chosen set loaded again.
 * A cancel undoes whatever was attached, so the caller never holds a
 * half-attached tracer.
 */
int vb_tracer_start(struct vb_tracer *t, enum vb_trace_mode mode,
		    const volatile sig_atomic_t *cancel, bool progress,
		    char *errbuf, size_t errlen)
{
	uint64_t t0 = mono_now_ns();
	uint32_t sample = t->sample, duty = t->duty;	/* the caller's, kept */
	int err;

	memset(t, 0, sizeof(*t));
	t->sample = sample;
	t->duty = duty;
	t->slice_ns = vb_slice_ns();
	t->cancel = cancel;
	err = start(t, mode, progress, errbuf, errlen);
	if (!err && cancelled(t, errbuf, errlen))
		err = -EINTR;
	if (err == -EINTR)
		teardown(t);
	t->attach_ns = mono_now_ns() - t0;
	return err;
}

/* --duty: the window hooks on (in slice_hooks' order) or off (reverse). */
static int slice_set(struct vb_tracer *t, bool on, char *errbuf,
		     size_t errlen)
{
	int i, h, err;

	for (i = 0; i < SLICE_HOOKS_NR; i++) {
		h = slice_hooks[on ? i : SLICE_HOOKS_NR - 1 - i];
		if (!t->sliced[h])
			continue;
		if (!on) {
			detach_hook(t, h);
			continue;
		}
		err = attach_hook(t, h, errbuf, errlen);
		if (err) {
			slice_set(t, false, NULL, 0);
			return err;
		}
	}
	t->slice_on = on;
	return 0;
}

int vb_tracer_enable(struct vb_tracer *t, bool on, char *errbuf,
		     size_t errlen)
{
	int i, err;

	if (!t->skel)
		return 0;
	if (!on && t->duty > 1) {
		slice_set(t, false, NULL, 0);
		bpf_link__destroy(t->duty_light);
		t->duty_light = NULL;
	}
	t->recording = on;
	if (t->skel->bss)
		__atomic_store_n(&t->skel->bss->enabled, on, __ATOMIC_SEQ_CST);
	for (i = 0; i < VB_HOOK_NR; i++) {
		if (!t->on_enable[i])
			continue;
		if (!on) {
			detach_hook(t, i);
			continue;
		}
		err = attach_hook(t, i, errbuf, errlen);
		if (err)
			return err;
	}
	if (!on || t->duty <= 1)
		return 0;
	t->duty_light = bpf_program__attach(t->skel->progs.recv_pkt_light);
	if (!t->duty_light) {
		err = -errno;
		snprintf(errbuf, errlen, "failed to attach recv_pkt_light: %s",
			 strerror(-err));
		return err;
	}
	/* the interval opens with an on slice */
	err = slice_set(t, true, errbuf, errlen);
	if (err)
		return err;
	t->slices = 1;
	t->slice_next_ns = mono_now_ns() + t->slice_ns;
	return 0;
}

int vb_tracer_slice(struct vb_tracer *t, uint64_t now, uint64_t *next_ns,
		    char *errbuf, size_t errlen)
{
	bool on;
	int err;

	*next_ns = UINT64_MAX;
	if (t->duty <= 1 || !t->recording || !t->slice_next_ns)
		return 0;
	if (now >= t->slice_next_ns) {
		on = !t->slice_on;
		err = slice_set(t, on, errbuf, errlen);
		if (err) {
			t->slice_next_ns = 0;	/* off from here on */
			return err;
		}
		t->slices += on;
		/*
		 * From the toggle's end, not from now nor the schedule: an
		 * fentry attach walks ftrace's records (milliseconds under
		 * TCG), and the opener goes on last, so a slice timed from
		 * before it could be over before the opener is attached.
		 */
		now = mono_now_ns();
		t->slice_next_ns = now + (on ? t->slice_ns :
					  (t->duty - 1) * t->slice_ns);
	}
	*next_ns = t->slice_next_ns;
	return 0;
}

uint64_t vb_tracer_activity(struct vb_tracer *t)
{
	int ncpu = libbpf_num_possible_cpus(), i;
	struct vb_stats *vals;
	uint64_t sum = 0;
	__u32 key = 0;
	char err[256];

	if (ncpu <= 0 || !t->skel)
		return 0;
	/* light's held runs count their packets when drained */
	if (vb_lpend_drain(t->skel, err, sizeof(err)))
		return 0;
	vals = calloc((size_t)ncpu, sizeof(*vals));
	if (!vals)
		return 0;
	if (!bpf_map_lookup_elem(bpf_map__fd(t->skel->maps.stats), &key, vals))
		for (i = 0; i < ncpu; i++) {
			uint64_t c[VB_C_NR] = { 0 };

			vb_stats_fold_ops(c, &vals[i]);
			sum += vals[i].cnt[VB_C_PKTS] + c[VB_C_PKTS];
		}
	free(vals);
	return sum;
}

/* One program's kernel-kept stats into out. */
static int add_prog_self(const struct bpf_program *prog, struct vb_self *out)
{
	struct bpf_prog_info info;
	__u32 len = sizeof(info);
	int fd = prog ? bpf_program__fd(prog) : -1;

	memset(&info, 0, sizeof(info));
	if (fd < 0)
		return -EBADF;
	if (bpf_obj_get_info_by_fd(fd, &info, &len))
		return -errno;
	out->recursion_misses += info.recursion_misses;
	out->run_ns += info.run_time_ns;
	out->run_cnt += info.run_cnt;
	return 0;
}

int vb_tracer_self(struct vb_tracer *t, bool stats, struct vb_self *out)
{
	int i, j, err;

	out->recursion_misses = out->run_ns = out->run_cnt = 0;
	out->bpf_stats = stats;
	for (i = 0; i < VB_HOOK_NR; i++) {
		if (!t->attached[i])
			continue;
		for (j = 0; j < 2 && hook_progs(t, i)[j]; j++) {
			err = add_prog_self(bpf_object__find_program_by_name(
				t->skel->obj, hook_progs(t, i)[j]), out);
			if (err)
				return err;
		}
	}
	/* --duty: light's program counts every packet beside the hooks */
	if (t->duty > 1) {
		err = add_prog_self(t->skel->progs.recv_pkt_light, out);
		if (err)
			return err;
	}
	if (!stats)
		out->run_ns = out->run_cnt = 0;
	return 0;
}

bool vb_tracer_kprobes(const struct vb_tracer *t)
{
	int i;

	for (i = 0; i < VB_HOOK_NR; i++)
		if (t->attached[i] && t->probe.how[i] == VB_ATTACH_KPROBE)
			return true;
	return false;
}

int vb_sample_parse(const char *cmd, const char *s, uint32_t *out)
{
	char *end;
	unsigned long v;

	errno = 0;
	v = strtoul(s, &end, 10);
	if (errno || end == s || *end || *s == '-' || !v ||
	    v > VB_SAMPLE_MAX || (v & (v - 1))) {
		fprintf(stderr, "vsockbatch %s: invalid --sample '%s' (a power of two, 1 .. %d)\n",
			cmd, s, VB_SAMPLE_MAX);
		return -EINVAL;
	}
	*out = (uint32_t)v;
	return 0;
}

uint64_t vb_slice_ns(void)
{
	const char *e = getenv("VSOCKBATCH_SLICE_MS");
	unsigned long v;
	char *end;

	if (!e || !*e)
		return VB_SLICE_NS;
	errno = 0;
	v = strtoul(e, &end, 10);
	if (errno || *end || *e == '-' || !v || v > 10000)
		return VB_SLICE_NS;
	return (uint64_t)v * 1000000ULL;
}

int vb_duty_parse(const char *cmd, const char *s, uint32_t *out)
{
	char *end;
	unsigned long v;

	errno = 0;
	v = strtoul(s, &end, 10);
	if (errno || end == s || *end || *s == '-' || !v || v > VB_DUTY_MAX) {
		fprintf(stderr, "vsockbatch %s: invalid --duty '%s' (an integer, 1 .. %d)\n",
			cmd, s, VB_DUTY_MAX);
		return -EINVAL;
	}
	*out = (uint32_t)v;
	return 0;
}

int vb_tracer_describe(const struct vb_tracer *t, struct vb_results *r)
{
	int i, err;

	snprintf(r->kernel_release, sizeof(r->kernel_release), "%s",
		 t->probe.release);
	r->mode = t->probe.mode;
	r->trace = t->probe.trace;
	r->self.sample = t->probe.trace == VB_TRACE_LIGHT ? 1 :
			 t->sample ? t->sample : VB_SAMPLE_DEFAULT;
	r->self.duty = t->duty > 1 ? t->duty : 1;
	r->self.slice_ms = t->duty > 1 ? (uint32_t)(t->slice_ns / 1000000) : 0;
	snprintf(r->detected_by, sizeof(r->detected_by), "%s",
		 t->probe.detected_by);
	for (i = 0; i < VB_HOOK_NR; i++) {
		if (!t->attached[i])
			continue;
		err = vb_results_add_hook(r, vb_hook_label(&t->probe, i));
		if (err)
			return err;
	}
	return 0;
}

void vb_tracer_stop(struct vb_tracer *t)
{
	char err[8];
	int i;

	vb_tracer_enable(t, false, err, sizeof(err));
	for (i = 0; i < VB_HOOK_NR; i++)
		detach_hook(t, i);
	vsockbatch_bpf__destroy(t->skel);
	memset(t, 0, sizeof(*t));
}
