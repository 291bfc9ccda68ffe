#!/bin/bash
# export-read-cost.sh [--rounds N] [-k VARIANT] [--out DIR]: what
# `vsockbatch export` costs when nothing happens - its map reads - in
# guest instructions under QEMU -icount (tests/guest/export-read-cost.sh:
# 5 s idle without and with an exporter reading every 0.1 s, N rounds,
# default 3, one boot).  Prints and writes OUT/read-cost.tsv: per round
# the idle and exporter windows' instructions, the reads in the window and
# (exporter - idle) / reads = instructions per read.  The per-byte cost
# of the tracer under traffic is scripts/tracer-overhead.sh --exporter.
# Default OUT: results/<UTC date>-export-read-cost.
set -uo pipefail
. "$(dirname "$0")/lib.sh"
ROUNDS=3 VARIANT=patched OUT=
bad() { echo "${0##*/}: $*" >&2; exit 2; }
while [ $# -gt 0 ]; do
	case $1 in
	--rounds) ROUNDS=${2-}; shift ;;
	-k) VARIANT=${2-}; shift ;;
	--out) OUT=${2-}; shift ;;
	*) sed -n '2,/^set -uo/p' "$0" | sed '$d; s/^# \{0,1\}//' >&2; exit 2 ;;
	esac
	shift
done
[[ "$ROUNDS" =~ ^[1-9][0-9]*$ ]] || bad "--rounds needs a whole number >= 1"
[ -n "$OUT" ] || OUT=$VB_ROOT/results/$(date -u +%Y-%m-%d)-export-read-cost
[ -z "$(ls -A "$OUT" 2>/dev/null)" ] || bad "$OUT exists and is not empty (--out)"
mkdir -p "$OUT" && OUT=$(cd "$OUT" && pwd) || exit 1
make -C "$VB_ROOT" -j2 all >"$OUT/build.log" 2>&1 || die "build failed ($OUT/build.log)"
"$VB_ROOT/scripts/guest-run.sh" -k "$VARIANT" -C icount -t 1200 -o "$OUT" \
	"$VB_ROOT/tests/guest/export-read-cost.sh" "$ROUNDS" >/dev/null 2>"$OUT/guest-run.err" ||
	die "guest run failed ($OUT/guest-run.err, $OUT/console.log)"
printf 'round\tidle_insns\texport_insns\treads\tinsns_per_read\n' >"$OUT/read-cost.tsv"
while IFS=$'\t' read -r r reads; do
	m=$((4 * r))
	idle=$("$VB_ROOT/scripts/insns-delta.sh" "$OUT/insns.tsv" $((m + 1)) $((m + 2)) | jq .total) || die "round $r: marks missing"
	exp=$("$VB_ROOT/scripts/insns-delta.sh" "$OUT/insns.tsv" $((m + 3)) $((m + 4)) | jq .total) || die "round $r: marks missing"
	printf '%s\t%s\t%s\t%s\t%s\n' "$r" "$idle" "$exp" "$reads" \
		"$(awk -v a="$exp" -v b="$idle" -v n="$reads" 'BEGIN { printf "%.0f", n ? (a - b) / n : 0 }')"
done <"$OUT/reads.tsv" >>"$OUT/read-cost.tsv"
cat "$OUT/read-cost.tsv"
