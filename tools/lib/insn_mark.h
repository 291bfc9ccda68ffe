/* SPDX-License-Identifier: GPL-2.0 */
/*
 * insn_mark.h - the guest side of the lab's instruction counter.
 *
 * Under QEMU TCG with the vb-insns plugin (scripts/guest-run.sh -C icount)
 * vb_insn_mark(id) makes the plugin write every vCPU's instruction counts
 * so far to the host's OUTDIR/insns.tsv, tagged with id: two marks
 * bracket a window of guest work.  Elsewhere it does nothing.
 *
 * The signal is an 8-byte NOP whose displacement carries a magic tag,
 * `nopl 0x5642000N(%rax,%rax,1)` (0f 1f 84 00 NN NN 42 56), which no
 * compiler emits.  The plugin API of QEMU 7.2 cannot read guest registers,
 * so the id has to be in the instruction bytes: it is sent as four hex
 * digits, one NOP per digit (tag low half 0x00-0x0f: shift the digit into
 * the vCPU's pending id), then a commit NOP (0x0100: record and clear).
 * That is ~30 guest instructions per mark, all in read-only code.
 */
#ifndef VSOCKBATCH_INSN_MARK_H
#define VSOCKBATCH_INSN_MARK_H

#include <stdint.h>

#define VB_INSN_MARK_TAG	0x5642u		/* "VB": displacement high half */
#define VB_INSN_MARK_COMMIT	0x0100u		/* displacement low half */

#define VB_INSN_NOP(lo)	__asm__ __volatile__(				\
	".byte 0x0f, 0x1f, 0x84, 0x00\n\t.short " #lo "\n\t.short 0x5642"	\
	::: "memory")

static inline void vb_insn_digit(unsigned int d)
{
	switch (d & 0xf) {
	case 0x0: VB_INSN_NOP(0x0); break;
	case 0x1: VB_INSN_NOP(0x1); break;
	case 0x2: VB_INSN_NOP(0x2); break;
	case 0x3: VB_INSN_NOP(0x3); break;
	case 0x4: VB_INSN_NOP(0x4); break;
	case 0x5: VB_INSN_NOP(0x5); break;
	case 0x6: VB_INSN_NOP(0x6); break;
	case 0x7: VB_INSN_NOP(0x7); break;
	case 0x8: VB_INSN_NOP(0x8); break;
	case 0x9: VB_INSN_NOP(0x9); break;
	case 0xa: VB_INSN_NOP(0xa); break;
	case 0xb: VB_INSN_NOP(0xb); break;
	case 0xc: VB_INSN_NOP(0xc); break;
	case 0xd: VB_INSN_NOP(0xd); break;
	case 0xe: VB_INSN_NOP(0xe); break;
	default:  VB_INSN_NOP(0xf); break;
	}
}

/* Record a mark with this id (most significant digit first). */
static inline void vb_insn_mark(uint16_t id)
{
	int shift;

	for (shift = 12; shift >= 0; shift -= 4)
		vb_insn_digit(id >> shift);
	VB_INSN_NOP(0x100);
}

#endif
