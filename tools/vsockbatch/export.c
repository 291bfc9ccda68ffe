// SPDX-License-Identifier: GPL-2.0
/*
 * export.c - `vsockbatch export`: a long-running tracer (light mode by
 * default, ~1 % measured) whose counts are served as Prometheus metrics,
 * or written as a node_exporter textfile.
 *
 * One thread reads the maps every interval, folds the read into its own
 * cumulative snapshot (prom_snap.c) and publishes a copy under a mutex;
 * libmicrohttpd's pool threads copy the published one and format it
 * outside the lock (export_http.c).  Memory is bounded: flows idle for
 * VB_FLOW_IDLE_READS reads leave the BPF flow map (flow_track.h), per-port
 * series are capped, and the HTTP server takes at most 64 connections.
 */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <malloc.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <bpf/libbpf.h>

#include "collect.h"
#include "commands.h"
#include "export.h"
#include "flow_track.h"
#include "overhead.h"
#include "stop_signals.h"
#include "tracer.h"

#define DEFAULT_LISTEN	"127.0.0.1:9477"
#define TEXTFILE_NAME	"vsockbatch.prom"

static volatile sig_atomic_t exiting;

static void on_signal(int sig)
{
	exiting = sig;
}

struct export_opts {
	const char *listen;
	bool listen_set;
	const char *textfile;
	double interval, duration;
	enum vb_trace_mode mode;
	uint32_t sample;	/* full mode's --sample (0: the default) */
	bool ports;
	unsigned int max_ports, port_age, threads;
	long vsock_port;	/* -1: none */
	bool verbose;
};

static void usage(FILE *f)
{
	fprintf(f,
"Usage: vsockbatch export [-l ADDR:PORT | --textfile DIR] [-i SECONDS]\n"
"                         [-m light|full] [-s N] [--ports [--max-ports N]\n"
"                         [--port-age N]] [--vsock-port PORT] [-d SECONDS]\n"
"\n"
"Trace the vsock RX path for as long as it runs and serve the counts as\n"
"Prometheus metrics at http://ADDR:PORT/metrics (OpenMetrics when the\n"
"Accept header asks for it): packets, bytes, lock windows, lookups,\n"
"data-ready calls, run-end reasons, reader waits, map overflows, exact\n"
"histograms (batch length, hold time, enqueue -> data-ready, reader\n"
"wait), the kernel and tracer mode, and the tracer's measured cost.\n"
"See docs/export.md.\n"
"\n"
"  -l, --listen ADDR:PORT  where to serve (default " DEFAULT_LISTEN ",\n"
"                          loopback only; [::1]:PORT for IPv6)\n"
"      --textfile DIR      instead of serving, write DIR/" TEXTFILE_NAME "\n"
"                          (node_exporter textfile collector) every\n"
"                          interval, atomically (temporary file + rename)\n"
"  -i, --interval SECONDS  map read period (default 1; 0.1 .. 3600)\n"
"  -m, --mode MODE         light (default where the kernel has the rx_batch\n"
"                          event), full (+ function hooks: window times,\n"
"                          data-ready latency, reader waits) or auto\n"
"  -s, --sample N          full mode: time 1 window in N, a power of two\n"
"                          (default %d; 1: every window); counts stay exact\n"
"      --ports             also per destination port series (label port)\n"
"      --max-ports N       at most N ports with series of their own\n"
"                          (default %d, at most %d); the rest: port=\"other\"\n"
"      --port-age N        drop a port's series after N reads without\n"
"                          traffic (default 60)\n"
"      --vsock-port PORT   also serve the page on AF_VSOCK PORT (inside a\n"
"                          guest: the host reaches it through the device)\n"
"      --threads N         HTTP server threads (default 2, at most 16)\n"
"  -d, --duration SECONDS  stop after SECONDS (default: until a signal)\n"
"  -v, --verbose           libbpf warnings and verifier output\n"
"  -h, --help              this help\n"
"\n"
"SIGINT, SIGTERM or SIGHUP detach the tracer and exit 0.  Needs root.\n"
"Exit status: 0 done, 1 runtime failure, 2 bad usage (also: the listen\n"
"address is in use).\n",
		VB_SAMPLE_DEFAULT, VB_PROM_PORTS_DEFAULT, VB_PROM_PORTS_MAX);
}

static int parse_uint(const char *opt, const char *arg, unsigned long lo,
		      unsigned long hi, unsigned long *out)
{
	char *end;

	errno = 0;
	*out = strtoul(arg, &end, 10);
	if (errno || *end || end == arg || arg[0] == '-' || *out < lo ||
	    *out > hi) {
		fprintf(stderr, "vsockbatch export: invalid %s '%s' (%lu .. %lu)\n",
			opt, arg, lo, hi);
		return VB_EXIT_USAGE;
	}
	return 0;
}

static int parse_seconds(const char *opt, const char *arg, double lo,
			 double hi, double *out)
{
	char *end;

	errno = 0;
	*out = strtod(arg, &end);
	if (errno || *end || end == arg || !(*out >= lo) || *out > hi) {
		fprintf(stderr, "vsockbatch export: invalid %s '%s' (%g .. %g s)\n",
			opt, arg, lo, hi);
		return VB_EXIT_USAGE;
	}
	return 0;
}

/* 0, -1 (help printed) or VB_EXIT_USAGE after a one-line reason. */
static int parse_args(int argc, char **argv, struct export_opts *o)
{
	enum { OPT_TEXTFILE = 1000, OPT_PORTS, OPT_MAX_PORTS, OPT_PORT_AGE,
	       OPT_VSOCK, OPT_THREADS };
	static const struct option longopts[] = {
		{ "listen", required_argument, NULL, 'l' },
		{ "textfile", required_argument, NULL, OPT_TEXTFILE },
		{ "interval", required_argument, NULL, 'i' },
		{ "mode", required_argument, NULL, 'm' },
		{ "sample", required_argument, NULL, 's' },
		{ "ports", no_argument, NULL, OPT_PORTS },
		{ "max-ports", required_argument, NULL, OPT_MAX_PORTS },
		{ "port-age", required_argument, NULL, OPT_PORT_AGE },
		{ "vsock-port", required_argument, NULL, OPT_VSOCK },
		{ "threads", required_argument, NULL, OPT_THREADS },
		{ "duration", required_argument, NULL, 'd' },
		{ "verbose", no_argument, NULL, 'v' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	bool max_set = false, age_set = false;
	unsigned long v;
	int opt, e = 0;

	memset(o, 0, sizeof(*o));
	o->listen = DEFAULT_LISTEN;
	o->interval = 1.0;
	o->max_ports = VB_PROM_PORTS_DEFAULT;
	o->port_age = 60;
	o->threads = 2;
	o->vsock_port = -1;
	optind = 1;
	opterr = 0;	/* one line of our own instead of getopt's */
	while (!e && (opt = getopt_long(argc, argv, "l:i:m:s:d:vh", longopts,
					NULL)) != -1) {
		switch (opt) {
		case 'l':
			o->listen = optarg;
			o->listen_set = true;
			break;
		case OPT_TEXTFILE:
			o->textfile = optarg;
			break;
		case 'i':
			e = parse_seconds("interval", optarg, 0.1, 3600, &o->interval);
			break;
		case 'd':
			e = parse_seconds("duration", optarg, 0.1, 31536000, &o->duration);
			break;
		case 'm':
			if (vb_trace_mode_parse(optarg, &o->mode)) {
				fprintf(stderr, "vsockbatch export: unknown mode '%s' (light, full or auto)\n",
					optarg);
				e = VB_EXIT_USAGE;
			}
			break;
		case 's':
			if (vb_sample_parse("export", optarg, &o->sample))
				e = VB_EXIT_USAGE;
			break;
		case OPT_PORTS:
			o->ports = true;
			break;
		case OPT_MAX_PORTS:
			e = parse_uint("--max-ports", optarg, 1, VB_PROM_PORTS_MAX, &v);
			o->max_ports = (unsigned int)v;
			max_set = true;
			break;
		case OPT_PORT_AGE:
			e = parse_uint("--port-age", optarg, 1, 1000000, &v);
			o->port_age = (unsigned int)v;
			age_set = true;
			break;
		case OPT_VSOCK:
			/* VMADDR_PORT_ANY (-1U) is not a port to serve on */
			e = parse_uint("--vsock-port", optarg, 1, 0xfffffffeUL, &v);
			o->vsock_port = (long)v;
			break;
		case OPT_THREADS:
			e = parse_uint("--threads", optarg, 1, 16, &v);
			o->threads = (unsigned int)v;
			break;
		case 'v':
			o->verbose = true;
			break;
		case 'h':
			usage(stdout);
			return -1;
		default:
			fprintf(stderr, "vsockbatch export: unknown option or missing argument '%s' (try --help)\n",
				argv[optind - 1]);
			return VB_EXIT_USAGE;
		}
	}
	if (e)
		return e;
	if (optind != argc) {
		fprintf(stderr, "vsockbatch export: unexpected argument '%s' (try --help)\n",
			argv[optind]);
		return VB_EXIT_USAGE;
	}
	if ((max_set || age_set) && !o->ports) {
		fprintf(stderr, "vsockbatch export: %s needs --ports\n",
			max_set ? "--max-ports" : "--port-age");
		return VB_EXIT_USAGE;
	}
	if (o->textfile && (o->listen_set || o->vsock_port >= 0)) {
		fprintf(stderr, "vsockbatch export: --textfile writes a file instead of serving: drop %s\n",
			o->listen_set ? "--listen" : "--vsock-port");
		return VB_EXIT_USAGE;
	}
	return 0;
}

static int check_textfile_dir(const char *dir)
{
	struct stat st;

	if (stat(dir, &st)) {
		fprintf(stderr, "vsockbatch export: --textfile %s: %s\n", dir,
			strerror(errno));
		return VB_EXIT_USAGE;
	}
	if (!S_ISDIR(st.st_mode)) {
		fprintf(stderr, "vsockbatch export: --textfile %s is not a directory\n",
			dir);
		return VB_EXIT_USAGE;
	}
	if (access(dir, W_OK | X_OK)) {
		fprintf(stderr, "vsockbatch export: --textfile %s: cannot write there: %s\n",
			dir, strerror(errno));
		return VB_EXIT_USAGE;
	}
	return 0;
}

/*
 * The textfile collector reads every *.prom in its directory whenever
 * node_exporter is scraped: a half-written file would be read as it is,
 * so the page goes to a hidden name without .prom and is renamed over.
 */
static int write_textfile(const char *dir, const char *page, size_t len,
			  char *errbuf, size_t errlen)
{
	char tmp[4096], path[4096];
	ssize_t n;
	size_t off = 0;
	int fd, err = 0;

	snprintf(tmp, sizeof(tmp), "%s/.%s.tmp", dir, TEXTFILE_NAME);
	snprintf(path, sizeof(path), "%s/%s", dir, TEXTFILE_NAME);
	fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	if (fd < 0) {
		err = -errno;
		goto fail;
	}
	while (off < len) {
		n = write(fd, page + off, len - off);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0) {
			err = n < 0 ? -errno : -EIO;
			close(fd);
			goto fail;
		}
		off += (size_t)n;
	}
	if (close(fd) || rename(tmp, path)) {
		err = -errno;
		goto fail;
	}
	return 0;
fail:
	snprintf(errbuf, errlen, "writing %.400s: %s", path, strerror(-err));
	unlink(tmp);
	return err;
}

static double mono_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

struct exporter {
	struct export_opts o;
	struct vb_tracer tracer;
	struct vb_results r;		/* the last map read */
	struct vb_flow_track track;	/* flows' growth between reads */
	struct vb_prom_snap work;	/* the reader's own snapshot */
	struct vb_pub pub;
	struct vb_http *http, *vsock_http;
	unsigned long read_errors;
};

/* One map read: fold, publish, and write the textfile if asked. */
static void read_once(struct exporter *x)
{
	struct mallinfo2 mi;
	struct vb_self self;
	double t0 = mono_s();
	char err[512], *page;
	size_t len;
	int e;

	e = vb_collect(x->tracer.skel, &x->r, &x->track, err, sizeof(err));
	if (!e)
		e = vb_prom_snap_fold(&x->work, &x->r);
	if (e) {
		/* said once per run of failures, not every interval */
		if (!x->read_errors++)
			fprintf(stderr, "vsockbatch export: reading the maps: %s\n",
				e == -ENOMEM ? "out of memory" : err);
		return;
	}
	x->read_errors = 0;
	if (!vb_tracer_self(&x->tracer, false, &self))
		x->work.missed_runs = self.recursion_misses;
	x->work.collect_seconds = mono_s() - t0;
	/* in-use heap, not RSS: a leak grows it, allocator slack does not */
	mi = mallinfo2();
	x->work.heap_bytes = mi.uordblks + mi.hblkhd;

	pthread_mutex_lock(&x->pub.lock);
	e = vb_prom_snap_copy(&x->pub.snap, &x->work);
	if (!e)
		x->pub.ready = true;
	pthread_mutex_unlock(&x->pub.lock);
	if (e)
		fprintf(stderr, "vsockbatch export: out of memory publishing a read\n");

	if (!x->o.textfile)
		return;
	page = vb_prom_format(&x->work, VB_PROM_TEXT, &len);
	if (!page) {
		fprintf(stderr, "vsockbatch export: out of memory formatting the page\n");
		return;
	}
	if (write_textfile(x->o.textfile, page, len, err, sizeof(err)))
		fprintf(stderr, "vsockbatch export: %s\n", err);
	free(page);
}

/* Listening sockets before the (slow) attach: a port in use fails fast. */
static int open_listeners(const struct export_opts *o, int *tcp_fd,
			  int *vsock_fd)
{
	char err[256];
	int e;

	if (o->textfile)
		return 0;
	e = vb_http_listen_tcp(o->listen, tcp_fd, err, sizeof(err));
	if (!e && o->vsock_port >= 0)
		e = vb_http_listen_vsock((unsigned int)o->vsock_port, vsock_fd,
					 err, sizeof(err));
	if (!e)
		return 0;
	fprintf(stderr, "vsockbatch export: %s\n", err);
	return e == -EINVAL || e == -EADDRINUSE || e == -EADDRNOTAVAIL ||
	       e == -EACCES ? VB_EXIT_USAGE : VB_EXIT_FAIL;
}

static void say_started(const struct exporter *x)
{
	const struct vb_prom_snap *s = &x->work;

	fprintf(stderr, "vsockbatch export: kernel %s (%s), %s mode, attached %zu hooks in %.1f s\n",
		s->kernel_release, vb_mode_name(s->kernel),
		vb_trace_mode_name(s->trace), x->r.nhooks,
		(double)x->tracer.attach_ns / 1e9);
	if (x->o.textfile)
		fprintf(stderr, "vsockbatch export: writing %s/%s every %g s",
			x->o.textfile, TEXTFILE_NAME, x->o.interval);
	else
		fprintf(stderr, "vsockbatch export: serving http://%s/metrics%s, maps read every %g s",
			x->o.listen, x->vsock_http ? " and on AF_VSOCK" : "",
			x->o.interval);
	fprintf(stderr, ". SIGINT or SIGTERM to stop.\n");
}

int cmd_export(int argc, char **argv)
{
	struct vb_overhead_key okey;
	struct exporter *x;
	struct timespec ts;
	int tcp_fd = -1, vsock_fd = -1, ret, e;
	double deadline, next, now;
	char err[512];

	x = calloc(1, sizeof(*x));
	if (!x) {
		fprintf(stderr, "vsockbatch export: out of memory\n");
		return VB_EXIT_FAIL;
	}
	vb_results_init(&x->r);
	vb_prom_snap_init(&x->work);
	vb_prom_snap_init(&x->pub.snap);
	pthread_mutex_init(&x->pub.lock, NULL);
	ret = parse_args(argc, argv, &x->o);
	if (ret) {
		ret = ret < 0 ? VB_EXIT_OK : ret;
		goto cleanup;
	}
	if (x->o.textfile) {
		ret = check_textfile_dir(x->o.textfile);
		if (ret)
			goto cleanup;
	}
	ret = VB_EXIT_FAIL;
	if (geteuid() != 0) {
		fprintf(stderr, "vsockbatch export: must run as root (loads BPF programs)\n");
		goto cleanup;
	}
	e = open_listeners(&x->o, &tcp_fd, &vsock_fd);
	if (e) {
		ret = e;
		goto cleanup;
	}

	vb_catch_stop_signals(on_signal);
	/* a client that hangs up mid-page must not end the exporter */
	signal(SIGPIPE, SIG_IGN);
	vb_libbpf_verbose(x->o.verbose);
	x->tracer.sample = x->o.sample;
	e = vb_tracer_start(&x->tracer, x->o.mode, &exiting,
			    isatty(STDERR_FILENO), err, sizeof(err));
	if (e) {
		fprintf(stderr, "vsockbatch export: %s\n", err);
		goto cleanup;
	}
	if (vb_tracer_describe(&x->tracer, &x->r)) {
		fprintf(stderr, "vsockbatch export: out of memory\n");
		goto cleanup;
	}
	if (vb_flow_track_init(&x->track, libbpf_num_possible_cpus())) {
		fprintf(stderr, "vsockbatch export: cannot count possible CPUs\n");
		goto cleanup;
	}
	snprintf(x->work.kernel_release, sizeof(x->work.kernel_release), "%s",
		 x->r.kernel_release);
	x->work.kernel = x->r.mode;
	x->work.trace = x->r.trace;
	x->work.time_sample = x->r.self.sample;
	x->work.rx_batch_event = x->tracer.attached[VB_HOOK_RX_BATCH_BTF] ||
				 x->tracer.attached[VB_HOOK_RX_BATCH_TP];
	x->work.pkt_event = x->tracer.attached[VB_HOOK_RECV_PKT_BTF] ||
			    x->tracer.attached[VB_HOOK_RECV_PKT_TP];
	okey = (struct vb_overhead_key){
		.trace = x->r.trace, .kernel = x->r.mode,
		.sample = x->r.self.sample,
		.kprobe = vb_tracer_kprobes(&x->tracer),
		.run_close = x->tracer.attached[VB_HOOK_RB_CLOSE],
		.lock_wait = x->tracer.attached[VB_HOOK_LOCK_WAIT],
		.release = x->r.kernel_release,
	};
	x->work.noverhead = vb_overhead_rows(&okey, x->work.overhead,
					     VB_PROM_OVERHEAD_MAX);
	if (x->work.noverhead > VB_PROM_OVERHEAD_MAX)
		x->work.noverhead = VB_PROM_OVERHEAD_MAX;
	x->work.ports_on = x->o.ports;
	x->work.max_ports = x->o.max_ports;
	x->work.port_age = x->o.port_age;
	clock_gettime(CLOCK_REALTIME, &ts);
	x->work.start_unix_seconds = (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
	if (vb_tracer_enable(&x->tracer, true, err, sizeof(err))) {
		fprintf(stderr, "vsockbatch export: %s\n", err);
		goto cleanup;
	}
	read_once(x);

	if (!x->o.textfile) {
		x->http = vb_http_start(tcp_fd, x->o.threads, &x->pub, err,
					sizeof(err));
		tcp_fd = -1;	/* taken over, closed on failure */
		if (!x->http) {
			fprintf(stderr, "vsockbatch export: %s\n", err);
			goto cleanup;
		}
		if (vsock_fd >= 0) {
			x->vsock_http = vb_http_start(vsock_fd, 1, &x->pub, err,
						      sizeof(err));
			vsock_fd = -1;
			if (!x->vsock_http) {
				fprintf(stderr, "vsockbatch export: vsock: %s\n", err);
				goto cleanup;
			}
		}
	}
	say_started(x);

	now = mono_s();
	deadline = x->o.duration > 0 ? now + x->o.duration : 0;
	next = now + x->o.interval;
	while (!exiting && !(deadline && now >= deadline)) {
		if (now >= next) {
			read_once(x);
			next += x->o.interval;
			if (next < now)	/* fell behind: do not burst */
				next = now + x->o.interval;
		}
		/* 50 ms steps: a signal is seen within one */
		usleep(next - now < 0.05 ? (useconds_t)((next - now) * 1e6) + 1
					 : 50000);
		now = mono_s();
	}
	pthread_mutex_lock(&x->pub.lock);
	fprintf(stderr, "vsockbatch export: %s: detaching after %llu reads, %llu scrapes\n",
		exiting ? strsignal(exiting) : "duration over",
		(unsigned long long)x->work.collections,
		(unsigned long long)x->pub.scrapes);
	pthread_mutex_unlock(&x->pub.lock);
	ret = VB_EXIT_OK;
cleanup:
	/* the servers first: no scrape may read what is freed next */
	vb_http_stop(x->vsock_http);
	vb_http_stop(x->http);
	if (tcp_fd >= 0)
		close(tcp_fd);
	if (vsock_fd >= 0)
		close(vsock_fd);
	vb_tracer_stop(&x->tracer);
	vb_results_free(&x->r);
	vb_flow_track_free(&x->track);
	vb_prom_snap_free(&x->work);
	vb_prom_snap_free(&x->pub.snap);
	pthread_mutex_destroy(&x->pub.lock);
	free(x);
	return ret;
}
