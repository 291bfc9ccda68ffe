#!/bin/bash
# vu-event-idx.sh [--pairs N] [--bytes SIZE] [--sizes "4K 16K 64K"] [-k VARIANT] [--out DIR]
# vu-event-idx.sh --summarize DIR   (the summary of a finished set again)
#
# What VIRTIO_RING_F_EVENT_IDX does for host->guest traffic through the
# lab's vhost-user-vsock back-end: AB/BA pairs of guest runs with the
# feature offered ("on") and not (--no-event-idx, "off"); pair i runs on
# then off, pair i+1 off then on.  Each run boots one guest (TCG, 2 vCPUs,
# scripts/guest-run.sh -U) that receives --bytes per write size with
# vb-recv while the host sends them with `vhost-user-vsock send`, one
# packet per write.  Measured per transfer:
#   cpu_ms_per_mb  the back-end's CPU time (/proc/PID/schedstat, ns)
#                  during the send, per MiB: insensitive to host load
#                  as long as the back-end gets a CPU at all
#   gbps           the guest's vb-recv throughput, first byte to EOF
#                  (wall clock: labelled with the host load average)
#   kicks, interrupts  from the back-end's exit line (per run, all sizes)
# Output: DIR/runs/pNN-{on,off}/ (console, backend.log, recv-*.txt,
# host-*.txt; packed at the end into DIR/raw.tar.xz, scripts/results-raw.sh),
# DIR/samples.tsv, DIR/summary.txt (per size: mean of each
# arm, the mean paired difference on - off with its 95% t interval).
# Exclusion rule, fixed before the runs: a transfer whose bytes do not
# all arrive is a failed run (exit 1), not a sample; nothing else is
# dropped.  Exit 0 ok, 1 a run failed, 2 bad usage.
set -uo pipefail
VB_ROOT=$(cd "$(dirname "$0")/.." && pwd)
VU=$VB_ROOT/build/vhost-user-vsock

if [ "${1:-}" = --host ]; then
	# The host half, started by guest-run.sh -H: BYTES SIZE...
	: "${VB_UDS:?}" "${VB_OUTDIR:?}" "${VB_GUEST_PID:?}"
	bytes=$2
	shift 2
	pid=$(pgrep -f -- "--uds $VB_UDS( |\$)" | head -n 1)
	[ -n "$pid" ] || { echo "vu-event-idx: back-end of $VB_UDS not found" >&2; exit 1; }
	i=0
	for size in "$@"; do
		f=$VB_OUTDIR/recv-$size.txt
		until grep -q "^Listen port $((4000 + i))" "$f" 2>/dev/null; do
			kill -0 "$VB_GUEST_PID" 2>/dev/null || exit 1
			sleep 0.05
		done
		read -r cpu0 _ </proc/"$pid"/schedstat
		read -r l0 _ </proc/loadavg
		"$VU" send --uds "$VB_UDS" --port $((4000 + i)) --bytes "$bytes" \
			--buf-size "$size" --retry 20 >"$VB_OUTDIR/send-$size.txt" 2>&1 || exit 1
		# The back-end has sent it all when the guest's receiver is done.
		until grep -q '^total bytes received' "$f" 2>/dev/null; do
			kill -0 "$VB_GUEST_PID" 2>/dev/null || exit 1
			sleep 0.02
		done
		read -r cpu1 _ </proc/"$pid"/schedstat
		read -r l1 _ </proc/loadavg
		echo "cpu_ns $((cpu1 - cpu0)) load_start $l0 load_end $l1" >"$VB_OUTDIR/host-$size.txt"
		i=$((i + 1))
	done
	exit 0
fi

usage() {
	sed -n '2,22p' "$0" | sed 's/^# \{0,1\}//' >&2
	exit 2
}
PAIRS=4 BYTES=64M SIZES="4K 16K 64K" VARIANT=baseline OUT= SUMMARIZE=0
while [ $# -gt 0 ]; do
	case $1 in
	--pairs) PAIRS=${2:-}; shift 2 ;;
	--bytes) BYTES=${2:-}; shift 2 ;;
	--sizes) SIZES=${2:-}; shift 2 ;;
	-k) VARIANT=${2:-}; shift 2 ;;
	--out) OUT=${2:-}; shift 2 ;;
	--summarize) OUT=${2:-}; SUMMARIZE=1; shift 2 ;;
	*) usage ;;
	esac
done
if [ "$SUMMARIZE" = 1 ]; then
	[ -f "$OUT/samples.tsv" ] || { echo "vu-event-idx: $OUT/samples.tsv missing" >&2; exit 2; }
	SIZES=$(awk -F'\t' 'NR > 1 && !seen[$3]++ { printf "%s%s", n++ ? " " : "", $3 }' "$OUT/samples.tsv")
fi
[[ "$PAIRS" =~ ^[1-9][0-9]*$ ]] || { echo "vu-event-idx: --pairs must be a positive number, not '$PAIRS'" >&2; exit 2; }
nbytes=$(numfmt --from=iec "$BYTES" 2>/dev/null) || { echo "vu-event-idx: bad --bytes '$BYTES'" >&2; exit 2; }
for s in $SIZES; do
	n=$(numfmt --from=iec "$s" 2>/dev/null) && [ "$n" -ge 1 ] && [ "$n" -le 65536 ] ||
		{ echo "vu-event-idx: write size '$s' not in 1..64K" >&2; exit 2; }
done
[ -x "$VU" ] || { echo "vu-event-idx: $VU missing (run make)" >&2; exit 2; }
[ -n "$OUT" ] || OUT=$VB_ROOT/results/$(date -u +%Y-%m-%d)-vu-event-idx
rc=0
if [ "$SUMMARIZE" = 0 ]; then
mkdir -p "$OUT/runs" || exit 1
{
	echo "command: scripts/vu-event-idx.sh --pairs $PAIRS --bytes $BYTES --sizes \"$SIZES\" -k $VARIANT"
	echo "commit: $(git -C "$VB_ROOT" rev-parse --short HEAD 2>/dev/null)"
	echo "kernel: $VARIANT; guest: TCG, 2 vCPUs; host: $(nproc) CPUs, $(uname -r)"
	echo "order: pair i on,off for odd i; off,on for even i"
	echo "exclusion: a transfer that does not deliver every byte fails the run; nothing else dropped"
} >"$OUT/manifest.txt"
printf 'pair\tarm\tsize\tbytes\tcpu_ns\tgbps\tload_start\tload_end\n' >"$OUT/samples.tsv"
: >"$OUT/kicks.tsv"
for p in $(seq 1 "$PAIRS"); do
	if [ $((p % 2)) = 1 ]; then arms="on off"; else arms="off on"; fi
	for arm in $arms; do
		d=$OUT/runs/p$(printf %02d "$p")-$arm
		extra=
		[ "$arm" = off ] && extra=--no-event-idx
		echo "vu-event-idx: pair $p, EVENT_IDX $arm" >&2
		if ! VB_VU_ARGS=$extra "$VB_ROOT/scripts/guest-run.sh" -k "$VARIANT" -U -t 600 -o "$d" \
			-H "$VB_ROOT/scripts/vu-event-idx.sh --host $nbytes $SIZES" \
			"$VB_ROOT/tests/guest/vu-event-idx.sh" "$nbytes" $SIZES >"$d.log" 2>&1; then
			echo "vu-event-idx: run $d failed: $(tail -n 2 "$d.log")" >&2
			rc=1
			continue
		fi
		for s in $SIZES; do
			g=$(sed -n 's/^rx performance: \([0-9.]*\) Gbits.*/\1/p' "$d/recv-$s.txt")
			got=$(sed -n 's/^total bytes received: //p' "$d/recv-$s.txt")
			read -r _ cpu _ l0 _ l1 <"$d/host-$s.txt"
			[ "$got" = "$nbytes" ] || { echo "vu-event-idx: $d $s: $got of $nbytes bytes" >&2; rc=1; continue; }
			printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$p" "$arm" "$s" "$nbytes" "$cpu" "$g" "$l0" "$l1" >>"$OUT/samples.tsv"
		done
		sed -n 's/.*interrupts RX \([0-9]*\) (\([0-9]*\) not needed), TX \([0-9]*\) (\([0-9]*\) not needed); kicks RX \([0-9]*\), TX \([0-9]*\).*/\1 \2 \3 \4 \5 \6/p' \
			"$d/backend.log" | tail -n 1 | sed "s/^/$p $arm /" >>"$OUT/kicks.tsv"
	done
done
fi

# Per size: arm means and the paired difference (on - off) with a 95% t interval.
awk -F'\t' -v sizes="$SIZES" '
function tq(df) { # two-sided 95% t quantiles, df 1..10, then normal
	split("12.706 4.303 3.182 2.776 2.571 2.447 2.365 2.306 2.262 2.228", t, " ")
	return df <= 10 ? t[df] : 1.96
}
NR > 1 {
	mb = $4 / 1048576
	c[$3, $2, $1] = $5 / 1e6 / mb; g[$3, $2, $1] = $6; seen[$1] = 1
	if (!($3 in lmin) || $7 < lmin[$3]) lmin[$3] = $7
	if ($8 > lmax[$3]) lmax[$3] = $8
}
END {
	printf "%-6s %-26s %-26s %-34s %s\n", "size", "cpu ms/MiB on | off", "gbps on | off",
	       "diff on-off cpu ms/MiB [95% CI]", "diff gbps [95% CI] (n pairs; load)"
	ns = split(sizes, S, " ")
	for (i = 1; i <= ns; i++) {
		s = S[i]; n = 0; sc = sg = dc = dg = dc2 = dg2 = con = coff = gon = goff = 0
		for (p in seen) {
			if (!((s, "on", p) in c) || !((s, "off", p) in c)) continue
			n++; x = c[s, "on", p] - c[s, "off", p]; y = g[s, "on", p] - g[s, "off", p]
			dc += x; dc2 += x * x; dg += y; dg2 += y * y
			con += c[s, "on", p]; coff += c[s, "off", p]; gon += g[s, "on", p]; goff += g[s, "off", p]
		}
		if (!n) { printf "%-6s no complete pairs\n", s; continue }
		mc = dc / n; mg = dg / n
		hc = n > 1 ? tq(n - 1) * sqrt((dc2 - n * mc * mc) / (n - 1) / n) : 0
		hg = n > 1 ? tq(n - 1) * sqrt((dg2 - n * mg * mg) / (n - 1) / n) : 0
		printf "%-6s %7.2f | %-16.2f %6.3f | %-17.3f %+7.2f [%+.2f, %+.2f]%10s %+.3f [%+.3f, %+.3f] (n=%d; load %s-%s)\n",
		       s, con / n, coff / n, gon / n, goff / n, mc, mc - hc, mc + hc, "", mg, mg - hg, mg + hg, n, lmin[s], lmax[s]
	}
}' "$OUT/samples.tsv" >"$OUT/summary.txt"
# Per run (all sizes): interrupts and kicks, arm means and paired differences.
awk '
function tq(df) {
	split("12.706 4.303 3.182 2.776 2.571 2.447 2.365 2.306 2.262 2.228", t, " ")
	return df <= 10 ? t[df] : 1.96
}
{ for (k = 3; k <= 8; k++) v[$1, $2, k] = $k; seen[$1] = 1 }
END {
	split("RX interrupts,RX interrupts left out,TX interrupts,TX interrupts left out,RX kicks,TX kicks", name, ",")
	for (k = 3; k <= 8; k++) {
		n = s = s2 = on = off = 0
		for (p in seen) {
			if (!((p, "on", k) in v) || !((p, "off", k) in v)) continue
			d = v[p, "on", k] - v[p, "off", k]
			n++; s += d; s2 += d * d; on += v[p, "on", k]; off += v[p, "off", k]
		}
		if (!n) continue
		m = s / n; h = n > 1 ? tq(n - 1) * sqrt((s2 - n * m * m) / (n - 1) / n) : 0
		printf "per run, %-24s on %8.0f | off %8.0f   diff %+8.0f [%+.0f, %+.0f] (n=%d)\n",
		       name[k - 2], on / n, off / n, m, m - h, m + h, n
	}
}' "$OUT/kicks.tsv" >>"$OUT/summary.txt"
cat "$OUT/summary.txt"
# the runs into one archive, as experiment.sh does
"$VB_ROOT/scripts/results-raw.sh" pack "$OUT" || rc=1
exit $rc
