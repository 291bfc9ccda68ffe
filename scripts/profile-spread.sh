#!/bin/bash
# profile-spread.sh: how much of an icount set's cross-boot spread a few
# kernel functions carry.
#
#   scripts/profile-spread.sh [-c VCPU] SET_DIR XFER FUNCTION...
#
# SET_DIR: an experiment set run with --profile (scripts/experiment.sh);
# XFER: a transfer of its runs (fixed.64, ...).  Per run, from its block
# profile (scripts/insns-profile.sh): the transfer's kernel instructions
# per write on vCPU VCPU (default all), the part the named FUNCTIONs
# (exact names as insns-profile.sh prints them, "name" or "name [module]")
# take, and the rest; then per state the mean and the coefficient of
# variation over the runs of the count with and without those functions.
# A transfer the set's host-load rule excluded (summary.json) is left out,
# as in the set's own tables.  Markdown on stdout.
# A committed set's runs are read from its raw.tar.xz, unpacked once.
# Exit: 0; 1 a run's profile is missing or inconsistent; 2 bad usage.
set -uo pipefail
. "$(dirname "$0")/lib.sh"
me=${0##*/}
die() { echo "$me: $1" >&2; exit "${2:-2}"; }
VCPU=all
while getopts c:h o; do
	case $o in
	c) VCPU=$OPTARG ;;
	*) echo "usage: $me [-c VCPU] SET_DIR XFER FUNCTION..." >&2; exit 2 ;;
	esac
done
shift $((OPTIND - 1))
[ $# -ge 3 ] || { echo "usage: $me [-c VCPU] SET_DIR XFER FUNCTION..." >&2; exit 2; }
set_dir=$1 xfer=$2
shift 2
[[ "$VCPU" =~ ^(all|[0-9]+)$ ]] || die "-c needs a vCPU number or 'all', not '$VCPU'"
m=$set_dir/manifest.json s=$set_dir/summary.json
[ -f "$m" ] && [ -f "$s" ] || die "$set_dir: no manifest.json and summary.json (not an experiment set)"
prof=$(dirname "$0")/insns-profile.sh
funcs=$(printf '%s\n' "$@")

rows=$(mktemp) || exit 1
miss=$(mktemp) || exit 1
cache=$(mktemp -d) || exit 1
trap 'rm -rf "$rows" "$miss" "$cache"' EXIT
raw=$(raw_open "$set_dir" "$cache") || exit 1
for d in $(jq -r '.runs[] | select(.status == 0) | .dir' "$m"); do
	ex=$(jq -r --arg r "$d" --arg x "$xfer" \
		'[.host_load.per_transfer // [] | .[] | select(.run == $r and .xfer == $x and .excluded)] | length' "$s")
	[ "$ex" = 0 ] || continue
	st=$(jq -r --arg d "$d" '.runs[] | select(.dir == $d) | .state' "$m")
	out=$("$prof" -c "$VCPU" -n 1000000 "$xfer" "$raw/$d") || exit 1
	# insns-profile.sh's rows: name (maybe "name [module]"), value
	awk -v f="$funcs" -v st="$st" -v d="$d" -v miss="$miss" '
		BEGIN { n = split(f, a, "\n"); for (i = 1; i <= n; i++) want[a[i]] = 1 }
		/^#|^function / { next }
		{ v = $NF; name = $0; sub(/[ \t]+[-0-9.]+[ \t]*$/, "", name) }
		name == "[total]" { tot = v; next }
		name in want { part += v; seen[name] = 1 }
		END {
			for (k in want) if (!(k in seen)) print k >>miss
			printf "%s\t%s\t%.2f\t%.2f\t%.2f\n", st, d, tot, part, tot - part
		}' <<<"$out" >>"$rows"
done
[ -s "$rows" ] || die "$set_dir: no run with transfer $xfer" 1
# a name no run executed is a typo, not a function that costs nothing
nr=$(wc -l <"$rows")
bad=$(sort "$miss" | uniq -c | awk -v n="$nr" '$1 == n { $1 = ""; print substr($0, 2) }' | head -n 1)
[ -z "$bad" ] || die "'$bad' ran in none of the runs' $xfer windows (insns-profile.sh prints the names)"

echo "#### $xfer: kernel instructions per write, vCPU $VCPU, with and without: $(printf '%s, ' "$@" | sed 's/, $//')"
echo
echo "| run | all | these functions | the rest |"
echo "|---|---:|---:|---:|"
sort -k2,2 "$rows" | awk -F'\t' '{ sub(/^runs\//, "", $2); printf "| %s | %s | %s | %s |\n", $2, $3, $4, $5 }'
echo
echo "| state | n | mean, all | CV, all | mean, the rest | CV, the rest |"
echo "|---|---:|---:|---:|---:|---:|"
awk -F'\t' -v order="$(jq -r '.states[].name' "$m" | tr '\n' ' ')" '
	BEGIN { k = split(order, name, " ") }
	{ n[$1]++; a[$1] += $3; aa[$1] += $3 * $3; r[$1] += $5; rr[$1] += $5 * $5 }
	function cv(s, ss, n,   m) { m = s / n; return n > 1 && m ? 100 * sqrt((ss - n * m * m) / (n - 1)) / m : 0 }
	END {
		for (i = 1; i <= k; i++) {
			st = name[i]
			if (!(st in n)) continue
			printf "| %s | %d | %.2f | %.2f %% | %.2f | %.2f %% |\n", st, n[st], a[st] / n[st],
				cv(a[st], aa[st], n[st]), r[st] / n[st], cv(r[st], rr[st], n[st])
		}
	}' "$rows"
