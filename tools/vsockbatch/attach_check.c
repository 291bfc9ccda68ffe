// SPDX-License-Identifier: GPL-2.0
/* attach_check.c - load and attach a hook's programs once, then undo it. */
#include <errno.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <bpf/libbpf.h>

#include "attach_check.h"
#include "vsockbatch.skel.h"

#ifndef ENOTSUPP
#define ENOTSUPP 524	/* kernel-internal, reaches user space from BPF */
#endif

/* The verifier's verdict, caught from libbpf's "PROG LOAD LOG" message. */
static char verdict[160];

static bool boring(const char *line)
{
	static const char *const noise[] = {
		"processed ", "verification time", "stack depth", "-- END",
		"-- BEGIN", "Validating ", "func#", NULL
	};
	int i;

	if (!line[0])
		return true;
	for (i = 0; noise[i]; i++)
		if (!strncmp(line, noise[i], strlen(noise[i])))
			return true;
	return false;
}

/* The last line of a verifier log that is not its statistics. */
static void last_reason(char *log)
{
	char *line, *save = NULL;

	for (line = strtok_r(log, "\n", &save); line;
	     line = strtok_r(NULL, "\n", &save))
		if (!boring(line))
			snprintf(verdict, sizeof(verdict), "%s", line);
}

static int capture(enum libbpf_print_level level, const char *fmt,
		   va_list args)
{
	va_list copy;
	char *msg;
	int n;

	if (level == LIBBPF_DEBUG || !strstr(fmt, "LOAD LOG"))
		return 0;
	va_copy(copy, args);
	n = vsnprintf(NULL, 0, fmt, copy);
	va_end(copy);
	msg = n > 0 ? malloc((size_t)n + 1) : NULL;
	if (!msg)
		return 0;
	vsnprintf(msg, (size_t)n + 1, fmt, args);
	if (strstr(msg, "-- BEGIN PROG LOAD LOG --"))
		last_reason(strstr(msg, "-- BEGIN PROG LOAD LOG --"));
	free(msg);
	return 0;
}

static void load_reason(const char *prog, int err, char *why, size_t len)
{
	if (verdict[0])
		snprintf(why, len, "verifier rejects %s: %s", prog, verdict);
	else if (err == -EPERM)
		snprintf(why, len, "loading %s not permitted (needs root: CAP_BPF and CAP_PERFMON; or kernel lockdown)",
			 prog);
	else
		snprintf(why, len, "cannot load %s: %s", prog, strerror(-err));
}

static void attach_reason(const char *prog, const char *sec, int err,
			  char *why, size_t len)
{
	bool tramp = !strncmp(sec, "fentry", 6) || !strncmp(sec, "fexit", 5);
	bool kprobe = !strncmp(sec, "kprobe", 6) || !strncmp(sec, "kretprobe", 9);

	if (tramp && (err == -ENOTSUPP || err == -EOPNOTSUPP || err == -EINVAL))
		snprintf(why, len, "no BPF trampoline for %s (%s): needs CONFIG_DYNAMIC_FTRACE_WITH_DIRECT_CALLS",
			 sec, strerror(-err));
	else if (kprobe && err == -ENOENT)
		snprintf(why, len, "no kprobe on %s: symbol not in kallsyms (inlined or notrace)",
			 sec);
	else if (kprobe && (err == -EOPNOTSUPP || err == -ENOTSUPP))
		snprintf(why, len, "kprobes unsupported (%s): needs CONFIG_KPROBES", sec);
	else
		snprintf(why, len, "cannot attach %s (%s): %s", prog, sec,
			 strerror(-err));
}

static bool small_ok(const struct bpf_map *map)
{
	switch (bpf_map__type(map)) {
	case BPF_MAP_TYPE_HASH:
	case BPF_MAP_TYPE_PERCPU_HASH:
	case BPF_MAP_TYPE_LRU_HASH:
	case BPF_MAP_TYPE_LRU_PERCPU_HASH:
	case BPF_MAP_TYPE_ARRAY:
	case BPF_MAP_TYPE_PERCPU_ARRAY:
		return true;
	default:
		return false;
	}
}

int vb_attach_check(const char *const *progs, size_t n, char *why,
		    size_t len)
{
	struct vsockbatch_bpf *skel;
	struct bpf_link **links;
	struct bpf_program *prog;
	libbpf_print_fn_t old;
	struct bpf_map *map;
	size_t i, k;
	int err = 0;

	links = calloc(n ? n : 1, sizeof(*links));
	skel = links ? vsockbatch_bpf__open() : NULL;
	if (!skel) {
		err = -errno;
		snprintf(why, len, "cannot open the BPF object: %s",
			 strerror(errno));
		free(links);
		return err;
	}
	for (i = 0; i < n; i++)
		if (progs[i] && !bpf_object__find_program_by_name(skel->obj,
								  progs[i])) {
			snprintf(why, len, "this build has no program %s",
				 progs[i]);
			err = -ENOENT;
			goto out;
		}
	bpf_object__for_each_program(prog, skel->obj) {
		bool want = false;

		for (i = 0; i < n; i++)
			want |= progs[i] &&
				!strcmp(bpf_program__name(prog), progs[i]);
		bpf_program__set_autoload(prog, want);
	}
	/*
	 * The programs do not depend on map sizes: keep the trial cheap.
	 * Hash and array maps only (local storage must stay at 0).
	 */
	bpf_object__for_each_map(map, skel->obj)
		if (!bpf_map__is_internal(map) && small_ok(map))
			bpf_map__set_max_entries(map, 1);

	verdict[0] = 0;
	old = libbpf_set_print(capture);
	err = vsockbatch_bpf__load(skel);
	libbpf_set_print(old);
	if (err) {
		/* libbpf loads in object order and stops at the first refusal */
		const char *failed = "the object";

		bpf_object__for_each_program(prog, skel->obj)
			if (bpf_program__autoload(prog) &&
			    bpf_program__fd(prog) < 0) {
				failed = bpf_program__name(prog);
				break;
			}
		load_reason(failed, err, why, len);
		goto out;
	}
	for (i = k = 0; i < n; i++) {
		if (!progs[i])
			continue;
		prog = bpf_object__find_program_by_name(skel->obj, progs[i]);
		old = libbpf_set_print(NULL);
		links[k] = bpf_program__attach(prog);
		err = links[k] ? 0 : -errno;
		libbpf_set_print(old);
		if (err) {
			attach_reason(progs[i], bpf_program__section_name(prog),
				      err, why, len);
			break;
		}
		k++;
	}
	while (k > 0)
		bpf_link__destroy(links[--k]);
out:
	vsockbatch_bpf__destroy(skel);
	free(links);
	return err;
}
