// SPDX-License-Identifier: GPL-2.0
/*
 * record.c - `vsockbatch record`: attach the tracer, run a command (or
 * wait), write a results file.
 *
 * The measured interval is delimited by vb_tracer_enable (the .bss
 * `enabled` flag; light mode's program attached and detached) and the
 * CPU counters together, after every other program is attached and
 * before any is detached, so the counts and the CPU cost cover the same
 * time.
 */
#include <errno.h>
#include <getopt.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <libgen.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <bpf/bpf.h>

#include "collect.h"
#include "commands.h"
#include "cost.h"
#include "cpulist.h"
#include "overhead.h"
#include "report.h"
#include "results.h"
#include "stop_signals.h"
#include "top.h"
#include "tracer.h"

static volatile sig_atomic_t exiting;
static volatile sig_atomic_t child_pid;

static void on_signal(int sig)
{
	exiting = sig;
	/* the command usually got the same SIGINT from the terminal */
	if (child_pid > 0 && sig == SIGTERM)
		kill(child_pid, SIGTERM);
}


/* -i: one line of the interval's totals, as runqlat -i prints a histogram. */
struct ticker {
	double interval;	/* seconds; 0 = no interval output */
	uint64_t next_ns;	/* CLOCK_MONOTONIC */
	uint64_t last_ns;
	struct vb_tracer *tracer;
	struct vb_costctr *cost;
	struct vb_cost_mark mark;
	struct vb_results prev, cur;
	unsigned long lines;
	struct vb_tracer *slicer;	/* --duty's toggles, interval or not */
};

static void usage(FILE *f)
{
	fprintf(f,
"Usage: vsockbatch record -o FILE [-d SECONDS] [-i SECONDS] [-C CPUS]\n"
"                         [-m light|full] [-s N] [--duty N]\n"
"                         [--label KEY=VALUE]... [-v]\n"
"                         [-- COMMAND [ARGS...]]\n"
"\n"
"Trace the vsock RX path (lock windows per socket, callbacks, lookups,\n"
"CPU cost) while COMMAND runs, for SECONDS, or until Ctrl-C, and write a\n"
"results file for `vsockbatch report`, `compare` and `top --replay`.\n"
"After COMMAND exits, tracing goes on until the RX workers have been idle\n"
"for 300 ms (at most 5 s): they may still be delivering what it sent.\n"
"\n"
"  -o, --output FILE      results file to write (required)\n"
"  -d, --duration SECONDS stop after SECONDS (with COMMAND: send it SIGTERM)\n"
"  -i, --interval SECONDS also print the totals of every SECONDS to stdout,\n"
"                         one line each (MB = 10^6 bytes)\n"
"  -C, --cpus CPUS        CPUs whose cycles are counted, e.g. 0,2-3\n"
"                         (online CPUs only; default: all online CPUs)\n"
"  -m, --mode MODE        light: the series' rx_batch event, per run (the\n"
"                         default where the kernel has it; control packets\n"
"                         not seen), or its run-close function where the\n"
"                         series lacks the event (no lock hold, no end\n"
"                         reasons), on stock kernels the recv_pkt event\n"
"                         (packets and bytes); each with the reader's\n"
"                         waits for the socket lock;\n"
"                         full: + vsock function hooks for window times,\n"
"                         data-ready latency and reader waits (default on\n"
"                         baseline kernels).  Each mode's measured cost is\n"
"                         stored in the file (docs/tracer.md)\n"
"  -s, --sample N         full mode: take the times (window, data-ready\n"
"                         latency, RX queue state) of 1 window in N, a\n"
"                         power of two (default 8; 1: every window).\n"
"                         Counts stay exact; a larger N costs less\n"
"      --duty N           full mode on a kernel without the series: attach\n"
"                         the window hooks for one 250 ms slice in N (default\n"
"                         1: always).  Packets and bytes stay exact; window\n"
"                         counts and times come from the slices, and the\n"
"                         per-packet window figures divide by the packets\n"
"                         the slices saw.  Costs about 1/N of the hooks\n"
"  -l, --label KEY=VALUE  store a label in the file (repeatable), e.g.\n"
"                         payload=64 receiver=poll kernel=patched\n"
"      --bpf-stats        also measure the time spent in the tracer's BPF\n"
"                         programs (kernel.bpf_stats_enabled while recording)\n"
"  -v, --verbose          libbpf warnings and verifier output\n"
"  -h, --help             this help\n"
"\n"
"Ctrl-C, SIGTERM or SIGHUP end the recording and write the file.  The\n"
"directory of FILE is checked before anything is attached.\n"
"\n"
"Needs root and a kernel with BTF.  Exit status: 0 written, 1 runtime\n"
"failure (also: COMMAND failed; the file is still written), 2 bad usage.\n"
"\n"
"Example:\n"
"  vsockbatch record -o base.json --label payload=64 -- \\\n"
"      vsock_perf --sender 1 --port 1234 --bytes 1M --buf-size 64\n");
}

static uint64_t now_ns(clockid_t clk)
{
	struct timespec ts;

	clock_gettime(clk, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ULL + (uint64_t)ts.tv_nsec;
}

static int parse_label(struct vb_results *r, const char *arg)
{
	const char *eq = strchr(arg, '=');
	char key[64];

	if (!eq || eq == arg || (size_t)(eq - arg) >= sizeof(key)) {
		fprintf(stderr, "vsockbatch record: bad label '%s' (want KEY=VALUE)\n",
			arg);
		return -EINVAL;
	}
	memcpy(key, arg, (size_t)(eq - arg));
	key[eq - arg] = 0;
	return vb_results_set_label(r, key, eq + 1);
}

static uint64_t unix_now_ns(void)
{
	return now_ns(CLOCK_REALTIME);
}

static int ticker_init(struct ticker *t, double interval,
		       struct vb_tracer *tracer, struct vb_costctr *cost,
		       const struct vb_results *r)
{
	memset(t, 0, sizeof(*t));
	vb_results_init(&t->prev);
	vb_results_init(&t->cur);
	t->interval = interval;
	if (!interval)
		return 0;
	t->tracer = tracer;
	t->cost = cost;
	t->cur.mode = r->mode;
	t->cur.trace = r->trace;
	t->last_ns = now_ns(CLOCK_MONOTONIC);
	t->next_ns = t->last_ns + (uint64_t)(interval * 1e9);
	return cost->open ? vb_cost_mark_init(cost, &t->mark) : 0;
}

/* Print the interval's line once it is due. */
static void ticker_poll(struct ticker *t)
{
	struct vb_top_frame f;
	struct vb_results d;
	uint64_t now = now_ns(CLOCK_MONOTONIC), cost = 0, *vals;
	double interval_s = (double)(now - t->last_ns) / 1e9, span_ns = 0;
	bool cost_ok = false;
	char err[256];
	size_t i;

	if (!t->interval || now < t->next_ns)
		return;
	t->next_ns += (uint64_t)(t->interval * 1e9);
	if (t->next_ns < now)	/* fell behind: do not burst */
		t->next_ns = now + (uint64_t)(t->interval * 1e9);
	if (vb_collect(t->tracer->skel, &t->cur, NULL, err, sizeof(err))) {
		fprintf(stderr, "vsockbatch record: interval: %s\n", err);
		return;
	}
	if (t->cost->open) {
		vals = calloc(t->cost->n, sizeof(*vals));
		if (vals && !vb_cost_read_interval(t->cost, &t->mark, vals,
						   &span_ns)) {
			for (i = 0; i < t->cost->n; i++)
				cost += vals[i];
			cost_ok = true;
		}
		free(vals);
	}
	/* the interval's totals only: no flows, no CPUs */
	vb_results_init(&d);
	d.mode = t->cur.mode;
	d.trace = t->cur.trace;
	d.totals = t->cur.totals;
	vb_agg_sub(&d.totals, &t->prev.totals);
	d.cost.unit = t->cost->unit;
	d.cost.ncpus = t->cost->n;
	if (!vb_top_frame_build(&f, &d, interval_s, cost,
				span_ns > 0 ? span_ns / 1e9 : interval_s,
				cost_ok)) {
		f.stamp_unix_ns = unix_now_ns();
		vb_top_print_totals_line(stdout, &f, t->lines++ % 20 == 0);
	}
	vb_top_frame_free(&f);
	vb_results_free(&d);
	t->prev.totals = t->cur.totals;
	t->last_ns = now;
}

/*
 * Sleep about us microseconds, cut where a --duty slice ends so that its
 * window hooks are toggled on time.  A signal ends it early.
 */
static void nap(struct ticker *t, unsigned int us)
{
	uint64_t now = now_ns(CLOCK_MONOTONIC), end = now + us * 1000ULL;
	uint64_t next;
	char err[256];

	while (!exiting) {
		if (t->slicer && vb_tracer_slice(t->slicer, now, &next, err,
						 sizeof(err)))
			fprintf(stderr, "vsockbatch record: %s: the window hooks stay off from here\n",
				err);
		else if (!t->slicer)
			next = UINT64_MAX;
		if (now >= end)
			return;
		if (next > end)
			next = end;
		if (next > now)
			usleep((useconds_t)((next - now + 999) / 1000));
		now = now_ns(CLOCK_MONOTONIC);
	}
}

static void ticker_free(struct ticker *t)
{
	vb_cost_mark_free(&t->mark);
	vb_results_free(&t->prev);
	vb_results_free(&t->cur);
}

/* Wait for the child, the deadline or a signal. Returns child status. */
static int wait_child(pid_t pid, double duration, int *status,
		      struct ticker *tick)
{
	uint64_t deadline = duration > 0 ? now_ns(CLOCK_MONOTONIC) +
				(uint64_t)(duration * 1e9) : 0;
	bool termed = false;
	pid_t w;

	for (;;) {
		w = waitpid(pid, status, WNOHANG);
		if (w == pid)
			return 0;
		if (w < 0 && errno != EINTR)
			return -errno;
		if (!termed && (exiting ||
		    (deadline && now_ns(CLOCK_MONOTONIC) >= deadline))) {
			kill(pid, SIGTERM);
			termed = true;
		}
		ticker_poll(tick);
		nap(tick, 20000);
	}
}

/*
 * COMMAND may exit while the RX worker is still delivering what it sent
 * (loopback and virtio queue the packets; a fast sender finishes well
 * ahead of the worker).  Keep tracing until nothing has moved for
 * 300 ms, at most 5 s, so the file covers the whole transfer.
 */
static void drain(struct vb_tracer *t, struct ticker *tick)
{
	uint64_t deadline = now_ns(CLOCK_MONOTONIC) + 5000000000ULL, last, cur;
	int quiet = 0;

	last = vb_tracer_activity(t);
	while (!exiting && quiet < 3 && now_ns(CLOCK_MONOTONIC) < deadline) {
		nap(tick, 100000);
		ticker_poll(tick);
		cur = vb_tracer_activity(t);
		if (cur == last) {
			quiet++;
		} else {
			quiet = 0;
			last = cur;
		}
	}
}

static void wait_plain(double duration, struct ticker *tick)
{
	uint64_t deadline = duration > 0 ? now_ns(CLOCK_MONOTONIC) +
				(uint64_t)(duration * 1e9) : 0;

	while (!exiting) {
		if (deadline && now_ns(CLOCK_MONOTONIC) >= deadline)
			break;
		ticker_poll(tick);
		nap(tick, 50000);
	}
}

/*
 * A mistyped -o must not cost a whole run: the file is written (to a
 * temporary name, then renamed) in its directory, so that directory must
 * exist and be writable, and FILE must not be a directory.  0, or
 * VB_EXIT_USAGE after a one-line reason.
 */
static int check_output(const char *path)
{
	char *copy = strdup(path), *dir;
	struct stat st;
	int ret = 0;

	if (!copy) {
		fprintf(stderr, "vsockbatch record: out of memory\n");
		return VB_EXIT_FAIL;
	}
	dir = dirname(copy);
	if (!stat(path, &st) && S_ISDIR(st.st_mode)) {
		fprintf(stderr, "vsockbatch record: -o %s is a directory, not a file\n",
			path);
		ret = VB_EXIT_USAGE;
	} else if (stat(dir, &st)) {
		fprintf(stderr, "vsockbatch record: -o %s: directory %s: %s\n",
			path, dir, strerror(errno));
		ret = VB_EXIT_USAGE;
	} else if (!S_ISDIR(st.st_mode)) {
		fprintf(stderr, "vsockbatch record: -o %s: %s is not a directory\n",
			path, dir);
		ret = VB_EXIT_USAGE;
	} else if (access(dir, W_OK | X_OK)) {
		fprintf(stderr, "vsockbatch record: -o %s: cannot write in %s: %s\n",
			path, dir, strerror(errno));
		ret = VB_EXIT_USAGE;
	}
	free(copy);
	return ret;
}

/* What is being traced, before the run starts (stderr, 80 columns). */
static void say_attached(const struct vb_results *r, const struct ticker *t,
			 uint64_t attach_ns, double duration, bool command)
{
	char line[512];
	size_t i, col;

	snprintf(line, sizeof(line), "vsockbatch record: kernel %s, %s RX path (%s)",
		 r->kernel_release, vb_mode_name(r->mode), r->detected_by);
	vb_wrap_line(stderr, line, 80);
	col = (size_t)fprintf(stderr, "vsockbatch record: %s mode, attached %zu hooks in %.1f s:",
			      vb_trace_mode_name(r->trace), r->nhooks,
			      (double)attach_ns / 1e9);
	for (i = 0; i < r->nhooks; i++) {
		if (col + 1 + strlen(r->hooks[i]) > 80)
			col = (size_t)fprintf(stderr, "\n   ") - 1;
		col += (size_t)fprintf(stderr, " %s", r->hooks[i]);
	}
	fprintf(stderr, "\nvsockbatch record: tracing ");
	if (command)
		fprintf(stderr, "while the command runs");
	if (command && duration > 0)
		fprintf(stderr, ", at most %g s", duration);
	else if (duration > 0)
		fprintf(stderr, "for %g s", duration);
	else if (!command)
		fprintf(stderr, "until Ctrl-C");
	if (t->interval)
		fprintf(stderr, ", totals every %g s on stdout", t->interval);
	fprintf(stderr, ". Ctrl-C to end.\n");
}

int cmd_record(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "output", required_argument, NULL, 'o' },
		{ "duration", required_argument, NULL, 'd' },
		{ "interval", required_argument, NULL, 'i' },
		{ "cpus", required_argument, NULL, 'C' },
		{ "label", required_argument, NULL, 'l' },
		{ "verbose", no_argument, NULL, 'v' },
		{ "bpf-stats", no_argument, NULL, 'S' },
		{ "mode", required_argument, NULL, 'm' },
		{ "sample", required_argument, NULL, 's' },
		{ "duty", required_argument, NULL, 'D' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	uint32_t cpus[VB_MAX_CPUS];
	bool bpf_stats = false;
	enum vb_trace_mode mode = VB_TRACE_AUTO;
	int stats_fd = -1;
	struct vb_costctr cost = { 0 };
	struct vb_tracer tracer = { 0 };
	struct vb_results r;
	const char *out = NULL;
	char err[512], *end;
	double duration = 0, interval = 0;
	struct ticker tick;
	int ncpus = 0, opt, ret = VB_EXIT_FAIL, status = 0, e;
	bool verbose = false, cmd_failed = false;
	uint64_t t0, t1, tracer_slices = 0;
	pid_t pid = -1;

	vb_results_init(&r);
	memset(&tick, 0, sizeof(tick));
	/* record's own argv, for the file: "vsockbatch record ..." */
	if (vb_results_set_argv(&r, argc, argv))
		goto oom;
	optind = 1;
	opterr = 0;	/* one line of our own instead of getopt's */
	while ((opt = getopt_long(argc, argv, "+o:d:i:C:l:m:s:vSh", longopts,
				  NULL)) != -1) {
		switch (opt) {
		case 'o':
			out = optarg;
			break;
		case 'd':
			errno = 0;
			duration = strtod(optarg, &end);
			if (errno || *end || !(duration > 0) || duration > 86400) {
				fprintf(stderr, "vsockbatch record: invalid duration '%s' (seconds, > 0)\n",
					optarg);
				ret = VB_EXIT_USAGE;
				goto out;
			}
			break;
		case 'i':
			errno = 0;
			interval = strtod(optarg, &end);
			if (errno || *end || !(interval >= 0.1) || interval > 3600) {
				fprintf(stderr, "vsockbatch record: invalid interval '%s' (0.1 .. 3600 s)\n",
					optarg);
				ret = VB_EXIT_USAGE;
				goto out;
			}
			break;
		case 'C':
			ncpus = vb_cpulist_parse(optarg, cpus, VB_MAX_CPUS);
			if (ncpus <= 0) {
				fprintf(stderr, "vsockbatch record: invalid CPU list '%s' (e.g. 0,2-3)\n",
					optarg);
				ret = VB_EXIT_USAGE;
				goto out;
			}
			break;
		case 'm':
			if (vb_trace_mode_parse(optarg, &mode)) {
				fprintf(stderr, "vsockbatch record: unknown mode '%s' (light, full or auto)\n",
					optarg);
				ret = VB_EXIT_USAGE;
				goto out;
			}
			break;
		case 's':
			if (vb_sample_parse("record", optarg, &tracer.sample)) {
				ret = VB_EXIT_USAGE;
				goto out;
			}
			break;
		case 'D':
			if (vb_duty_parse("record", optarg, &tracer.duty)) {
				ret = VB_EXIT_USAGE;
				goto out;
			}
			break;
		case 'l':
			if (parse_label(&r, optarg)) {
				ret = VB_EXIT_USAGE;
				goto out;
			}
			break;
		case 'v':
			verbose = true;
			break;
		case 'S':
			bpf_stats = true;
			break;
		case 'h':
			usage(stdout);
			ret = VB_EXIT_OK;
			goto out;
		default:
			fprintf(stderr, "vsockbatch record: unknown option or missing argument '%s' (try --help)\n",
				argv[optind - 1]);
			ret = VB_EXIT_USAGE;
			goto out;
		}
	}
	if (!out) {
		fprintf(stderr, "vsockbatch record: -o FILE is required (try --help)\n");
		ret = VB_EXIT_USAGE;
		goto out;
	}
	ret = check_output(out);
	if (ret)
		goto out;
	ret = VB_EXIT_FAIL;
	if (geteuid() != 0) {
		fprintf(stderr, "vsockbatch record: must run as root (loads BPF programs, opens CPU-wide perf counters)\n");
		goto out;
	}
	if (ncpus) {
		e = vb_cpulist_check_online(cpus, (size_t)ncpus, err, sizeof(err));
		if (e) {
			fprintf(stderr, "vsockbatch record: -C: %s\n", err);
			ret = e == -EINVAL ? VB_EXIT_USAGE : VB_EXIT_FAIL;
			goto out;
		}
	} else {
		ncpus = vb_cpulist_online(cpus, VB_MAX_CPUS);
		if (ncpus <= 0) {
			fprintf(stderr, "vsockbatch record: cannot read the online CPU list\n");
			goto out;
		}
	}

	/* SIGINT, SIGTERM and SIGHUP end the recording (the file is written) */
	vb_catch_stop_signals(on_signal);
	vb_libbpf_verbose(verbose);
	e = vb_tracer_start(&tracer, mode, &exiting, isatty(STDERR_FILENO),
			    err, sizeof(err));
	if (e) {
		/* -EINTR: "interrupted (signal N) while attaching" */
		fprintf(stderr, "vsockbatch record: %s%s\n", err,
			e == -EINTR ? ": nothing recorded" : "");
		if (e == -EDOM)
			ret = VB_EXIT_USAGE;
		goto out;
	}
	if (vb_tracer_describe(&tracer, &r))
		goto oom;
	{
		struct vb_overhead_key k = {
			.trace = r.trace, .kernel = r.mode,
			.sample = r.self.sample,
			.duty = r.self.duty,
			.kprobe = vb_tracer_kprobes(&tracer),
			.run_close = tracer.attached[VB_HOOK_RB_CLOSE],
			.lock_wait = tracer.attached[VB_HOOK_LOCK_WAIT],
			.release = r.kernel_release,
			.payload = vb_results_label(&r, "payload"),
		};

		vb_overhead_lookup(&k, &r.self.overhead);
	}
	if (r.trace == VB_TRACE_FULL_NORUNS)
		fprintf(stderr, "vsockbatch record: warning: this kernel batches but has no vsock:virtio_transport_rx_batch event: its runs are invisible, batch and window figures will not be measured\n");
	if (vb_cost_open(&cost, cpus, (size_t)ncpus))
		goto oom;
	if (cost.unit == VB_COST_CPU_CLOCK_NS || !cost.open)
		fprintf(stderr, "vsockbatch record: note: %s\n", cost.note);

	if (bpf_stats) {
		/* the fd keeps run-time stats on until it is closed */
		stats_fd = bpf_enable_stats(BPF_STATS_RUN_TIME);
		if (stats_fd < 0) {
			fprintf(stderr, "vsockbatch record: cannot enable BPF run-time stats: %s\n",
				strerror(errno));
			goto out;
		}
	}
	r.start_unix_ns = now_ns(CLOCK_REALTIME);
	t0 = now_ns(CLOCK_MONOTONIC);
	vb_cost_start(&cost);
	if (vb_tracer_enable(&tracer, true, err, sizeof(err))) {
		fprintf(stderr, "vsockbatch record: %s\n", err);
		goto out;
	}
	if (ticker_init(&tick, interval, &tracer, &cost, &r))
		goto oom;
	tick.slicer = &tracer;
	say_attached(&r, &tick, tracer.attach_ns, duration, optind < argc);

	if (optind < argc) {
		pid = fork();
		if (pid < 0) {
			fprintf(stderr, "vsockbatch record: fork: %s\n",
				strerror(errno));
			vb_tracer_enable(&tracer, false, err, sizeof(err));
			goto out;
		}
		if (pid == 0) {
			signal(SIGINT, SIG_DFL);
			signal(SIGTERM, SIG_DFL);
			signal(SIGHUP, SIG_DFL);
			execvp(argv[optind], argv + optind);
			fprintf(stderr, "vsockbatch record: cannot run '%s': %s\n",
				argv[optind], strerror(errno));
			_exit(127);
		}
		child_pid = pid;
		e = wait_child(pid, duration, &status, &tick);
		child_pid = 0;
		if (e)
			fprintf(stderr, "vsockbatch record: waitpid: %s\n",
				strerror(-e));
		else if (WIFEXITED(status) && WEXITSTATUS(status)) {
			fprintf(stderr, "vsockbatch record: command exited with status %d\n",
				WEXITSTATUS(status));
			cmd_failed = true;
		} else if (WIFSIGNALED(status) && !exiting &&
			   !(duration > 0 && WTERMSIG(status) == SIGTERM)) {
			fprintf(stderr, "vsockbatch record: command killed by signal %d\n",
				WTERMSIG(status));
			cmd_failed = true;
		}
		drain(&tracer, &tick);
	} else {
		wait_plain(duration, &tick);
	}

	vb_tracer_enable(&tracer, false, err, sizeof(err));
	t1 = now_ns(CLOCK_MONOTONIC);
	r.duration_ns = t1 - t0;
	if (vb_collect(tracer.skel, &r, NULL, err, sizeof(err))) {
		fprintf(stderr, "vsockbatch record: %s\n", err);
		goto out;
	}
	if (vb_cost_fill(&cost, &r))
		goto oom;
	if (vb_tracer_self(&tracer, stats_fd >= 0, &r.self))
		fprintf(stderr, "vsockbatch record: warning: cannot read the programs' stats\n");
	if (r.self.recursion_misses)
		fprintf(stderr, "vsockbatch record: warning: the kernel skipped %llu program runs (recursion): counts are incomplete\n",
			(unsigned long long)r.self.recursion_misses);
	tracer_slices = tracer.slices;
	vb_tracer_stop(&tracer);

	if (vb_results_save(out, &r, err, sizeof(err))) {
		fprintf(stderr, "vsockbatch record: cannot write results: %s\n",
			err);
		goto out;
	}
	fprintf(stderr, "vsockbatch record: %s: %llu packets, %llu batches in %.2f s (%s kernel, %s mode)\n",
		out, (unsigned long long)r.totals.cnt[VB_C_PKTS],
		(unsigned long long)r.totals.cnt[VB_C_BATCHES],
		(double)r.duration_ns / 1e9, vb_mode_name(r.mode),
		vb_trace_mode_name(r.trace));
	if (r.self.duty > 1)
		fprintf(stderr, "vsockbatch record: --duty %u: the window hooks saw %llu of the packets in %llu slices of %u ms\n",
			r.self.duty,
			(unsigned long long)r.totals.cnt[VB_C_WIN_PKTS],
			(unsigned long long)tracer_slices, r.self.slice_ms);
	ret = cmd_failed ? VB_EXIT_FAIL : VB_EXIT_OK;
	goto out;
oom:
	fprintf(stderr, "vsockbatch record: out of memory\n");
	ret = VB_EXIT_FAIL;
out:
	if (stats_fd >= 0)
		close(stats_fd);
	ticker_free(&tick);
	vb_cost_close(&cost);
	vb_tracer_stop(&tracer);
	vb_results_free(&r);
	return ret;
}
