/* SPDX-License-Identifier: GPL-2.0 */
/* report.h - text and JSON renderings of a results file (report, top). */
#ifndef VB_REPORT_H
#define VB_REPORT_H

#include <stdbool.h>
#include <stdio.h>

#include "results.h"

/* The whole report, no width limit (= vb_report_text_opts(.., 0, false)). */
void vb_report_text(FILE *f, const struct vb_results *r, const char *name);
/*
 * The report with the flow table fitted to width (0 = every column) and,
 * with per_flow, every flow's histograms.  Other lines are not wrapped:
 * see vb_wrap_line().
 */
void vb_report_text_opts(FILE *f, const struct vb_results *r,
			 const char *name, int width, bool per_flow);
/* One line, broken at spaces to width; continuation indented 4 more. */
void vb_wrap_line(FILE *out, const char *line, int width);
/* What print(f, ctx) writes, each line through vb_wrap_line(). */
typedef void (*vb_print_fn)(FILE *f, const void *ctx);
void vb_print_wrapped(FILE *out, int width, vb_print_fn print,
		      const void *ctx);
/*
 * Malloc'ed JSON (indent 2): derived metrics, totals, histograms (the
 * non-empty slots), flows by bytes with their metrics and histograms,
 * per-CPU rows.
 */
char *vb_report_json(const struct vb_results *r, const char *name);

/* "850ns", "12.3us", "4.56ms", "1.23s"; "-" for NaN. */
void vb_fmt_ns(char *buf, size_t len, double ns);
/* "cid:port" of the flow's source (src) or destination. */
void vb_fmt_flow(char *buf, size_t len, const struct vb_flow_key *k, bool src);
/* Flow keys in numeric order: src cid, src port, dst cid, dst port. */
int vb_flow_key_cmp(const struct vb_flow_key *a, const struct vb_flow_key *b);
/* "cycles/byte" or "ns/byte (cpu-clock, no PMU)". */
const char *vb_cost_per_byte_label(enum vb_cost_unit unit);

#endif
