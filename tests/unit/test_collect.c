// SPDX-License-Identifier: GPL-2.0
/*
 * Unit tests for vb_stats_fold_ops (tools/vsockbatch/collect.c): light
 * mode on a stock kernel counts packets per virtio-vsock op, and every
 * packet counter the results model holds is derived from those counts.
 * The guest test (tests/guest/tracer.sh) checks sums over a real
 * transfer -- packets = data + control, credit updates among the control
 * packets -- which a fold that swapped two control ops would pass; each
 * op is checked here on its own.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "vsockbatch.h"
#include "../../tools/vsockbatch/collect.h"

/* enum virtio_vsock_op (include/uapi/linux/virtio_vsock.h) */
enum { OP_INVALID, OP_REQUEST, OP_RESPONSE, OP_RST, OP_SHUTDOWN, OP_RW,
       OP_CREDIT_UPDATE, OP_CREDIT_REQUEST };

static struct vb_stats s;

static void test_each_op(void **state)
{
	static const struct {
		int op;
		uint64_t rw, ctrl, credit, rst;
	} want[] = {
		{ OP_INVALID,		0, 1, 0, 0 },
		{ OP_REQUEST,		0, 1, 0, 0 },
		{ OP_RESPONSE,		0, 1, 0, 0 },
		{ OP_RST,		0, 1, 0, 1 },
		{ OP_SHUTDOWN,		0, 1, 0, 0 },
		{ OP_RW,		1, 0, 0, 0 },
		{ OP_CREDIT_UPDATE,	0, 1, 1, 0 },
		{ OP_CREDIT_REQUEST,	0, 1, 0, 0 },
		/* an op no kernel defines: the last slot, a control packet */
		{ VB_OP_SLOTS - 1,	0, 1, 0, 0 },
	};
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(want) / sizeof(want[0]); i++) {
		uint64_t c[VB_C_NR] = { 0 };

		memset(&s, 0, sizeof(s));
		s.op_pkts[want[i].op] = 1;
		vb_stats_fold_ops(c, &s);
		assert_int_equal(c[VB_C_PKTS], 1);
		assert_int_equal(c[VB_C_RW_PKTS], want[i].rw);
		assert_int_equal(c[VB_C_CTRL_PKTS], want[i].ctrl);
		assert_int_equal(c[VB_C_CREDIT_RX], want[i].credit);
		assert_int_equal(c[VB_C_RST_RX], want[i].rst);
		assert_int_equal(c[VB_C_BYTES], 0);
	}
}

/* Added to what the counters hold (full mode's, or another CPU's). */
static void test_adds_to_counters(void **state)
{
	uint64_t c[VB_C_NR] = { 0 };
	int i;

	(void)state;
	memset(&s, 0, sizeof(s));
	c[VB_C_PKTS] = 10;
	c[VB_C_RW_PKTS] = 7;
	c[VB_C_CTRL_PKTS] = 3;
	c[VB_C_CREDIT_RX] = 2;
	c[VB_C_BATCHES] = 5;
	s.op_pkts[OP_RW] = 65536;
	s.op_pkts[OP_CREDIT_UPDATE] = 40;
	s.op_pkts[OP_REQUEST] = 1;
	s.op_pkts[OP_SHUTDOWN] = 2;
	vb_stats_fold_ops(c, &s);
	assert_int_equal(c[VB_C_PKTS], 10 + 65536 + 40 + 1 + 2);
	assert_int_equal(c[VB_C_RW_PKTS], 7 + 65536);
	assert_int_equal(c[VB_C_CTRL_PKTS], 3 + 40 + 1 + 2);
	assert_int_equal(c[VB_C_CREDIT_RX], 2 + 40);
	assert_int_equal(c[VB_C_RST_RX], 0);
	/* nothing else is touched */
	assert_int_equal(c[VB_C_BATCHES], 5);
	for (i = 0; i < VB_C_NR; i++)
		if (i != VB_C_PKTS && i != VB_C_RW_PKTS &&
		    i != VB_C_CTRL_PKTS && i != VB_C_CREDIT_RX &&
		    i != VB_C_BATCHES)
			assert_int_equal(c[i], 0);
}

/* Full mode leaves the per-op counts at 0: the fold adds nothing. */
static void test_no_ops_no_change(void **state)
{
	uint64_t c[VB_C_NR], before[VB_C_NR];
	int i;

	(void)state;
	memset(&s, 0, sizeof(s));
	for (i = 0; i < VB_C_NR; i++)
		c[i] = before[i] = 1000 + (uint64_t)i;
	vb_stats_fold_ops(c, &s);
	assert_memory_equal(c, before, sizeof(c));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_each_op),
		cmocka_unit_test(test_adds_to_counters),
		cmocka_unit_test(test_no_ops_no_change),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
