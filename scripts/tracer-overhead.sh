#!/bin/bash
# tracer-overhead.sh [--rounds N] [--out DIR] [--kprobe] [--exporter]
#
# The tracer's own cost, measured: guest instructions per byte (QEMU
# -icount shift=0,sleep=off + the lab's vb-insns plugin: instruction
# counts, not wall-clock, not disturbed by the host's load) of loopback
# transfers at 64 B, 1 KiB and 64 KiB writes, untraced and under
# `vsockbatch record` in each mode the kernel offers: full on the
# baseline kernel, light and full on the patched one.  N rounds in
# rotating order per kernel, one boot per kernel
# (tests/guest/tracer-overhead.sh), then one --bpf-stats run per mode and
# payload for the BPF run time per program run.
#
# Output (default results/<UTC date>-tracer-overhead/): per kernel
# <kernel>/{insns.tsv,steps.tsv,recordings} (packed at the end into
# raw.tar.xz, scripts/results-raw.sh); overhead.tsv (one row per
# kernel, mode, payload: untraced and traced insns/B as the mean over
# rounds, overhead % of the means, min and max of the per-round
# overheads, added instructions per packet), bpf-stats.tsv, README table
# rows (table.md), manifest.json.  The tool's stored cost table comes
# from scripts/tracer-cost.sh (levels, n boots, CIs), not from here.
#
# --kprobe: the same with VSOCKBATCH_FORCE_KPROBE=1 in the guests, so
# every function hook attaches as a kprobe/kretprobe (the fallback of
# kernels that refuse fentry) and hooks without a kprobe twin are left
# out, as on such a kernel.  Default output <date>-tracer-overhead-kprobe.
#
# --exporter: the traced transfers run under `vsockbatch export` (maps
# read every 0.1 s, ten times its default rate; attached and serving
# before the marks, stopped after them) instead of record; no
# --bpf-stats runs.  Default output <date>-tracer-overhead-export.
set -uo pipefail
. "$(dirname "$0")/lib.sh"
ROUNDS=3 OUT= KPROBE=0
EXPORTER=0
# bad usage or input: one line, exit 2
bad() {
	echo "${0##*/}: $*" >&2
	exit 2
}
while [ $# -gt 0 ]; do
	case $1 in
	--rounds) ROUNDS=${2-}; shift ;;
	--out) OUT=${2-}; shift ;;
	--kprobe) KPROBE=1; shift; continue ;;
	--exporter) EXPORTER=1; shift; continue ;;
	*) sed -n '2,/^set -uo/p' "$0" | sed '$d; s/^# \{0,1\}//' >&2; exit 2 ;;
	esac
	shift
done
[[ "$ROUNDS" =~ ^[1-9][0-9]*$ ]] && [ "$ROUNDS" -ge 2 ] || bad "--rounds needs a number >= 2"
command -v jq >/dev/null || die "jq missing (make deps)"
attach=fentry env=()
if [ "$KPROBE" = 1 ]; then
	attach="kprobe (forced: VSOCKBATCH_FORCE_KPROBE=1)"
	env=(-e VSOCKBATCH_FORCE_KPROBE=1)
fi
tracer=record
if [ "$EXPORTER" = 1 ]; then
	tracer="export (maps read every 0.1 s)"
	env+=(-e VB_OVERHEAD_TRACER=export)
fi
[ -n "$OUT" ] || OUT=$VB_ROOT/results/$(date -u +%Y-%m-%d)-tracer-overhead$([ "$KPROBE" = 1 ] && echo -kprobe)$([ "$EXPORTER" = 1 ] && echo -export)
[ -z "$(ls -A "$OUT" 2>/dev/null)" ] || bad "$OUT exists and is not empty (--out)"
mkdir -p "$OUT" && OUT=$(cd "$OUT" && pwd) || exit 1
make -C "$VB_ROOT" -j2 all >"$OUT/build.log" 2>&1 || die "build failed ($OUT/build.log)"

load0=$(cut -d' ' -f1-3 /proc/loadavg) t0=$(date +%s)
pids=() kernels=()
for spec in baseline:full patched:light,full; do
	v=${spec%%:*} modes=${spec#*:}
	kdir=$("$VB_ROOT/scripts/kernel-build.sh" "$v") || die "$v: kernel build failed"
	kernels+=("$v $(basename "$kdir")")
	mkdir -p "$OUT/$v"
	"$VB_ROOT/scripts/guest-run.sh" -K "$kdir" -t 3000 -C icount -o "$OUT/$v" "${env[@]}" \
		"$VB_ROOT/tests/guest/tracer-overhead.sh" "$ROUNDS" "$modes" \
		>/dev/null 2>"$OUT/$v/guest-run.err" &
	pids+=($!)
done
rc=0
for p in "${pids[@]}"; do wait "$p" || rc=1; done
load1=$(cut -d' ' -f1-3 /proc/loadavg)

# per step: guest instructions (all vCPUs) between its marks, per byte
for v in baseline patched; do
	while IFS=$'\t' read -r k kind pl b; do
		d=$("$VB_ROOT/scripts/insns-delta.sh" "$OUT/$v/insns.tsv" $((2 * k - 1)) $((2 * k))) || continue
		t=$(jq -r .total <<<"$d")
		pk=$(( (b + pl - 1) / pl ))
		printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$v" "$k" "$kind" "$pl" "$b" "$pk" "$t"
	done <"$OUT/$v/steps.tsv"
done >"$OUT/steps-insns.tsv"

# overhead per kernel, mode, payload: the i-th traced step against the
# i-th untraced one of the same payload (same round)
awk -F'\t' '
	$3 == "u" || $3 == "l" || $3 == "f" {
		key = $1 SUBSEP $4
		n[key, $3]++
		ipb[key, $3, n[key, $3]] = $7 / $5
		ipp[key, $3, n[key, $3]] = $7 / $6
		seen[key] = 1
	}
	END {
		print "kernel\tmode\tpayload\trounds\tuntraced_insns_per_byte\ttraced_insns_per_byte\toverhead_pct\tmin_pct\tmax_pct\tadded_insns_per_pkt"
		for (key in seen) {
			split(key, kp, SUBSEP)
			for (m = 1; m <= 2; m++) {
				kind = m == 1 ? "l" : "f"
				if (!n[key, kind]) continue
				r = n[key, kind] < n[key, "u"] ? n[key, kind] : n[key, "u"]
				su = st = 0; mn = 1e9; mx = -1e9; add = 0
				for (i = 1; i <= r; i++) {
					su += ipb[key, "u", i]; st += ipb[key, kind, i]
					o = 100 * (ipb[key, kind, i] / ipb[key, "u", i] - 1)
					if (o < mn) mn = o
					if (o > mx) mx = o
					add += ipp[key, kind, i] - ipp[key, "u", i]
				}
				printf "%s\t%s\t%s\t%d\t%.4f\t%.4f\t%.2f\t%.2f\t%.2f\t%.0f\n", kp[1],
					kind == "l" ? "light" : "full", kp[2], r, su / r, st / r,
					100 * (st / su - 1), mn, mx, add / r
			}
		}
	}' "$OUT/steps-insns.tsv" | (read -r h; echo "$h"; sort -t$'\t' -k1,1 -k2,2 -k3,3n) >"$OUT/overhead.tsv"

# BPF run time per program run and per packet (the --bpf-stats steps)
{
	printf 'kernel\tmode\tpayload\tpkts\tbpf_runs\truns_per_pkt\tbpf_ns\tns_per_run\tns_per_pkt\n'
	for v in baseline patched; do
		for f in "$OUT/$v"/[LF]*.json; do
			[ -f "$f" ] || continue
			"$VB_ROOT/build/vsockbatch" report --json "$f" >"$f.report" 2>/dev/null || continue
			jq -r --arg v "$v" '[$v, .trace_mode, (.labels.payload // "?"), .totals.pkts,
				.tracer.bpf_run_cnt, (.tracer.bpf_run_cnt / .totals.pkts),
				.tracer.bpf_run_ns, (.tracer.bpf_run_ns / .tracer.bpf_run_cnt),
				(.tracer.bpf_run_ns / .totals.pkts)] |
				"\(.[0])\t\(.[1])\t\(.[2])\t\(.[3])\t\(.[4])\t\(.[5] * 100 | round / 100)\t\(.[6])\t\(.[7] | round)\t\(.[8] | round)"' "$f.report"
		done
	done
} >"$OUT/bpf-stats.tsv"


# README rows
awk -F'\t' 'NR > 1 { printf "| %s | %s | %s | %.2f | %.2f | %+.2f %% [%+.2f, %+.2f] | %s |\n",
	$1, $2, $3 == 65536 ? "64 KiB" : $3 == 1024 ? "1 KiB" : $3 " B", $5, $6, $7, $8, $9, $10 }' \
	"$OUT/overhead.tsv" >"$OUT/table.md"

jq -n --arg now "$(git -C "$VB_ROOT" rev-parse --short HEAD)$(git -C "$VB_ROOT" diff --quiet || echo +dirty)" \
	--argjson rounds "$ROUNDS" --arg kernels "${kernels[*]}" \
	--arg l0 "$load0" --arg l1 "$load1" --argjson rc "$rc" --arg secs "$(($(date +%s) - t0))" \
	--arg cmd "scripts/tracer-overhead.sh --rounds $ROUNDS$([ "$KPROBE" = 1 ] && echo ' --kprobe')$([ "$EXPORTER" = 1 ] && echo ' --exporter')" \
	--arg attach "$attach" --arg tracer "$tracer" \
	'{what: "guest instructions per byte of loopback transfers (vb-sender vCPU 1 -> vb-recv vCPU 0) at 64 B / 1 KiB / 64 KiB writes, untraced vs traced in each mode",
	  tracer: $tracer,
	  clock: "icount (QEMU -icount shift=0,sleep=off + vb-insns plugin): instruction counts of all vCPUs between vb-mark points inside the traced command, not wall-clock; the tracer load/attach/drain is outside the marks",
	  denominator: "all guest instructions of the transfer (sender, loopback worker, receiver): the whole path, not the RX worker alone",
	  transfer_bytes: {"64": 1048576, "1024": 4194304, "65536": 16777216},
	  attach: $attach, commit: $now, rounds: $rounds, kernels: $kernels, order: "rotating per round (u,l,f / l,f,u / f,u,l)",
	  guest_exit: $rc, seconds: ($secs | tonumber), host_load_start: $l0, host_load_end: $l1,
	  command: $cmd,
	  exclusions: "decided before the runs: a step whose transfer failed (vb-recv --expect-bytes) is dropped with its round; none were"}' >"$OUT/manifest.json"
cat "$OUT/overhead.tsv"
# the kernels' directories into one archive, as experiment.sh does
# (--table-only reads overhead.tsv, which stays plain)
"$VB_ROOT/scripts/results-raw.sh" pack "$OUT" || rc=1
[ $rc -eq 0 ]
