// SPDX-License-Identifier: GPL-2.0
/*
 * advise.c - `vsockbatch advise FILE [--json] [-v] [--rules]`: what limits
 * the recorded transfer and what to change, from the rules in
 * advise_rules.c.  Text fits in 80 columns; --json carries the same
 * verdicts with every evidence figure as a number.
 */
#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "advise.h"
#include "commands.h"
#include "results.h"

#define WIDTH	79	/* printable columns of a text line */

/*
 * Print text word-wrapped to WIDTH: the first line after `first`, the
 * rest indented by `indent` spaces.
 */
static void wrap(FILE *f, const char *first, int indent, const char *text)
{
	int col = fprintf(f, "%s", first);
	const char *p = text;
	bool space = false;

	while (*p) {
		const char *e = p;
		int n;

		while (*e && *e != ' ')
			e++;
		n = (int)(e - p);
		if (n && col > indent && col + space + n > WIDTH) {
			fprintf(f, "\n%*s", indent, "");
			col = indent;
			space = false;
		}
		if (n) {
			fprintf(f, "%s%.*s", space ? " " : "", n, p);
			col += space + n;
			space = true;
		}
		p = *e ? e + 1 : e;
	}
	fputc('\n', f);
}

static void print_finding(FILE *f, const struct vb_adv_finding *x, int num)
{
	const struct vb_adv_rule_info *ri = &vb_adv_rules[x->rule];
	char head[32];

	snprintf(head, sizeof(head), "%2d. ", num);
	wrap(f, head, 4, ri->title);
	wrap(f, "    ", 4, x->evidence);
	if (x->advice[0])
		wrap(f, "    -> ", 7, x->advice);
}

/*
 * A path too long for the header line gets lines of its own, indented by
 * 2 and broken after a '/' (mid-name only when one name is wider than a
 * line), so no part of it is lost: joined without the indent, the lines
 * are the path.
 */
static void print_path(FILE *f, const char *path)
{
	const int room = WIDTH - 2;
	size_t len = strlen(path);

	while (len > (size_t)room) {
		int cut = room;

		while (cut > 1 && path[cut - 1] != '/')
			cut--;
		if (cut <= 1)
			cut = room;
		fprintf(f, "  %.*s\n", cut, path);
		path += cut;
		len -= cut;
	}
	fprintf(f, "  %s\n", path);
}

void vb_advise_print_text(FILE *f, const struct vb_results *r,
			  const struct vb_advice *a, const char *name,
			  bool verbose)
{
	char line[256];
	size_t i;
	int num = 0;
	bool any;

	if (strlen(name) > WIDTH - 19) {
		fputs("vsockbatch advise:\n", f);
		print_path(f, name);
	} else {
		fprintf(f, "vsockbatch advise: %s\n", name);
	}
	snprintf(line, sizeof(line), "kernel %s %s, %.2f MiB in %.2f s "
		 "(%.2f MiB/s), RX on CPU %d", r->kernel_release,
		 vb_mode_name(r->mode),
		 (double)r->totals.cnt[VB_C_BYTES] / 1048576.0,
		 (double)r->duration_ns / 1e9, a->mb_s, a->rx_cpu);
	wrap(f, "", 0, line);

	fprintf(f, "\n%s\n", a->nfired ? "What limits this transfer:"
				       : "No rule fired: nothing to change.");
	for (i = 0; i < VB_ADV_NR; i++) {
		const struct vb_adv_finding *x = &a->f[a->order[i]];

		if (x->verdict == VB_ADV_FIRES)
			print_finding(f, x, ++num);
	}
	any = false;
	for (i = 0; i < VB_ADV_NR; i++) {
		const struct vb_adv_finding *x = &a->f[a->order[i]];

		if (x->verdict != VB_ADV_NOT_LIMITING)
			continue;
		if (!any)
			fprintf(f, "\nAlso past its threshold, but not the "
				   "limit while no vCPU is busy:\n");
		any = true;
		print_finding(f, x, ++num);
	}
	fprintf(f, "\n");
	for (i = 0; i < VB_ADV_NR; i++) {
		const struct vb_adv_finding *x = &a->f[a->order[i]];
		char head[40];

		if (x->verdict != VB_ADV_CLEAR && x->verdict != VB_ADV_NO_DATA)
			continue;
		snprintf(head, sizeof(head), "%-8s %-10s ",
			 x->verdict == VB_ADV_CLEAR ? "clear" : "no data",
			 vb_adv_rules[x->rule].name);
		wrap(f, head, 20, verbose || x->verdict == VB_ADV_NO_DATA ?
		     x->evidence : vb_adv_rules[x->rule].title);
	}
	if (verbose) {
		fprintf(f, "\nThresholds:\n");
		for (i = 0; i < VB_ADV_NR; i++) {
			char head[40];

			snprintf(head, sizeof(head), "  %-10s ",
				 vb_adv_rules[i].name);
			wrap(f, head, 13, vb_adv_rules[i].threshold);
		}
	}
}

void vb_advise_print_rules(FILE *f)
{
	size_t i;

	for (i = 0; i < VB_ADV_NR; i++) {
		const struct vb_adv_rule_info *ri = &vb_adv_rules[i];
		char head[40];

		snprintf(head, sizeof(head), "%s: ", ri->name);
		wrap(f, head, 4, ri->title);
		wrap(f, "    fires: ", 4, ri->threshold);
		wrap(f, "    why: ", 4, ri->why);
		fputc('\n', f);
	}
}

static json_t *num_or_null(double v)
{
	return (isnan(v) || isinf(v)) ? json_null() : json_real(v);
}

char *vb_advise_json(const struct vb_results *r, const struct vb_advice *a,
		     const char *name)
{
	json_t *root = json_object(), *arr = json_array(), *o, *e;
	const char *limit = NULL;
	char *s;
	size_t i, j;

	json_object_set_new(root, "file", json_string(name));
	json_object_set_new(root, "kernel_release",
			    json_string(r->kernel_release));
	json_object_set_new(root, "mode", json_string(vb_mode_name(r->mode)));
	json_object_set_new(root, "bytes",
			    json_integer((json_int_t)r->totals.cnt[VB_C_BYTES]));
	json_object_set_new(root, "duration_s",
			    json_real((double)r->duration_ns / 1e9));
	json_object_set_new(root, "mb_per_s", num_or_null(a->mb_s));
	json_object_set_new(root, "rx_cpu", json_integer(a->rx_cpu));
	json_object_set_new(root, "fired", json_integer((json_int_t)a->nfired));
	for (i = 0; i < VB_ADV_NR; i++) {
		const struct vb_adv_finding *x = &a->f[a->order[i]];
		const struct vb_adv_rule_info *ri = &vb_adv_rules[x->rule];

		if (!limit && x->verdict == VB_ADV_FIRES)
			limit = ri->name;
		e = json_object();
		json_object_set_new(e, "rule", json_string(ri->name));
		json_object_set_new(e, "verdict",
				    json_string(vb_adv_verdict_name(x->verdict)));
		json_object_set_new(e, "severity", num_or_null(x->severity));
		json_object_set_new(e, "title", json_string(ri->title));
		json_object_set_new(e, "threshold", json_string(ri->threshold));
		o = json_object();
		for (j = 0; j < x->nev; j++)
			json_object_set_new(o, x->ev[j].name,
					    num_or_null(x->ev[j].value));
		json_object_set_new(e, "evidence", o);
		json_object_set_new(e, "evidence_text", json_string(x->evidence));
		json_object_set_new(e, "advice", x->advice[0] ?
				    json_string(x->advice) : json_null());
		json_array_append_new(arr, e);
	}
	json_object_set_new(root, "limit", limit ? json_string(limit)
						 : json_null());
	json_object_set_new(root, "findings", arr);
	vb_results_labels_to_json(root, r);
	s = json_dumps(root, JSON_INDENT(2) | JSON_REAL_PRECISION(6));
	json_decref(root);
	return s;
}

/* Short forms of each rule's change, for one line in `top`. */
static const char *const short_advice[VB_ADV_NR] = {
	[VB_ADV_PER_PACKET] = "write >= 4 KiB per send() (or the series)",
	[VB_ADV_WAKEUPS] = "SO_RCVLOWAT + recv() >= 64 KiB",
	[VB_ADV_RX_BUDGET] = "raise SO_VM_SOCKETS_BUFFER_SIZE, bigger writes",
	[VB_ADV_CREDIT] = "larger receiver buffer (SO_VM_SOCKETS_BUFFER_SIZE)",
	[VB_ADV_SAME_CPU] = "pin the reader off the RX CPU (IRQ affinity)",
	[VB_ADV_RX_IDLE] = "guest not the limit: look at sender/host",
	[VB_ADV_STARVE] = "bound the bulk flow's buffer",
};

int vb_advise_line(const struct vb_results *r, char *buf, size_t len)
{
	struct vb_advice a;
	char err[160];
	size_t i;

	if (!len)
		return -1;
	if (vb_advise(r, &a, err, sizeof(err))) {
		snprintf(buf, len, "advice: - (no data packets to judge)");
		return -1;
	}
	for (i = 0; i < VB_ADV_NR; i++) {
		const struct vb_adv_finding *x = &a.f[a.order[i]];

		if (x->verdict == VB_ADV_FIRES) {
			char more[32] = "";

			if (a.nfired > 1)
				snprintf(more, sizeof(more), " (+%zu more)",
					 a.nfired - 1);
			snprintf(buf, len, "advice: %s: %s%s",
				 vb_adv_rules[x->rule].name,
				 short_advice[x->rule], more);
			return (int)a.nfired;
		}
	}
	snprintf(buf, len, "advice: no limit found");
	return 0;
}

static void usage(FILE *f)
{
	fprintf(f,
"Usage: vsockbatch advise FILE [--json] [-v]\n"
"       vsockbatch advise --rules\n"
"\n"
"Read a results file written by `vsockbatch record` and say what limits\n"
"the transfer and what to change, each finding with its evidence in\n"
"numbers from the file.  Rules: per-packet, wakeups, rx-budget, credit,\n"
"same-cpu, rx-idle, starve (--rules prints each threshold and why).\n"
"\n"
"  -j, --json     verdicts and evidence as JSON\n"
"  -v, --verbose  evidence of the clear rules and every threshold\n"
"  -r, --rules    the rules, their thresholds and reasons\n"
"  -h, --help     this help\n"
"\n"
"Exit status: 0 advice printed (also when no rule fired), 1 read or\n"
"write error, 2 bad usage, or a FILE that is missing, unreadable, not a\n"
"valid results file or holds no recorded data packets.\n");
}

int cmd_advise(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "json", no_argument, NULL, 'j' },
		{ "verbose", no_argument, NULL, 'v' },
		{ "rules", no_argument, NULL, 'r' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	bool json = false, verbose = false, rules = false;
	struct vb_results r;
	struct vb_advice a;
	char err[512], *s;
	int opt, e;

	optind = 1;
	opterr = 0;
	while ((opt = getopt_long(argc, argv, "jvrh", longopts, NULL)) != -1) {
		switch (opt) {
		case 'j':
			json = true;
			break;
		case 'v':
			verbose = true;
			break;
		case 'r':
			rules = true;
			break;
		case 'h':
			usage(stdout);
			return VB_EXIT_OK;
		default:
			fprintf(stderr, "vsockbatch advise: unknown option or missing argument '%s' (try --help)\n",
				argv[optind - 1]);
			return VB_EXIT_USAGE;
		}
	}
	if (rules) {
		if (optind != argc) {
			fprintf(stderr, "vsockbatch advise: --rules takes no FILE\n");
			return VB_EXIT_USAGE;
		}
		vb_advise_print_rules(stdout);
		return fflush(stdout) ? VB_EXIT_FAIL : VB_EXIT_OK;
	}
	if (optind != argc - 1) {
		fprintf(stderr, "vsockbatch advise: expected exactly one results FILE (try --help)\n");
		return VB_EXIT_USAGE;
	}
	e = vb_results_load(argv[optind], &r, err, sizeof(err));
	if (e) {
		fprintf(stderr, "vsockbatch advise: %s\n", err);
		return vb_results_load_exit(e);
	}
	if (vb_advise(&r, &a, err, sizeof(err))) {
		fprintf(stderr, "vsockbatch advise: %s: %s\n", argv[optind], err);
		vb_results_free(&r);
		return VB_EXIT_USAGE;
	}
	if (json) {
		s = vb_advise_json(&r, &a, argv[optind]);
		if (!s) {
			fprintf(stderr, "vsockbatch advise: out of memory\n");
			vb_results_free(&r);
			return VB_EXIT_FAIL;
		}
		printf("%s\n", s);
		free(s);
	} else {
		vb_advise_print_text(stdout, &r, &a, argv[optind], verbose);
	}
	vb_results_free(&r);
	if (fflush(stdout) || ferror(stdout)) {
		fprintf(stderr, "vsockbatch advise: write error on stdout\n");
		return VB_EXIT_FAIL;
	}
	return VB_EXIT_OK;
}
