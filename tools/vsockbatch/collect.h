/* SPDX-License-Identifier: GPL-2.0 */
/* collect.h - read the tracer's maps into the results model. */
#ifndef VB_COLLECT_H
#define VB_COLLECT_H

#include <stddef.h>

#include "results.h"

struct vsockbatch_bpf;

/*
 * Replace r->totals, r->cpus (online CPUs, cost -1) and r->flows with the
 * current map contents (cumulative since load).  0 or -errno + reason.
 */
int vb_collect(struct vsockbatch_bpf *skel, struct vb_results *r,
	       char *errbuf, size_t errlen);

#endif
