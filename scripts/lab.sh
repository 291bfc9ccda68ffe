#!/bin/bash
# lab.sh: the project's main job (`make lab`).
#
# Builds or reuses the baseline and patched guest kernels, boots each under
# QEMU TCG, runs the default experiment there (upstream vsock_test over
# loopback, then vsock_perf at 64 B, 4 KiB and 64 KiB) and prints the two
# side by side; then the quick AB/BA experiment (scripts/experiment.sh
# --quick, all three kernel states) and its headline table.  Run files
# go to build/lab/<timestamp>/<variant>/ and .../experiment/
set -uo pipefail
. "$(dirname "$0")/lib.sh"

usage() {
	echo "usage: ${0##*/} [-s SMP] [SIZE:BYTES ...]   (default 64:1M 4K:16M 64K:64M)" >&2
	exit 2
}
SMP=2
while getopts s:h opt; do
	case $opt in
	s) SMP=$OPTARG ;;
	*) usage ;;
	esac
done
shift $((OPTIND - 1))
SIZES=("$@")
[ ${#SIZES[@]} -gt 0 ] || SIZES=(64:1M 4K:16M 64K:64M)
for s in "${SIZES[@]}"; do
	[[ "$s" =~ ^[0-9]+[KMG]?:[0-9]+[KMG]?$ ]] || { echo "${0##*/}: bad size spec '$s'" >&2; usage; }
done
command -v jq >/dev/null || die "jq missing (run make deps)"

OUT=$VB_ROOT/build/lab/$(date +%Y%m%d-%H%M%S)
mkdir -p "$OUT"
status=0
for v in baseline patched; do
	log "$v: kernel"
	"$VB_ROOT/scripts/kernel-build.sh" "$v" >/dev/null || die "$v: kernel build failed"
	log "$v: guest run ($SMP vCPUs)"
	"$VB_ROOT/scripts/guest-run.sh" -k "$v" -s "$SMP" -t 1800 -o "$OUT/$v" \
		"$VB_ROOT/tests/guest/lab-default.sh" "${SIZES[@]}" >/dev/null ||
		status=1
done

row() { printf '%-28s %14s %14s %9s\n' "$@"; }
get() { # get VARIANT FILE JQ
	[ -f "$OUT/$1/$2" ] && jq -r "$3" "$OUT/$1/$2" 2>/dev/null || echo "-"
}
echo
echo "vsockbatch lab: $(uname -m) host, QEMU TCG, $SMP vCPUs, loopback (CID 1); $OUT"
row "" baseline patched change
row "vsock_test passed" \
	"$(get baseline vsock_test.json '"\(.passed)/\(.total)"')" \
	"$(get patched vsock_test.json '"\(.passed)/\(.total)"')" ""
for s in "${SIZES[@]}"; do
	size=${s%%:*}
	sel=".[] | select(.size == \"$size\")"
	for m in rx_gbps pollin_wakeups; do
		b=$(jq -rn "[inputs] | $sel | .$m" "$OUT/baseline/vsock_perf.json" 2>/dev/null || echo -)
		p=$(jq -rn "[inputs] | $sel | .$m" "$OUT/patched/vsock_perf.json" 2>/dev/null || echo -)
		c=$(awk -v b="$b" -v p="$p" 'BEGIN { if (b + 0 > 0 && p != "-") printf "%+.1f%%", (p / b - 1) * 100; else print "-" }')
		row "vsock_perf $size $m" "${b:--}" "${p:--}" "$c"
	done
done
echo "(single runs: TCG timings are noisy; 'make experiment' gives AB/BA pairs with confidence intervals)"

# --- AB/BA experiment, quick variant ----------------------------------
# scripts/experiment.sh --quick: baseline, p1-3 and patched, one fresh
# guest each, one pair, payloads 64 B and 4 KiB, tiny transfers (a few
# minutes).  Its full set (report.md, summary.json, plots) lands in
# $OUT/experiment; `make experiment` runs the real matrix.
echo
log "AB/BA experiment (quick): scripts/experiment.sh --quick"
"$VB_ROOT/scripts/experiment.sh" --quick --label lab-quick \
	--out "$OUT/experiment" >"$OUT/experiment.txt" || status=1
echo "vsockbatch experiment (quick, 1 pair: changes without CIs; $OUT/experiment/report.md)"
cat "$OUT/experiment.txt"
exit $status
