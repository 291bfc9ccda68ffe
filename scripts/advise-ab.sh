#!/bin/bash
# advise-ab.sh RULE [--pairs N] [--bytes SIZE] [-k VARIANT] [--icount]
#              [--out DIR]
# advise-ab.sh --list
#
# AB/BA runs of one piece of `vsockbatch advise` advice in the lab: A is a
# host->guest transfer on which RULE fires, B the same transfer with the
# rule's advice followed.  One guest boot (scripts/guest-run.sh -U, the
# lab's vhost-user-vsock device; default kernel baseline) runs N pairs,
# A then B in even pairs and B then A in odd ones, so drift cancels
# inside a pair.  Each configuration is run twice per pair: untraced
# (throughput, recv() calls; with --icount the guest's instructions per
# byte between vb-mark marks, QEMU -icount + the lab's plugin) and under
# `vsockbatch record` (the rule's evidence, from `vsockbatch advise
# --json`).  Statistics: `vsockbatch-lab abstat` (geometric-mean change
# B/A, 95 % t-interval on the pair log ratios, pair bootstrap, AB/BA
# order check), the same as the experiment's summary.
#
# Output (default results/<UTC date>-advise-RULE/): plan.txt, steps.tsv,
# rec/*.json, raw/, pairs.tsv (abstat input), abstat.txt/.json,
# advise-A.txt / advise-B.txt (advise on the first pair's recordings),
# manifest.json (command, kernel, host load at start and end, git
# commit); all but the tables and the manifest end in raw.tar.xz
# (scripts/results-raw.sh).  Exit 0 done, 1 a run failed, 2 bad usage.
set -uo pipefail
. "$(dirname "$0")/lib.sh"

# RULE -> "PAYLOAD_A|RECV_A|PAYLOAD_B|RECV_B|EVIDENCE|WHAT": the scenario
# where the rule fires (A) and the same with its advice followed (B);
# PAYLOAD@RATE paces the host's writes (advise-host.sh).  wakeups is paced:
# an unpaced 64 B stream stops waking the reader per packet when the host
# is busy (and under --icount), and the rule no longer fires on A.
declare -A SCEN=(
	[per-packet]="256|--cpu 0 --recv-size 64K|4096|--cpu 0 --recv-size 64K|bytes_per_pkt|sender writes 256 B -> 4 KiB"
	[wakeups]="64@64K|--cpu 0 --recv-size 64K|64@64K|--cpu 0 --recv-size 64K --rcvlowat 16K|recv_calls_per_mb|SO_RCVLOWAT 1 -> 16 KiB (64 B writes paced to 64 KiB/s)"
	[credit]="4096|--cpu 0 --recv-size 64K --vsk-size 4K|4096|--cpu 0 --recv-size 64K --vsk-size 256K|stalled_windows|receiver buffer 4 KiB -> 256 KiB"
	[rx-budget]="200|--cpu 0 --recv-size 64 --vsk-size 8K|200|--cpu 0 --recv-size 64 --vsk-size 256K|windows_at_budget|receiver buffer 8 KiB -> 256 KiB"
	[same-cpu]="64|--cpu 1 --recv-size 64K|64|--cpu 0 --recv-size 64K|reader_share_on_rx_cpu|reader on the RX vCPU 1 -> vCPU 0"
	[starve]="65536|--cpu 0 --recv-size 64K|65536|--cpu 0 --recv-size 64K --vsk-size 32K // --cpu 0 --recv-size 64K|top_flow_share|bulk flow's receive buffer 256 KiB -> 32 KiB, beside a 4 KiB-write flow (256 KiB)"
)

usage() {
	sed -n '2,/^set -uo/p' "$0" | sed '$d; s/^# \{0,1\}//' >&2
	exit 2
}
RULE= PAIRS=6 BYTES= VARIANT=baseline ICOUNT=0 OUT=
while [ $# -gt 0 ]; do
	case $1 in
	--list) for r in "${!SCEN[@]}"; do echo "$r: ${SCEN[$r]##*|}"; done | sort; exit 0 ;;
	--pairs) PAIRS=${2-}; shift ;;
	--bytes) BYTES=${2-}; shift ;;
	-k) VARIANT=${2-}; shift ;;
	--icount) ICOUNT=1 ;;
	--out) OUT=${2-}; shift ;;
	-h|--help) usage ;;
	-*) echo "${0##*/}: unknown option '$1'" >&2; usage ;;
	*) [ -z "$RULE" ] || usage; RULE=$1 ;;
	esac
	shift
done
[ -n "$RULE" ] || usage
[ -n "${SCEN[$RULE]:-}" ] || { echo "${0##*/}: no AB scenario for rule '$RULE' (--list)" >&2; exit 2; }
[[ "$PAIRS" =~ ^[1-9][0-9]*$ ]] && [ "$PAIRS" -ge 2 ] ||
	{ echo "${0##*/}: --pairs needs a number >= 2, not '$PAIRS'" >&2; exit 2; }
[ -z "$BYTES" ] || [[ "$BYTES" =~ ^[1-9][0-9]*[KM]?$ ]] ||
	{ echo "${0##*/}: bad --bytes '$BYTES'" >&2; exit 2; }
command -v jq >/dev/null || die "jq missing (make deps)"
VB=$VB_ROOT/build/vsockbatch LAB=$VB_ROOT/build/vsockbatch-lab
[ -x "$VB" ] && [ -x "$LAB" ] || die "build/vsockbatch(-lab) missing (run make)"
IFS='|' read -r PA RA PB RB EVID WHAT <<<"${SCEN[$RULE]}"
# starve: a second, small flow beside the bulk one ("PAYLOAD BYTES")
FLOW2="- -"
[ "$RULE" = starve ] && FLOW2="4096 256K"
# Default size: the smaller payload x 4096, at most 4 MiB (64 B -> 256 KiB:
# a 64 B transfer under TCG runs at ~0.1-2 MB/s)
if [ -z "$BYTES" ]; then
	a=${PA%@*} b=${PB%@*}
	b=$(( (a < b ? a : b) * 4096 ))
	((b <= 4194304)) || b=4194304
	BYTES=$b
fi
[ -n "$OUT" ] || OUT=$VB_ROOT/results/$(date -u +%Y-%m-%d)-advise-$RULE
if [ -e "$OUT" ] && [ -n "$(ls -A "$OUT" 2>/dev/null)" ]; then
	echo "${0##*/}: $OUT exists and is not empty (--out)" >&2
	exit 2
fi
mkdir -p "$OUT" || exit 1
OUT=$(cd "$OUT" && pwd)

# The plan: per pair, per side in this pair's order, untraced then traced.
{
	echo "# advise-ab $RULE: A = rule fires, B = advice followed ($WHAT)"
	for ((i = 0; i < PAIRS; i++)); do
		if ((i % 2 == 0)); then order="A B"; else order="B A"; fi
		for s in $order; do
			if [ "$s" = A ]; then p=$PA r=$RA; else p=$PB r=$RB; fi
			echo "p$i-$s-u 0 $p $BYTES $FLOW2 $r"
			echo "p$i-$s-t 1 $p $BYTES $FLOW2 $r"
		done
	done
} >"$OUT/plan.txt"

kdir=$("$VB_ROOT/scripts/kernel-build.sh" "$VARIANT") || die "$VARIANT: kernel build failed"
load0=$(cut -d' ' -f1-3 /proc/loadavg) t0=$(date +%s)
# What was measured, taken before the run; tree hashes survive a rebase.
git=$(git -C "$VB_ROOT" rev-parse --short HEAD)$(git -C "$VB_ROOT" diff --quiet HEAD -- bpf include tools scripts tests || echo +dirty)
trees=$(for d in bpf scripts tests/guest; do echo "$d $(git -C "$VB_ROOT" rev-parse --short "HEAD:$d")"; done | paste -sd" ")
cargs=()
[ "$ICOUNT" = 1 ] && cargs=(-C icount)
log "advise-ab $RULE: $PAIRS pairs on $VARIANT ($WHAT), into $OUT"
"$VB_ROOT/scripts/guest-run.sh" -K "$kdir" -t 1500 -U "${cargs[@]}" \
	-H "'$VB_ROOT/scripts/advise-host.sh'" -o "$OUT" \
	"$VB_ROOT/tests/guest/advise-run.sh" >/dev/null 2>"$OUT/guest-run.err"
rc=$?
load1=$(cut -d' ' -f1-3 /proc/loadavg)
log "guest run exit $rc after $(($(date +%s) - t0)) s; host load $load0 -> $load1"

# pairs.tsv: per pair, both sides' figures
col() { awk -F'\t' -v n="$1" -v c="$2" '$1 == n { print $c }' "$OUT/steps.tsv"; }
ev() { # ev STEP: the rule's evidence figure in that step's recording
	[ -f "$OUT/rec/$1.json" ] || return
	"$VB" advise --json "$OUT/rec/$1.json" 2>/dev/null |
		jq -r --arg r "$RULE" --arg e "$EVID" \
		'.findings[] | select(.rule == $r) | .evidence[$e] // empty'
}
insns() { # insns STEP_INDEX (1-based): guest instructions between its marks
	[ -f "$OUT/insns.tsv" ] || return
	"$VB_ROOT/scripts/insns-delta.sh" "$OUT/insns.tsv" $((2 * $1 - 1)) $((2 * $1)) 2>/dev/null |
		jq -r '.total // empty'
}
idx() { grep -v '^#' "$OUT/plan.txt" | awk -v n="$1" '$1 == n { print NR }'; }
: >"$OUT/pairs.tsv"
for ((i = 0; i < PAIRS; i++)); do
	ord=AB
	((i % 2)) && ord=BA
	for m in gbps gbps_flow2 recv_calls evidence insns_per_byte; do
		a= b=
		case $m in
		gbps) a=$(col "p$i-A-u" 4) b=$(col "p$i-B-u" 4) ;;
		gbps_flow2) a=$(col "p$i-A-u" 7) b=$(col "p$i-B-u" 7) ;;
		recv_calls) a=$(col "p$i-A-u" 5) b=$(col "p$i-B-u" 5) ;;
		evidence) a=$(ev "p$i-A-t") b=$(ev "p$i-B-t") ;;
		insns_per_byte)
			ia=$(insns "$(idx "p$i-A-u")") ib=$(insns "$(idx "p$i-B-u")")
			by=$(col "p$i-A-u" 3)
			[ -n "$ia" ] && [ -n "$ib" ] && [ -n "$by" ] &&
				a=$(awk -v x="$ia" -v y="$by" 'BEGIN { print x / y }') &&
				b=$(awk -v x="$ib" -v y="$by" 'BEGIN { print x / y }') ;;
		esac
		[ "$m" = evidence ] && m=$EVID
		# abstat needs positive values; a zero (e.g. no credit wait
		# after the fix) is reported in steps/advise files instead
		awk -v a="$a" -v b="$b" 'BEGIN { exit !(a > 0 && b > 0) }' 2>/dev/null &&
			printf '%s\t%d\t%s\t%s\t%s\n' "$m" "$i" "$ord" "$a" "$b" >>"$OUT/pairs.tsv"
	done
done
"$LAB" abstat "$OUT/pairs.tsv" >"$OUT/abstat.txt" 2>&1
"$LAB" abstat --json "$OUT/pairs.tsv" >"$OUT/abstat.json" 2>/dev/null
"$VB" advise "$OUT/rec/p0-A-t.json" >"$OUT/advise-A.txt" 2>&1
"$VB" advise "$OUT/rec/p0-B-t.json" >"$OUT/advise-B.txt" 2>&1
# the rule's verdict in every recording: fires on A, not on B
for f in "$OUT"/rec/*.json; do
	printf '%s\t%s\n' "$(basename "$f" .json)" "$("$VB" advise --json "$f" 2>/dev/null |
		jq -r --arg r "$RULE" '.findings[] | select(.rule == $r) | .verdict')"
done >"$OUT/verdicts.tsv"
jq -n --arg rule "$RULE" --arg what "$WHAT" --argjson pairs "$PAIRS" --arg bytes "$BYTES" \
	--arg kernel "$VARIANT $(basename "$kdir")" --arg a "payload $PA, vb-recv $RA" \
	--arg b "payload $PB, vb-recv $RB" --arg l0 "$load0" --arg l1 "$load1" \
	--argjson icount "$ICOUNT" --argjson rc "$rc" --arg secs "$(($(date +%s) - t0))" \
	--arg git "$git" --arg trees "$trees" \
	--arg cmd "scripts/advise-ab.sh $RULE --pairs $PAIRS --bytes $BYTES -k $VARIANT$([ "$ICOUNT" = 1 ] && echo ' --icount')" \
	'{rule: $rule, change: $what, pairs: $pairs, bytes_per_transfer: $bytes, kernel: $kernel,
	  a: $a, b: $b, icount: ($icount == 1), guest_exit: $rc, seconds: ($secs | tonumber),
	  host_load_start: $l0, host_load_end: $l1, repo_commit: $git,
	  trees_bpf_scripts_tests_guest: $trees, command: $cmd,
	  exclusions: "none: every pair with both values positive enters the statistics"}' >"$OUT/manifest.json"
cat "$OUT/abstat.txt"
cut -f2 "$OUT/verdicts.tsv" | sort | uniq -c | sed 's/^/verdicts: /'
# the raw files into one archive, as experiment.sh does
"$VB_ROOT/scripts/results-raw.sh" pack "$OUT" || rc=1
[ $rc -eq 0 ]
