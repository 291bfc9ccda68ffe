#!/bin/bash
# lab.sh: the project's main job (`make lab`).
#
# Builds or reuses the baseline, p1-3 and patched guest kernels of the
# 7.2 series and prints what the series changes on the path its headline
# is about, host -> guest through the guest's RX worker, measured so that
# one run per kernel means something:
#  1. the upstream suite (vsock_test over loopback) on baseline and
#     patched, and vsock_perf at 64 B, 4 KiB and 64 KiB (raw outputs kept;
#     its wall-clock rates are single TCG runs, so no change is printed);
#  2. the instruction-count experiment host -> guest (scripts/experiment.sh
#     --quick --mode h2g --clock icount --payloads "64 4K 64K" at the
#     committed set's transfer sizes): the host writes through the lab's
#     vhost-user device, virtio_transport_rx_work() receives on vCPU 1;
#     guest instructions per received byte, printed with the smallest
#     change the committed set (results/2026-12-07-h2g-icount-v3-la) could
#     resolve, since the work varies from boot to boot; the mechanism
#     counts of the traced runs (packets per lock window, data-ready calls
#     and socket lookups per packet, recv() calls) and the tracer's own
#     measured cost.  Wall-clock changes need AB/BA pairs and their CIs:
#     `make experiment`.
# Run files go to build/lab/<timestamp>/<variant>/ and .../experiment/
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
SERIES=7.2
for v in baseline-$SERIES patched-$SERIES; do
	log "$v: kernel"
	"$VB_ROOT/scripts/kernel-build.sh" "$v" >/dev/null || die "$v: kernel build failed"
	log "$v: guest run ($SMP vCPUs)"
	"$VB_ROOT/scripts/guest-run.sh" -k "$v" -s "$SMP" -t 1800 -o "$OUT/$v" \
		"$VB_ROOT/tests/guest/lab-default.sh" "${SIZES[@]}" >/dev/null ||
		status=1
done

echo
echo "vsockbatch lab: $(uname -m) host, QEMU TCG, $SMP vCPUs, Linux $SERIES; $OUT"
for v in baseline-$SERIES patched-$SERIES; do
	printf 'vsock_test (loopback) on %-13s %s\n' "$v:" \
		"$( [ -f "$OUT/$v/vsock_test.json" ] && jq -r '"\(.passed)/\(.total) passed"' "$OUT/$v/vsock_test.json" 2>/dev/null || echo "did not run")"
done
echo "(vsock_perf outputs in $OUT/*/vsock_perf.*: single wall-clock runs, no change shown)"

# --- instruction counts: one icount boot per kernel --------------------
echo
log "instruction counts: scripts/experiment.sh --quick --mode h2g --series $SERIES --clock icount"
# The committed set's transfer sizes (64 B -> 4 MiB, 4 KiB and 64 KiB ->
# 64 MiB): --quick's 0.5-2 MiB transfers spread by tens of percent
# between boots, these by the amounts the set measured.
"$VB_ROOT/scripts/experiment.sh" --quick --mode h2g --series "$SERIES" \
	--clock icount --payloads "64 4K 64K" \
	--scale 65536 --cap 64M --label lab-icount --out "$OUT/experiment" \
	>"$OUT/experiment.txt" 2>"$OUT/experiment.err" || status=1
sum=$OUT/experiment/summary.json
if ! jq -e '.clock == "icount"' "$sum" >/dev/null 2>&1; then
	echo "the instruction-count experiment failed; see $OUT/experiment.err:"
	tail -n 5 "$OUT/experiment.err"
	exit 1
fi
# The committed instruction-count set says how far one boot is from the
# next: its MDE at each payload is what one pair cannot tell from noise.
REF_SET=$VB_ROOT/results/2026-12-07-h2g-icount-v3-la
echo "Guest instructions per received byte (icount, untraced, fixed 64 KiB recv(), host -> guest;"
echo "one boot per kernel, change vs baseline).  Counts are exact, but the work itself varies"
echo "from boot to boot (how the sender, worker and reader interleave):"
if [ -f "$REF_SET/summary.json" ]; then
	jq -r '"the committed set \(input_filename | split("/") | .[-2]) (\(.rounds) pairs) could tell apart only changes above " +
		([.comparisons[0].rows[] | select(.metric == "insn_per_byte" and (.payload == 64 or .payload == 4096 or .payload == 65536))
		  | "\(.mde_pct * 10 | round / 10) % at \(if .payload >= 1024 then "\(.payload / 1024)K" else "\(.payload)B" end)"] | join(", ")) +
		"; a smaller change below is not resolved."' "$REF_SET/summary.json"
fi
jq -r '
def row($c; $m; $p): (.comparisons[] | select(.name == $c) | .rows[] | select(.metric == $m and .payload == $p));
def pl: if . >= 1024 then "\(. / 1024 | floor)K" else "\(.)B" end;
def f: if . == null then "-" elif . >= 100 then (. | round | tostring) else ((. * 100 | round) / 100 | tostring) end;
def ch: if . == null then "-" else (if . >= 0 then "+" else "" end) + ((. * 10 | round) / 10 | tostring) + "%" end;
(["payload", "baseline", "p1-3", "patched", "p1-3 chg", "patched chg"] | @tsv),
(.comparisons[0].rows | map(select(.metric == "insn_per_byte")) | .[].payload) as $p |
[ ($p | pl),
  (row("baseline->patched"; "insn_per_byte"; $p).baseline | f),
  (row("baseline->p1-3"; "insn_per_byte"; $p).patched | f),
  (row("baseline->patched"; "insn_per_byte"; $p).patched | f),
  (row("baseline->p1-3"; "insn_per_byte"; $p).change_pct | ch),
  (row("baseline->patched"; "insn_per_byte"; $p).change_pct | ch) ] | @tsv' "$sum" | column -t -s $'\t'
echo
echo "Mechanism, traced runs (baseline / patched): packets per lock window, data-ready"
echo "calls per packet, socket lookups per packet; recv() calls of the 64 KiB receiver"
jq -r '
def row($m; $p): (.comparisons[] | select(.name == "baseline->patched") | .rows[] | select(.metric == $m and .payload == $p));
def pl: if . >= 1024 then "\(. / 1024 | floor)K" else "\(.)B" end;
def f: if . == null then "-" elif . >= 100 then (. | round | tostring) else ((. * 100 | round) / 100 | tostring) end;
def two($m; $p): (row($m; $p) | "\(.baseline | f) / \(.patched | f)");
(["payload", "pkts/window", "data-ready/pkt", "lookups/pkt", "recv() calls"] | @tsv),
(.comparisons[0].rows | map(select(.metric == "insn_per_byte")) | .[].payload) as $p |
[($p | pl), two("batch_pkts"; $p), two("dr_per_pkt"; $p), two("lookups_per_pkt"; $p), two("recv_calls_fixed"; $p)] | @tsv' "$sum" | column -t -s $'\t'
echo
echo "The tracer's own cost (traced / untraced instructions per byte - 1):"
jq -r '.tracer_overhead | group_by(.payload)[] |
	"  \(.[0].payload) B: " + (map("\(.state) \(.overhead_pct * 10 | round / 10)%") | join(", "))' "$sum"
echo
echo "Full tables: $OUT/experiment/report.md.  Wall-clock throughput with AB/BA pairs and"
echo "95% CIs: make experiment (results/ holds the committed sets)."
exit $status
