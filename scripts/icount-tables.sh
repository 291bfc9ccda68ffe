#!/bin/bash
# icount-tables.sh: the headline tables of an instruction-count set, as
# markdown, from its summary.json (so a README quotes exactly what the set
# measured; re-run after --resummarize).
#
#   scripts/icount-tables.sh SET_DIR
#
# Per comparison (baseline->patched, baseline->p1-3, p1-3->patched): for
# every payload the change of guest instructions per received byte (all
# vCPUs, and per vCPU), 95 % CI, its half-width, n and the MDE; then the
# tracer's measured cost per state; then, from the runs' samples, the
# cross-boot coefficient of variation of each state's instructions per
# byte (all vCPUs, vCPU 0, vCPU 1): where the spread lives; and the CV
# over rounds of each comparison's within-round ratio, with the
# correlation of the two states' values across rounds: a spread common
# to a round (the host's speed, in h2g) shows as r near 1 and a ratio CV
# far below the states' own, and pairing removes it; a spread of each
# transfer's own (loopback interleaving) shows as r near 0.
# A committed set's samples are in SET_DIR/raw.tar.xz: read from a
# temporary unpacked copy.
# Exit 0; 1 not an icount summary or an unreadable archive; 2 bad usage.
set -uo pipefail
. "$(dirname "$0")/lib.sh"
me=${0##*/}
[ $# -eq 1 ] || { echo "usage: $me SET_DIR" >&2; exit 2; }
s=$1/summary.json
jq -e '.format == "vsockbatch-experiment-summary" and .clock == "icount"' "$s" >/dev/null 2>&1 ||
	{ echo "$me: $s: not an instruction-count (icount) experiment summary" >&2; exit 1; }
jq -r '
def pl: if . >= 1024 then "\(. / 1024 | floor) KiB" else "\(.) B" end;
def p1: if . == null then "-" else (if . >= 0 then "+" else "" end) + ((. * 10 | round) / 10 | tostring) + " %" end;
def v: if . == null then "-" elif . >= 10 then ((. * 10 | round) / 10 | tostring) else ((. * 1000 | round) / 1000 | tostring) end;
def cell: if .change_pct == null then "-" elif .ci_low_pct == null then (.change_pct | p1) + " (no CI)"
	else (.change_pct | p1) + " [" + (.ci_low_pct | p1) + ", " + (.ci_high_pct | p1) + "]" end;
def half: if .ci_low_pct == null then "-" else (((.ci_high_pct - .ci_low_pct) / 2) | p1 | ltrimstr("+")) end;
def verdict: if .ci_low_pct == null then "no CI" elif .ci_low_pct <= 0 and .ci_high_pct >= 0 then "not resolved"
	elif .change_pct < 0 then "fewer" else "more" end;
. as $root |
(.comparisons[] as $c |
"#### \($c.name): guest instructions per received byte (untraced, icount, \($root.rounds) rounds; n: the complete pairs a row has after the host-load rule)\n",
"| payload | n | \($c.rows[0].baseline_state) | \($c.rows[0].patched_state) | change [95 % CI] | half-width | MDE | verdict | vCPU 0 change | vCPU 1 change | kernel-mode change |",
"|---|---:|---:|---:|---|---:|---:|---|---|---|---|",
([$c.rows[] | select(.metric == "insn_per_byte")] | sort_by(.payload)[] as $r |
 ([$c.rows[] | select(.payload == $r.payload)] | map({(.metric): .}) | add) as $m |
 "| \($r.payload | pl) | \($r.n_pairs // "-") | \($r.baseline | v) | \($r.patched | v) | \($r | cell) | \($r | half) | \($r.mde_pct | p1 | ltrimstr("+")) | \($r | verdict) | \($m.insn_cpu0_per_byte | cell) | \($m.insn_cpu1_per_byte | cell) | \($m.insn_kernel_per_byte | cell) |"),
"",
(if $c.name == "baseline->patched" then
 "#### baseline->patched: matched recv() (recv() size = write size), instructions per byte\n",
 "| payload | baseline | patched | change [95 % CI] | MDE |", "|---|---:|---:|---|---:|",
 ([$c.rows[] | select(.metric == "insn_per_byte_match")] | sort_by(.payload)[] |
  "| \(.payload | pl) | \(.baseline | v) | \(.patched | v) | \(cell) | \(.mde_pct | p1 | ltrimstr("+")) |"), ""
 else empty end)),
"#### The tracer'"'"'s own cost: traced / untraced instructions per byte - 1 (same boot, n runs)\n",
"| payload | " + ([.tracer_overhead[].state] | unique | join(" | ")) + " |",
"|---|" + ([.tracer_overhead[].state] | unique | map("---:") | join("|")) + "|",
(.tracer_overhead | group_by(.payload)[] |
 "| \(.[0].payload | pl) | " + (map(if .ci_low_pct == null then (.overhead_pct | p1) else (.overhead_pct | p1) + " [" + (.ci_low_pct | p1) + ", " + (.ci_high_pct | p1) + "]" end) | join(" | ")) + " |")
' "$s"

# Every run's instruction samples, tagged with its state and round, read
# once for both spread tables.
samples=$(mktemp) || exit 1
cache=$(mktemp -d) || exit 1
trap 'rm -rf "$samples" "$cache"' EXIT
set_dir=$(raw_open "$1" "$cache") || exit 1
# The untraced counts come from each run's fixed.<payload> transfer; its
# host record (summary.json host_load.per_transfer, when the set has one)
# adds QEMU's share of a host core and whether the set's rule excluded it.
hostrec=$(jq -c '[.host_load.per_transfer // [] | .[] | {key: "\(.run)|\(.xfer)", value: {qemu_cores, other_cores, excluded}}] | from_entries' "$s")
for d in $(jq -r '.runs[] | select(.status == 0) | .dir' "$set_dir/manifest.json"); do
	meta=$(jq -c --arg d "$d" '.runs[] | select(.dir == $d) | {state, round}' "$set_dir/manifest.json")
	jq -c --argjson m "$meta" --argjson h "$hostrec" --arg d "$d" '
		select(.metric == "insn_per_byte" or .metric == "insn_cpu0_per_byte" or .metric == "insn_cpu1_per_byte") |
		. + $m + ($h["\($d)|fixed.\(.payload)"] // {excluded: false})' "$set_dir/$d/samples.jsonl"
done | jq -c 'select(.excluded | not)' >"$samples"
# Cross-boot CV: sd / mean over the runs (sample sd, %).
defs='
def pl: if . >= 1024 then "\(. / 1024 | floor) KiB" else "\(.) B" end;
def mean: add / length;
def cv: (length) as $n | mean as $m | if $n < 2 then null else
	((map(. - $m | . * .) | add) / ($n - 1) | sqrt) / $m * 100 end;
def f: if . == null then "-" else ((. * 100 | round) / 100 | tostring) + " %" end;
'

echo
echo "#### Cross-boot spread: coefficient of variation over the runs of each state (untraced; transfers the set's host-load rule excluded left out)"
echo
jq -r -s "$defs"'
(map(.state) | unique) as $states |
"| payload | " + ([$states[] | "\(.) all / vCPU 0 / vCPU 1"] | join(" | ")) + " |",
"|---|" + ([$states[] | "---"] | join("|")) + "|",
(group_by(.payload)[] | . as $g |
 "| \($g[0].payload | pl) | " + ([$states[] as $st |
   ([$g[] | select(.state == $st and .metric == "insn_per_byte") | .value] | cv | f) + " / " +
   ([$g[] | select(.state == $st and .metric == "insn_cpu0_per_byte") | .value] | cv | f) + " / " +
   ([$g[] | select(.state == $st and .metric == "insn_cpu1_per_byte") | .value] | cv | f)] | join(" | ")) + " |")' "$samples"

# The same samples, paired by round: what the comparison itself sees.
echo
echo "#### Cross-boot spread of the comparisons: CV over rounds of the within-round ratio (all vCPUs, untraced)"
echo
jq -r -s --argjson cmp "$(jq -c '[.comparisons[].name]' "$s")" "$defs"'
def r($a; $b): ($a | mean) as $ma | ($b | mean) as $mb |
	([range($a | length)] | map(($a[.] - $ma) * ($b[.] - $mb)) | add) as $sab |
	($a | map(. - $ma | . * .) | add) as $saa | ($b | map(. - $mb | . * .) | add) as $sbb |
	if $saa == 0 or $sbb == 0 then null else $sab / (($saa * $sbb) | sqrt) end;
def f2: if . == null then "-" else ((. * 100 | round) / 100 + 0 | tostring) end;
map(select(.metric == "insn_per_byte")) |
"| payload | " + ([$cmp[] | "\(.) ratio CV (n) / r across rounds"] | join(" | ")) + " |",
"|---|" + ([$cmp[] | "---"] | join("|")) + "|",
(group_by(.payload)[] | . as $g |
 "| \($g[0].payload | pl) | " + ([$cmp[] | split("->") as [$a, $b] |
   ([$g[] | select(.state == $a)] | map({(.round | tostring): .value}) | add // {}) as $va |
   ([$g[] | select(.state == $b)] | map({(.round | tostring): .value}) | add // {}) as $vb |
   ([$va | keys[] | select($vb[.] != null)]) as $rs |
   ([$rs[] | $vb[.] / $va[.]] | cv | f) + " (\($rs | length)) / " +
   (r([$rs[] | $va[.]]; [$rs[] | $vb[.]]) | f2)] | join(" | ")) + " |")' "$samples"

# Host->guest the count moves with how fast QEMU runs beside the host
# sender and the back-end (more packets per interrupt when it runs
# slower): the correlation, per state, of instructions per byte with
# QEMU's share of a host core over the runs, and that share's range.
# Over loopback nothing outside QEMU's TCG thread is on the path, so r
# there says how much of the spread lines up with the host by chance.
if jq -e 'has("qemu_cores")' "$samples" >/dev/null 2>&1; then
	echo
	echo "#### The count and the host: Pearson r of instructions per byte (all vCPUs) with QEMU's cores during the transfer, over the runs of each state"
	echo
	jq -r -s "$defs"'
def r($a; $b): ($a | mean) as $ma | ($b | mean) as $mb |
	([range($a | length)] | map(($a[.] - $ma) * ($b[.] - $mb)) | add) as $sab |
	($a | map(. - $ma | . * .) | add) as $saa | ($b | map(. - $mb | . * .) | add) as $sbb |
	if $saa == 0 or $sbb == 0 then null else $sab / (($saa * $sbb) | sqrt) end;
def f2: if . == null then "-" else ((. * 100 | round) / 100 + 0 | tostring) end;
map(select(.metric == "insn_per_byte" and .qemu_cores != null)) |
(map(.state) | unique) as $states |
"| payload | " + ([$states[] | "\(.) r (n) / QEMU cores"] | join(" | ")) + " |",
"|---|" + ([$states[] | "---"] | join("|")) + "|",
(group_by(.payload)[] | . as $g |
 "| \($g[0].payload | pl) | " + ([$states[] as $st | [$g[] | select(.state == $st)] as $x |
   (r([$x[].value]; [$x[].qemu_cores]) | f2) + " (\($x | length)) / " +
   ([$x[].qemu_cores] | "\(min | f2)-\(max | f2)")] | join(" | ")) + " |")' "$samples"
fi
