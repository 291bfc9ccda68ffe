#!/bin/bash
# tracer-cost-tables.sh --goals SETS | --readme SETS | --check FILE
#
# The tables a tracer-cost set (scripts/tracer-cost.sh) feeds to the
# docs, made from its cost.tsv alone, so that no figure is copied by hand:
#
#   --goals SET   issue 31's goals at 64 B, each with both figures and a
#                 verdict per figure: "met" when the CI's upper end is at
#                 or below the goal, "not met" when its lower end is
#                 above, otherwise "not resolved";
#   --readme SET  the README's cost table (the levels a user meets;
#                 one-vCPU boots, KERNEL-1cpu, say so in their label);
#   --check FILE  FILE's block between "<!-- tracer-cost-table SETS -->"
#                 (paths from the repository's root) and
#                 "<!-- /tracer-cost-table -->" is --readme SETS' output:
#                 exit 0, else 1 with the difference (docs-check).
#
# SETS: one set, or several in one argument separated by spaces (a set
# of some levels only, tracer-cost.sh --levels, beside the main one); a
# row is taken from the first set that has it.  Bad usage or a set
# without cost.tsv: one line, exit 2.
set -uo pipefail
bad() {
	echo "${0##*/}: $*" >&2
	exit 2
}
[ $# -eq 2 ] || bad "usage: --goals SETS | --readme SETS | --check FILE"
mode=$1 sets=$2
case $mode in
--goals | --readme) ;;
--check)
	file=$2
	[ -f "$file" ] || bad "$file: no such file"
	name=$(sed -n 's/^<!-- tracer-cost-table \(.*\) -->$/\1/p' "$file" | head -1)
	[ -n "$name" ] || bad "$file has no '<!-- tracer-cost-table SETS -->' block"
	sets=
	for s in $name; do sets="$sets $(dirname "$0")/../$s"; done
	;;
*) bad "unknown mode '$mode' (--goals, --readme, --check)" ;;
esac
costs=()
for set in $sets; do
	set=${set%/}
	cost=$set/cost.tsv
	[ -f "$cost" ] || bad "$set: no cost.tsv (not a tracer-cost set)"
	head -1 "$cost" | grep -q $'^kernel\tlevel\tboots\tuntraced_insns_per_pkt\twhole_pct' ||
		bad "$cost: not a tracer-cost table"
	costs+=("$cost")
done
[ ${#costs[@]} -gt 0 ] || bad "no set named"

# row KERNEL LEVEL: the first set's cost.tsv row, or nothing
row() { awk -F'\t' -v k="$1" -v l="$2" '$1 == k && $2 == l { print; exit }' "${costs[@]}"; }

goals() {
	echo "| goal | transfer [95 % CI] | verdict | own code [95 % CI] | verdict |"
	echo "|---|---|---|---|---|"
	while IFS='|' read -r what k l goal; do
		r=$(row "$k" "$l")
		if [ -z "$r" ]; then
			echo "| $what | not measured | - | not measured | - |"
			continue
		fi
		awk -F'\t' -v what="$what" -v g="$goal" '
			function verdict(lo, hi) { return hi <= g ? "met" : lo > g ? "not met" : "not resolved" }
			{ printf "| %s | %+.2f %% [%+.2f, %+.2f] | %s | %.2f %% [%.2f, %.2f] (%d instructions per packet) | %s |\n",
				what, $5, $6, $7, verdict($6, $7), $8, $9, $10, $11, verdict($9, $10) }' <<<"$r"
	done <<'GOALS'
full <= 5 % on baseline (lab 6.12)|baseline|full|5
full <= 5 % on baseline (lab 7.2)|baseline-7.2|full|5
full --duty 16 <= 5 % on baseline (lab 6.12)|baseline|fullduty|5
full --duty 32 <= 5 % on baseline (lab 6.12)|baseline|fullduty32|5
full --duty 16 <= 5 % on baseline (lab 7.2)|baseline-7.2|fullduty|5
full --duty 32 <= 5 % on baseline (lab 7.2)|baseline-7.2|fullduty32|5
full <= 5 % on Debian 6.12|debian-6.12|full|5
full <= 5 % on Debian 6.1 (1 vCPU)|debian-6.1-1cpu|full|5
full --duty 16 <= 5 % on Debian 6.12|debian-6.12|fullduty|5
full --duty 32 <= 5 % on Debian 6.12|debian-6.12|fullduty32|5
full --duty 16 <= 5 % on Debian 6.1 (1 vCPU)|debian-6.1-1cpu|fullduty|5
full --duty 32 <= 5 % on Debian 6.1 (1 vCPU)|debian-6.1-1cpu|fullduty32|5
full <= 5 % on Debian 6.12 (1 vCPU: the reference for 6.1's)|debian-6.12-1cpu|full|5
light <= 1 % on patched (6.12)|patched|light|1
light <= 1 % on patched (7.2)|patched-7.2|light|1
stock-kernel light <= 2 % (Debian 6.12)|debian-6.12|light|2
stock-kernel light <= 2 % (Debian 6.1, 1 vCPU)|debian-6.1-1cpu|light|2
stock-kernel light <= 2 % (Debian 6.12, 1 vCPU: the reference for 6.1's)|debian-6.12-1cpu|light|2
stock-kernel light <= 2 % (lab 6.12 baseline)|baseline|light|2
stock-kernel light <= 2 % (lab 7.2 baseline)|baseline-7.2|light|2
GOALS
}

readme() {
	echo "| kernel | level | transfer | own code | own instructions per packet |"
	echo "|---|---|---|---|---|"
	while IFS='|' read -r name k l label; do
		r=$(row "$k" "$l")
		[ -n "$r" ] || continue
		awk -F'\t' -v name="$name" -v label="$label" '
			{ printf "| %s | %s | %+.2f %% [%+.2f, %+.2f] | %.2f %% [%.2f, %.2f] | %d |\n",
				name, label, $5, $6, $7, $8, $9, $10, $11 }' <<<"$r"
	done <<'ROWS'
lab 6.12 baseline|baseline|full|full (`--sample 8`)
lab 6.12 baseline|baseline|fullduty|full `--duty 16`
lab 6.12 baseline|baseline|fullduty32|full `--duty 32`
lab 6.12 baseline|baseline|light|light (recv_pkt)
lab 6.12 patched|patched|full|full
lab 6.12 patched|patched|light|light (rx_batch)
lab 7.2 baseline|baseline-7.2|full|full
lab 7.2 baseline|baseline-7.2|fullduty|full `--duty 16`
lab 7.2 baseline|baseline-7.2|fullduty32|full `--duty 32`
lab 7.2 baseline|baseline-7.2|light|light
lab 7.2 patched|patched-7.2|full|full
lab 7.2 patched|patched-7.2|light|light
Debian 6.12 stock|debian-6.12|full|full
Debian 6.12 stock|debian-6.12|fullduty|full `--duty 16`
Debian 6.12 stock|debian-6.12|fullduty32|full `--duty 32`
Debian 6.12 stock|debian-6.12|light|light
Debian 6.12 stock, 1 vCPU|debian-6.12-1cpu|full|full
Debian 6.12 stock, 1 vCPU|debian-6.12-1cpu|light|light
Debian 6.1 stock, 1 vCPU|debian-6.1-1cpu|full|full
Debian 6.1 stock, 1 vCPU|debian-6.1-1cpu|fullduty|full `--duty 16`
Debian 6.1 stock, 1 vCPU|debian-6.1-1cpu|fullduty32|full `--duty 32`
Debian 6.1 stock, 1 vCPU|debian-6.1-1cpu|light|light
ROWS
}

case $mode in
--goals) goals ;;
--readme) readme ;;
--check)
	have=$(awk -v b="<!-- tracer-cost-table $name -->" '
		$0 == b { on = 1; next }
		$0 == "<!-- /tracer-cost-table -->" { on = 0 }
		on' "$file")
	if [ "$have" != "$(readme)" ]; then
		echo "${0##*/}: $file: the cost table is not $name's (regenerate: ${0##*/} --readme $name)" >&2
		diff <(echo "$have") <(readme) >&2
		exit 1
	fi
	echo "tracer cost table: $file matches $name"
	;;
esac
