#!/bin/bash
# icount-spread.sh [--kernels LIST] [--boots N] [--payloads LIST]
#                  [--packets LIST] [--repeats N] [--seed N]
#                  [--aslr on|off] [--between none|memory|spin]
#                  [--singlestep] [--early-spin [--early-spin-cpu 0|1]]
#                  [--early-sleep] [--sched-features LIST] [--out DIR]
# icount-spread.sh --resummarize DIR   (spread.tsv, table.md from DIR's
#                                       steps-insns.tsv again)
#
# Where the instruction-count sets' remaining spread comes from, and what
# transfer length would bring it under a target: guest instructions per
# received byte (QEMU -icount shift=0,sleep=off + the lab's vb-insns
# plugin; counts, not wall-clock) of untraced loopback transfers, REPEATS
# per payload and length in each of N boots per kernel
# (tests/guest/icount-spread.sh; counted from accept() to EOF like the
# experiment's fixed transfers).  If the spread is each transfer's own
# (which vCPU runs the worker when, how many packets each wake-up finds),
# its CV falls as 1/sqrt(length); if it is a state a boot or a transfer
# settles into, it does not.  And if the boots differ, the CV of the
# boots' means exceeds what the within-boot CV predicts for REPEATS
# transfers.  --seed N gives every boot the same randomness (guest-run.sh
# VB_QEMU_SEED: QEMU -seed N, a fixed-date RTC on the guest's clock), so
# boots then differ only in what the host's timing gives them (9p and
# console I/O completing at other instruction counts).  --aslr off turns
# the guest's user address-space randomisation off (the one consumer of
# randomness on the transfer's path in these kernels: no KASLR, no
# kernel stack offset or freelist randomisation).  --between ACTION runs
# ACTION, unmarked, before every marked transfer, to ask whether a
# boot's state can be drawn again inside the boot: memory (write and
# remove 256 MiB of tmpfs, drop the page cache: the page allocator's
# free lists and the slabs) or spin (a random-length busy loop on vCPU 1:
# the clock's phase and vCPU 1's run-queue time); a state that is drawn
# again moves spread from the boots' means into the within-boot CV.
# --singlestep: QEMU -singlestep (guest-run.sh VB_QEMU_SINGLESTEP=1), one
# instruction per translation block, to ask whether the state is how
# TCG cut the kernel's code into blocks (where an exit request lands).
# --early-spin: boot i spins i x 4099 shell-loop iterations on vCPU 1
# (--early-spin-cpu: 0 or 1) once, before its warm-up; with --seed the
# boots then differ only in where on their clock the transfers start
# (and in host I/O timing).  --early-sleep: boot i sleeps i x 0.05 s
# instead: the clock moves (idle time warps under sleep=off), nothing
# runs.  Compare either with a --seed run of the same commit and no
# early step (results/2026-12-01-icount-redraw: the seed's state moves
# with the guest script, so an older control does not do).
# --sched-features LIST: scheduler features for every boot (guest /init,
# VB_SCHED_FEATURES; e.g. "NO_PLACE_LAG NO_RUN_TO_PARITY"), to ask which
# part of EEVDF carries a boot's state: the count follows how often the
# loopback worker preempts the sender, and that rate settles per boot.
#
# Defaults: baseline and patched, 2 boots each, payloads 256 and 512 (the
# ones whose cross-boot CV missed 1 % in results/2026-12-01-icount-16p),
# 16384, 65536 and 262144 packets per transfer (4, 16 and 64 MiB at
# 256 B), 5 repeats.  Two guests run at a time (one host core each:
# icount runs all vCPUs of a guest in one thread).
#
# Output (default results/<UTC date>-icount-spread/): <kernel>-b<i>/ (the
# guest's files, insns.tsv, steps.tsv), steps-insns.tsv (one row per
# transfer), spread.tsv and table.md (per kernel, payload and length: n,
# mean instructions per byte, CV within a boot (pooled), CV over all
# transfers, CV of the boots' means, vCPU 0 and vCPU 1 CV, and the
# CV a 1/sqrt(length) law predicts from the shortest length),
# manifest.json; the boots' directories end packed in raw.tar.xz
# (scripts/results-raw.sh), which --resummarize unpacks and packs again.
# Exit 0; 1 a guest or a transfer failed; 2 bad usage.
set -uo pipefail
. "$(dirname "$0")/lib.sh"

bad() {
	echo "${0##*/}: $*" >&2
	exit 2
}
usage() {
	sed -n '2,/^set -uo/p' "$0" | sed '$d; s/^# \{0,1\}//' >&2
	exit 2
}

# summarize DIR: spread.tsv and table.md from DIR/steps-insns.tsv
summarize() {
	# per kernel, payload, length: CVs of instructions per byte
	awk -F'\t' '
	function pos(v) { return v > 0 ? v : 0 }	# rounding can take a sum of squares below 0
	function cv(s, ss, n,   m) { if (n < 2) return -1; m = s / n; return 100 * sqrt(pos(ss - n * m * m) / (n - 1)) / m }
	NR == 1 { next }
	{
		key = $1 SUBSEP $4 SUBSEP $5
		x = $7 / $6; x0 = $8 / $6; x1 = $9 / $6
		n[key]++; s[key] += x; ss[key] += x * x
		s0[key] += x0; ss0[key] += x0 * x0; s1[key] += x1; ss1[key] += x1 * x1
		bk = key SUBSEP $2
		if (!(bk in bn)) boots[key] = boots[key] " " $2
		bn[bk]++; bs[bk] += x; bss[bk] += x * x
		keys[key] = 1
	}
	END {
		print "kernel\tpayload\tpackets\tn\tboots\tinsns_per_byte\tcv_within_boot_pct\tcv_all_pct\tcv_boot_means_pct\tcv_cpu0_pct\tcv_cpu1_pct"
		for (key in keys) {
			split(key, kk, SUBSEP)
			nb = split(boots[key], bl, " ")
			# pooled within-boot variance; CV of the boot means
			pv = 0; pdf = 0; ms = 0; mss = 0
			for (i = 1; i <= nb; i++) {
				bk = key SUBSEP bl[i]
				m = bs[bk] / bn[bk]
				if (bn[bk] >= 2) { pv += bss[bk] - bn[bk] * m * m; pdf += bn[bk] - 1 }
				ms += m; mss += m * m
			}
			mean = s[key] / n[key]
			printf "%s\t%s\t%s\t%d\t%d\t%.4f\t%.2f\t%.2f\t%.2f\t%.2f\t%.2f\n", kk[1], kk[2], kk[3], n[key], nb,
				mean, pdf ? 100 * sqrt(pos(pv) / pdf) / mean : -1, cv(s[key], ss[key], n[key]),
				cv(ms, mss, nb), cv(s0[key], ss0[key], n[key]), cv(s1[key], ss1[key], n[key])
		}
	}' "$1/steps-insns.tsv" | (read -r h; echo "$h"; sort -t$'\t' -k1,1 -k2,2n -k3,3n) >"$1/spread.tsv"

	# README rows, with what a 1/sqrt(length) law predicts from the shortest
	awk -F'\t' '
	function sz(b) { return b >= 1048576 ? sprintf("%g MiB", b / 1048576) : sprintf("%g KiB", b / 1024) }
	function f(v) { return v < 0 ? "-" : sprintf("%.2f %%", v) }
	NR == 1 { next }
	{
		g = $1 SUBSEP $2
		if (!(g in p0)) { p0[g] = $3; c0[g] = $7 }
		pred = c0[g] >= 0 ? c0[g] * sqrt(p0[g] / $3) : -1
		printf "| %s | %s B | %s (%s) | %d in %d boots | %.3f | %s | %s | %s | %s | %s | %s |\n", $1, $2, $3, sz($2 * $3),
			$4, $5, $6, f($7), f(pred), f($8), f($9), f($10), f($11)
	}' "$1/spread.tsv" >"$1/table.md"
	ctxsw "$1"
}

# ctxsw DIR: each transfer's context switches (vb-sender's and vb-recv's
# nvcsw/nivcsw, getrusage over the transfer loop) beside its instruction
# count: ctxsw.tsv, and ctxsw.md with, per kernel, payload and length,
# the sender's involuntary switches per packet (the loopback worker,
# woken on the sender's vCPU by every send, preempting it), their CV,
# and how the instruction count goes with them: Pearson r over the
# transfers and the least-squares slope in instructions per switch.
# Sets from before the tools printed these fields get neither file.
ctxsw() {
	local d=$1 k b st pl np by ins i0 i1 tx rx
	tail -n +2 "$d/steps-insns.tsv" | while IFS=$'\t' read -r k b st pl np by ins i0 i1; do
		tx=$(grep -h '^{"tool":"vb-sender"' "$d/$k-b$b/r$st.tx" 2>/dev/null | tail -n 1)
		rx=$(grep -h '^{"tool":"vb-recv"' "$d/$k-b$b/r$st.rx" 2>/dev/null | tail -n 1)
		# (jq 1.6 -e exits 0 on empty input: a transfer whose files are gone
		# must be skipped before it is asked)
		[ -n "$tx" ] && [ -n "$rx" ] || continue
		jq -e 'has("nivcsw")' <<<"$tx" >/dev/null 2>&1 && jq -e 'has("nvcsw")' <<<"$rx" >/dev/null 2>&1 || continue
		jq -r -n --argjson tx "$tx" --argjson rx "$rx" --arg row "$k	$b	$st	$pl	$np	$by	$ins" \
			'"\($row)\t\($tx.nvcsw)\t\($tx.nivcsw)\t\($rx.nvcsw)\t\($rx.nivcsw)"'
	done >"$d/ctxsw.tsv.tmp"
	if [ ! -s "$d/ctxsw.tsv.tmp" ]; then
		rm -f "$d/ctxsw.tsv.tmp"
		return 0
	fi
	{ printf 'kernel\tboot\tstep\tpayload\tpackets\tbytes\tinsns\ttx_nvcsw\ttx_nivcsw\trx_nvcsw\trx_nivcsw\n'
	  cat "$d/ctxsw.tsv.tmp"; } >"$d/ctxsw.tsv"
	rm -f "$d/ctxsw.tsv.tmp"
	awk -F'\t' '
	function pos(v) { return v > 0 ? v : 0 }
	NR == 1 { next }
	{
		key = $1 SUBSEP $4 SUBSEP $5
		x = $9 / $5; y = $7 / $6	# preemptions per packet; instructions per byte
		n[key]++; sx[key] += x; sxx[key] += x * x; sy[key] += y; syy[key] += y * y; sxy[key] += x * y
		# the slope on absolute counts: instructions per preemption
		a = $9; c = $7
		sa[key] += a; saa[key] += a * a; sc[key] += c; sac[key] += a * c
		v[key] += $8 / $5; r[key] += $10 / $5
	}
	END {
		print "| kernel | payload | packets | n | sender preemptions per packet (CV) | sender sleeps per packet | reader sleeps per packet | r (insns/byte, preemptions/packet) | instructions per preemption |"
		print "|---|---|---:|---:|---|---:|---:|---:|---:|"
		for (key in n) {
			split(key, kk, SUBSEP); m = n[key]
			mx = sx[key] / m; vx = pos(sxx[key] - m * mx * mx); vy = pos(syy[key] - m * (sy[key] / m) ^ 2)
			cxy = sxy[key] - m * mx * (sy[key] / m)
			# no preemption at all (e.g. NO_WAKEUP_PREEMPTION): no CV, no
			# correlation and no slope to print, not 0 or nan
			rr = (vx > 0 && vy > 0) ? sprintf("%.3f", cxy / sqrt(vx * vy)) : "-"
			ma = sa[key] / m; va = pos(saa[key] - m * ma * ma)
			slope = va > 0 ? sprintf("%.0f", (sac[key] - m * ma * (sc[key] / m)) / va) : "-"
			cvx = (m > 1 && mx > 0) ? sprintf("%.2f %%", 100 * sqrt(vx / (m - 1)) / mx) : "-"
			printf "%s\t| %s | %s B | %s | %d | %.4f (%s) | %.5f | %.5f | %s | %s |\n", kk[1] SUBSEP kk[2] SUBSEP kk[3],
				kk[1], kk[2], kk[3], m, mx, cvx, v[key] / m, r[key] / m, rr, slope
		}
	}' "$d/ctxsw.tsv" | { read -r h; read -r h2; echo "$h"; echo "$h2"; sort -t$'\t' -k1,1 | cut -f2-; } >"$d/ctxsw.md"
}

KERNELS="baseline patched" BOOTS=2 PAYLOADS="256 512" PACKETS="16384 65536 262144"
REPEATS=5 OUT= SEED= ASLR=on BETWEEN=none SINGLESTEP=0 EARLY=0 EARLY_CPU=1 ESLEEP=0 SCHEDF=
args=("$@")
if [ "${1-}" = --resummarize ]; then
	[ $# -eq 2 ] || usage
	head -1 "$2/steps-insns.tsv" 2>/dev/null | grep -q '^kernel	boot	step	payload	packets	bytes	insns	insns_cpu0	insns_cpu1$' ||
		bad "--resummarize: $2/steps-insns.tsv missing or not an icount-spread table"
	# the boots' transfer files (ctxsw) from a packed set's raw.tar.xz
	raw_inplace "$2" summarize "$2"
	exit $?
fi
while [ $# -gt 0 ]; do
	case $1 in
	--kernels) KERNELS=${2-} ;;
	--boots) BOOTS=${2-} ;;
	--payloads) PAYLOADS=${2-} ;;
	--packets) PACKETS=${2-} ;;
	--repeats) REPEATS=${2-} ;;
	--seed) SEED=${2-} ;;
	--aslr) ASLR=${2-} ;;
	--between) BETWEEN=${2-} ;;
	--singlestep) SINGLESTEP=1; shift; continue ;;
	--early-spin) EARLY=1; shift; continue ;;
	--early-spin-cpu) EARLY_CPU=${2-} ;;
	--early-sleep) ESLEEP=1; shift; continue ;;
	--sched-features) SCHEDF=${2-} ;;
	--out) OUT=${2-} ;;
	*) usage ;;
	esac
	[ $# -ge 2 ] || bad "$1 needs a value"
	shift 2
done
num() { [[ "$1" =~ ^[1-9][0-9]*$ ]]; }
num "$BOOTS" || bad "--boots needs a positive number, not '$BOOTS'"
[ -z "$SEED" ] || [[ "$SEED" =~ ^[0-9]+$ ]] || bad "--seed needs a number, not '$SEED'"
case $ASLR in on|off) ;; *) bad "--aslr must be on or off, not '$ASLR'" ;; esac
case $BETWEEN in none|memory|spin) ;; *) bad "--between must be none, memory or spin, not '$BETWEEN'" ;; esac
case $EARLY_CPU in 0|1) ;; *) bad "--early-spin-cpu must be 0 or 1, not '$EARLY_CPU'" ;; esac
for f in $SCHEDF; do
	[[ "$f" =~ ^(NO_)?[A-Z][A-Z_]*$ ]] || bad "--sched-features: '$f' is not a feature name (NAME or NO_NAME)"
done
num "$REPEATS" && [ "$REPEATS" -ge 2 ] || bad "--repeats needs a number >= 2 (a CV needs two transfers), not '$REPEATS'"
[ -n "$KERNELS" ] || bad "--kernels is empty"
for k in $KERNELS; do variant_spec "$k" >/dev/null 2>&1 || bad "unknown kernel variant '$k'"; done
[ -n "$PAYLOADS" ] || bad "--payloads is empty"
for p in $PAYLOADS; do num "$p" && [ "$p" -le 65536 ] || bad "payload '$p' is not a number of bytes 1..65536"; done
[ -n "$PACKETS" ] || bad "--packets is empty"
for n in $PACKETS; do num "$n" || bad "packets '$n' is not a positive number"; done
[ $((REPEATS * $(wc -w <<<"$PACKETS") * $(wc -w <<<"$PAYLOADS"))) -le 32767 ] ||
	bad "too many transfers per boot for the 16-bit marks"
command -v jq >/dev/null || die "jq missing (make deps)"

[ -n "$OUT" ] || OUT=$VB_ROOT/results/$(date -u +%Y-%m-%d)-icount-spread
[ -z "$(ls -A "$OUT" 2>/dev/null)" ] || bad "$OUT exists and is not empty (--out)"
mkdir -p "$OUT" && OUT=$(cd "$OUT" && pwd) || exit 1
make -C "$VB_ROOT" -j2 all >"$OUT/build.log" 2>&1 || die "build failed ($OUT/build.log)"

# every guest's work, in the order the guests run
jobs=() kernels=()
for k in $KERNELS; do
	kdir=$("$VB_ROOT/scripts/kernel-build.sh" "$k") || die "$k: kernel build failed"
	kernels+=("$k $(basename "$kdir")")
	# per boot: name, kernel, early-spin iterations, early sleep in ms
	for ((b = 1; b <= BOOTS; b++)); do jobs+=("$k-b$b $kdir $((EARLY * b * 4099)) $((ESLEEP * b * 50))"); done
done

load0=$(cut -d' ' -f1-3 /proc/loadavg) t0=$(date +%s)
rc=0 running=()
for j in "${jobs[@]}"; do
	read -r name kdir early esleep <<<"$j"
	mkdir -p "$OUT/$name"
	env=(-e "VB_ASLR=$ASLR")
	[ -z "$SCHEDF" ] || env+=(-e "VB_SCHED_FEATURES=$SCHEDF")
	[ "$early" = 0 ] || env+=(-e "VB_EARLY_SPIN=$early" -e "VB_EARLY_SPIN_CPU=$EARLY_CPU")
	[ "$esleep" = 0 ] || env+=(-e "VB_EARLY_SLEEP=$(printf '%d.%03d' $((esleep / 1000)) $((esleep % 1000)))")
	VB_QEMU_SEED=$SEED VB_QEMU_SINGLESTEP=$SINGLESTEP "$VB_ROOT/scripts/guest-run.sh" -K "$kdir" -t 3600 -C icount -o "$OUT/$name" "${env[@]}" \
		"$VB_ROOT/tests/guest/icount-spread.sh" "$PAYLOADS" "$PACKETS" "$REPEATS" "$BETWEEN" \
		>/dev/null 2>"$OUT/$name/guest-run.err" &
	running+=($!)
	log "guest $name started"
	if [ ${#running[@]} -ge 2 ]; then
		wait "${running[0]}" || rc=1
		running=("${running[@]:1}")
	fi
done
for p in "${running[@]}"; do wait "$p" || rc=1; done
load1=$(cut -d' ' -f1-3 /proc/loadavg) t1=$(date +%s)

# one row per transfer that completed: kernel boot k payload packets
# bytes total vcpu0 vcpu1
for j in "${jobs[@]}"; do
	name=${j%% *}
	[ -f "$OUT/$name/steps.tsv" ] || { log "$name: no steps.tsv (see $name/console.log)"; rc=1; continue; }
	while IFS=$'\t' read -r k pl np b st; do
		[ "$st" = ok ] || { log "$name: step $k failed, dropped"; rc=1; continue; }
		d=$("$VB_ROOT/scripts/insns-delta.sh" "$OUT/$name/insns.tsv" $((2 * k - 1)) $((2 * k))) ||
			{ rc=1; continue; }
		jq -r --arg n "$name" --arg k "$k" --arg pl "$pl" --arg np "$np" --arg b "$b" \
			'[($n | sub("-b[0-9]+$"; "")), ($n | capture("-b(?<b>[0-9]+)$").b), $k, $pl, $np, $b,
			  .total, (.vcpus[] | select(.vcpu == 0) | .user + .kernel),
			  (.vcpus[] | select(.vcpu == 1) | .user + .kernel)] | @tsv' <<<"$d"
	done <"$OUT/$name/steps.tsv"
done | { printf 'kernel\tboot\tstep\tpayload\tpackets\tbytes\tinsns\tinsns_cpu0\tinsns_cpu1\n'; cat; } \
	>"$OUT/steps-insns.tsv"

summarize "$OUT"

jq -n --arg cmd "scripts/icount-spread.sh${args[*]:+ ${args[*]}}" \
	--arg commit "$(git -C "$VB_ROOT" rev-parse HEAD 2>/dev/null || echo unknown)" \
	--arg dirty "$(git -C "$VB_ROOT" status --porcelain 2>/dev/null | grep -qv '^??' && echo yes || echo no)" \
	--arg kernels "$(printf '%s\n' "${kernels[@]}")" --arg payloads "$PAYLOADS" --arg packets "$PACKETS" \
	--argjson boots "$BOOTS" --argjson repeats "$REPEATS" --arg load0 "$load0" --arg load1 "$load1" \
	--arg seed "$SEED" --arg aslr "$ASLR" --arg between "$BETWEEN" --argjson singlestep "$SINGLESTEP" --argjson early "$EARLY" --argjson early_cpu "$EARLY_CPU" --argjson esleep "$ESLEEP" --arg schedf "$SCHEDF" \
	--argjson seconds $((t1 - t0)) '{
	  format: "vsockbatch-icount-spread", command: $cmd, commit: $commit, dirty_tree: $dirty,
	  kernels: ($kernels | split("\n") | map(split(" ") | {variant: .[0], cache_entry: .[1]})),
	  payloads: ($payloads | split(" ") | map(tonumber)), packets: ($packets | split(" ") | map(tonumber)),
	  boots_per_kernel: $boots, repeats: $repeats,
	  seed: (if $seed == "" then null else ($seed | tonumber) end), aslr: $aslr, between: $between, singlestep: ($singlestep == 1), early_spin: (if $early == 1 then "boot i: i x 4099 iterations on vCPU \($early_cpu) before the warm-up" else null end), early_sleep: (if $esleep == 1 then "boot i: sleep i x 0.05 s before the warm-up" else null end),
	  sched_features: (if $schedf == "" then "the kernel defaults" else "set by /init before the test, for the whole boot: \($schedf)" end),
	  seed_note: (if $seed == "" then "none: every boot draws its own randomness (RDRAND, RTC at the host time)" else "every boot: QEMU -seed, -rtc base=2026-01-01T00:00:00,clock=vm (identical guest inputs but the host I/O timing)" end),
	  clock: "icount (QEMU -icount shift=0,sleep=off + vb-insns plugin): guest instructions from vb-recv accept() to EOF, all vCPUs and per vCPU; untraced; not wall-clock",
	  transfer: "loopback (CID 1), vb-sender --cpu 1 -> vb-recv --cpu 0, 64 KiB recv(); one unmarked warm-up transfer per payload and boot",
	  exclusions: "decided before the runs: a transfer that failed (vb-sender or vb-recv --expect-bytes) is dropped and makes the run exit 1",
	  host_loadavg_start: $load0, host_loadavg_end: $load1, seconds: $seconds}' >"$OUT/manifest.json"
# the boots' files into one archive, as experiment.sh does
"$VB_ROOT/scripts/results-raw.sh" pack "$OUT" || rc=1
log "done in $((t1 - t0)) s: $OUT/table.md"
exit $rc
