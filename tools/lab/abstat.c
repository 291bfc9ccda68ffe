// SPDX-License-Identifier: GPL-2.0
/*
 * abstat.c - `vsockbatch-lab abstat FILE`: the experiment's paired
 * statistics (tools/lib/stats: geometric-mean change, t-interval on the
 * per-pair log ratios, pair bootstrap, AB/BA order check) on any set of
 * A/B pairs, for AB/BA runs that are not kernel comparisons - e.g.
 * scripts/advise-ab.sh, "before" and "after" following a piece of advice.
 *
 * FILE (or - for stdin): one line per metric and pair,
 *   METRIC PAIR ORDER A B
 * ORDER is AB (A ran first) or BA; A and B are positive numbers.  Lines
 * starting with # are comments.  Metrics are reported in order of first
 * appearance; each needs the same pairs on both sides by construction.
 */
#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "lab.h"
#include "stats.h"

#define MAX_METRICS	32
#define MAX_PAIRS	256

struct metric {
	char name[64];
	double a[MAX_PAIRS], b[MAX_PAIRS];
	int ab[MAX_PAIRS];
	size_t n;
};

static struct metric *find_metric(struct metric *m, size_t *nm,
				  const char *name)
{
	size_t i;

	for (i = 0; i < *nm; i++)
		if (!strcmp(m[i].name, name))
			return &m[i];
	if (*nm == MAX_METRICS)
		return NULL;
	snprintf(m[*nm].name, sizeof(m[*nm].name), "%s", name);
	m[*nm].n = 0;
	return &m[(*nm)++];
}

static int parse(FILE *f, const char *path, struct metric *m, size_t *nm)
{
	char line[512], name[64], order[8];
	unsigned long lineno = 0;
	double a, b;
	int pair;

	while (fgets(line, sizeof(line), f)) {
		struct metric *x;

		lineno++;
		if (line[0] == '#' || line[strspn(line, " \t\r\n")] == 0)
			continue;
		if (sscanf(line, "%63s %d %7s %lf %lf", name, &pair, order, &a,
			   &b) != 5) {
			fprintf(stderr, "vsockbatch-lab abstat: %s:%lu: expected 'METRIC PAIR AB|BA A B'\n",
				path, lineno);
			return -EINVAL;
		}
		if (strcmp(order, "AB") && strcmp(order, "BA")) {
			fprintf(stderr, "vsockbatch-lab abstat: %s:%lu: order '%s' is not AB or BA\n",
				path, lineno, order);
			return -EINVAL;
		}
		if (!(a > 0) || !(b > 0) || isinf(a) || isinf(b)) {
			fprintf(stderr, "vsockbatch-lab abstat: %s:%lu: %s values must be positive numbers\n",
				path, lineno, name);
			return -EINVAL;
		}
		x = find_metric(m, nm, name);
		if (!x || x->n == MAX_PAIRS) {
			fprintf(stderr, "vsockbatch-lab abstat: %s:%lu: more than %d metrics or %d pairs\n",
				path, lineno, MAX_METRICS, MAX_PAIRS);
			return -EINVAL;
		}
		x->a[x->n] = a;
		x->b[x->n] = b;
		x->ab[x->n] = !strcmp(order, "AB");
		x->n++;
	}
	if (!*nm) {
		fprintf(stderr, "vsockbatch-lab abstat: %s: no pairs\n", path);
		return -EINVAL;
	}
	return 0;
}

static void usage(FILE *f)
{
	fprintf(f,
"Usage: vsockbatch-lab abstat [--json] [--noise PCT] FILE\n"
"\n"
"Paired AB/BA statistics, as the experiment's summary computes them, for\n"
"lines 'METRIC PAIR AB|BA A B' (FILE or - for stdin): per metric the\n"
"means, the change B/A (geometric mean of the pair ratios), its 95 %%\n"
"t-interval on the log ratios, the pair-bootstrap interval of the ratio\n"
"of means (10000 resamples, fixed seed) and the AB/BA order check.  A\n"
"change is 'not resolved' when its interval reaches into +-PCT %% (default\n"
"1).\n"
"\n"
"Exit status: 0 printed, 1 I/O failure, 2 bad usage or bad input.\n");
}

int cmd_abstat(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "json", no_argument, NULL, 'j' },
		{ "noise", required_argument, NULL, 'n' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	static struct metric m[MAX_METRICS];
	json_t *root = NULL, *arr = NULL;
	double noise = 1.0;
	bool json = false;
	size_t nm = 0, i;
	char *end;
	FILE *f;
	int opt, err;

	optind = 1;
	opterr = 0;
	while ((opt = getopt_long(argc, argv, "jn:h", longopts, NULL)) != -1) {
		switch (opt) {
		case 'j':
			json = true;
			break;
		case 'n':
			noise = strtod(optarg, &end);
			if (*end || !(noise >= 0) || noise > 100) {
				fprintf(stderr, "vsockbatch-lab abstat: --noise needs a percentage, not '%s'\n",
					optarg);
				return VB_EXIT_USAGE;
			}
			break;
		case 'h':
			usage(stdout);
			return VB_EXIT_OK;
		default:
			fprintf(stderr, "vsockbatch-lab abstat: unknown option or missing argument '%s' (try --help)\n",
				argv[optind - 1]);
			return VB_EXIT_USAGE;
		}
	}
	if (optind != argc - 1) {
		fprintf(stderr, "vsockbatch-lab abstat: expected one FILE (try --help)\n");
		return VB_EXIT_USAGE;
	}
	f = strcmp(argv[optind], "-") ? fopen(argv[optind], "r") : stdin;
	if (!f) {
		fprintf(stderr, "vsockbatch-lab abstat: %s: %s\n", argv[optind],
			strerror(errno));
		return VB_EXIT_FAIL;
	}
	err = parse(f, argv[optind], m, &nm);
	if (f != stdin)
		fclose(f);
	if (err)
		return VB_EXIT_USAGE;
	if (json) {
		root = json_object();
		arr = json_array();
	} else {
		printf("%-22s %3s %12s %12s %9s  %-20s %-20s %s\n", "metric", "n",
		       "A mean", "B mean", "change", "95% t-CI", "bootstrap",
		       "verdict");
	}
	for (i = 0; i < nm; i++) {
		struct stats_paired p;
		struct stats_boot bs;
		struct stats_order o;
		const char *v;
		bool boot, ord;

		if (stats_paired(m[i].a, m[i].b, m[i].n, STATS_LEVEL_DEFAULT, &p)) {
			fprintf(stderr, "vsockbatch-lab abstat: %s: no statistics\n",
				m[i].name);
			json_decref(root);
			return VB_EXIT_USAGE;
		}
		boot = m[i].n >= 2 &&
		       !stats_bootstrap_pairs(m[i].a, m[i].b, m[i].n,
					      STATS_LEVEL_DEFAULT,
					      STATS_BOOT_ITERS, STATS_BOOT_SEED,
					      &bs);
		ord = !stats_order_check(m[i].a, m[i].b, m[i].ab, m[i].n,
					 STATS_LEVEL_DEFAULT, &o);
		switch (stats_paired_verdict(&p, noise)) {
		case STATS_HIGHER:
			v = "higher";
			break;
		case STATS_LOWER:
			v = "lower";
			break;
		default:
			v = "not resolved";
		}
		if (json) {
			json_t *e = json_object();

			json_object_set_new(e, "metric", json_string(m[i].name));
			json_object_set_new(e, "n", json_integer((json_int_t)p.n));
			json_object_set_new(e, "mean_a", json_real(p.mean_base));
			json_object_set_new(e, "mean_b", json_real(p.mean_patched));
			json_object_set_new(e, "change_pct", json_real(p.change_pct));
			json_object_set_new(e, "ci_lo_pct", p.has_ci ?
					    json_real(p.ci_lo_pct) : json_null());
			json_object_set_new(e, "ci_hi_pct", p.has_ci ?
					    json_real(p.ci_hi_pct) : json_null());
			json_object_set_new(e, "boot_lo_pct", boot ?
					    json_real(bs.lo_pct) : json_null());
			json_object_set_new(e, "boot_hi_pct", boot ?
					    json_real(bs.hi_pct) : json_null());
			json_object_set_new(e, "order_disagree", ord ?
					    json_boolean(o.disagree) : json_null());
			json_object_set_new(e, "verdict", json_string(v));
			json_array_append_new(arr, e);
		} else {
			char ci[40] = "-", bt[40] = "-";

			if (p.has_ci)
				snprintf(ci, sizeof(ci), "[%+.1f, %+.1f] %%",
					 p.ci_lo_pct, p.ci_hi_pct);
			if (boot)
				snprintf(bt, sizeof(bt), "[%+.1f, %+.1f] %%",
					 bs.lo_pct, bs.hi_pct);
			printf("%-22s %3zu %12.6g %12.6g %+8.1f%%  %-20s %-20s %s%s\n",
			       m[i].name, p.n, p.mean_base, p.mean_patched,
			       p.change_pct, ci, bt, v,
			       ord && o.disagree ? " (AB/BA disagree)" : "");
		}
	}
	if (json) {
		char *s;

		json_object_set_new(root, "level", json_real(STATS_LEVEL_DEFAULT));
		json_object_set_new(root, "noise_pct", json_real(noise));
		json_object_set_new(root, "boot_seed",
				    json_integer((json_int_t)STATS_BOOT_SEED));
		json_object_set_new(root, "metrics", arr);
		s = json_dumps(root, JSON_INDENT(2) | JSON_REAL_PRECISION(6));
		json_decref(root);
		if (!s)
			return VB_EXIT_FAIL;
		printf("%s\n", s);
		free(s);
	}
	return fflush(stdout) ? VB_EXIT_FAIL : VB_EXIT_OK;
}
