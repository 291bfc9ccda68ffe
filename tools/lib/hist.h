/* SPDX-License-Identifier: GPL-2.0 */
/*
 * hist.h - log2 and linear histograms as recorded by bpf/vsockbatch.bpf.c.
 *
 * Bucketing ("log2z"): slot 0 holds only 0, slot i >= 1 holds
 * [2^(i-1), 2^i - 1]; the last slot is open-ended.  Unlike bcc's log2l(),
 * 0 and 1 get separate slots: "no data-ready call in a batch" must not be
 * merged with "one call".  The same function is used by the BPF side
 * (bpf/vsockbatch.bpf.h) and checked against this one in the unit tests.
 */
#ifndef VB_HIST_H
#define VB_HIST_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

unsigned int vb_hist_slot(uint64_t v, unsigned int nslots);
/* Bounds of slot i; high is UINT64_MAX for the open last slot. */
void vb_hist_bounds(unsigned int i, unsigned int nslots,
		    uint64_t *low, uint64_t *high);
uint64_t vb_hist_total(const uint64_t *slots, unsigned int nslots);
/*
 * Slot that holds the p-th percentile (0 < p <= 100, nearest rank: the
 * smallest slot whose cumulative count reaches ceil(p/100 * total)), or
 * -1 for an empty histogram.  The value is only known to lie in that
 * slot: no interpolation.
 */
int vb_hist_pct_slot(const uint64_t *slots, unsigned int nslots, double p);
/*
 * The p-th percentile as text, never finer than the histogram holds:
 *   linear: the exact value ("12"), or ">=N" for the open last slot (with
 *     "max M" when max is known, max > 0);
 *   log2z:  the slot's range, "[1024, 2047]" (ns != 0: "[1.0us, 2.0us)"
 *     style with vb_hist_fmt_ns), "[>=2^30]" for the open last slot.
 * "-" for an empty histogram.
 */
void vb_hist_pct_str(char *buf, size_t len, const uint64_t *slots,
		     unsigned int nslots, bool linear, double p, uint64_t max,
		     bool ns);
/* A value for a log2 range bound: "512ns", "1.0us", "2.05ms". */
void vb_hist_fmt_ns(char *buf, size_t len, uint64_t ns);
/*
 * Linear histogram rows "value : count |****|" from the first to the
 * last non-zero slot (the last slot prints as ">=N").
 */
void vb_lhist_print(FILE *f, const uint64_t *slots, unsigned int nslots,
		    const char *unit);
/*
 * bcc print_log2_hist style: header "     <unit>  : count   distribution",
 * rows "low -> high : count |****|" from the first to the last non-zero
 * slot, 40-star bars.  Prints "     (no samples)" for an empty histogram.
 */
void vb_hist_print(FILE *f, const uint64_t *slots, unsigned int nslots,
		   const char *unit);

#endif
