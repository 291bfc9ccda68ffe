#!/bin/bash
# traced-waits.sh SET [SET...]: who waited, per kernel state and payload,
# in the traced transfers of experiment sets (experiment.sh: one traced
# transfer per payload in each traced round).
#
# For every traced recording (runs/rNN-STATE/traced/PAYLOAD.json, read
# from the set's raw.tar.xz) it takes, from `vsockbatch advise --json`
# and `vsockbatch report --json`:
#   stall %    the credit rule's share of the recording during which the
#              sender had no credit left (advise: credit_wait_share)
#   windows %  lock windows that left the sender < 4 KiB of credit
#              (advise: stalled_windows)
#   wait us    mean time a task slept in lock_sock() for a vsock socket
#              (report: user_wait_mean_ns), and the waits per MiB
#   pkts/run   packets per lock window
#   ends       the run end reasons (kernels with the rx_batch event)
# and prints, per SET, payload and state: the mean over rounds and the
# range of the stall share, and the means of the others.  Several SETs
# are pooled when they hold the same states.  A Markdown table on stdout
# (--tsv: one row per recording instead).
# Exit 0, 1 when a recording cannot be read, 2 bad usage.
set -uo pipefail
. "$(dirname "$0")/lib.sh"

usage() {
	echo "usage: ${0##*/} [--tsv] SET [SET...]" >&2
	exit 2
}

TSV=0
[ "${1:-}" = --tsv ] && { TSV=1; shift; }
[ $# -ge 1 ] || usage
VB=${VB_TOOL:-$VB_ROOT/build/vsockbatch}
[ -x "$VB" ] || die "$VB: not built (make all)"

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
rows=$tmp/rows.tsv
: >"$rows"
n=0
for set in "$@"; do
	n=$((n + 1))
	d=$(set_raw "$set" "$tmp/raw$n") || exit $?
	for f in "$d"/runs/r*-*/traced/*.json; do
		[ -f "$f" ] || continue
		run=${f%/traced/*}; run=${run##*/}
		state=${run#r*-}
		payload=$(basename "$f" .json)
		a=$("$VB" advise --json "$f" 2>/dev/null) &&
			r=$("$VB" report --json "$f" 2>/dev/null) ||
			{ echo "${0##*/}: $f: advise or report failed" >&2; exit 1; }
		jq -rn --argjson a "$a" --argjson r "$r" --arg state "$state" \
			--arg p "$payload" --arg run "$run" '
			([$a.findings[] | select(.rule == "credit") | .evidence][0] // {}) as $c |
			$r.totals as $t |
			[$p, $state, $run, ($c.credit_wait_share // "nan"),
			 ($c.stalled_windows // "nan"),
			 ($r.metrics.user_wait_mean_ns // 0) / 1000,
			 ($r.metrics.user_waits_per_mb // 0),
			 (if ($t.batches // 0) > 0 then $t.batch_pkts / $t.batches else 1 end),
			 ([$t | to_entries[] | select(.key | startswith("kb_end_")) |
			   select(.value > 0) | "\(.key | ltrimstr("kb_end_"))=\(.value)"] |
			   join(" "))] | @tsv' >>"$rows"
	done
done
[ -s "$rows" ] || die "no traced recordings in $*"

if [ "$TSV" = 1 ]; then
	printf 'payload\tstate\trun\tstall_pct\tstalled_windows_pct\twait_mean_us\twaits_per_mib\tpkts_per_run\tends\n'
	sort -t$'\t' -k1,1n -k2,2 -k3,3 "$rows"
	exit 0
fi
echo "| payload | state | n | sender stalled on credit, % of the recording: mean [min, max] | windows leaving < 4 KiB credit, % | reader wait in lock_sock(), mean us | waits per MiB | packets per run |"
echo "|---|---|---:|---|---:|---:|---:|---:|"
sort -t$'\t' -k1,1n -k2,2 "$rows" | awk -F'\t' '
# light-mode recordings have no credit samples: their stall is "nan"
function flush() {
	if (k == "") return
	if (sc)
		printf "| %s | %s | %d | %.1f [%.1f, %.1f] | %.1f |", pl, st, c,
			s / sc, mn, mx, w / sc
	else
		printf "| %s | %s | %d | not measured (light mode) | - |", pl, st, c
	printf " %.0f | %.2f | %.2f |\n", u / c, q / c, b / c
}
{
	key = $1 SUBSEP $2
	if (key != k) { flush(); k = key; pl = $1; st = $2; c = sc = s = w = u = q = b = 0; mn = 1e9; mx = -1 }
	c++; u += $6; q += $7; b += $8
	if ($4 != "nan") {
		sc++; s += $4; w += $5
		if ($4 < mn) mn = $4
		if ($4 > mx) mx = $4
	}
}
END { flush() }'
