// SPDX-License-Identifier: GPL-2.0
/*
 * collect.c - per-CPU stats and the flow table out of the BPF maps.
 *
 * Every event is counted once in BPF (include/vsockbatch.h): packets in
 * the per-CPU `stats` slot, windows in their flow's per-CPU value (or in
 * the "other flows" part of `stats` when the flow map is full).  Totals
 * are summed here: packet counters over CPUs, window counters over flows,
 * CPUs and the other-flows part; MAX counters take the largest.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "collect.h"
#include "cpulist.h"
#include "flow_track.h"
#include "lpend.h"
#include "vsockbatch.skel.h"

void vb_stats_fold_ops(uint64_t *cnt, const struct vb_stats *s)
{
	int op;

	for (op = 0; op < VB_OP_SLOTS; op++) {
		uint64_t n = s->op_pkts[op];

		cnt[VB_C_PKTS] += n;
		cnt[op == VIRTIO_VSOCK_OP_RW_NR ? VB_C_RW_PKTS
						: VB_C_CTRL_PKTS] += n;
		if (op == VIRTIO_VSOCK_OP_CREDIT_UPDATE_NR)
			cnt[VB_C_CREDIT_RX] += n;
		else if (op == VIRTIO_VSOCK_OP_RST_NR)
			cnt[VB_C_RST_RX] += n;
	}
}

static void stats_to_agg(const struct vb_stats *s, struct vb_agg *a)
{
	int i, j;

	memset(a, 0, sizeof(*a));
	for (i = 0; i < VB_C_NR; i++)
		a->cnt[i] = s->cnt[i];
	vb_stats_fold_ops(a->cnt, s);
	for (i = 0; i < VB_H_LOG2_NR; i++)
		for (j = 0; j < VB_MAX_SLOTS; j++)
			a->hist[i].slots[j] = s->hist[i].slots[j];
	for (i = 0; i < VB_H_LIN_NR; i++)
		for (j = 0; j < VB_LIN_SLOTS; j++)
			a->hist[VB_H_LOG2_NR + i].slots[j] = s->lhist[i].slots[j];
}

static void flow_add(struct vb_agg *a, const struct vb_flow_stats *fs)
{
	struct vb_agg tmp;
	int i;

	memset(&tmp, 0, sizeof(tmp));
	for (i = 0; i < VB_FC_NR; i++)
		tmp.cnt[i] = fs->cnt[i];
	vb_agg_add(a, &tmp);
}

static bool agg_nonzero(const struct vb_agg *a)
{
	int i;

	for (i = 0; i < VB_C_NR; i++)
		if (a->cnt[i])
			return true;
	return false;
}

static int push_flow(struct vb_results *r, size_t *cap,
		     const struct vb_flow_key *key)
{
	struct vb_flow *nf;

	if (r->nflows == *cap) {
		*cap = *cap ? *cap * 2 : 16;
		nf = realloc(r->flows, *cap * sizeof(*nf));
		if (!nf)
			return -ENOMEM;
		r->flows = nf;
	}
	memset(&r->flows[r->nflows], 0, sizeof(r->flows[0]));
	r->flows[r->nflows].key = *key;
	r->nflows++;
	return 0;
}

int vb_collect(struct vsockbatch_bpf *skel, struct vb_results *r,
	       struct vb_flow_track *track, char *errbuf, size_t errlen)
{
	int ncpu = libbpf_num_possible_cpus(), i, j, n_online, err = 0;
	int sfd = bpf_map__fd(skel->maps.stats);
	int ffd = bpf_map__fd(skel->maps.flows);
	uint32_t online[VB_MAX_CPUS];
	struct vb_flow_stats *fvals = NULL, *dvals = NULL;
	const struct vb_flow_stats *use;
	struct vb_flow_key *gone = NULL;
	size_t ngone = 0, g;
	struct vb_stats *vals = NULL;
	struct vb_agg *cpu = NULL, other, a;
	struct vb_flow_key key, next, *prev = NULL;
	size_t cap = 0, seen = 0;
	__u32 zero = 0;
	bool is_online;

	if (ncpu <= 0) {
		snprintf(errbuf, errlen, "cannot count possible CPUs");
		return -EINVAL;
	}
	/* light mode's held runs first, so that the flow map is whole */
	err = vb_lpend_drain(skel, errbuf, errlen);
	if (err)
		return err;
	n_online = vb_cpulist_online(online, VB_MAX_CPUS);
	vals = calloc((size_t)ncpu, sizeof(*vals));
	fvals = calloc((size_t)ncpu, sizeof(*fvals));
	cpu = calloc((size_t)ncpu, sizeof(*cpu));
	if (!vals || !fvals || !cpu) {
		err = -ENOMEM;
		goto out;
	}
	if (track) {
		if (track->ncpu != ncpu) {
			snprintf(errbuf, errlen, "flow tracker for %d CPUs, %d possible",
				 track->ncpu, ncpu);
			err = -EINVAL;
			goto out;
		}
		dvals = calloc((size_t)ncpu, sizeof(*dvals));
		gone = calloc(VB_MAX_FLOWS * 4, sizeof(*gone));
		if (!dvals || !gone) {
			err = -ENOMEM;
			goto out;
		}
		vb_flow_track_begin(track);
	}
	if (bpf_map_lookup_elem(sfd, &zero, vals)) {
		err = -errno;
		snprintf(errbuf, errlen, "reading the stats map: %s",
			 strerror(errno));
		goto out;
	}
	memset(&other, 0, sizeof(other));
	memset(&r->totals, 0, sizeof(r->totals));
	for (i = 0; i < ncpu; i++) {
		stats_to_agg(&vals[i], &cpu[i]);
		vb_agg_add(&r->totals, &cpu[i]);
		memset(&a, 0, sizeof(a));
		for (j = 0; j < VB_FC_NR; j++)
			a.cnt[j] = vals[i].cnt[j];
		vb_agg_add(&other, &a);
	}

	/* per-CPU hash: one value per possible CPU, summed here */
	free(r->flows);
	r->flows = NULL;
	r->nflows = 0;
	while (bpf_map_get_next_key(ffd, prev, &next) == 0) {
		if (++seen > VB_MAX_FLOWS * 4) {
			snprintf(errbuf, errlen, "flow map iteration does not end");
			err = -EIO;
			goto out;
		}
		if (bpf_map_lookup_elem(ffd, &next, fvals))
			goto skip;
		use = fvals;
		if (track) {
			bool expire;
			int grew = vb_flow_track_step(track, &next, fvals, dvals,
						      &expire);

			if (grew < 0) {
				err = grew;
				goto out;
			}
			if (expire)
				gone[ngone++] = next;
			if (!grew)
				goto skip;
			use = dvals;
		}
		if (push_flow(r, &cap, &next)) {
			err = -ENOMEM;
			goto out;
		}
		for (i = 0; i < ncpu; i++) {
			flow_add(&r->flows[r->nflows - 1].agg, &use[i]);
			flow_add(&cpu[i], &use[i]);
		}
		vb_agg_add(&r->totals, &r->flows[r->nflows - 1].agg);
skip:
		key = next;
		prev = &key;
	}
	if (track) {
		/*
		 * Idle flows leave the map after the walk: deleting one
		 * while a BPF program counts into it would lose those adds,
		 * which after VB_FLOW_IDLE_READS quiet reads needs the flow
		 * to resume within this loop.
		 */
		vb_flow_track_end(track);
		for (g = 0; g < ngone; g++) {
			bpf_map_delete_elem(ffd, &gone[g]);
			vb_flow_track_forget(track, &gone[g]);
		}
	}
	if (agg_nonzero(&other)) {
		if (push_flow(r, &cap, &vb_other_flows)) {
			err = -ENOMEM;
			goto out;
		}
		r->flows[r->nflows - 1].agg = other;
	}

	free(r->cpus);
	r->cpus = calloc((size_t)ncpu, sizeof(*r->cpus));
	if (!r->cpus) {
		err = -ENOMEM;
		goto out;
	}
	r->ncpus = 0;
	for (i = 0; i < ncpu; i++) {
		is_online = n_online <= 0;
		for (j = 0; j < n_online; j++)
			if (online[j] == (uint32_t)i)
				is_online = true;
		if (!is_online && !agg_nonzero(&cpu[i]))
			continue;
		r->cpus[r->ncpus].cpu = (uint32_t)i;
		r->cpus[r->ncpus].agg = cpu[i];
		r->cpus[r->ncpus].cost = -1;
		r->ncpus++;
	}
out:
	free(vals);
	free(fvals);
	free(dvals);
	free(gone);
	free(cpu);
	return err;
}
