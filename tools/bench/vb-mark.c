// SPDX-License-Identifier: GPL-2.0
/*
 * vb-mark - set one instruction-count mark from a guest script.
 *
 *   vb-mark ID      (ID: 1..65535)
 *
 * Under scripts/guest-run.sh -C icount the host's vb-insns plugin writes
 * every vCPU's instruction counts at this point to OUTDIR/insns.tsv; the
 * window between two marks is their difference (scripts/insns-delta.sh).
 * Without the plugin it does nothing.  Starting this program costs the
 * same few hundred thousand instructions in every window it brackets, so
 * mark inside the measured program (vb_insn_mark()) where that matters.
 */
#include <stdio.h>

#include "bench_util.h"
#include "insn_mark.h"

int main(int argc, char **argv)
{
	uint64_t id;

	if (argc != 2 || bench_parse_u64(argv[1], 0xffff, &id) || id == 0) {
		fprintf(stderr, "usage: vb-mark ID   (ID: a number 1..65535)\n");
		return 2;
	}
	vb_insn_mark((uint16_t)id);
	return 0;
}
