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
#include <string.h>

#include "bench_util.h"
#include "insn_mark.h"

#define USAGE "Usage: vb-mark ID\n" \
	"Set instruction-count mark ID (1..65535) for the lab's vb-insns plugin\n" \
	"(scripts/guest-run.sh -C icount); without the plugin it does nothing.\n" \
	"\n" \
	"  --help   this text\n" \
	"Exit: 0 ok, 2 bad arguments.\n"

int main(int argc, char **argv)
{
	uint64_t id;

	if (argc == 2 && !strcmp(argv[1], "--help")) {
		fputs(USAGE, stdout);
		return 0;
	}
	if (argc != 2 || bench_parse_u64(argv[1], 0xffff, &id) || id == 0) {
		fprintf(stderr, "usage: vb-mark ID   (ID: a number 1..65535)\n");
		return 2;
	}
	vb_insn_mark((uint16_t)id);
	return 0;
}
