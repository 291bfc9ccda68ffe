// SPDX-License-Identifier: GPL-2.0
/*
 * overhead.c - measured tracer overhead per mode, kernel and payload.
 *
 * Source: the set named by VB_OVERHEAD_SET in overhead_table.h
 * (scripts/tracer-overhead.sh measures it, --table-only regenerates the
 * table from a committed set): per kernel and payload, untraced and traced
 * transfers per mode in one boot, guest instructions counted by QEMU's
 * instruction-count plugin between vb-mark points; figure = traced /
 * untraced instructions per byte - 1, in percent.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "overhead.h"

struct row {
	enum vb_trace_mode trace;
	enum vb_kernel_mode kernel;
	unsigned long payload;
	double pct;
};

/* The rows of VB_OVERHEAD_SET/overhead.tsv, which the header defines. */
static const struct row rows[] = {
#include "overhead_table.h"
	{ VB_TRACE_AUTO, VB_MODE_UNKNOWN, 1, 0 },	/* never matched */
};

#ifndef VB_OVERHEAD_SET
#error "overhead_table.h names no set: regenerate it with scripts/tracer-overhead.sh --table-only"
#endif

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

static void fill(const struct row *row, struct vb_overhead *o)
{
	memset(o, 0, sizeof(*o));
	o->measured = true;
	o->pct = row->pct;
	snprintf(o->payload, sizeof(o->payload), "%lu", row->payload);
	snprintf(o->source, sizeof(o->source), "%s (icount)", VB_OVERHEAD_SET);
}

size_t vb_overhead_rows(enum vb_trace_mode trace, enum vb_kernel_mode kernel,
			struct vb_overhead *out, size_t max)
{
	size_t i, n = 0, nrows = sizeof(rows) / sizeof(rows[0]);

	/* the table is generated sorted by mode, kernel and payload */
	for (i = 0; i < nrows; i++) {
		if (rows[i].trace != trace || rows[i].kernel != kernel)
			continue;
		if (n < max)
			fill(&rows[i], &out[n]);
		n++;
	}
	return n;
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
	fill(pick, o);
}
