/* SPDX-License-Identifier: GPL-2.0 */
/* report.h - text and JSON renderings of a results file (report, top). */
#ifndef VB_REPORT_H
#define VB_REPORT_H

#include <stdbool.h>
#include <stdio.h>

#include "results.h"

void vb_report_text(FILE *f, const struct vb_results *r, const char *name);
/* Malloc'ed JSON (indent 2) of derived metrics, totals, flows. */
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
