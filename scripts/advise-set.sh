#!/bin/bash
# advise-set.sh DIR [MIN_PAYLOAD]: `vsockbatch advise` on every traced
# recording of an experiment set (DIR/runs/*/traced/*.json, as written by
# scripts/experiment.sh) with a payload of at least MIN_PAYLOAD bytes
# (default 0), summed up per kernel state and payload: how many files,
# how often each rule fired (F) or was past its threshold but set aside
# because the guest is not the limit (n), and the range of the RX
# worker's occupancy and of the busiest vCPU's busy share.
# A committed set's recordings are read from its raw.tar.xz, unpacked
# into a temporary directory.
# Output: a Markdown table on stdout.  Exit 0, 1 when a file could not be
# advised on, 2 bad usage.
set -uo pipefail
. "$(dirname "$0")/lib.sh"
[ $# -ge 1 ] && [ $# -le 2 ] || { echo "usage: ${0##*/} DIR [MIN_PAYLOAD]" >&2; exit 2; }
DIR=$1 MIN=${2:-0}
cache=$(mktemp -d) || exit 1
tmp=$(mktemp)
trap 'rm -rf "$tmp" "$cache"' EXIT
DIR=$(raw_open "$DIR" "$cache") || exit 1
[ -d "$DIR/runs" ] || { echo "${0##*/}: $1/runs not found" >&2; exit 2; }
[[ "$MIN" =~ ^[0-9]+$ ]] || { echo "${0##*/}: MIN_PAYLOAD must be a number" >&2; exit 2; }
command -v jq >/dev/null || die "jq missing (make deps)"
VB=$VB_ROOT/build/vsockbatch
rules=(rx-idle credit rx-budget per-packet same-cpu wakeups starve)
bad=0
for f in "$DIR"/runs/*/traced/*.json; do
	[ -f "$f" ] || continue
	p=$(basename "$f" .json)
	[[ "$p" =~ ^[0-9]+$ ]] && [ "$p" -ge "$MIN" ] || continue
	st=$(basename "$(dirname "$(dirname "$f")")")
	st=${st#r[0-9][0-9]-}
	if ! "$VB" advise --json "$f" >"$tmp.j" 2>"$tmp.e"; then
		echo "${0##*/}: $f: $(cat "$tmp.e")" >&2
		bad=1
		continue
	fi
	jq -r --arg st "$st" --arg p "$p" '
		[$st, ($p | tonumber),
		 (.findings | map({(.rule): .verdict}) | add),
		 (.findings[] | select(.rule == "rx-idle") | .evidence.worker_occupancy // -1),
		 (.findings[] | select(.rule == "rx-idle") | .evidence.busiest_busy // -1)] | @json' \
		"$tmp.j" >>"$tmp"
done
rm -f "$tmp.j" "$tmp.e"
[ -s "$tmp" ] || { echo "${0##*/}: no traced recordings with payload >= $MIN in $DIR" >&2; exit 1; }
echo "| state | payload | files | $(printf '%s | ' "${rules[@]}")worker occupancy | busiest vCPU |"
echo "|---|---|---|$(printf -- '---|%.0s' "${rules[@]}")---|---|"
jq -rs --argjson rules "$(printf '%s\n' "${rules[@]}" | jq -R . | jq -sc .)" '
	group_by([.[0], .[1]]) | sort_by(.[0][1], .[0][0]) | .[] |
	. as $g |
	[ $g[0][0], ($g[0][1] | tostring), ($g | length | tostring) ] +
	[ $rules[] as $r |
	  ([$g[] | select(.[2][$r] == "fires")] | length) as $f |
	  ([$g[] | select(.[2][$r] == "not-limiting")] | length) as $n |
	  ([$g[] | select(.[2][$r] == "no-data")] | length) as $d |
	  if $d == ($g | length) then "no data"
	  else "\($f) F" + (if $n > 0 then ", \($n) n" else "" end) end ] +
	[ "\([$g[] | .[3]] | min | floor)-\([$g[] | .[3]] | max | ceil) %",
	  "\([$g[] | .[4]] | min | floor)-\([$g[] | .[4]] | max | ceil) %" ] |
	"| " + join(" | ") + " |"' "$tmp"
exit $bad
