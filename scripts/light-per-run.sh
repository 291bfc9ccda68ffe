#!/bin/bash
# light-per-run.sh SET...: light mode's own cost per run on the series'
# kernels, from committed tracer-cost sets (scripts/tracer-cost.sh).
#
# Light mode with the series runs once per kernel run, so its own
# instructions per packet (the set's direct figure) are its cost per run
# over the run length, and the run length follows the transfer's course
# (how the two vCPUs' work interleaves), not the tracer.  Per boot, round
# a (the round whose block profile gives the direct figure): direct
# instructions per packet x that round's packets per run (batch_pkts /
# batches of its lighta.json, read with build/vsockbatch report).  One
# row per set and kernel: n boots, the mean per run with its 95 % CI
# (Student t), the mean run length and its range.
#
# Needs build/vsockbatch (make).  Bad usage, a SET that is not a
# tracer-cost set, or a boot without its light file: one line, exit 2.
set -uo pipefail
bad() {
	echo "${0##*/}: $*" >&2
	exit 2
}
root=$(cd "$(dirname "$0")/.." && pwd)
vb=$root/build/vsockbatch
[ $# -ge 1 ] || bad "usage: SET..."
[ -x "$vb" ] || bad "$vb: not built (make)"
tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT

for set in "$@"; do
	[ -f "${set%/}/steps.tsv" ] && [ -f "${set%/}/raw.tar.xz" ] ||
		bad "${set%/}: no steps.tsv and raw.tar.xz (not a tracer-cost set)"
done
printf 'set\tkernel\tboots\tinsns_per_run\tci_lo\tci_hi\trun_len_mean\trun_len_min\trun_len_max\n'
for set in "$@"; do
	set=${set%/}
	rm -rf "${tmp:?}"/*
	tar -xJf "$set/raw.tar.xz" -C "$tmp" --wildcards '*/lighta.json' ||
		bad "$set: raw.tar.xz has no light runs"
	for k in $(awk -F'\t' 'NR > 1 && $4 == "light" { print $1 }' \
		   "$set/steps.tsv" | sort -u); do
		rows=$(awk -F'\t' -v k="$k" '$1 == k && $3 == "a" &&
			$4 == "light" { print $2, $9 }' "$set/steps.tsv")
		[ -n "$rows" ] || continue
		out=$(echo "$rows" | while read -r b direct; do
			f=$(find "$tmp" -path "*/$k/b$b/lighta.json" | head -1)
			[ -n "$f" ] || { echo "missing $k b$b"; exit 0; }
			"$vb" report --json "$f" | awk -F'[:,]' -v d="$direct" '
				/^    "batches": [0-9]/ { b = $2 }
				/^    "batch_pkts": [0-9]/ { p = $2 }
				END { if (b > 0) printf "%.4f %.4f\n", p / b, d * p / b
				      else print "nobatches" }'
		done)
		case $out in
		*missing* | *nobatches*)
			# a stock kernel (no runs) or an incomplete set
			echo "$out" | grep -q missing &&
				bad "$set: $k: $(echo "$out" | grep missing | head -1)"
			continue ;;
		esac
		echo "$out" | awk -v s="${set##*/}" -v k="$k" '
			# two-sided 95 % t quantiles for df 1..10, then the normal
			BEGIN { split("12.706 4.303 3.182 2.776 2.571 2.447 2.365 2.306 2.262 2.228", t, " ") }
			{ n++; x[n] = $2; sum += $2; r += $1
			  if (n == 1 || $1 < lo) lo = $1
			  if (n == 1 || $1 > hi) hi = $1 }
			END {
				m = sum / n
				for (i = 1; i <= n; i++) ss += (x[i] - m) ^ 2
				h = n > 1 ? (n - 1 <= 10 ? t[n - 1] : 1.96) * sqrt(ss / (n - 1)) / sqrt(n) : 0
				printf "%s\t%s\t%d\t%.1f\t%.1f\t%.1f\t%.2f\t%.2f\t%.2f\n",
					s, k, n, m, m - h, m + h, r / n, lo, hi
			}'
	done
done
