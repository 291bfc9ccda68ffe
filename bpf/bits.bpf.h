/* SPDX-License-Identifier: GPL-2.0 */
/* bits.bpf.h - log2 slot index for vb_hist (BPF has no clz instruction). */
#ifndef VB_BITS_BPF_H
#define VB_BITS_BPF_H

/* bpf_helpers.h has it; the host-side unit test of vb_slot() does not. */
#ifndef barrier_var
#define barrier_var(var) asm volatile("" : "=r"(var) : "0"(var))
#endif

/*
 * Slot of v in the "log2z" scheme of include/vsockbatch.h: 0 -> 0,
 * [2^(i-1), 2^i - 1] -> i, and every v >= 2^30 -> 31, the last slot.
 * Must agree with vb_hist_slot() in tools/lib/hist.c (unit-tested there).
 *
 * A binary search over the slots' lower bounds, compared as constants:
 * five compare-and-branch pairs, then one constant move.  BPF has no
 * count-leading-zeros; the halving it replaced (shift, compare, or, per
 * step, for six steps) ran about three times the instructions, twice
 * per run in light mode and once per packet in full mode.
 *
 * VB_SLOTS_n(b): the slot of v, known to be in [b, b + n); v is in the
 * upper half iff v >= 2^(b + n/2 - 1).
 */
#define VB_SLOTS_2(b)	(v >= (1ULL << (b)) ? (b) + 1 : (b))
#define VB_SLOTS_4(b)	(v >= (1ULL << ((b) + 1)) ? \
			 VB_SLOTS_2((b) + 2) : VB_SLOTS_2(b))
#define VB_SLOTS_8(b)	(v >= (1ULL << ((b) + 3)) ? \
			 VB_SLOTS_4((b) + 4) : VB_SLOTS_4(b))
#define VB_SLOTS_16(b)	(v >= (1ULL << ((b) + 7)) ? \
			 VB_SLOTS_8((b) + 8) : VB_SLOTS_8(b))
#define VB_SLOTS_32(b)	(v >= (1ULL << ((b) + 15)) ? \
			 VB_SLOTS_16((b) + 16) : VB_SLOTS_16(b))

_Static_assert(VB_MAX_SLOTS == 32, "vb_slot() searches 32 slots");

static __always_inline __u32 vb_slot(__u64 v)
{
	__u32 i = VB_SLOTS_32(0);

	/*
	 * The mask is the bound the verifier sees where clang folds the
	 * constants of the leaves into a register range it cannot follow
	 * (6.1's verifier is the strictest: "R0 unbounded memory access");
	 * the barrier keeps clang from dropping it as redundant.
	 */
	barrier_var(i);
	return i & (VB_MAX_SLOTS - 1);
}

#endif
