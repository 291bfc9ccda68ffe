// SPDX-License-Identifier: GPL-2.0
/*
 * overhead.c - measured tracer overhead per mode, kernel and payload.
 *
 * Source: results/2026-12-01-tracer-overhead (scripts/tracer-overhead.sh
 * repeats it): per kernel and payload, one untraced and one traced
 * transfer per mode in one boot, guest instructions counted by QEMU's
 * instruction-count plugin between vb-mark points; figure = traced /
 * untraced instructions per byte - 1, in percent.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "overhead.h"

#define OVERHEAD_SET	"results/2026-12-01-tracer-overhead"

struct row {
	enum vb_trace_mode trace;
	enum vb_kernel_mode kernel;
	unsigned long payload;
	double pct;
};

/* Filled from OVERHEAD_SET/overhead.tsv; empty until it is measured. */
static const struct row rows[] = {
#include "overhead_table.h"
	{ VB_TRACE_AUTO, VB_MODE_UNKNOWN, 1, 0 },	/* never matched */
};

unsigned long vb_payload_bytes(const char *s)
{
	unsigned long v;
	char *end;

	if (!s || !*s)
		return 0;
	v = strtoul(s, &end, 10);
	if (end == s)
		return 0;
	if (*end == 'K' || *end == 'k') {
		v *= 1024;
		end++;
	} else if (*end == 'M' || *end == 'm') {
		v *= 1024 * 1024;
		end++;
	}
	if (!strcmp(end, "iB") || !strcmp(end, "B"))
		end += strlen(end);
	return *end ? 0 : v;
}

void vb_overhead_lookup(enum vb_trace_mode trace, enum vb_kernel_mode kernel,
			const char *payload, struct vb_overhead *o)
{
	unsigned long want = vb_payload_bytes(payload);
	double best = INFINITY, d;
	size_t i, n = sizeof(rows) / sizeof(rows[0]);
	const struct row *pick = NULL;

	memset(o, 0, sizeof(*o));
	if (!want)
		want = 64;
	for (i = 0; i < n; i++) {
		if (rows[i].trace != trace || rows[i].kernel != kernel)
			continue;
		d = fabs(log((double)rows[i].payload / (double)want));
		if (d < best) {
			best = d;
			pick = &rows[i];
		}
	}
	if (!pick) {
		snprintf(o->source, sizeof(o->source),
			 "not measured for this mode and kernel");
		return;
	}
	o->measured = true;
	o->pct = pick->pct;
	snprintf(o->payload, sizeof(o->payload), "%lu", pick->payload);
	snprintf(o->source, sizeof(o->source), "%s (icount)", OVERHEAD_SET);
}
