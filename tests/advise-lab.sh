#!/bin/bash
# advise-lab.sh [-k VARIANT] [-o OUTDIR]: every advise rule in the lab, on
# a scenario where it must fire and one where it must not (make check).
#
# One guest boot (default: the baseline kernel) with the lab's
# vhost-user-vsock device; the host sends (scripts/advise-host.sh), the
# guest records each transfer (tests/guest/advise-run.sh), then
# `vsockbatch advise --json` runs here on every recording and the rule's
# verdict is checked.  "Past" means fires or not-limiting (a finding the
# rx-idle rule set aside); "clear" means measured and under threshold.
# Tiny transfers: the check is about verdicts, never about speed.
# Prints one line per check and "advise-lab: N passed, N failed".
set -uo pipefail
ROOT=$(cd "$(dirname "$0")/.." && pwd)
VARIANT=baseline OUT=
while getopts k:o: opt; do
	case $opt in
	k) VARIANT=$OPTARG ;;
	o) OUT=$OPTARG ;;
	*) echo "usage: ${0##*/} [-k VARIANT] [-o OUTDIR]" >&2; exit 2 ;;
	esac
done
[ -n "$OUT" ] || OUT=$(mktemp -d /tmp/vb-advise-lab.XXXXXX)
mkdir -p "$OUT" || exit 1
command -v jq >/dev/null || { echo "advise-lab: jq missing (make deps)" >&2; exit 2; }
VB=$ROOT/build/vsockbatch

# NAME TRACED PAYLOAD BYTES PAYLOAD2 BYTES2 VB-RECV-OPTIONS: the scenarios.
# Reader on vCPU 0 (away from the RX worker on vCPU 1) unless told.
# PAYLOAD@RATE paces the host's writes: a 64 B stream at 64 KiB/s wakes
# the reader for every packet however busy the host is, a 64 KiB one at
# 256 KiB/s leaves the guest idle.  rx-idle must not fire on cr-fire: a
# guest idle because its 4 KiB buffer starves the sender is the credit
# rule's finding, not "look at the host".
cat >"$OUT/plan.txt" <<'PLAN'
pp-fire   1 256   512K -   -    --cpu 0 --recv-size 64K
pp-clear  1 4096  2M   -   -    --cpu 0 --recv-size 64K --rcvlowat 32K
wk-fire   1 64@64K 128K -  -    --cpu 0 --recv-size 64K
wk-clear  1 64    256K -   -    --cpu 0 --recv-size 64K --rcvlowat 16K
rb-fire   1 200   256K -   -    --cpu 0 --recv-size 64 --vsk-size 8K
cr-fire   1 4096  1M   -   -    --cpu 0 --recv-size 64K --vsk-size 4K
sc-fire   1 1024  1M   -   -    --cpu 1 --recv-size 64K
sc-clear  1 1024  1M   -   -    --cpu 0 --recv-size 64K
id-fire   1 65536@256K 1M -  -    --cpu 0 --recv-size 64K
st-fire   1 65536 2M   4096 128K --cpu 0 --recv-size 64K
st-clear  1 4096  1M   4096 1M  --cpu 0 --recv-size 64K
PLAN
# (rule, scenario, expected): "clear" scenarios of one rule may be the
# "fire" scenario of another; each line is one check.
checks=(
	"per-packet pp-fire past"   "per-packet pp-clear clear"
	"wakeups wk-fire past"      "wakeups wk-clear clear"
	"rx-budget rb-fire past"    "rx-budget pp-clear clear"
	"credit cr-fire past"       "credit pp-clear clear"
	"same-cpu sc-fire past"     "same-cpu sc-clear clear"
	"rx-idle id-fire past"      "rx-idle cr-fire clear"
	"starve st-fire past"       "starve st-clear clear"
)

t0=$(date +%s)
"$ROOT/scripts/guest-run.sh" -k "$VARIANT" -t 600 -U \
	-H "'$ROOT/scripts/advise-host.sh'" -o "$OUT" \
	"$ROOT/tests/guest/advise-run.sh" >/dev/null 2>"$OUT/guest-run.err"
rc=$?
echo "advise-lab: guest run exit $rc after $(($(date +%s) - t0)) s ($OUT)"
passed=0 failed=0
verdict() {
	echo "$1 advise-lab: $2"
	if [ "$1" = PASS ]; then passed=$((passed + 1)); else failed=$((failed + 1)); fi
}
[ $rc -eq 0 ] || { tail -n 5 "$OUT/guest-run.err"; verdict FAIL "guest run (exit $rc)"; }
for c in "${checks[@]}"; do
	read -r rule scen want <<<"$c"
	f=$OUT/rec/$scen.json
	if [ ! -f "$f" ]; then
		verdict FAIL "$rule on $scen: no recording"
		continue
	fi
	if [ ! -f "$OUT/$scen.advise.json" ]; then
		"$VB" advise --json "$f" >"$OUT/$scen.advise.json" 2>"$OUT/$scen.advise.err"
		"$VB" advise "$f" >"$OUT/$scen.advise.txt" 2>&1
	fi
	got=$(jq -r --arg r "$rule" '.findings[] | select(.rule == $r) | .verdict' \
		"$OUT/$scen.advise.json" 2>/dev/null)
	ev=$(jq -r --arg r "$rule" '.findings[] | select(.rule == $r) | .evidence_text' \
		"$OUT/$scen.advise.json" 2>/dev/null)
	case $want/$got in
	past/fires|past/not-limiting|clear/clear)
		verdict PASS "$rule on $scen: $got ($ev)" ;;
	*)	verdict FAIL "$rule on $scen: '$got', expected $want ($ev)" ;;
	esac
done
# every rendering of every recording fits 80 columns
wide=$(cat "$OUT"/*.advise.txt 2>/dev/null | awk 'length > 80' | wc -l)
[ "$wide" -eq 0 ] && verdict PASS "text fits 80 columns" ||
	verdict FAIL "$wide advise text lines wider than 80 columns"
echo "advise-lab: $passed passed, $failed failed ($(($(date +%s) - t0)) s)"
[ "$failed" -eq 0 ]
