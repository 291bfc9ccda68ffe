// SPDX-License-Identifier: GPL-2.0
/*
 * prom_snap.c - the exporter's cumulative snapshot, one map read at a
 * time.
 *
 * Each read gives the flows' growth since the previous one, and idle flows
 * leave the BPF map (flow_track.h, as in top), so a long run never fills
 * it with flows that ended; the growth is summed here (s->drained), so
 * every counter on the page only ever grows.  Per-port
 * series are bounded: at most max_ports ports, the rest (and the flows
 * the BPF map had no room for) under port "other", and a port quiet for
 * port_age reads loses its series (its counts stay in the totals).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "prom.h"

void vb_prom_snap_init(struct vb_prom_snap *s)
{
	memset(s, 0, sizeof(*s));
}

void vb_prom_snap_free(struct vb_prom_snap *s)
{
	free(s->cpus);
	free(s->ports);
	s->cpus = NULL;
	s->ports = NULL;
	s->ncpus = s->nports = 0;
}

int vb_prom_snap_copy(struct vb_prom_snap *dst, const struct vb_prom_snap *src)
{
	struct vb_prom_cpu *cpus = NULL;
	struct vb_prom_port *ports = NULL;

	if (src->ncpus) {
		cpus = malloc(src->ncpus * sizeof(*cpus));
		if (!cpus)
			return -ENOMEM;
		memcpy(cpus, src->cpus, src->ncpus * sizeof(*cpus));
	}
	if (src->nports) {
		ports = malloc(src->nports * sizeof(*ports));
		if (!ports) {
			free(cpus);
			return -ENOMEM;
		}
		memcpy(ports, src->ports, src->nports * sizeof(*ports));
	}
	vb_prom_snap_free(dst);
	*dst = *src;
	dst->cpus = cpus;
	dst->ports = ports;
	return 0;
}

static bool is_other(const struct vb_flow *f)
{
	return !memcmp(&f->key, &vb_other_flows, sizeof(vb_other_flows));
}

/* c += d over the window counters; MAX counters keep the larger. */
static void fc_add(uint64_t *c, const uint64_t *d)
{
	int x;

	for (x = 0; x < VB_FC_NR; x++) {
		if (vb_counter_is_max[x])
			c[x] = d[x] > c[x] ? d[x] : c[x];
		else
			c[x] += d[x];
	}
}

/* The port's row: found, added while under the bound, or NULL (other). */
static struct vb_prom_port *port_row(struct vb_prom_snap *s, uint32_t port)
{
	struct vb_prom_port *p;
	size_t i;

	for (i = 0; i < s->nports; i++)
		if (s->ports[i].port == port)
			return &s->ports[i];
	if (s->nports >= s->max_ports)
		return NULL;
	if (!s->ports) {
		/* the bound is the allocation: never realloc'ed while running */
		s->ports = calloc(s->max_ports, sizeof(*s->ports));
		if (!s->ports)
			return NULL;
	}
	p = &s->ports[s->nports++];
	memset(p, 0, sizeof(*p));
	p->port = port;
	return p;
}

static void fold_ports(struct vb_prom_snap *s, const struct vb_results *r,
		       const uint64_t *other_delta)
{
	struct vb_prom_port *p;
	size_t i, k;

	for (i = 0; i < r->nflows; i++) {
		if (is_other(&r->flows[i]))
			continue;
		p = port_row(s, r->flows[i].key.dst_port);
		if (!p) {
			fc_add(s->other_port, r->flows[i].agg.cnt);
			continue;
		}
		fc_add(p->cnt, r->flows[i].agg.cnt);
		p->quiet = (unsigned int)-1;	/* active: 0 after the ++ */
	}
	fc_add(s->other_port, other_delta);
	for (i = 0, k = 0; i < s->nports; i++) {
		if (++s->ports[i].quiet >= s->port_age) {
			s->ports_aged++;
			continue;
		}
		s->ports[k++] = s->ports[i];
	}
	s->nports = k;
}

int vb_prom_snap_fold(struct vb_prom_snap *s, const struct vb_results *r)
{
	uint64_t other[VB_FC_NR], delta[VB_FC_NR], joined, lookups;
	struct vb_prom_cpu *cpus;
	const uint64_t *c;
	size_t i;
	int x;

	memset(other, 0, sizeof(other));
	for (i = 0; i < r->nflows; i++) {
		if (is_other(&r->flows[i]))
			memcpy(other, r->flows[i].agg.cnt, sizeof(other));
		else
			fc_add(s->drained, r->flows[i].agg.cnt);
	}
	/* the other-flows row is cumulative in the map: its growth */
	for (x = 0; x < VB_FC_NR; x++)
		delta[x] = vb_counter_is_max[x] ? other[x] :
			   other[x] >= s->prev_other[x] ? other[x] - s->prev_other[x] : 0;
	memcpy(s->prev_other, other, sizeof(other));

	cpus = r->ncpus ? malloc(r->ncpus * sizeof(*cpus)) : NULL;
	if (r->ncpus && !cpus)
		return -ENOMEM;
	for (i = 0; i < r->ncpus; i++) {
		cpus[i].cpu = r->cpus[i].cpu;
		memcpy(cpus[i].cnt, r->cpus[i].agg.cnt, sizeof(cpus[i].cnt));
	}
	free(s->cpus);
	s->cpus = cpus;
	s->ncpus = r->ncpus;

	/* per-CPU counters and histograms as read; windows as summed */
	s->totals = r->totals;
	for (x = 0; x < VB_FC_NR; x++)
		s->totals.cnt[x] = vb_counter_is_max[x]
			? (s->drained[x] > other[x] ? s->drained[x] : other[x])
			: s->drained[x] + other[x];

	if (s->ports_on)
		fold_ports(s, r, delta);

	/*
	 * Every packet that does not join an open run is looked up and
	 * locked on its own (vb_metrics_compute).  Packets are counted on
	 * arrival, runs when they end, so between the two the difference
	 * overshoots and then falls back: a counter must not fall, so the
	 * value only moves up (ahead of the true count by at most the
	 * packets of runs open at some read, until they are caught up).
	 */
	c = s->totals.cnt;
	joined = c[VB_C_BATCH_PKTS] > c[VB_C_BATCHES]
		 ? c[VB_C_BATCH_PKTS] - c[VB_C_BATCHES] : 0;
	lookups = c[VB_C_PKTS] > joined ? c[VB_C_PKTS] - joined : 0;
	if (lookups > s->lookups)
		s->lookups = lookups;
	s->collections++;
	return 0;
}
