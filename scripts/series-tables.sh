#!/bin/bash
# series-tables.sh: the series' headline tables, from committed
# experiment sets, as the cover letter and the README quote them.
#
#   scripts/series-tables.sh [--md] wall SET [SET2]
#   scripts/series-tables.sh [--md] icount SET
#   scripts/series-tables.sh [--md] traced [--state NAME[=LABEL]] SET [SET...]
#   scripts/series-tables.sh [--md] stall [--state NAME[=LABEL]] SET
#   scripts/series-tables.sh [--md] sendertime [--state NAME[=LABEL]] SET
#   scripts/series-tables.sh [--md] rtt SET
#
# wall: RX throughput with a fixed 64 KiB recv(), baseline -> patched,
# per payload: the change and its 95 % CI, the smallest change the set
# could detect (MDE, 80 % power), n pairs; with SET2 (a replicate) the
# same for it and, per payload, whether both sets resolve a loss (the
# upper CI bound below 0 in each).
# icount: guest instructions per received byte, baseline -> patched, per
# payload: all vCPUs and the RX worker's vCPU (mode h2g: vCPU 1), with
# CIs and n.
# traced: from the traced transfers (scripts/traced-waits.sh), baseline
# and patched (or the state --state NAME[=LABEL] names, shown as LABEL)
# at every traced payload: the share of the recording the
# sender was stalled on credit (mean and range) and the reader's mean
# wait in lock_sock().
# stall: the host sender's time without credit, as the lab's back-end
# counts it (scripts/sender-stall.sh), untraced and traced, baseline
# against patched (or --state): the means and the difference in points,
# paired by round, with its 95 % CI.
# sendertime: the same untraced transfers (fixed 64 KiB receiver) as the
# host sender's time per MiB, split by what held it back (sender-stall.sh
# --per-mib): without credit, with credit but no guest RX buffer (sets
# whose back-end logs it), moving data; and the guest packets per MiB
# that returned credit; baseline, patched (or --state), the paired
# difference with its 95 % CI.
# rtt: ping-pong round-trip time, baseline -> patched, per RTT size: the
# change of p50, p99 and (where the set has it) p99.9, with CIs and n.
# Plain text (a cover letter's) by default, --md for Markdown.
# Exit 0; 1 a set lacks what the table needs; 2 bad usage.
set -uo pipefail
. "$(dirname "$0")/lib.sh"
me=${0##*/}

usage() {
	echo "usage: $me [--md] wall SET [SET2] | icount SET | traced|stall|sendertime [--state NAME[=LABEL]] SET [SET...] | rtt SET" >&2
	exit 2
}

MD=0
[ "${1:-}" = --md ] && { MD=1; shift; }
[ $# -ge 2 ] || usage
kind=$1
shift
case $kind in wall|icount|traced|stall|sendertime|rtt) ;; *) usage ;; esac
state=patched label=
if [[ $kind == traced || $kind == stall || $kind == sendertime ]] && [ "${1:-}" = --state ]; then
	[ $# -ge 3 ] || usage
	state=${2%%=*} label=${2#*=}
	shift 2
fi
label=${label:-$state}
for s in "$@"; do
	[ -f "$s/summary.json" ] || { echo "$me: $s: no summary.json (not an experiment set)" >&2; exit 1; }
done

# rows METRIC SET: payload, change, lo, hi, mde, n of baseline->patched
rows() {
	jq -r --arg m "$1" '
		.comparisons[] | select(.baseline_state == "baseline" and
			.patched_state == "patched") | .rows[] |
		select(.metric == $m and (.traced | not)) |
		[.payload, .change_pct, .ci_low_pct, .ci_high_pct,
		 (.mde_pct // "nan"), .n_pairs] | @tsv' "$2"
}

# table HEADER... (tab-separated rows on stdin): Markdown or aligned text
table() {
	if [ "$MD" = 1 ]; then
		(IFS='|'; echo "|$*|")
		printf '|'; for _ in "$@"; do printf -- '---|'; done; echo
		sed 's/\t/ | /g; s/^/| /; s/$/ |/'
	else
		{ (IFS=$'\t'; echo "$*"); cat; } | column -t -s $'\t' | sed 's/^/  /'
	fi
}

pl() { awk -F'\t' 'BEGIN { OFS = "\t" } { p = $1; $1 = p >= 1024 ? p / 1024 " KiB" : p " B"; print }'; }

case $kind in
wall)
	[ $# -le 2 ] || usage
	a=$(rows tput_fixed_gbps "$1/summary.json")
	[ -n "$a" ] || { echo "$me: $1: no untraced tput_fixed_gbps rows baseline -> patched" >&2; exit 1; }
	if [ $# -eq 1 ]; then
		awk -F'\t' '{ printf "%s\t%+.1f %% [%+.1f, %+.1f]\t%.1f %%\t%d\n", $1, $2, $3, $4, $5, $6 }' <<<"$a" |
			pl | table payload "change [95 % CI]" MDE n
	else
		b=$(rows tput_fixed_gbps "$2/summary.json")
		[ -n "$b" ] || { echo "$me: $2: no untraced tput_fixed_gbps rows baseline -> patched" >&2; exit 1; }
		join -t $'\t' <(sort -t $'\t' -k1,1 <<<"$a") <(sort -t $'\t' -k1,1 <<<"$b") | sort -t $'\t' -k1,1n |
			awk -F'\t' '{
				both = ($4 < 0 && $9 < 0) ? "yes" : "no"
				printf "%s\t%+.1f %% [%+.1f, %+.1f]\t%.1f %%\t%d\t%+.1f %% [%+.1f, %+.1f]\t%.1f %%\t%d\t%s\n",
					$1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, both }' |
			pl | table payload "set 1 [95 % CI]" MDE n "set 2 [95 % CI]" MDE n "loss in both"
	fi ;;
icount)
	[ $# -eq 1 ] || usage
	jq -e '.clock == "icount"' "$1/summary.json" >/dev/null ||
		{ echo "$me: $1: not an instruction-count set" >&2; exit 1; }
	cpu=$(jq -r '.experiment.rx_cpu // 1' "$1/manifest.json")
	a=$(rows insn_per_byte "$1/summary.json")
	b=$(rows "insn_cpu${cpu}_per_byte" "$1/summary.json")
	[ -n "$a" ] && [ -n "$b" ] || { echo "$me: $1: no insn_per_byte rows baseline -> patched" >&2; exit 1; }
	join -t $'\t' <(sort -t $'\t' -k1,1 <<<"$a") <(sort -t $'\t' -k1,1 <<<"$b") | sort -t $'\t' -k1,1n |
		awk -F'\t' '{ printf "%s\t%+.1f %% [%+.1f, %+.1f]\t%+.1f %% [%+.1f, %+.1f]\t%d\n",
			$1, $2, $3, $4, $7, $8, $9, $6 }' |
		pl | table payload "all vCPUs [95 % CI]" "RX vCPU $cpu [95 % CI]" n ;;
traced)
	"$VB_ROOT/scripts/traced-waits.sh" --tsv "$@" >"${TMPDIR:-/tmp}/$me.$$" || exit 1
	# light-mode recordings: no credit samples, the stall is "nan"
	awk -F'\t' -v st="$state" 'NR > 1 && ($2 == "baseline" || $2 == st) {
		k = $1 "\t" $2; n[k]++; w[k] += $6
		if ($4 == "nan") next
		sn[k]++; s[k] += $4
		if (!(k in mn) || $4 < mn[k]) mn[k] = $4
		if (!(k in mx) || $4 > mx[k]) mx[k] = $4
	} END {
		for (k in n) {
			if (sn[k]) c = sprintf("%.1f %% [%.1f, %.1f]", s[k] / sn[k], mn[k], mx[k])
			else c = "not measured (light mode)"
			printf "%s\t%s\t%.0f us\t%d\n", k, c, w[k] / n[k], n[k]
		}
	}' "${TMPDIR:-/tmp}/$me.$$" | sort -t $'\t' -k1,1n -k2,2 | pl |
		awk -F'\t' -v st="$state" -v lb="$label" 'BEGIN { OFS = "\t" } $2 == st { $2 = lb } 1' |
		table payload kernel "sender stalled on credit: mean [min, max]" "reader wait in lock_sock(), mean" n
	rm -f "${TMPDIR:-/tmp}/$me.$$" ;;
rtt)
	[ $# -eq 1 ] || usage
	a=$(rows rtt_p50_us "$1/summary.json")
	b=$(rows rtt_p99_us "$1/summary.json")
	[ -n "$a" ] && [ -n "$b" ] || { echo "$me: $1: no rtt_p50_us/rtt_p99_us rows baseline -> patched" >&2; exit 1; }
	c=$(rows rtt_p999_us "$1/summary.json")
	# sizes without p99.9 (fewer than 1000 round trips): "-"
	[ -n "$c" ] || c=$(awk -F'\t' 'BEGIN { OFS = "\t" } { print $1, "nan", "nan", "nan", "nan", 0 }' <<<"$a")
	join -t $'\t' <(sort -t $'\t' -k1,1 <<<"$a") <(sort -t $'\t' -k1,1 <<<"$b") |
		join -t $'\t' - <(sort -t $'\t' -k1,1 <<<"$c") | sort -t $'\t' -k1,1n |
		awk -F'\t' '{
			p999 = $12 == "nan" ? "-" : sprintf("%+.1f %% [%+.1f, %+.1f]", $12, $13, $14)
			printf "%s\t%+.1f %% [%+.1f, %+.1f]\t%+.1f %% [%+.1f, %+.1f]\t%s\t%d\n",
				$1, $2, $3, $4, $7, $8, $9, p999, $6 }' |
		pl | table "RTT size" "p50 [95 % CI]" "p99 [95 % CI]" "p99.9 [95 % CI]" n ;;
stall)
	[ $# -eq 1 ] || usage
	a=$("$VB_ROOT/scripts/sender-stall.sh" --vs "$state" "$1") || exit 1
	[ -n "$a" ] || { echo "$me: $1: no state '$state' beside baseline" >&2; exit 1; }
	tm=$(jq -r '.experiment.trace_mode // "full"' "$1/manifest.json")
	awk -F'\t' -v tm="$tm" '$2 == "fixed" || $2 == "traced" {
		printf "%s\t%s\t%.1f %%\t%.1f %%\t%+.1f [%+.1f, %+.1f]\t%d\n", $1,
			$2 == "fixed" ? "untraced" : "traced (" tm ")", $4, $5, $6, $7, $8, $3
	}' <<<"$a" | pl |
		table payload transfer baseline "$label" "difference, points [95 % CI]" n ;;
sendertime)
	[ $# -eq 1 ] || usage
	a=$("$VB_ROOT/scripts/sender-stall.sh" --per-mib --vs "$state" "$1") || exit 1
	[ -n "$a" ] || { echo "$me: $1: no state '$state' beside baseline" >&2; exit 1; }
	awk -F'\t' '$2 == "fixed" {
		split("time per MiB, ms|without credit, ms|credit, no RX buffer, ms|moving data, ms|guest packets returning credit", name, "|")
		# without the RX-buffer column the rest is all the time with credit
		if ($14 == "nan") name[4] = "with credit, ms"
		for (m = 0; m < 5; m++) {
			f = 4 + 5 * m
			if ($f == "nan") continue
			printf "%s\t%s\t%.2f\t%.2f\t%+.2f [%+.2f, %+.2f]\t%d\n", $1, name[m + 1],
				$f, $(f + 1), $(f + 2), $(f + 3), $(f + 4), $3
		}
	}' <<<"$a" | pl |
		table payload "per MiB" baseline "$label" "difference [95 % CI]" n ;;
*) usage ;;
esac
