// SPDX-License-Identifier: GPL-2.0
/*
 * flow_track.c - per-flow growth between reads of the BPF flow map
 * (flow_track.h says why the map is no longer drained).
 *
 * At most VB_MAX_FLOWS flows, so a linear search per flow is enough.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "flow_track.h"
#include "results.h"

int vb_flow_track_init(struct vb_flow_track *t, int ncpu)
{
	memset(t, 0, sizeof(*t));
	if (ncpu <= 0)
		return -EINVAL;
	t->ncpu = ncpu;
	return 0;
}

static void seen_free(struct vb_flow_seen *s)
{
	free(s->vals);
	s->vals = NULL;
}

void vb_flow_track_free(struct vb_flow_track *t)
{
	size_t i;

	for (i = 0; i < t->n; i++)
		seen_free(&t->e[i]);
	free(t->e);
	t->e = NULL;
	t->n = t->cap = 0;
}

void vb_flow_track_begin(struct vb_flow_track *t)
{
	size_t i;

	for (i = 0; i < t->n; i++)
		t->e[i].live = false;
}

static struct vb_flow_seen *find(struct vb_flow_track *t,
				 const struct vb_flow_key *key)
{
	size_t i;

	for (i = 0; i < t->n; i++)
		if (!memcmp(&t->e[i].key, key, sizeof(*key)))
			return &t->e[i];
	return NULL;
}

static struct vb_flow_seen *add(struct vb_flow_track *t,
				const struct vb_flow_key *key)
{
	struct vb_flow_seen *ne, *s;

	if (t->n == t->cap) {
		size_t cap = t->cap ? t->cap * 2 : 16;

		ne = realloc(t->e, cap * sizeof(*ne));
		if (!ne)
			return NULL;
		t->e = ne;
		t->cap = cap;
	}
	s = &t->e[t->n];
	memset(s, 0, sizeof(*s));
	s->vals = calloc((size_t)t->ncpu, sizeof(*s->vals));
	if (!s->vals)
		return NULL;
	s->key = *key;
	t->n++;
	return s;
}

int vb_flow_track_step(struct vb_flow_track *t, const struct vb_flow_key *key,
		       const struct vb_flow_stats *vals,
		       struct vb_flow_stats *delta, bool *expire)
{
	struct vb_flow_seen *s = find(t, key);
	bool grew = false;
	int c, x;

	*expire = false;
	if (!s && !(s = add(t, key)))
		return -ENOMEM;
	for (c = 0; c < t->ncpu; c++) {
		for (x = 0; x < VB_FC_NR; x++) {
			__u64 now = vals[c].cnt[x], was = s->vals[c].cnt[x];

			if (vb_counter_is_max[x]) {
				delta[c].cnt[x] = now;
				continue;
			}
			/* below the last read: a new entry under the same key */
			delta[c].cnt[x] = now >= was ? now - was : now;
			if (delta[c].cnt[x])
				grew = true;
		}
	}
	memcpy(s->vals, vals, (size_t)t->ncpu * sizeof(*vals));
	s->live = true;
	s->idle = grew ? 0 : s->idle + 1;
	*expire = s->idle >= VB_FLOW_IDLE_READS;
	return grew;
}

void vb_flow_track_forget(struct vb_flow_track *t,
			  const struct vb_flow_key *key)
{
	struct vb_flow_seen *s = find(t, key);

	if (!s)
		return;
	seen_free(s);
	*s = t->e[--t->n];
}

void vb_flow_track_end(struct vb_flow_track *t)
{
	size_t i = 0;

	while (i < t->n) {
		if (t->e[i].live) {
			i++;
			continue;
		}
		seen_free(&t->e[i]);
		t->e[i] = t->e[--t->n];
	}
}
