#!/bin/bash
# duty-toggle-cost.sh [--boots N] [--seconds S] [--duty N] [--kernel K] --out DIR
#
# What one on/off cycle of `record --duty` costs, in guest instructions:
# per boot (QEMU -icount + the vb-insns plugin with its block profile,
# tests/guest/duty-toggle.sh) an idle full-mode recording of S seconds
# (default 6) and an idle `--duty N` one (default 16) of the same length,
# no traffic.  The second's extra instructions over the first, divided by
# the on slices it began (its record line), are the cost of one cycle:
# attaching and detaching the window hooks (tp_btf recv_pkt, fentry
# vsock_data_ready, fexit virtio_transport_recv_pkt) and the wake-ups
# that time them.  The block profile says where they go.  Instruction
# counts, not wall-clock.
#
# DIR: per boot its run (bN/), cycles.tsv (boot, slices, extra
# instructions, per cycle), functions.txt (boot 1's functions, the idle
# --duty recording against the idle full one), manifest.json.  Exclusion
# rule, fixed before the runs: a boot whose guest script failed is
# dropped; nothing else.
set -uo pipefail
. "$(dirname "$0")/lib.sh"
BOOTS=3 SECS=6 DUTY=16 KERNEL=baseline OUT=
bad() {
	echo "${0##*/}: $*" >&2
	exit 2
}
while [ $# -gt 0 ]; do
	case $1 in
	--boots) BOOTS=${2-}; shift ;;
	--seconds) SECS=${2-}; shift ;;
	--duty) DUTY=${2-}; shift ;;
	--kernel) KERNEL=${2-}; shift ;;
	--out) OUT=${2-}; shift ;;
	*) sed -n '2,/^set -uo/p' "$0" | sed '$d; s/^# \{0,1\}//' >&2; exit 2 ;;
	esac
	shift
done
[[ "$BOOTS" =~ ^[1-9]$ ]] || bad "--boots needs a number 1..9"
[[ "$SECS" =~ ^[1-9][0-9]?$ ]] || bad "--seconds needs a number 1..99"
[[ "$DUTY" =~ ^[0-9]+$ ]] && [ "$DUTY" -ge 2 ] && [ "$DUTY" -le 64 ] || bad "--duty needs a number 2..64"
case $KERNEL in baseline | baseline-7.2) ;; *) bad "--kernel: baseline or baseline-7.2" ;; esac
[ -n "$OUT" ] || bad "--out DIR is required"
[ -z "$(ls -A "$OUT" 2>/dev/null)" ] || bad "$OUT exists and is not empty"
mkdir -p "$OUT" && OUT=$(cd "$OUT" && pwd) || exit 1
make -C "$VB_ROOT" -j2 all >"$OUT/build.log" 2>&1 || die "build failed ($OUT/build.log)"
kd=$("$VB_ROOT/scripts/kernel-build.sh" "$KERNEL") || die "$KERNEL: no kernel"
t0=$(date +%s)
printf 'boot\tslices\textra_insns\tinsns_per_cycle\n' >"$OUT/cycles.tsv"
for ((b = 1; b <= BOOTS; b++)); do
	d=$OUT/b$b
	VB_INSNS_PROFILE=1 "$VB_ROOT/scripts/guest-run.sh" -K "$kd" -s 2 -t 1500 -C icount \
		-o "$d" "$VB_ROOT/tests/guest/duty-toggle.sh" "$SECS" "$DUTY" >/dev/null 2>"$d.err" ||
		{ echo "boot $b: guest failed" >>"$OUT/failed.txt"; continue; }
	n=$(sed -n 's/.*the window hooks saw [0-9]* of the packets in \([0-9]*\) slices.*/\1/p' "$d/duty.log")
	a=$("$VB_ROOT/scripts/insns-delta.sh" "$d/insns.tsv" 1 2 | jq -r .total)
	c=$("$VB_ROOT/scripts/insns-delta.sh" "$d/insns.tsv" 3 4 | jq -r .total)
	[ -n "$n" ] && [ "$n" -gt 0 ] && [ -n "$a" ] && [ -n "$c" ] ||
		{ echo "boot $b: no slice count or marks" >>"$OUT/failed.txt"; continue; }
	printf '%d\t%d\t%d\t%.0f\n' "$b" "$n" $((c - a)) "$(echo "($c - $a) / $n" | bc -l)" >>"$OUT/cycles.tsv"
	if [ "$b" = 1 ]; then
		# the profile's windows by name, as one 64 B "write" each:
		# its figures are the recordings' whole instructions
		printf '1 idlefull.64 64 64\n3 idleduty.64 64 64\n' >"$d/marks.tsv"
		"$VB_ROOT/scripts/insns-profile.sh" -m "$kd/System.map" -n 30 -x idleduty.64 \
			idlefull.64 "$d" -- "$d" >"$OUT/functions.txt" 2>"$OUT/functions.err"
	fi
	rm -f "$d"/profile.tsv* "$d/kallsyms-kernel.txt"
done
jq -n --arg cmd "scripts/duty-toggle-cost.sh --boots $BOOTS --seconds $SECS --duty $DUTY --kernel $KERNEL" \
	--arg commit "$(git -C "$VB_ROOT" rev-parse --short HEAD)$(git -C "$VB_ROOT" diff --quiet || echo +dirty)" \
	--arg kernel "$KERNEL $(basename "$kd")" --argjson boots "$BOOTS" \
	--arg secs "$(($(date +%s) - t0))" --arg failed "$(cat "$OUT/failed.txt" 2>/dev/null)" \
	'{what: "the cost of one on/off cycle of record --duty: an idle --duty recording against an idle full one of the same length, per boot, over the on slices begun",
	  clock: "icount (QEMU -icount shift=0,sleep=off + vb-insns plugin with block profile): instruction counts, not wall-clock",
	  command: $cmd, commit: $commit, kernel: $kernel, boots: $boots, vcpus: 2,
	  exclusions: "decided before the runs: a boot whose guest script failed is dropped; nothing else",
	  seconds: ($secs | tonumber), failed: $failed}' >"$OUT/manifest.json"
cat "$OUT/cycles.tsv"
awk -F'\t' 'NR > 1 { s += $4; n++ } END { if (n) printf "mean: %.0f guest instructions per cycle over %d boots\n", s / n, n }' "$OUT/cycles.tsv"
