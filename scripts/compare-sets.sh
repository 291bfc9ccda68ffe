#!/bin/bash
# compare-sets.sh: the changes measured by several experiment sets side
# by side with the cover letter's, as markdown tables on stdout.
#
#   scripts/compare-sets.sh [--reference FILE] SET_DIR...
#
# For each comparison (baseline->patched, baseline->p1-3, p1-3->patched)
# and metric (fixed 64 KiB recv() throughput, matched recv() throughput,
# ping-pong RTT mean, CPU cost per byte) one table: payload | each set's
# change [95% CI], n pairs, MDE and verdict | the cover letter's.  The
# verdict of a cell against the cover letter's row: "not resolved" when
# the CI includes 0 (the MDE says what it can still rule out; "excludes the
# cover letter's value" when the CI nevertheless lies clear of it);
# "confirmed" when the cover letter's value lies inside the CI;
# "contradicted: smaller" / "larger" when the CI excludes it on the same
# side of 0; "contradicted: opposite sign"; "resolved" when the cover
# letter has no such row.  The MDE is the change the set's pairs would
# detect with 80 % power.  CPU cost: an icount set shows guest
# instructions per byte (exact, untraced); otherwise a set that names the RX
# worker's vCPU (host->guest mode) shows that vCPU's cost, the closest to
# the cover letter's "Guest CPU1" cycles; a loopback set shows all vCPUs;
# untraced (/proc/stat) figures when the set has them, else the traced
# run's (which include the tracer's cost); the column header says which.  The reference is results/reference/
# cover-letter.json (transcribed from the cover letter) unless told.
# Exit 0; 1 if a file is unreadable or not a summary; 2 bad usage.
set -uo pipefail
ROOT=$(cd "$(dirname "$0")/.." && pwd)
REF=$ROOT/results/reference/cover-letter.json
[ "${1-}" = --reference ] && { REF=${2-}; shift 2; }
case ${1-} in -h|--help|'') sed -n '2,/^set -uo/p' "$0" | sed '$d; s/^# \{0,1\}//' >&2; exit 2 ;; esac
command -v jq >/dev/null || { echo "${0##*/}: jq missing (run make deps)" >&2; exit 1; }
jq -e '.comparisons | type == "object"' "$REF" >/dev/null 2>&1 ||
	{ echo "${0##*/}: $REF: not a reference file (no comparisons)" >&2; exit 1; }
for d in "$@"; do
	jq -e '.format == "vsockbatch-experiment-summary" and .version == 1' "$d/summary.json" >/dev/null 2>&1 ||
		{ echo "${0##*/}: $d/summary.json: not a vsockbatch experiment summary (format 1)" >&2; exit 1; }
done

# The rows that matter of each set, then one jq program for the tables.
tmp=$(mktemp) || exit 1
trap 'rm -f "$tmp"' EXIT
for d in "$@"; do
	jq -c --arg dir "${d%/}" '{dir: $dir, label: .label, mode: (.experiment.mode // "loopback"),
		rx: (.experiment.rx_cpu != null),
		clock: (.clock // "wall"),
		stat: ([.comparisons[].rows[] | select(.metric == "stat_ns_per_byte")] | length > 0),
		insn: ([.comparisons[].rows[] | select(.metric == "insn_per_byte")] | length > 0),
		comparisons: [.comparisons[] | {name, rows: [.rows[] | select(.metric | test("^(tput_fixed_gbps|tput_match_gbps|rtt_mean_us|cost_per_byte|cost_per_byte_rx_cpu|stat_ns_per_byte|stat_ns_per_byte_rx_cpu|insn_per_byte|insn_cpu1_per_byte)$"))
			| {metric, payload, change_pct, ci_low_pct, ci_high_pct, n_pairs, mde_pct}]}]}' "$d/summary.json" >>"$tmp" || exit 1
done
jq -n -r --slurpfile ref "$REF" --slurpfile sets "$tmp" '
def pct: (if . >= 0 then "+" else "" end) + (. * 10 | round / 10 | tostring) + " %";
def cell: if . == null or .change_pct == null then "-"
	else (.change_pct | pct) +
	     (if .ci_low_pct != null and .ci_high_pct != null
	      then " [" + (.ci_low_pct | pct) + ", " + (.ci_high_pct | pct) + "]"
	      else " (no CI)" end) end;
def sgn: if . > 0 then 1 elif . < 0 then -1 else 0 end;
def verdict($ref): if . == null or .change_pct == null then ""
	elif .ci_low_pct == null or .ci_high_pct == null then " - no CI"
	elif .ci_low_pct <= 0 and .ci_high_pct >= 0 then " - **not resolved**" +
		(if $ref != null and $ref.change_pct != null and
		    ($ref.change_pct < .ci_low_pct or $ref.change_pct > .ci_high_pct)
		 then ", excludes the cover letter value" else "" end)
	elif $ref == null or $ref.change_pct == null then " - resolved"
	elif ($ref.change_pct | sgn) != (.change_pct | sgn) then " - **contradicted: opposite sign**"
	elif $ref.change_pct >= .ci_low_pct and $ref.change_pct <= .ci_high_pct then " - confirmed"
	elif ($ref.change_pct | fabs) > (.change_pct | fabs) then " - **contradicted: smaller**"
	else " - **contradicted: larger**" end;
def ours($ref): if . == null then "-" else cell +
	(if .n_pairs != null then ", n=\(.n_pairs)" else "" end) +
	(if .mde_pct != null then ", MDE \(.mde_pct | . * 10 | round / 10) %" else "" end) +
	verdict($ref) end;
def plabel: if . >= 1024 then "\(. / 1024 | floor) KiB" else "\(.) B" end;
def metrics: [
	{key: "tput_fixed_gbps", ref: "tput_fixed_gbps", title: "RX throughput, 64 KiB recv()"},
	{key: "tput_match_gbps", ref: "tput_match_gbps", title: "RX throughput, recv() size = write size"},
	{key: "rtt_mean_us", ref: "rtt_mean_us", title: "Ping-pong RTT, mean"},
	{key: "cost", ref: "cycles_per_byte_cpu1", title: "CPU cost per received byte (ours: guest instructions per byte under icount, else busy ns per byte; no PMU; cover letter: cycles per byte on CPU1)"}];
def setkey($s; $m): if $m.key == "cost" then
	(if $s.insn then (if $s.rx then "insn_cpu1_per_byte" else "insn_per_byte" end)
	 else (if $s.stat then "stat_ns_per_byte" else "cost_per_byte" end) + (if $s.rx then "_rx_cpu" else "" end) end)
	else $m.key end;
def colname($s; $m): $s.label + (if $s.label == $s.mode then "" else " (\($s.mode))" end)
	+ ", \($s.clock)"
	+ (if $m.key == "cost" then (if $s.rx then ", RX vCPU" else ", all vCPUs" end)
		+ (if $s.insn then ", insns, untraced" elif $s.stat then ", untraced" else ", traced run" end)
	   else ", untraced" end);
$ref[0] as $r |
"Changes with 95 % confidence intervals; sets: " + ([$sets[] | "`\(.dir)`"] | join(", ")) +
"; reference: the cover letter (" + ($r.setup) + ").\n",
(["baseline->patched", "baseline->p1-3", "p1-3->patched"][] as $c |
 metrics[] as $m |
 ([$sets[] | (.comparisons[] | select(.name == $c) | .rows[] | select(.metric == setkey($sets[0]; $m)) | .payload)]
  + [$r.comparisons[$c][$m.ref][]?.payload] | unique) as $payloads |
 select($payloads | length > 0) |
 "### \($c): \($m.title)\n",
 "| payload | " + ([$sets[] as $s | colname($s; $m)] | join(" | ")) + " | cover letter |",
 "|---|" + ([$sets[] | "---"] | join("|")) + "|---|",
 ($payloads[] as $p |
  "| \($p | plabel) | " +
  (($r.comparisons[$c][$m.ref] // [] | map(select(.payload == $p)) | .[0]) as $rc |
   ([$sets[] as $s | ($s.comparisons[] | select(.name == $c) | .rows[] | select(.metric == setkey($s; $m) and .payload == $p)) // null | ours($rc)] | join(" | ")) +
   " | " + ($rc | cell) + " |")),
 "")'
