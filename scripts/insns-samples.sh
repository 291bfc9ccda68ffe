#!/bin/bash
# insns-samples.sh: the instruction-count samples of one icount run.
#
#   scripts/insns-samples.sh RUN_DIR
#
# RUN_DIR is a guest run's results directory (scripts/guest-run.sh -C
# icount): insns.tsv from the vb-insns plugin, marks.tsv from
# tests/guest/experiment-run.sh ("first_mark name payload bytes" per
# transfer; the transfer's window is marks first..first+1).  Prints
# samples.jsonl lines, guest instructions per received byte:
#   fixed.P  -> insn_per_byte (all vCPUs), insn_kernel_per_byte,
#               insn_cpu0_per_byte, insn_cpu1_per_byte
#   match.P  -> insn_per_byte_match
#   traced.P -> insn_per_byte_traced (the same transfer as fixed.P under
#               vsockbatch record: the difference is the tracer's cost)
# and, for fixed.P, icount_warp_pct: the share of the window's guest time
# that no vCPU executed (100 * (1 - instructions / guest ns), vb-recv's
# accept-to-EOF time; shift=0: 1 ns per instruction).  With sleep=off the
# clock warps over idle time, and a guest with a periodic tick then runs a
# timer interrupt at every warp: counts of a window that waited (for the
# host, say) include that idle-tick work.  Loopback windows are ~0 %.
# Every sample names its transfer ("xfer"), so that the summary's
# exclusion rule drops the counts of a transfer it excludes, as it drops
# the guest's own samples of it (before 2026-12-02 the insn_* samples
# carried no name and were kept).
# Exit: 0; 1 a window is missing or empty; 2 bad usage or input.
set -uo pipefail
me=${0##*/}
[ $# -eq 1 ] || { echo "usage: $me RUN_DIR" >&2; exit 2; }
d=$1
for f in insns.tsv marks.tsv; do
	[ -f "$d/$f" ] || { echo "$me: $d/$f not found (not an icount run?)" >&2; exit 2; }
done
delta=$(dirname "$0")/insns-delta.sh
rc=0
while read -r id name p bytes rest; do
	[[ "$id" =~ ^[1-9][0-9]*$ && "$p" =~ ^[1-9][0-9]*$ && "$bytes" =~ ^[1-9][0-9]*$ && -z "$rest" ]] ||
		{ echo "$me: $d/marks.tsv: bad line '$id $name $p $bytes $rest'" >&2; exit 2; }
	if ! j=$("$delta" "$d/insns.tsv" "$id" $((id + 1))); then
		echo "$me: $name: no instruction window $id..$((id + 1))" >&2
		rc=1
		continue
	fi
	case $name in
	fixed.*) metrics='[["insn_per_byte", .total], ["insn_kernel_per_byte", .kernel],
			   ["insn_cpu0_per_byte", (.vcpus[0].user + .vcpus[0].kernel)],
			   ["insn_cpu1_per_byte", (.vcpus[1].user + .vcpus[1].kernel)]]' ;;
	match.*) metrics='[["insn_per_byte_match", .total]]' ;;
	traced.*) metrics='[["insn_per_byte_traced", .total]]' ;;
	*) echo "$me: $d/marks.tsv: unknown transfer '$name'" >&2; exit 2 ;;
	esac
	if [[ $name == fixed.* ]]; then
		secs=$(grep '^{"tool":"vb-recv"' "$d/raw/$name.rx.out" 2>/dev/null | tail -n 1 |
			sed -n 's/.*"seconds_from_accept":\([0-9.eE+-]*\).*/\1/p')
		[ -n "$secs" ] && jq -c --argjson p "$p" --argjson s "$secs" --arg x "$name" \
			'{payload: $p, metric: "icount_warp_pct", value: ([0, 100 * (1 - .total / ($s * 1e9))] | max), xfer: $x}' <<<"$j"
	fi
	jq -c --argjson p "$p" --argjson b "$bytes" --arg x "$name" \
		"$metrics | .[] | select(.[1] != null) | {payload: \$p, metric: .[0], value: (.[1] / \$b), xfer: \$x}" \
		<<<"$j" || exit 2
done <"$d/marks.tsv"
exit $rc
