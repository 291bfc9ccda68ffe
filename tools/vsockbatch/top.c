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
#include <sys/ioctl.h>
#include <time.h>
#include <unistd.h>

#include <curses.h>

#include <bpf/libbpf.h>

#include "collect.h"
#include "commands.h"
#include "cost.h"
#include "cpulist.h"
#include "flow_track.h"
#include "results.h"
#include "stop_signals.h"
#include "top.h"
#include "tracer.h"

static volatile sig_atomic_t exiting;

static void on_signal(int sig)
{
	exiting = sig;
}

struct top_opts {
	double interval;
	bool interval_set;	/* -i given (refused with --replay) */
	long count;		/* frames in -b/--json mode, 0 = forever */
	bool batch, json, verbose;
	const char *replay;
	uint32_t sample;	/* full mode's --sample (0: the default) */
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
	struct vb_cost_mark mark;	/* cost counters at the last frame */
	/*
	 * Each interval reads the growth of the BPF flow map's flows, and
	 * flows idle for VB_FLOW_IDLE_READS reads leave it (flow_track.h),
	 * so it never fills with flows that ended; flows are accumulated here
	 * instead, and dropped after VB_TOP_AGE quiet intervals (their
	 * counts stay in `retired`, so the totals never go backwards).
	 */
	struct vb_flow_track track;
	struct vb_flow *cum;
	unsigned int *quiet;
	size_t ncum;
	struct vb_agg retired;
	uint64_t prev_ns;
	bool have_prev;
};

static uint64_t mono_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ULL + (uint64_t)ts.tv_nsec;
}

static uint64_t unix_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ULL + (uint64_t)ts.tv_nsec;
}

static void usage(FILE *f)
{
	fprintf(f,
"Usage: vsockbatch top [-i SECONDS] [-s KEY] [-r] [-C CPUS] [--sample N]\n"
"                      [-b|--json [-n COUNT]]\n"
"       vsockbatch top --replay FILE [-s KEY] [-r] [-b|--json]\n"
"       vsockbatch-top ...\n"
"\n"
"Live view of virtio-vsock RX batching, one row per flow (src -> dst):\n"
"packets/s, MB/s, batches/s, packets per batch, lock hold p50/p99,\n"
"data-ready calls per batch and the share deferred to the end of a run;\n"
"header with totals, kernel mode and CPU cost (cycles, or cpu-clock ns\n"
"when there is no PMU).  MB = 10^6 bytes.\n"
"\n"
"  -i, --interval SECONDS  refresh period (default 1)\n"
"  -s, --sort KEY          pkts | mb | batches | len | hold | deferred\n"
"  -r, -R, --reverse       ascending order\n"
"  -C, --cpus CPUS         CPUs whose cost is counted (default: online)\n"
"      --sample N          full mode (kernels without the series' event):\n"
"                          time 1 window in N, a power of two (default %d;\n"
"                          1: every window); counts stay exact\n"
"  -b, --batch             plain text frames, each headed by its time\n"
"  -j, --json              one JSON object per frame (JSON Lines)\n"
"  -n, --count N           stop after N frames (-b/--json)\n"
"      --replay FILE       the whole recording as one frame (no root\n"
"                          needed); -i, -C and -n do not apply to it\n"
"  -v, --verbose           libbpf warnings (before the screen starts)\n"
"  -h, --help              this help\n"
"\n"
"Keys: p m b l t d sort by PKTS/s MB/s BATCH/s PKT/B HOLD %%DEF (< >\n"
"move the sort column), r reverses, arrows j k PgUp PgDn Home End scroll,\n"
"space pauses, h or ? help, q (or Ctrl-C) quits.  Live mode needs root.\n"
"At 80 columns or less some flow columns are left out, in this order:\n"
"BATCH/s, MAXB, MB/s, PKTS/s, HOLD, PKT/B (never the sort column,\n"
"SRC, DST, DR/B or %%DEF).\n", VB_SAMPLE_DEFAULT);
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
	enum { OPT_REPLAY = 1000, OPT_SAMPLE };
	static const struct option longopts[] = {
		{ "interval", required_argument, NULL, 'i' },
		{ "sort", required_argument, NULL, 's' },
		{ "reverse", no_argument, NULL, 'R' },
		{ "cpus", required_argument, NULL, 'C' },
		{ "batch", no_argument, NULL, 'b' },
		{ "json", no_argument, NULL, 'j' },
		{ "count", required_argument, NULL, 'n' },
		{ "replay", required_argument, NULL, OPT_REPLAY },
		{ "sample", required_argument, NULL, OPT_SAMPLE },
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
	while ((opt = getopt_long(argc, argv, "i:s:rRC:bjn:vh", longopts,
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
			o->interval_set = true;
			break;
		case 's':
			if (parse_sort(optarg, &o->sort)) {
				fprintf(stderr, "vsockbatch top: unknown sort key '%s' (pkts mb batches len hold deferred)\n",
					optarg);
				return VB_EXIT_USAGE;
			}
			break;
		case 'r':
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
		case OPT_SAMPLE:
			if (vb_sample_parse("top", optarg, &o->sample))
				return VB_EXIT_USAGE;
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
	/* a replay is one frame of the whole recording, its cost as recorded */
	if (o->replay && (o->interval_set || o->ncpus || o->count ||
			  o->sample)) {
		fprintf(stderr, "vsockbatch top: %s does not apply to --replay (one frame of the whole recording, CPU cost as recorded)\n",
			o->interval_set ? "-i" : o->ncpus ? "-C" :
			o->count ? "-n" : "--sample");
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
	d->trace = cur->trace;
	d->self.sample = cur->self.sample;
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
	l->tracer.sample = o->sample;
	if (vb_tracer_start(&l->tracer, VB_TRACE_AUTO, &exiting,
			    isatty(STDERR_FILENO), err, sizeof(err))) {
		fprintf(stderr, "vsockbatch top: %s\n", err);
		return VB_EXIT_FAIL;
	}
	if (vb_flow_track_init(&l->track, libbpf_num_possible_cpus())) {
		fprintf(stderr, "vsockbatch top: cannot count possible CPUs\n");
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
	if (vb_cost_mark_init(&l->cost, &l->mark)) {
		fprintf(stderr, "vsockbatch top: out of memory\n");
		return VB_EXIT_FAIL;
	}
	if (vb_tracer_enable(&l->tracer, true, err, sizeof(err))) {
		fprintf(stderr, "vsockbatch top: %s\n", err);
		return VB_EXIT_FAIL;
	}
	l->prev_ns = mono_ns();
	return 0;
}

#define VB_TOP_AGE	10

/*
 * Fold the flows' growth read into l->cur into the cumulative table, age out
 * quiet ones, and make l->cur look like a cumulative snapshot again:
 * cur.flows = the table, window counters of cur.totals = table + retired
 * + the cumulative other-flows row (already in cur.totals).
 */
static int accumulate(struct live *l)
{
	struct vb_results *c = &l->cur;
	struct vb_agg drained, sum;
	struct vb_flow *nf;
	unsigned int *nq;
	size_t i, j, k;
	int x;

	memset(&drained, 0, sizeof(drained));
	for (i = 0; i < c->nflows; i++) {
		if (!memcmp(&c->flows[i].key, &vb_other_flows,
			    sizeof(vb_other_flows)))
			continue;	/* cumulative in the stats map */
		vb_agg_add(&drained, &c->flows[i].agg);
		for (j = 0; j < l->ncum; j++)
			if (!memcmp(&l->cum[j].key, &c->flows[i].key,
				    sizeof(c->flows[i].key)))
				break;
		if (j == l->ncum) {
			nf = realloc(l->cum, (l->ncum + 1) * sizeof(*nf));
			if (!nf)
				return -ENOMEM;
			l->cum = nf;
			nq = realloc(l->quiet, (l->ncum + 1) * sizeof(*nq));
			if (!nq)
				return -ENOMEM;
			l->quiet = nq;
			memset(&l->cum[j], 0, sizeof(l->cum[j]));
			l->cum[j].key = c->flows[i].key;
			l->ncum++;
		}
		vb_agg_add(&l->cum[j].agg, &c->flows[i].agg);
		l->quiet[j] = (unsigned int)-1;	/* active this interval */
	}
	for (j = 0, k = 0; j < l->ncum; j++) {
		l->quiet[j]++;
		if (l->quiet[j] >= VB_TOP_AGE) {
			vb_agg_add(&l->retired, &l->cum[j].agg);
			continue;
		}
		l->cum[k] = l->cum[j];
		l->quiet[k++] = l->quiet[j];
	}
	l->ncum = k;

	/* totals' window counters: replace the growth read by table + retired */
	sum = l->retired;
	for (j = 0; j < l->ncum; j++)
		vb_agg_add(&sum, &l->cum[j].agg);
	for (x = 0; x < VB_FC_NR; x++) {
		if (vb_counter_is_max[x]) {
			if (sum.cnt[x] > c->totals.cnt[x])
				c->totals.cnt[x] = sum.cnt[x];
			continue;
		}
		c->totals.cnt[x] += sum.cnt[x] - drained.cnt[x];
	}
	/* the other-flows row stays; the table's flows follow it */
	for (i = 0, k = 0; i < c->nflows; i++)
		if (!memcmp(&c->flows[i].key, &vb_other_flows,
			    sizeof(vb_other_flows)))
			c->flows[k++] = c->flows[i];
	nf = realloc(c->flows, (k + l->ncum + 1) * sizeof(*nf));
	if (!nf)
		return -ENOMEM;
	c->flows = nf;
	memcpy(c->flows + k, l->cum, l->ncum * sizeof(*nf));
	c->nflows = k + l->ncum;
	return 0;
}

/* Snapshot now; build the frame of the interval since the last one. */
static int live_frame(struct live *l, struct vb_top_frame *f)
{
	uint64_t now = mono_ns(), cost = 0, *vals;
	double interval_s, span_ns = 0;
	bool cost_ok = false;
	char err[256];
	size_t i;
	int e;

	e = vb_collect(l->tracer.skel, &l->cur, &l->track, err, sizeof(err));
	if (!e)
		e = accumulate(l);
	if (e)
		return e;
	if (l->cost.open) {
		/* this interval's own cost: never a difference of cumulative
		 * cpu-clock reads, which an idle interval can make negative */
		vals = calloc(l->cost.n, sizeof(*vals));
		if (vals && !vb_cost_read_interval(&l->cost, &l->mark, vals,
						   &span_ns)) {
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
	interval_s = (double)(now - l->prev_ns) / 1e9;
	e = vb_top_frame_build(f, &l->delta, interval_s, cost,
			       span_ns > 0 ? span_ns / 1e9 : interval_s,
			       cost_ok);
	if (e)
		return e;
	snprintf(f->source, sizeof(f->source), "live");
	f->stamp_unix_ns = unix_ns();
	l->prev_ns = now;
	move_snapshot(&l->prev, &l->cur);
	return 0;
}

static void live_stop(struct live *l)
{
	free(l->cum);
	free(l->quiet);
	vb_flow_track_free(&l->track);
	vb_tracer_stop(&l->tracer);
	vb_cost_close(&l->cost);
	vb_cost_mark_free(&l->mark);
	vb_results_free(&l->prev);
	vb_results_free(&l->cur);
	vb_results_free(&l->delta);
}

/* ---- screen --------------------------------------------------------- */

struct view {
	bool paused, help;
	int first_row;		/* scroll position in the flow rows */
	int rows;		/* flow lines on the screen at the last draw */
};

static void draw_line(void *ctx, int idx, const char *text, int attr,
		      int hl_at, int hl_len)
{
	int len = (int)strlen(text), x;

	(void)ctx;
	if (idx >= LINES)
		return;
	if (attr == 1)
		attron(A_BOLD);
	else if (attr == 2)
		attron(A_REVERSE);
	else if (attr == 3)
		attron(A_DIM);
	mvaddnstr(idx, 0, text, COLS);
	if (attr == 2) {
		/* title bar across the whole width, the sort column lit */
		for (x = len; x < COLS; x++)
			mvaddch(idx, x, ' ');
		if (hl_at >= 0 && hl_at < COLS && hl_at < len) {
			attroff(A_REVERSE);
			attron(A_BOLD | A_UNDERLINE);
			mvaddnstr(idx, hl_at, text + hl_at,
				  hl_len < COLS - hl_at ? hl_len : COLS - hl_at);
		}
	}
	attroff(A_BOLD | A_REVERSE | A_DIM | A_UNDERLINE);
}

static const char *const help_lines[] = {
	"vsockbatch top - keys",
	"",
	"  p  sort by PKTS/s        m  sort by MB/s (MB = 10^6 bytes)",
	"  b  sort by BATCH/s       l  sort by PKT/B (packets per batch)",
	"  t  sort by HOLD          d  sort by %DEF (data-ready deferred)",
	"  <  >  sort by the column to the left / right",
	"  r  reverse the order     space  pause / resume",
	"  arrows, j k, PgUp PgDn, Home End  scroll the flows",
	"  h ?  this help           q  Ctrl-C  quit",
	"",
	"Columns: SRC/DST cid:port, PKTS/s, MB/s, BATCH/s lock windows a second,",
	"PKT/B packets per window, MAXB most in one, HOLD mean window time",
	"(full mode) or rx_batch lock hold (light), DR/B data-ready calls",
	"per window, %DEF share of them at the end of a run.",
	"At 80 columns or less, left out first: BATCH/s, MAXB, MB/s, PKTS/s,",
	"HOLD, PKT/B; never the sort column, SRC, DST, DR/B or %DEF.",
	"",
	"any key returns",
};

static void draw(const struct vb_top_frame *f, struct view *v,
		 const char *msg)
{
	size_t i;
	int n;

	erase();
	if (v->help) {
		for (i = 0; i < sizeof(help_lines) / sizeof(help_lines[0]) &&
			    (int)i < LINES; i++)
			mvaddnstr((int)i, 0, help_lines[i], COLS);
		refresh();
		return;
	}
	/* scrolled past the end (End key, fewer flows): the last page */
	if (v->rows > 0 && v->first_row > (int)f->nrows - v->rows)
		v->first_row = (int)f->nrows - v->rows;
	if (v->first_row < 0)
		v->first_row = 0;
	/* the last screen line is the status line */
	n = vb_top_format(f, COLS, v->first_row, LINES > 1 ? LINES - 1 : 1,
			  &v->rows, draw_line, NULL);
	if (n < LINES) {
		if (v->paused)
			msg = "PAUSED - space to resume";
		attron(A_BOLD);
		mvaddnstr(LINES - 1, 0, msg && *msg ? msg : "h help  q quit",
			  COLS);
		attroff(A_BOLD);
	}
	refresh();
}

/* Sort keys in column order, for < and >. */
static const enum vb_top_sort sort_order[] = {
	VB_SORT_PKTS, VB_SORT_MBS, VB_SORT_BATCHES, VB_SORT_BATCH_LEN,
	VB_SORT_HOLD, VB_SORT_DEFERRED,
};

static void sort_step(struct top_opts *o, int step)
{
	int i, n = (int)(sizeof(sort_order) / sizeof(sort_order[0]));

	for (i = 0; i < n; i++)
		if (sort_order[i] == o->sort)
			break;
	o->sort = sort_order[((i + step) % n + n) % n];
}

static bool handle_key(int ch, struct top_opts *o, struct view *v)
{
	int page = v->rows > 2 ? v->rows - 2 : 1;

	if (v->help) {		/* any key leaves the help screen */
		v->help = false;
		return ch != 'q' && ch != 'Q';
	}
	switch (ch) {
	case 'q':
	case 'Q':
		return false;
	case 'h':
	case '?':
	case KEY_F(1):
		v->help = true;
		break;
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
	case 't':
		o->sort = VB_SORT_HOLD;
		break;
	case 'd':
		o->sort = VB_SORT_DEFERRED;
		break;
	case '<':
		sort_step(o, -1);
		break;
	case '>':
		sort_step(o, 1);
		break;
	case 'r':
	case 'R':
		o->reverse = !o->reverse;
		break;
	case KEY_DOWN:
	case 'j':
		v->first_row++;
		break;
	case KEY_UP:
	case 'k':
		v->first_row--;
		break;
	case KEY_NPAGE:
		v->first_row += page;
		break;
	case KEY_PPAGE:
		v->first_row -= page;
		break;
	case KEY_HOME:
		v->first_row = 0;
		break;
	case KEY_END:
		v->first_row = 1 << 30;	/* draw() clamps it */
		break;
	case ' ':
	case 'P':
		v->paused = !v->paused;
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
	struct view v = { 0 };
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
	draw(f, &v, msg);
	while (!exiting) {
		ch = getch();
		if (ch == KEY_RESIZE) {
			draw(f, &v, NULL);
			continue;
		}
		if (ch != ERR) {
			if (!handle_key(ch, o, &v))
				break;
			vb_top_frame_sort(f, o->sort, o->reverse);
			draw(f, &v, NULL);
			continue;
		}
		if (o->replay || mono_ns() < next)
			continue;
		next += (uint64_t)(o->interval * 1e9);
		if (mono_ns() > next)	/* fell behind: do not burst */
			next = mono_ns() + (uint64_t)(o->interval * 1e9);
		if (v.paused)
			continue;	/* counts keep accumulating */
		vb_top_frame_free(f);
		if (live_frame(l, f)) {
			snprintf(msg, sizeof(msg), "reading the maps failed");
			ret = VB_EXIT_FAIL;
			break;
		}
		vb_top_frame_sort(f, o->sort, o->reverse);
		draw(f, &v, NULL);
	}
	endwin();
	delscreen(scr);
	if (ret)
		fprintf(stderr, "vsockbatch top: %s\n", msg);
	return ret;
}

/* -b on a terminal fits its width; into a pipe or file, every column. */
static int batch_width(void)
{
	struct winsize ws;

	if (isatty(STDOUT_FILENO) && !ioctl(STDOUT_FILENO, TIOCGWINSZ, &ws) &&
	    ws.ws_col > 0)
		return ws.ws_col;
	return 0;
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
			vb_top_print_text(stdout, f, batch_width());
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

	vb_catch_stop_signals(on_signal);

	memset(&l, 0, sizeof(l));
	if (o.replay) {
		e = vb_results_load(o.replay, &r, err, sizeof(err));
		if (e) {
			fprintf(stderr, "vsockbatch top: %s\n", err);
			return vb_results_load_exit(e);
		}
		e = vb_top_frame_build(&frame, &r, (double)r.duration_ns / 1e9,
				       r.cost.total, (double)r.duration_ns / 1e9,
				       r.cost.measured);
		snprintf(frame.source, sizeof(frame.source), "%s", o.replay);
		frame.replay = true;
		frame.stamp_unix_ns = r.start_unix_ns;
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
		vb_top_frame_build(&frame, &l.cur, o.interval, 0, o.interval,
				   false);
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
