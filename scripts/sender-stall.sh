#!/bin/bash
# sender-stall.sh SET [SET...]: how long the host sender had no credit,
# measured by the lab's vhost-user back-end (--flow-stats), per kernel
# state, payload and transfer kind of host -> guest experiment sets.
#
# The back-end logs, at the end of every host -> guest flow, the time
# from its first to its last data packet and the part of it during which
# the guest had granted no credit (backend.log, "flow host P -> guest
# Q: ..."). The host sender's own output names its flow's host port
# (raw/host.KIND.PAYLOAD.tx.out, "host_port: P"), which ties each line
# to a transfer: KIND fixed (untraced, timed), match (untraced, the
# traced transfer's size) or traced (the guest tracer recording).  No
# guest code runs for this measurement: untraced transfers show the
# kernels' own stall, traced ones what the tracer adds to it.
#
# Prints a Markdown table: per payload, kind and state, the mean share
# and its 95 % t interval over the runs, and the mean difference from
# baseline with its interval, paired by round (--tsv: one row per
# transfer instead; --vs STATE: one tab-separated row per payload and
# transfer kind, baseline against STATE: payload, kind, n pairs,
# baseline's mean, STATE's mean, the paired difference and its interval).
# Sets without flow lines (back-ends older than --flow-stats) are
# refused.
# Exit 0, 1 when a set cannot be read, 2 bad usage.
set -uo pipefail
. "$(dirname "$0")/lib.sh"

usage() {
	echo "usage: ${0##*/} [--tsv | --vs STATE] SET [SET...]" >&2
	exit 2
}

TSV=0 VS=
case "${1:-}" in
--tsv) TSV=1; shift ;;
--vs) [ $# -ge 2 ] || usage; VS=$2; shift 2 ;;
esac
[ $# -ge 1 ] || usage

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
rows=$tmp/rows.tsv
: >"$rows"
n=0
for set in "$@"; do
	n=$((n + 1))
	d=$(set_raw "$set" "$tmp/raw$n") || exit $?
	for run in "$d"/runs/r*-*; do
		[ -f "$run/backend.log" ] || continue
		name=${run##*/}
		round=${name%%-*}; round=${round#r}
		state=${name#r*-}
		for out in "$run"/raw/host.*.tx.out; do
			[ -f "$out" ] || continue
			b=${out##*/host.}; b=${b%.tx.out}
			kind=${b%%.*}; payload=${b#*.}
			port=$(sed -n 's/^host_port: //p' "$out")
			[ -n "$port" ] || continue
			# "flow host P -> guest Q: B bytes in S s, without
			# credit N s (X %) in K spans" (sets of 2026-12-07:
			# "B bytes, S s first to last packet, ...")
			awk -v port="$port" -v p="$payload" -v k="$kind" \
				-v st="$state" -v r="$round" -v n="$n" '
				$0 ~ "flow host " port " -> guest " {
					for (i = 1; i <= NF; i++) {
						if ($i == "bytes" && $(i + 1) == "in") {
							by = $(i - 1); sp = $(i + 2)
						}
						if ($i == "bytes,") by = $(i - 1)
						if ($i == "first") sp = $(i - 2)
						if ($i == "credit") nc = $(i + 1)
					}
					if (sp > 0)
						printf "%s\t%s\t%s\t%s-%s\t%s\t%.4f\t%s\t%s\n",
							p, k, st, n, r, by, 100 * nc / sp, sp, nc
				}' "$run/backend.log" >>"$rows"
		done
	done
done
[ -s "$rows" ] || die "no back-end flow lines in $* (sets recorded before vhost-user-vsock --flow-stats)"

if [ "$TSV" = 1 ]; then
	printf 'payload\tkind\tstate\tround\tbytes\tnocredit_pct\tspan_s\tnocredit_s\n'
	sort -t$'\t' -k1,1n -k2,2 -k3,3 -k4,4 "$rows"
	exit 0
fi

if [ -z "$VS" ]; then
	echo "| payload | transfer | state | n | sender without credit, % of the transfer: mean [95 % CI] | minus baseline, points, paired by round [95 % CI] |"
	echo "|---|---|---|---:|---|---|"
fi
sort -t$'\t' -k1,1n -k2,2 -k3,3 "$rows" | awk -F'\t' -v vs="$VS" '
# two-sided 95 % t quantiles by degrees of freedom (30 and up: 2.0)
BEGIN {
	split("12.71 4.30 3.18 2.78 2.57 2.45 2.36 2.31 2.26 2.23 2.20 2.18 2.16 2.14 2.13 2.12 2.11 2.10 2.09 2.09 2.08 2.07 2.07 2.06 2.06 2.06 2.05 2.05 2.05", T, " ")
}
function tq(df) { return df >= 30 ? 2.0 : T[df] }
# the half-width of the 95 % interval of the mean (0 below 2 values)
function half(sum, sq, c,   v) {
	if (c < 2) return 0
	v = (sq - sum * sum / c) / (c - 1)
	if (v < 0) v = 0
	return tq(c - 1) * sqrt(v / c)
}
function ci(sum, sq, c,   m, h) {
	m = sum / c
	if (c < 2) return sprintf("%.1f [n/a]", m)
	h = half(sum, sq, c)
	return sprintf("%+.1f [%+.1f, %+.1f]", m, m - h, m + h)
}
{
	cell = $1 SUBSEP $2 SUBSEP $3
	if (!(cell in cnt)) order[++nc] = cell
	cnt[cell]++; sum[cell] += $6; sq[cell] += $6 * $6
	val[cell, $4] = $6; seen[cell, $4] = 1
	pl[cell] = $1; kd[cell] = $2; st[cell] = $3
	rounds[$4] = 1
}
END {
	for (i = 1; i <= nc; i++) {
		c = order[i]
		m = ci(sum[c], sq[c], cnt[c]); sub(/^\+/, "", m)
		gsub(/\[\+/, "[", m); gsub(/, \+/, ", ", m)
		base = pl[c] SUBSEP kd[c] SUBSEP "baseline"
		d = "-"
		if (st[c] != "baseline" && (base in cnt)) {
			ds = dq = dn = bs = ss = 0
			for (r in rounds)
				if (seen[c, r] && seen[base, r]) {
					x = val[c, r] - val[base, r]
					ds += x; dq += x * x; dn++
					bs += val[base, r]; ss += val[c, r]
				}
			if (dn > 0) d = ci(ds, dq, dn) " (n " dn ")"
			if (vs != "" && st[c] == vs && dn > 0) {
				h = half(ds, dq, dn)
				printf "%s\t%s\t%d\t%.1f\t%.1f\t%+.1f\t%+.1f\t%+.1f\n",
					pl[c], kd[c], dn, bs / dn, ss / dn, ds / dn,
					ds / dn - h, ds / dn + h
			}
		}
		if (vs == "")
			printf "| %s | %s | %s | %d | %s | %s |\n", pl[c], kd[c], st[c], cnt[c], m, d
	}
}'
