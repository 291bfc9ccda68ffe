/* SPDX-License-Identifier: GPL-2.0 */
/* bits.bpf.h - log2 slot index for vb_hist (BPF has no clz instruction). */
#ifndef VB_BITS_BPF_H
#define VB_BITS_BPF_H

/* bpf_helpers.h has it; the host-side unit test of vb_slot() does not. */
#ifndef barrier_var
#define barrier_var(var) asm volatile("" : "=r"(var) : "0"(var))
#endif

/* floor(log2(v)) for v > 0, branch-free halving (0 for v == 0). */
static __always_inline __u32 vb_floor_log2(__u64 v)
{
	__u32 r = 0, s;

	s = (v > 0xFFFFFFFFULL) << 5; v >>= s; r |= s;
	s = (v > 0xFFFF) << 4; v >>= s; r |= s;
	s = (v > 0xFF) << 3; v >>= s; r |= s;
	s = (v > 0xF) << 2; v >>= s; r |= s;
	s = (v > 0x3) << 1; v >>= s; r |= s;
	r |= (__u32)(v >> 1);
	return r;
}

/*
 * Slot of v in the "log2z" scheme of include/vsockbatch.h: 0 -> 0,
 * [2^(i-1), 2^i - 1] -> i, clamped to the last slot.  Must agree with
 * vb_hist_slot() in tools/lib/hist.c (unit-tested there).
 */
static __always_inline __u32 vb_slot(__u64 v)
{
	__u32 i;

	if (!v)
		return 0;
	i = vb_floor_log2(v) + 1;
	if (i > VB_MAX_SLOTS - 1)
		i = VB_MAX_SLOTS - 1;
	/*
	 * The mask is the bound the verifier sees.  Without the barrier
	 * clang drops it as redundant after the clamp, and then compares a
	 * zero-extended copy of i but indexes with i itself: 6.12's verifier
	 * links the two, 6.1's does not ("R0 unbounded memory access").
	 */
	barrier_var(i);
	return i & (VB_MAX_SLOTS - 1);
}

#endif
