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
#
# --per-mib: the same transfers as time per MiB moved, split by what held
# the sender back: without credit (the guest's reader is behind), with
# credit but no guest RX buffer (the guest's RX worker is behind; sets
# from back-ends that log it), and the rest (moving data), plus how many
# guest packets per MiB returned credit.  A share can rise because the
# other parts shrank; time per MiB cannot, so this is the table that says
# which side of the guest got slower or faster.  Each cell: the mean, and
# for other states its paired difference from baseline [95 % CI].
# --per-mib --vs STATE: one tab-separated row per payload and transfer
# kind, baseline against STATE: payload, kind, n pairs, then for each of
# the five columns baseline's mean, STATE's mean, the paired difference
# and its interval ("nan" where the set has no such figure).
# In sets with parallel flows (experiment.sh --flows) it reads flow 0.
# Transfers the set's exclusion rule drops (manifest.json, host load
# per transfer in runs/*/host-xfer.jsonl) are left out, as in the set's
# report; warm-ups are never excluded, as there.  Sets without flow lines
# (back-ends older than --flow-stats) are refused.
# Exit 0, 1 when a set cannot be read, 2 bad usage.
set -uo pipefail
. "$(dirname "$0")/lib.sh"

usage() {
	echo "usage: ${0##*/} [--tsv | --vs STATE | --per-mib [--vs STATE]] SET [SET...]" >&2
	exit 2
}

TSV=0 VS= PERMIB=0
case "${1:-}" in
--tsv) TSV=1; shift ;;
--per-mib)
	PERMIB=1; shift
	if [ "${1:-}" = --vs ]; then
		[ $# -ge 2 ] || usage
		VS=$2; shift 2
	fi ;;
--vs) [ $# -ge 2 ] || usage; VS=$2; shift 2 ;;
esac
[ $# -ge 1 ] || usage

# excluded_xfers RUN: the transfers of RUN the set's rule drops, one name
# a line (other_cores or steal_pct over its limit; a limit "off" never
# drops, and warm-ups are never dropped, as in the set's report)
excluded_xfers() {
	[ "$max_other" = off ] && [ "$max_steal" = off ] && return 0
	[ -f "$1/host-xfer.jsonl" ] || return 0
	jq -r --arg mo "$max_other" --arg ms "$max_steal" '
		select((.xfer | startswith("warmup.") | not) and
		       (($mo != "off" and .other_cores > ($mo | tonumber)) or
		        ($ms != "off" and .steal_pct > ($ms | tonumber)))) | .xfer' \
		"$1/host-xfer.jsonl" 2>/dev/null
}

# Both tables' statistics, an awk prelude: tq(df), the two-sided 95 % t
# quantile by degrees of freedom (30 and up: 2.0); half(sum, sq, c), the
# half-width of the 95 % interval of a mean of c values (0 below 2).
TSTATS='
function tq(df) {
	if (!("1" in T))
		split("12.71 4.30 3.18 2.78 2.57 2.45 2.36 2.31 2.26 2.23 2.20 2.18 2.16 2.14 2.13 2.12 2.11 2.10 2.09 2.09 2.08 2.07 2.07 2.06 2.06 2.06 2.05 2.05 2.05", T, " ")
	return df >= 30 ? 2.0 : T[df]
}
function half(sum, sq, c,   v) {
	if (c < 2) return 0
	v = (sq - sum * sum / c) / (c - 1)
	if (v < 0) v = 0
	return tq(c - 1) * sqrt(v / c)
}
'

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
rows=$tmp/rows.tsv
: >"$rows"
n=0
for set in "$@"; do
	n=$((n + 1))
	d=$(set_raw "$set" "$tmp/raw$n") || exit $?
	read -r max_other max_steal < <(jq -r '.experiment.exclusion |
		"\(.max_other_cores // "off") \(.max_steal_pct // "off")"' \
		"$set/manifest.json" 2>/dev/null) ||
		die "$set/manifest.json: unreadable"
	for run in "$d"/runs/r*-*; do
		[ -f "$run/backend.log" ] || continue
		name=${run##*/}
		round=${name%%-*}; round=${round#r}
		state=${name#r*-}
		drop=" $(excluded_xfers "$run" | tr '\n' ' ')"
		for out in "$run"/raw/host.*.tx.out; do
			[ -f "$out" ] || continue
			b=${out##*/host.}; b=${b%.tx.out}
			# flow 0 of a set with parallel flows (--flows)
			case $b in *.f[0-9]) continue ;; esac
			kind=${b%%.*}; payload=${b#*.}
			port=$(sed -n 's/^host_port: //p' "$out")
			[ -n "$port" ] || continue
			case $drop in *" $kind.$payload "*) continue ;; esac
			# "flow host P -> guest Q: B bytes in S s, without
			# credit N s (X %) in K spans[, without RX buffers W s
			# (Y %), fwd_cnt advanced by U packets]" (the earliest
			# sets of 2026-12-07: "B bytes, S s first to last
			# packet, ..."; the bracket: later back-ends)
			awk -v port="$port" -v p="$payload" -v k="$kind" \
				-v st="$state" -v r="$round" -v n="$n" '
				$0 ~ "flow host " port " -> guest " {
					nb = fw = "-"
					for (i = 1; i <= NF; i++) {
						if ($i == "bytes" && $(i + 1) == "in") {
							by = $(i - 1); sp = $(i + 2)
						}
						if ($i == "bytes,") by = $(i - 1)
						if ($i == "first") sp = $(i - 2)
						if ($i == "credit" && $(i - 1) == "without")
							nc = $(i + 1)
						if ($i == "buffers" && $(i - 1) == "RX")
							nb = $(i + 1)
						if ($i == "advanced" && $(i + 1) == "by")
							fw = $(i + 2)
					}
					if (sp > 0)
						printf "%s\t%s\t%s\t%s-%s\t%s\t%.4f\t%s\t%s\t%s\t%s\n",
							p, k, st, n, r, by, 100 * nc / sp, sp, nc, nb, fw
				}' "$run/backend.log" >>"$rows"
		done
	done
done
[ -s "$rows" ] || die "no back-end flow lines in $* (sets recorded before vhost-user-vsock --flow-stats)"

if [ "$TSV" = 1 ]; then
	printf 'payload\tkind\tstate\tround\tbytes\tnocredit_pct\tspan_s\tnocredit_s\tnobuf_s\tfwd_advances\n'
	sort -t$'\t' -k1,1n -k2,2 -k3,3 -k4,4 "$rows"
	exit 0
fi

if [ "$PERMIB" = 1 ]; then
	[ -n "$VS" ] || {
	echo "| payload | transfer | state | n | time per MiB, ms | without credit, ms/MiB | with credit, no RX buffer, ms/MiB | with credit, moving, ms/MiB | credit returns per MiB |"
	echo "|---|---|---|---:|---|---|---|---|---|"
	}
	sort -t$'\t' -k1,1n -k2,2 -k3,3 "$rows" | awk -F'\t' -v vs="$VS" "$TSTATS"'
	BEGIN { M = 5 }
	{
		cell = $1 SUBSEP $2 SUBSEP $3
		if (!(cell in cnt)) order[++nc] = cell
		cnt[cell]++
		pl[cell] = $1; kd[cell] = $2; st[cell] = $3
		mib = $5 / 1048576
		have = ($9 != "-")
		v[1] = 1000 * $7 / mib
		v[2] = 1000 * $8 / mib
		v[3] = have ? 1000 * $9 / mib : ""
		v[4] = 1000 * ($7 - $8 - (have ? $9 : 0)) / mib
		v[5] = ($10 != "-") ? $10 / mib : ""
		for (m = 1; m <= M; m++) {
			if (v[m] == "") { miss[cell, m] = 1; continue }
			val[cell, $4, m] = v[m]; sum[cell, m] += v[m]; n[cell, m]++
		}
		seen[cell, $4] = 1; rounds[$4] = 1
	}
	function fmt(x) { return x >= 100 ? sprintf("%.0f", x) : sprintf("%.2f", x) }
	function cellof(c, m,   b, r, d, ds, dq, dn, h, mean) {
		if (!n[c, m] || miss[c, m]) return "-"
		mean = fmt(sum[c, m] / n[c, m])
		if (st[c] == "baseline") return mean
		b = pl[c] SUBSEP kd[c] SUBSEP "baseline"
		ds = dq = dn = 0
		for (r in rounds)
			if (seen[c, r] && seen[b, r] && ((c, r, m) in val) && ((b, r, m) in val)) {
				d = val[c, r, m] - val[b, r, m]; ds += d; dq += d * d; dn++
			}
		if (dn < 2) return mean
		h = half(ds, dq, dn)
		return sprintf("%s (%+.2f [%+.2f, %+.2f])", mean, ds / dn, ds / dn - h, ds / dn + h)
	}
	# paired(c, m): sets PN, PB, PS, PD, PH for state cell c against
	# baseline in column m (pairs, means, difference, half-width)
	function paired(c, m,   b, r, d, ds, dq, dn, bs, ss, v) {
		b = pl[c] SUBSEP kd[c] SUBSEP "baseline"
		ds = dq = dn = bs = ss = 0
		for (r in rounds)
			if (((c, r, m) in val) && ((b, r, m) in val)) {
				d = val[c, r, m] - val[b, r, m]; ds += d; dq += d * d; dn++
				bs += val[b, r, m]; ss += val[c, r, m]
			}
		PN = dn
		if (dn < 2) return 0
		PB = bs / dn; PS = ss / dn; PD = ds / dn
		PH = half(ds, dq, dn)
		return 1
	}
	END {
		if (vs != "") {
			for (i = 1; i <= nc; i++) {
				c = order[i]
				if (st[c] != vs) continue
				line = ""; np = 0
				for (m = 1; m <= M; m++) {
					if (!miss[c, m] && paired(c, m)) {
						line = line sprintf("\t%.4f\t%.4f\t%+.4f\t%+.4f\t%+.4f", PB, PS, PD, PD - PH, PD + PH)
						if (PN > np) np = PN
					} else
						line = line "\tnan\tnan\tnan\tnan\tnan"
				}
				if (np) printf "%s\t%s\t%d%s\n", pl[c], kd[c], np, line
			}
			exit
		}
		for (i = 1; i <= nc; i++) {
			c = order[i]
			printf "| %s | %s | %s | %d", pl[c], kd[c], st[c], cnt[c]
			for (m = 1; m <= M; m++) printf " | %s", cellof(c, m)
			printf " |\n"
		}
	}'
	exit 0
fi

if [ -z "$VS" ]; then
	echo "| payload | transfer | state | n | sender without credit, % of the transfer: mean [95 % CI] | minus baseline, points, paired by round [95 % CI] |"
	echo "|---|---|---|---:|---|---|"
fi
sort -t$'\t' -k1,1n -k2,2 -k3,3 "$rows" | awk -F'\t' -v vs="$VS" "$TSTATS"'
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
