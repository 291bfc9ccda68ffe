// SPDX-License-Identifier: GPL-2.0
/*
 * Unit tests for tools/vsockbatch/flow_track.c: the growth of a flow's
 * per-CPU counters between reads (what export and top fold instead of
 * draining the BPF map), MAX counters passed through, a flow deleted only
 * after VB_FLOW_IDLE_READS reads without growth, a re-created entry, and
 * flows that left the map between walks.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <cmocka.h>

#include "../../tools/vsockbatch/flow_track.h"
#include "../../tools/vsockbatch/results.h"

#define NCPU 2

static const struct vb_flow_key ka = { 2, 1000, 1, 1234 };
static const struct vb_flow_key kb = { 2, 1001, 1, 1235 };

static void test_growth(void **state)
{
	struct vb_flow_stats v[NCPU], d[NCPU];
	struct vb_flow_track t;
	bool expire;

	(void)state;
	assert_int_equal(vb_flow_track_init(&t, NCPU), 0);
	memset(v, 0, sizeof(v));
	v[0].cnt[VB_FC_BATCHES] = 10;
	v[1].cnt[VB_FC_BATCHES] = 3;
	v[0].cnt[VB_FC_BATCH_MAX] = 7;
	vb_flow_track_begin(&t);
	/* first read: everything is growth */
	assert_int_equal(vb_flow_track_step(&t, &ka, v, d, &expire), 1);
	assert_false(expire);
	assert_int_equal(d[0].cnt[VB_FC_BATCHES], 10);
	assert_int_equal(d[1].cnt[VB_FC_BATCHES], 3);
	vb_flow_track_end(&t);
	/* second read: only what was added since */
	v[0].cnt[VB_FC_BATCHES] = 15;
	vb_flow_track_begin(&t);
	assert_int_equal(vb_flow_track_step(&t, &ka, v, d, &expire), 1);
	assert_int_equal(d[0].cnt[VB_FC_BATCHES], 5);
	assert_int_equal(d[1].cnt[VB_FC_BATCHES], 0);
	/* a MAX counter is the value itself, and is not growth */
	assert_true(vb_counter_is_max[VB_FC_BATCH_MAX]);
	assert_int_equal(d[0].cnt[VB_FC_BATCH_MAX], 7);
	vb_flow_track_end(&t);
	assert_int_equal(t.n, 1);
	vb_flow_track_free(&t);
}

static void test_idle_then_expire(void **state)
{
	struct vb_flow_stats v[NCPU], d[NCPU];
	struct vb_flow_track t;
	bool expire;
	int i;

	(void)state;
	assert_int_equal(vb_flow_track_init(&t, NCPU), 0);
	memset(v, 0, sizeof(v));
	v[1].cnt[VB_FC_BATCH_PKTS] = 4;
	v[1].cnt[VB_FC_BATCH_MAX] = 4;
	assert_int_equal(vb_flow_track_step(&t, &ka, v, d, &expire), 1);
	/* quiet reads: no growth, expiry only after VB_FLOW_IDLE_READS */
	for (i = 1; i <= VB_FLOW_IDLE_READS; i++) {
		assert_int_equal(vb_flow_track_step(&t, &ka, v, d, &expire), 0);
		assert_int_equal(expire, i >= VB_FLOW_IDLE_READS);
	}
	/* growth resets the idle count */
	v[1].cnt[VB_FC_BATCH_PKTS] = 5;
	assert_int_equal(vb_flow_track_step(&t, &ka, v, d, &expire), 1);
	assert_false(expire);
	assert_int_equal(d[1].cnt[VB_FC_BATCH_PKTS], 1);
	/* deleted from the map and forgotten: a new entry starts at 0 */
	vb_flow_track_forget(&t, &ka);
	assert_int_equal(t.n, 0);
	memset(v, 0, sizeof(v));
	v[0].cnt[VB_FC_BATCH_PKTS] = 2;
	assert_int_equal(vb_flow_track_step(&t, &ka, v, d, &expire), 1);
	assert_int_equal(d[0].cnt[VB_FC_BATCH_PKTS], 2);
	vb_flow_track_free(&t);
}

static void test_recreated_and_gone(void **state)
{
	struct vb_flow_stats v[NCPU], d[NCPU];
	struct vb_flow_track t;
	bool expire;

	(void)state;
	assert_int_equal(vb_flow_track_init(&t, NCPU), 0);
	assert_int_not_equal(vb_flow_track_init(&t, 0), 0);
	assert_int_equal(vb_flow_track_init(&t, NCPU), 0);
	memset(v, 0, sizeof(v));
	v[0].cnt[VB_FC_BATCHES] = 100;
	vb_flow_track_begin(&t);
	vb_flow_track_step(&t, &ka, v, d, &expire);
	vb_flow_track_step(&t, &kb, v, d, &expire);
	vb_flow_track_end(&t);
	assert_int_equal(t.n, 2);
	/* ka's entry was replaced behind our back: below the last read */
	v[0].cnt[VB_FC_BATCHES] = 3;
	vb_flow_track_begin(&t);
	assert_int_equal(vb_flow_track_step(&t, &ka, v, d, &expire), 1);
	assert_int_equal(d[0].cnt[VB_FC_BATCHES], 3);
	/* kb not met in this walk: dropped */
	vb_flow_track_end(&t);
	assert_int_equal(t.n, 1);
	assert_memory_equal(&t.e[0].key, &ka, sizeof(ka));
	vb_flow_track_free(&t);
	assert_int_equal(t.n, 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_growth),
		cmocka_unit_test(test_idle_then_expire),
		cmocka_unit_test(test_recreated_and_gone),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
