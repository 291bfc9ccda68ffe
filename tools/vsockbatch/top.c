// SPDX-License-Identifier: GPL-2.0
/*
 * top.c - `vsockbatch top` / `vsockbatch-top`: live per-flow view.
 *
 * Collection (map snapshot, delta against the previous one) is separate
 * from rendering (top_frame.c).  The ncurses loop uses getch() with a
 * 100 ms timeout as its clock (htop's halfdelay idea), redraws on
 * KEY_RESIZE, and leaves through one exit path that calls endwin():
 * SIGINT/SIGTERM/SIGHUP only set a flag, so the terminal is restored
 * before anything else is printed or torn down.
 */
#include <errno.h>
#include <getopt.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <curses.h>

#include "collect.h"
#include "commands.h"
#include "cost.h"
#include "cpulist.h"
#include "results.h"
#include "top.h"
#include "tracer.h"

static volatile sig_atomic_t exiting;

static void on_signal(int sig)
{
	exiting = sig;
}

struct top_opts {
	double interval;
	long count;		/* frames in -b/--json mode, 0 = forever */
	bool batch, json, verbose;
	const char *replay;
	enum vb_top_sort sort;
	bool reverse;
	uint32_t cpus[VB_MAX_CPUS];
	int ncpus;
};

/* live collection state */
struct live {
	struct vb_tracer tracer;
	struct vb_costctr cost;
	struct vb_results prev, cur, delta;
	uint64_t prev_cost;
	uint64_t prev_ns;
	bool have_prev;
};

static uint64_t mono_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ULL + (uint64_t)ts.tv_nsec;
}

static void usage(FILE *f)
{
	fprintf(f,
"Usage: vsockbatch top [-i SECONDS] [-s KEY] [-r] [-C CPUS] [-b|--json [-n COUNT]]\n"
"       vsockbatch top --replay FILE [-b|--json] [-s KEY]\n"
"       vsockbatch-top ...\n"
"\n"
"Live view of virtio-vsock RX batching, one row per flow (src -> dst):\n"
"packets/s, MB/s, batches/s, packets per batch, lock hold p50/p99,\n"
"data-ready calls per batch and the share deferred past the unlock;\n"
"header with totals, kernel mode and CPU cost (cycles, or cpu-clock ns\n"
"when there is no PMU).\n"
"\n"
"  -i, --interval SECONDS  refresh period (default 1)\n"
"  -s, --sort KEY          pkts | mb | batches | len | hold | deferred\n"
"  -R, --reverse           ascending order\n"
"  -C, --cpus CPUS         CPUs whose cost is counted (default: online)\n"
"  -b, --batch             plain text frames instead of the full screen\n"
"  -j, --json              one JSON object per frame (JSON Lines)\n"
"  -n, --count N           stop after N frames (-b/--json)\n"
"      --replay FILE       show a recorded results file (no root needed)\n"
"  -v, --verbose           libbpf warnings (before the screen starts)\n"
"  -h, --help              this help\n"
"\n"
"Keys: p m b l h d choose the sort column, r reverses it, space pauses,\n"
"q (or Ctrl-C) quits.  Live mode needs root.\n");
}

static int parse_sort(const char *s, enum vb_top_sort *k)
{
	static const char *const names[VB_SORT_NR] = {
		"pkts", "mb", "batches", "len", "hold", "deferred"
	};
	int i;

	for (i = 0; i < VB_SORT_NR; i++)
		if (!strcmp(s, names[i])) {
			*k = (enum vb_top_sort)i;
			return 0;
		}
	return -EINVAL;
}

static int parse_args(int argc, char **argv, struct top_opts *o)
{
	enum { OPT_REPLAY = 1000 };
	static const struct option longopts[] = {
		{ "interval", required_argument, NULL, 'i' },
		{ "sort", required_argument, NULL, 's' },
		{ "reverse", no_argument, NULL, 'R' },
		{ "cpus", required_argument, NULL, 'C' },
		{ "batch", no_argument, NULL, 'b' },
		{ "json", no_argument, NULL, 'j' },
		{ "count", required_argument, NULL, 'n' },
		{ "replay", required_argument, NULL, OPT_REPLAY },
		{ "verbose", no_argument, NULL, 'v' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	char *end;
	int opt;

	memset(o, 0, sizeof(*o));
	o->interval = 1.0;
	optind = 1;
	opterr = 0;	/* one line of our own instead of getopt's */
	while ((opt = getopt_long(argc, argv, "i:s:RC:bjn:vh", longopts,
				  NULL)) != -1) {
		switch (opt) {
		case 'i':
			errno = 0;
			o->interval = strtod(optarg, &end);
			if (errno || *end || !(o->interval >= 0.1) ||
			    o->interval > 3600) {
				fprintf(stderr, "vsockbatch top: invalid interval '%s' (0.1 .. 3600 s)\n",
					optarg);
				return VB_EXIT_USAGE;
			}
			break;
		case 's':
			if (parse_sort(optarg, &o->sort)) {
				fprintf(stderr, "vsockbatch top: unknown sort key '%s' (pkts mb batches len hold deferred)\n",
					optarg);
				return VB_EXIT_USAGE;
			}
			break;
		case 'R':
			o->reverse = true;
			break;
		case 'C':
			o->ncpus = vb_cpulist_parse(optarg, o->cpus, VB_MAX_CPUS);
			if (o->ncpus <= 0) {
				fprintf(stderr, "vsockbatch top: invalid CPU list '%s'\n",
					optarg);
				return VB_EXIT_USAGE;
			}
			break;
		case 'b':
			o->batch = true;
			break;
		case 'j':
			o->json = true;
			break;
		case 'n':
			errno = 0;
			o->count = strtol(optarg, &end, 10);
			if (errno || *end || o->count <= 0) {
				fprintf(stderr, "vsockbatch top: invalid count '%s'\n",
					optarg);
				return VB_EXIT_USAGE;
			}
			break;
		case OPT_REPLAY:
			o->replay = optarg;
			break;
		case 'v':
			o->verbose = true;
			break;
		case 'h':
			usage(stdout);
			return -1;
		default:
			fprintf(stderr, "vsockbatch top: unknown option or missing argument '%s' (try --help)\n",
				argv[optind - 1]);
			return VB_EXIT_USAGE;
		}
	}
	if (optind != argc) {
		fprintf(stderr, "vsockbatch top: unexpected argument '%s' (try --help)\n",
			argv[optind]);
		return VB_EXIT_USAGE;
	}
	if (o->batch && o->json) {
		fprintf(stderr, "vsockbatch top: -b and --json exclude each other\n");
		return VB_EXIT_USAGE;
	}
	if (o->count && !o->batch && !o->json) {
		fprintf(stderr, "vsockbatch top: -n needs -b or --json\n");
		return VB_EXIT_USAGE;
	}
	return 0;
}

/* ---- live collection ---------------------------------------------- */

static int delta_results(struct vb_results *d, const struct vb_results *cur,
			 const struct vb_results *prev)
{
	const struct vb_flow *pf;
	size_t i;

	d->mode = cur->mode;
	snprintf(d->kernel_release, sizeof(d->kernel_release), "%s",
		 cur->kernel_release);
	d->cost.unit = cur->cost.unit;
	d->cost.ncpus = cur->cost.ncpus;
	d->totals = cur->totals;
	if (prev)
		vb_agg_sub(&d->totals, &prev->totals);
	free(d->flows);
	d->flows = NULL;
	d->nflows = 0;
	if (!cur->nflows)
		return 0;
	d->flows = calloc(cur->nflows, sizeof(*d->flows));
	if (!d->flows)
		return -ENOMEM;
	for (i = 0; i < cur->nflows; i++) {
		d->flows[i] = cur->flows[i];
		pf = prev ? vb_results_find_flow(prev, &cur->flows[i].key)
			  : NULL;
		if (pf)
			vb_agg_sub(&d->flows[i].agg, &pf->agg);
	}
	d->nflows = cur->nflows;
	return 0;
}

/* Hand the snapshot in src (totals, flows, CPUs) over to dst. */
static void move_snapshot(struct vb_results *dst, struct vb_results *src)
{
	free(dst->flows);
	free(dst->cpus);
	dst->totals = src->totals;
	dst->flows = src->flows;
	dst->nflows = src->nflows;
	dst->cpus = src->cpus;
	dst->ncpus = src->ncpus;
	src->flows = NULL;
	src->nflows = 0;
	src->cpus = NULL;
	src->ncpus = 0;
}

static int live_start(struct live *l, struct top_opts *o)
{
	char err[512];

	memset(l, 0, sizeof(*l));
	vb_results_init(&l->prev);
	vb_results_init(&l->cur);
	vb_results_init(&l->delta);
	if (geteuid() != 0) {
		fprintf(stderr, "vsockbatch top: must run as root for a live view (or use --replay FILE)\n");
		return VB_EXIT_FAIL;
	}
	if (!o->ncpus) {
		o->ncpus = vb_cpulist_online(o->cpus, VB_MAX_CPUS);
		if (o->ncpus <= 0) {
			fprintf(stderr, "vsockbatch top: cannot read the online CPU list\n");
			return VB_EXIT_FAIL;
		}
	}
	vb_libbpf_verbose(o->verbose);
	if (vb_tracer_start(&l->tracer, err, sizeof(err))) {
		fprintf(stderr, "vsockbatch top: %s\n", err);
		return VB_EXIT_FAIL;
	}
	if (vb_tracer_describe(&l->tracer, &l->cur) ||
	    vb_cost_open(&l->cost, o->cpus, (size_t)o->ncpus)) {
		fprintf(stderr, "vsockbatch top: out of memory\n");
		return VB_EXIT_FAIL;
	}
	if (!l->cost.open)
		fprintf(stderr, "vsockbatch top: note: %s\n", l->cost.note);
	l->cur.cost.unit = l->cost.unit;
	l->cur.cost.ncpus = l->cost.n;
	vb_cost_start(&l->cost);
	vb_tracer_enable(&l->tracer, true);
	l->prev_ns = mono_ns();
	return 0;
}

/* Snapshot now; build the frame of the interval since the last one. */
static int live_frame(struct live *l, struct vb_top_frame *f)
{
	uint64_t now = mono_ns(), cost = 0, *vals;
	bool cost_ok = false;
	char err[256];
	size_t i;
	int e;

	e = vb_collect(l->tracer.skel, &l->cur, err, sizeof(err));
	if (e)
		return e;
	if (l->cost.open) {
		vals = calloc(l->cost.n, sizeof(*vals));
		if (vals && !vb_cost_read(&l->cost, vals)) {
			for (i = 0; i < l->cost.n; i++)
				cost += vals[i];
			cost_ok = true;
		}
		free(vals);
	}
	e = delta_results(&l->delta, &l->cur, l->have_prev ? &l->prev : NULL);
	l->have_prev = true;
	if (e)
		return e;
	e = vb_top_frame_build(f, &l->delta, (double)(now - l->prev_ns) / 1e9,
			       cost - l->prev_cost, cost_ok);
	if (e)
		return e;
	snprintf(f->source, sizeof(f->source), "live");
	l->prev_cost = cost;
	l->prev_ns = now;
	move_snapshot(&l->prev, &l->cur);
	return 0;
}

static void live_stop(struct live *l)
{
	vb_tracer_stop(&l->tracer);
	vb_cost_close(&l->cost);
	vb_results_free(&l->prev);
	vb_results_free(&l->cur);
	vb_results_free(&l->delta);
}

/* ---- screen --------------------------------------------------------- */

static void draw_line(void *ctx, int idx, const char *text, int attr)
{
	(void)ctx;
	if (idx >= LINES)
		return;
	if (attr == 1)
		attron(A_BOLD);
	else if (attr == 2)
		attron(A_REVERSE);
	mvaddnstr(idx, 0, text, COLS);
	if (attr == 2)	/* title bar across the whole width */
		for (int x = (int)strlen(text); x < COLS; x++)
			mvaddch(idx, x, ' ');
	attroff(A_BOLD | A_REVERSE);
}

static void draw(const struct vb_top_frame *f, bool paused, const char *msg)
{
	int n;

	erase();
	n = vb_top_format(f, COLS, LINES > 6 ? LINES - 6 : 1, draw_line, NULL);
	if (paused && n < LINES)
		mvaddnstr(LINES - 1, 0, "PAUSED - space to resume", COLS);
	else if (msg && n < LINES)
		mvaddnstr(LINES - 1, 0, msg, COLS);
	refresh();
}

static bool handle_key(int ch, struct top_opts *o, bool *paused)
{
	switch (ch) {
	case 'q':
	case 'Q':
		return false;
	case 'p':
		o->sort = VB_SORT_PKTS;
		break;
	case 'm':
		o->sort = VB_SORT_MBS;
		break;
	case 'b':
		o->sort = VB_SORT_BATCHES;
		break;
	case 'l':
		o->sort = VB_SORT_BATCH_LEN;
		break;
	case 'h':
		o->sort = VB_SORT_HOLD_P99;
		break;
	case 'd':
		o->sort = VB_SORT_DEFERRED;
		break;
	case 'r':
		o->reverse = !o->reverse;
		break;
	case ' ':
	case 'P':
		*paused = !*paused;
		break;
	default:
		break;
	}
	return true;
}

static int run_screen(struct top_opts *o, struct live *l,
		      struct vb_top_frame *f)
{
	uint64_t next = mono_ns() + (uint64_t)(o->interval * 1e9);
	bool paused = false;
	SCREEN *scr;
	char msg[160] = "";
	int ch, ret = VB_EXIT_OK;

	scr = newterm(NULL, stdout, stdin);
	if (!scr) {
		fprintf(stderr, "vsockbatch top: cannot initialise the terminal (TERM=%s); use -b\n",
			getenv("TERM") ? getenv("TERM") : "");
		return VB_EXIT_FAIL;
	}
	cbreak();		/* Ctrl-C still raises SIGINT */
	noecho();
	nonl();
	keypad(stdscr, TRUE);
	curs_set(0);
	timeout(100);
	if (!o->replay)
		snprintf(msg, sizeof(msg), "collecting... first frame in %.1f s",
			 o->interval);
	draw(f, paused, msg);
	while (!exiting) {
		ch = getch();
		if (ch == KEY_RESIZE) {
			draw(f, paused, NULL);
			continue;
		}
		if (ch != ERR) {
			if (!handle_key(ch, o, &paused))
				break;
			vb_top_frame_sort(f, o->sort, o->reverse);
			draw(f, paused, NULL);
			continue;
		}
		if (o->replay || mono_ns() < next)
			continue;
		next += (uint64_t)(o->interval * 1e9);
		if (mono_ns() > next)	/* fell behind: do not burst */
			next = mono_ns() + (uint64_t)(o->interval * 1e9);
		if (paused)
			continue;	/* counts keep accumulating */
		vb_top_frame_free(f);
		if (live_frame(l, f)) {
			snprintf(msg, sizeof(msg), "reading the maps failed");
			ret = VB_EXIT_FAIL;
			break;
		}
		vb_top_frame_sort(f, o->sort, o->reverse);
		draw(f, paused, NULL);
	}
	endwin();
	delscreen(scr);
	if (ret)
		fprintf(stderr, "vsockbatch top: %s\n", msg);
	return ret;
}

static int run_lines(struct top_opts *o, struct live *l,
		     struct vb_top_frame *f)
{
	long n = 0;
	uint64_t next = mono_ns();

	for (;;) {
		if (!o->replay) {
			next += (uint64_t)(o->interval * 1e9);
			while (!exiting && mono_ns() < next)
				usleep(20000);
			if (exiting)
				break;
			vb_top_frame_free(f);
			if (live_frame(l, f)) {
				fprintf(stderr, "vsockbatch top: reading the maps failed\n");
				return VB_EXIT_FAIL;
			}
			vb_top_frame_sort(f, o->sort, o->reverse);
		}
		if (o->json)
			vb_top_print_json(stdout, f);
		else
			vb_top_print_text(stdout, f, 0);
		if (ferror(stdout)) {
			fprintf(stderr, "vsockbatch top: write error on stdout\n");
			return VB_EXIT_FAIL;
		}
		if (o->replay || (o->count && ++n >= o->count))
			break;
	}
	return VB_EXIT_OK;
}

int cmd_top(int argc, char **argv)
{
	struct vb_top_frame frame = { 0 };
	struct vb_results r;
	struct top_opts o;
	struct live l;
	struct sigaction sa;
	char err[512];
	int ret, e;

	ret = parse_args(argc, argv, &o);
	if (ret)
		return ret < 0 ? VB_EXIT_OK : ret;
	if (!o.batch && !o.json && (!isatty(STDOUT_FILENO) ||
				     !isatty(STDIN_FILENO))) {
		fprintf(stderr, "vsockbatch top: not a terminal: use -b (text) or --json\n");
		return VB_EXIT_USAGE;
	}

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_signal;
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGHUP, &sa, NULL);

	memset(&l, 0, sizeof(l));
	if (o.replay) {
		e = vb_results_load(o.replay, &r, err, sizeof(err));
		if (e) {
			fprintf(stderr, "vsockbatch top: %s\n", err);
			return (e == -EINVAL || e == -EPROTO) ? VB_EXIT_USAGE
							      : VB_EXIT_FAIL;
		}
		e = vb_top_frame_build(&frame, &r, (double)r.duration_ns / 1e9,
				       r.cost.total, r.cost.measured);
		snprintf(frame.source, sizeof(frame.source), "%s", o.replay);
		frame.replay = true;
		vb_results_free(&r);
		if (e) {
			fprintf(stderr, "vsockbatch top: out of memory\n");
			return VB_EXIT_FAIL;
		}
		vb_top_frame_sort(&frame, o.sort, o.reverse);
	} else {
		ret = live_start(&l, &o);
		if (ret) {
			live_stop(&l);
			return ret;
		}
		/* an empty first frame until the first interval is over */
		vb_top_frame_build(&frame, &l.cur, o.interval, 0, false);
		vb_top_frame_sort(&frame, o.sort, o.reverse);
	}

	if (o.batch || o.json)
		ret = run_lines(&o, &l, &frame);
	else
		ret = run_screen(&o, &l, &frame);
	vb_top_frame_free(&frame);
	if (!o.replay)
		live_stop(&l);
	return ret;
}
