/* SPDX-License-Identifier: GPL-2.0 */
/*
 * hist.h - log2 histograms as recorded by bpf/vsockbatch.bpf.c.
 *
 * Bucketing ("log2z"): slot 0 holds only 0, slot i >= 1 holds
 * [2^(i-1), 2^i - 1]; the last slot is open-ended.  Unlike bcc's log2l(),
 * 0 and 1 get separate slots: "no data-ready call in a batch" must not be
 * merged with "one call".  The same function is used by the BPF side
 * (bpf/vsockbatch.bpf.h) and checked against this one in the unit tests.
 */
#ifndef VB_HIST_H
#define VB_HIST_H

#include <stdint.h>
#include <stdio.h>

unsigned int vb_hist_slot(uint64_t v, unsigned int nslots);
/* Bounds of slot i; high is UINT64_MAX for the open last slot. */
void vb_hist_bounds(unsigned int i, unsigned int nslots,
		    uint64_t *low, uint64_t *high);
uint64_t vb_hist_total(const uint64_t *slots, unsigned int nslots);
/*
 * p-th percentile (0 < p <= 100), linear interpolation inside the slot
 * that holds the rank; the open last slot is treated as [low, 2*low).
 * Returns NAN for an empty histogram.  An estimate: the true value lies
 * in the same slot.
 */
double vb_hist_percentile(const uint64_t *slots, unsigned int nslots,
			  double p);
/*
 * bcc print_log2_hist style: header "     <unit>  : count   distribution",
 * rows "low -> high : count |****|" from the first to the last non-zero
 * slot, 40-star bars.  Prints "     (no samples)" for an empty histogram.
 */
void vb_hist_print(FILE *f, const uint64_t *slots, unsigned int nslots,
		   const char *unit);

#endif
