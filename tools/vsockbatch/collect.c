// SPDX-License-Identifier: GPL-2.0
/* collect.c - per-CPU stats and the flow table out of the BPF maps. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "collect.h"
#include "cpulist.h"
#include "vsockbatch.skel.h"

static void stats_to_agg(const struct vb_stats *s, struct vb_agg *a)
{
	int i, j;

	for (i = 0; i < VB_C_NR; i++)
		a->cnt[i] = s->cnt[i];
	for (i = 0; i < VB_H_NR; i++)
		for (j = 0; j < VB_MAX_SLOTS; j++)
			a->hist[i].slots[j] = s->hist[i].slots[j];
}

static bool agg_nonzero(const struct vb_agg *a)
{
	int i;

	for (i = 0; i < VB_C_NR; i++)
		if (a->cnt[i])
			return true;
	return false;
}

static int collect_cpus(struct vsockbatch_bpf *skel, struct vb_results *r,
			char *errbuf, size_t errlen)
{
	int ncpu = libbpf_num_possible_cpus(), i, n_online, err;
	uint32_t online[VB_MAX_CPUS];
	struct vb_stats *vals;
	struct vb_agg a;
	__u32 key = 0;
	bool is_online;

	if (ncpu <= 0) {
		snprintf(errbuf, errlen, "cannot count possible CPUs");
		return -EINVAL;
	}
	n_online = vb_cpulist_online(online, VB_MAX_CPUS);
	vals = calloc((size_t)ncpu, sizeof(*vals));
	if (!vals)
		return -ENOMEM;
	err = bpf_map_lookup_elem(bpf_map__fd(skel->maps.stats), &key, vals);
	if (err) {
		err = -errno;
		snprintf(errbuf, errlen, "reading the stats map: %s",
			 strerror(errno));
		free(vals);
		return err;
	}
	free(r->cpus);
	r->cpus = calloc((size_t)ncpu, sizeof(*r->cpus));
	if (!r->cpus) {
		free(vals);
		return -ENOMEM;
	}
	r->ncpus = 0;
	memset(&r->totals, 0, sizeof(r->totals));
	for (i = 0; i < ncpu; i++) {
		int j;

		stats_to_agg(&vals[i], &a);
		vb_agg_add(&r->totals, &a);
		is_online = n_online <= 0;
		for (j = 0; j < n_online; j++)
			if (online[j] == (uint32_t)i)
				is_online = true;
		if (!is_online && !agg_nonzero(&a))
			continue;
		r->cpus[r->ncpus].cpu = (uint32_t)i;
		r->cpus[r->ncpus].agg = a;
		r->cpus[r->ncpus].cost = -1;
		r->ncpus++;
	}
	free(vals);
	return 0;
}

static int collect_flows(struct vsockbatch_bpf *skel, struct vb_results *r,
			 char *errbuf, size_t errlen)
{
	int fd = bpf_map__fd(skel->maps.flows);
	int ncpu = libbpf_num_possible_cpus(), i;
	struct vb_flow_key key, next, *prev = NULL;
	struct vb_flow *nf;
	struct vb_stats *vals;
	struct vb_agg a;
	size_t cap = 0;

	if (ncpu <= 0) {
		snprintf(errbuf, errlen, "cannot count possible CPUs");
		return -EINVAL;
	}
	/* per-CPU hash: one value per possible CPU, summed here */
	vals = calloc((size_t)ncpu, sizeof(*vals));
	if (!vals)
		return -ENOMEM;
	free(r->flows);
	r->flows = NULL;
	r->nflows = 0;
	while (bpf_map_get_next_key(fd, prev, &next) == 0) {
		if (bpf_map_lookup_elem(fd, &next, vals) == 0) {
			if (r->nflows == cap) {
				cap = cap ? cap * 2 : 16;
				nf = realloc(r->flows, cap * sizeof(*nf));
				if (!nf) {
					free(vals);
					return -ENOMEM;
				}
				r->flows = nf;
			}
			r->flows[r->nflows].key = next;
			memset(&r->flows[r->nflows].agg, 0, sizeof(a));
			for (i = 0; i < ncpu; i++) {
				stats_to_agg(&vals[i], &a);
				vb_agg_add(&r->flows[r->nflows].agg, &a);
			}
			r->nflows++;
		}
		key = next;
		prev = &key;
		if (r->nflows > VB_MAX_FLOWS * 2) {
			snprintf(errbuf, errlen, "flow map iteration does not end");
			free(vals);
			return -EIO;
		}
	}
	free(vals);
	return 0;
}

int vb_collect(struct vsockbatch_bpf *skel, struct vb_results *r,
	       char *errbuf, size_t errlen)
{
	int err = collect_cpus(skel, r, errbuf, errlen);

	if (err)
		return err;
	return collect_flows(skel, r, errbuf, errlen);
}
