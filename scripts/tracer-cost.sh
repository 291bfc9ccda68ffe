#!/bin/bash
# tracer-cost.sh [--boots N] [--rounds R] [--mib M] [--kernels LIST] [--levels LIST]
#                [--out DIR] [--table FILE [--also SET]...]
#                | --table-only SET [--also SET]... [--table FILE] | --resummarize SET
#
# The tracer's cost per level, n boots per kernel, with 95 % CIs: the
# overhead set the README's table and the tool's overhead_table.h come
# from.  Per boot (tests/guest/tracer-profile.sh, QEMU -icount + the
# vb-insns plugin with its block profile) R rounds (default 3) of one
# 64 B loopback transfer of M MiB (default 4: 65536 packets) untraced and
# one under `vsockbatch record` per level, in an order that rotates by
# one every round and every boot.  Two figures per level:
#
#   whole   guest instructions of the traced transfer / the same round's
#           untraced one - 1 (all vCPUs, user and kernel), the mean over
#           the boot's rounds: what tracing
#           did to the transfer, including how it changed the transfer's
#           course (at 64 B the RX worker then meets longer queues and
#           the scheduler runs less: this figure understates the work).
#   direct  the instructions the tracer itself executed, per packet, /
#           the untraced transfer's instructions per packet (round a's
#           block profile: these counts repeat to < 1 %): every
#           function the profile puts in the BPF region ("[bpf]":
#           programs and trampolines, named from the guest's kallsyms
#           while attached) plus every kernel function the untraced
#           transfer of the same boot did not run at all (< 0.01 per
#           packet: BPF helpers, the trampoline's enter/exit, tracepoint
#           glue, kprobe handling).  Tracer work inside functions both
#           transfers run (the call site in the hooked function, say) is
#           not in it, so it is a floor of the tracer's own work.
#
# Levels per kernel: light (stock kernels: the recv_pkt tracepoint;
# kernels with the series: its rx_batch tracepoint, once per run), full
# (--sample 8, the default), fullevery (full --sample 1: every window
# timed); on the lab's 6.12 kernels also fullkp (full through the kprobe
# fallback).  fullduty and fullduty32 (full --duty 16 and --duty 32: the
# window hooks attached one 250 ms slice in 16 or 32, kernels without the
# series) are measured only when --levels names them: its toggles come every 4 s, so it needs transfers
# of many seconds (--mib 128: ~9 s of guest time at 64 B) to be seen at
# its average rather than at one slice's phase.  --levels LIST: only
# these of each kernel's levels (untraced always runs).  vCPUs: 2 per boot; 1 for a name KERNEL-1cpu: debian-6.1-1cpu
# (under -icount Debian 6.1 stops at SMP bring-up with 2, so plain
# debian-6.1 is refused), and any other kernel on one vCPU, the
# reference for what one vCPU changes.  The tool's table takes a -1cpu
# row only for a kernel the set has no 2-vCPU row of.  Exclusion rule,
# fixed before the runs and written to the manifest: a boot whose guest
# script failed, or a step without its marks, is dropped whole; nothing
# else is.
#
# Output (default results/<UTC date>-tracer-cost/): per kernel and boot
# the run (packed into raw.tar.xz at the end); steps.tsv (one row per
# boot, round and level; direct in round a's rows), cost.tsv (per kernel and level: n, mean and 95 % CI of both
# figures, direct instructions per packet), direct-functions.tsv (the
# functions in `direct`, mean per packet), table.md, manifest.json.
# --table FILE: also write the tool's overhead table (default: no).
# --table-only SET: no guests; regenerate the tool's table
# (tools/vsockbatch/overhead_table.h, or --table FILE) from a committed
# set's SET/cost.tsv; --also SET2 adds SET2's rows (each row names its
# set: the tool quotes it), e.g. a set of one level only.
# --resummarize SET: no guests; the tables again from a committed set's
# runs (unpacked from SET/raw.tar.xz and packed again): its per-run
# function tables (profile-LEVEL.txt, kept; the block profiles they come
# from are not, ~20 MB per boot) and instruction counts.
set -uo pipefail
. "$(dirname "$0")/lib.sh"
BOOTS=5 ROUNDS=3 MIB=4 OUT= TABLE= FROM= RESUM= LEVELS= ALSO=()
KERNELS="baseline patched baseline-7.2 patched-7.2 debian-6.1-1cpu debian-6.12"
bad() {
	echo "${0##*/}: $*" >&2
	exit 2
}
while [ $# -gt 0 ]; do
	case $1 in
	--boots) BOOTS=${2-}; shift ;;
	--rounds) ROUNDS=${2-}; shift ;;
	--mib) MIB=${2-}; shift ;;
	--kernels) KERNELS=${2-}; shift ;;
	--levels) LEVELS=${2-}; [ -n "$LEVELS" ] || bad "--levels needs a list"; shift ;;
	--also) [ -n "${2-}" ] || bad "--also needs a set directory"; ALSO+=("$2"); shift ;;
	--out) OUT=${2-}; shift ;;
	--table) TABLE=${2-}; shift ;;
	--table-only) FROM=${2-}; [ -n "$FROM" ] || bad "--table-only needs a set directory"; shift ;;
	--resummarize) RESUM=${2-}; [ -n "$RESUM" ] || bad "--resummarize needs a set directory"; shift ;;
	*) sed -n '2,/^set -uo/p' "$0" | sed '$d; s/^# \{0,1\}//' >&2; exit 2 ;;
	esac
	shift
done
# write_table SET: overhead_table.h from SET/cost.tsv, the set's name as
# VB_OVERHEAD_SET (the tool cites it).  Per kernel: its mode and the
# pattern of its uname -r (Debian's first: "6.12.*" would take theirs);
# per level: trace mode, --sample, kprobe fallback.  Light mode on the
# series' kernels (once per run) also gets its own instructions per run
# from SET/per-run.tsv (scripts/light-per-run.sh), which must then have
# the set's rows.
write_table() {
	local set=$1 name s names=
	name=$(basename "$set")
	for s in "$@"; do
		names="$names${names:+, }results/$(basename "$s")/cost.tsv"
		if awk -F'\t' 'NR > 1 && $1 ~ /^patched/ && $2 == "light"' "$s/cost.tsv" | grep -q . &&
		   ! awk -F'\t' -v s="$(basename "$s")" '$1 == s' "$s/per-run.tsv" 2>/dev/null | grep -q .; then
			echo "${0##*/}: $s/per-run.tsv has no rows of $(basename "$s") (scripts/light-per-run.sh $s)" >&2
			return 2
		fi
	done
	echo "/* Generated by scripts/tracer-cost.sh from $names and per-run.tsv: do not edit. */"
	echo "#define VB_OVERHEAD_SET \"results/$name\""
	echo "/* trace, kernel, --sample, --duty, kprobe, measured on, its uname -r, payload, transfer % [95 % CI], own code %, boots, untraced insns/pkt, own insns/run [95 % CI] and run length (levels run once per run; else 0), its set */"
	for s in "$@"; do table_rows "$s"; done | sort -t$'\t' -k1,1n -s | cut -f2-
}
# table_rows SET: SET's rows of overhead_table.h, each after a sort key
# (Debian's kernels first)
table_rows() {
	local set=$1 name runs
	name=$(basename "$set")
	runs=$(awk -F'\t' -v s="$name" '$1 == s' "$set/per-run.tsv" 2>/dev/null)
	awk -F'\t' -v runs="$runs" -v set="results/$name" 'BEGIN { n = split(runs, l, "\n")
			for (i = 1; i <= n; i++) { split(l[i], f, "\t")
				run[f[2]] = f[4] ", " f[5] ", " f[6] ", " f[7] } }
		NR == FNR { has[$1] = 1; next }
		FNR > 1 && !($1 ~ /-1cpu$/ && (substr($1, 1, length($1) - 5) in has)) {
		k = $1; lv = $2; b = k; sub(/-1cpu$/, "", b)
		mode = b ~ /^patched/ ? "VB_MODE_BATCHED" : "VB_MODE_BASELINE"
		rel = b ~ /-7\.2$/ ? "7.2.*+" : "6.12.*+"	# the lab: "6.12.118+"
		if (b == "debian-6.1") rel = "6.1.0-*"
		if (b == "debian-6.12") rel = "6.12.*+deb*"
		if (b == "debian-7.2") rel = "7.2.*+deb*"
		tr = lv == "light" ? "VB_TRACE_LIGHT" : "VB_TRACE_FULL"
		smp = lv == "full" || lv == "fullkp" || lv ~ /^fullduty/ ? 8 : 1
		duty = lv == "fullduty" ? 16 : lv ~ /^fullduty/ ? substr(lv, 9) + 0 : 1
		kp = lv == "fullkp" ? "true" : "false"
		pr = lv == "light" && (k in run) ? run[k] : "0, 0, 0, 0"
		printf "%d\t\t{ %s, %s, %d, %d, %s, \"%s\", \"%s\", 64, %s, %s, %s, %s, %d, %s, %s, \"%s\" },\n",
			k ~ /^debian/ ? 0 : 1, tr, mode, smp, duty, kp, k, rel, $5, $6, $7, $8, $3, $4, pr, set
	}' "$set/cost.tsv" "$set/cost.tsv"
}
if [ -n "$FROM" ]; then
	[ -d "$FROM" ] || bad "--table-only: $FROM is not a directory"
	head -1 "$FROM/cost.tsv" 2>/dev/null | grep -q '^kernel	level	boots	untraced_insns_per_pkt	whole_pct' ||
		bad "--table-only: $FROM/cost.tsv missing or not a tracer-cost table"
	[ "$(awk -F'\t' 'NR > 1 && NF >= 11' "$FROM/cost.tsv" | wc -l)" -gt 0 ] || bad "--table-only: $FROM/cost.tsv has no rows"
	[ -n "$TABLE" ] || TABLE=$VB_ROOT/tools/vsockbatch/overhead_table.h
	also=()
	for s in "${ALSO[@]}"; do
		head -1 "$s/cost.tsv" 2>/dev/null | grep -q '^kernel	level	boots' ||
			bad "--also: $s/cost.tsv missing or not a tracer-cost table"
		also+=("$(cd "$s" && pwd)")
	done
	write_table "$(cd "$FROM" && pwd)" "${also[@]}" >"$TABLE.tmp" || { rm -f "$TABLE.tmp"; exit 2; }
	mv "$TABLE.tmp" "$TABLE"
	echo "${0##*/}: wrote $TABLE from $FROM/cost.tsv" >&2
	exit 0
fi
if [ -n "$RESUM" ]; then
	[ -f "$RESUM/manifest.json" ] && grep -q '"figures"' "$RESUM/manifest.json" ||
		bad "--resummarize: $RESUM is not a tracer-cost set (no manifest.json with figures)"
	BOOTS=$(jq -r .boots "$RESUM/manifest.json") ROUNDS=$(jq -r .rounds_per_boot "$RESUM/manifest.json")
	MIB=$(($(jq -r .transfer_bytes "$RESUM/manifest.json") / 1048576))
	KERNELS=$(jq -r .command "$RESUM/manifest.json" | sed -n "s/.*--kernels '\([^']*\)'.*/\1/p")
	LEVELS=$(jq -r .command "$RESUM/manifest.json" | sed -n "s/.*--levels '\([^']*\)'.*/\1/p")
fi
[[ "$BOOTS" =~ ^[1-9][0-9]*$ ]] && [ "$BOOTS" -ge 2 ] || bad "--boots needs a number >= 2"
[[ "$ROUNDS" =~ ^[1-9]$ ]] || bad "--rounds needs a number 1..9"
[[ "$MIB" =~ ^[1-9][0-9]{0,2}$ ]] && [ "$MIB" -le 128 ] || bad "--mib needs a number 1..128"
for l in $LEVELS; do
	case $l in light | full | fullevery | fullkp | fullduty | fullduty32) ;;
	*) bad "--levels: unknown level '$l' (light full fullevery fullkp fullduty fullduty32)" ;;
	esac
done
BYTES=$((MIB * 1048576)) PKTS=$((MIB * 16384))
for k in $KERNELS; do
	[ "$k" != debian-6.1 ] ||
		bad "--kernels: debian-6.1 stops at SMP bring-up under -icount with 2 vCPUs: name debian-6.1-1cpu"
	case ${k%-1cpu} in baseline | patched | baseline-7.2 | patched-7.2 | debian-6.1 | debian-6.12 | debian-7.2) ;;
	*) bad "--kernels: unknown kernel '$k'" ;;
	esac
done
command -v jq >/dev/null || die "jq missing (make deps)"
if [ -z "$RESUM" ]; then
	[ -n "$OUT" ] || OUT=$VB_ROOT/results/$(date -u +%Y-%m-%d)-tracer-cost
	[ -z "$(ls -A "$OUT" 2>/dev/null)" ] || bad "$OUT exists and is not empty (--out)"
	mkdir -p "$OUT" && OUT=$(cd "$OUT" && pwd) || exit 1
	make -C "$VB_ROOT" -j2 all >"$OUT/build.log" 2>&1 || die "build failed ($OUT/build.log)"
else
	OUT=$(cd "$RESUM" && pwd)
	[ ! -f "$OUT/raw.tar.xz" ] || "$VB_ROOT/scripts/results-raw.sh" extract "$OUT" ||
		die "cannot unpack $OUT/raw.tar.xz"
fi

# the lab's 6.12 kernels also measure the kprobe fallback (full mode,
# VSOCKBATCH_FORCE_KPROBE=1: kernels that refuse fentry)
levels_of() {
	local all l out=
	case ${1%-1cpu} in
	baseline) all="light full fullevery fullkp" ;;
	patched) all="light full fullevery fullkp" ;;
	*) all="light full fullevery" ;;
	esac
	# fullduty: kernels without the series, when asked for
	case ${1%-1cpu} in patched*) ;; *) all="$all fullduty fullduty32" ;; esac
	[ -n "$LEVELS" ] || { echo "${all% fullduty fullduty32}"; return; }
	for l in $all; do
		case " $LEVELS " in *" $l "*) out="$out $l" ;; esac
	done
	echo "${out# }"
}
kdir_of() {
	case $1 in
	debian-*) "$VB_ROOT/scripts/debian-kernel.sh" "${1%-1cpu}" ;;
	*) "$VB_ROOT/scripts/kernel-build.sh" "${1%-1cpu}" ;;
	esac
}
# the vCPUs of KERNEL's boots (the header says why)
vcpus_of() {
	case $1 in
	*-1cpu) echo 1 ;;
	*) echo 2 ;;
	esac
}

load0=$(cut -d' ' -f1-3 /proc/loadavg) t0=$(date +%s)
kernels=()
if [ -z "$RESUM" ]; then
# one guest per kernel at a time, two kernels in parallel (2 host cores)
run_kernel() {
	local v=$1 kd=$2 b kinds lv i
	read -ra lv <<<"$(levels_of "$v")"
	for ((b = 1; b <= BOOTS; b++)); do
		# rotate: boot b starts at kind (b - 1) mod n
		local all=(untraced "${lv[@]}") n order=()
		n=${#all[@]}
		for ((i = 0; i < n; i++)); do order+=("${all[$(((b - 1 + i) % n))]}"); done
		kinds=$(IFS=,; echo "${order[*]}")
		VB_INSNS_PROFILE=1 "$VB_ROOT/scripts/guest-run.sh" -K "$kd" -s "$(vcpus_of "$v")" -t 3000 -C icount \
			-o "$OUT/$v/b$b" "$VB_ROOT/tests/guest/tracer-profile.sh" "$kinds" "$ROUNDS" "$BYTES" \
			>/dev/null 2>"$OUT/$v/b$b.err" || echo "$v boot $b: guest failed" >>"$OUT/failed.txt"
	done
}
pids=()
for v in $KERNELS; do
	kd=$(kdir_of "$v") || die "$v: no kernel"
	kernels+=("$v $(basename "$kd") $(vcpus_of "$v")vcpu")
	mkdir -p "$OUT/$v"
	run_kernel "$v" "$kd" &
	pids+=($!)
	# two at a time
	if [ ${#pids[@]} -ge 2 ]; then wait "${pids[0]}"; pids=("${pids[@]:1}"); fi
done
for p in "${pids[@]}"; do wait "$p"; done
load1=$(cut -d' ' -f1-3 /proc/loadavg)
fi

# view DIR KIND: the run seen with KIND's kallsyms (its BPF symbols)
view() {
	local d=$1 k=$2 v=$1/view-$2 f
	mkdir -p "$v"
	for f in insns.tsv profile.tsv marks.tsv env.txt; do [ ! -e "$d/$f" ] || ln -sf "../$f" "$v/$f"; done
	cp "$d/kallsyms-$k.txt" "$v/kallsyms-modules.txt"
}

printf 'kernel\tboot\tround\tlevel\tpkts\tuntraced_insns\ttraced_insns\twhole_pct\tdirect_insns_per_pkt\tdirect_pct\n' >"$OUT/steps.tsv"
: >"$OUT/direct-rows.tsv"
insns() { # insns RUN NAME: the transfer's guest instructions, all vCPUs
	local a
	a=$(awk -v x="$2.64" '$2 == x { print $1 }' "$1/marks.tsv")
	[ -n "$a" ] || return 1
	"$VB_ROOT/scripts/insns-delta.sh" "$1/insns.tsv" "$a" $((a + 1)) | jq -r .total
}
letters=abcdefghi
for v in $KERNELS; do
	kd=	# its System.map names the block profiles' functions
	for ((b = 1; b <= BOOTS; b++)); do
		d=$OUT/$v/b$b
		grep -q "^$v boot $b:" "$OUT/failed.txt" 2>/dev/null && continue
		[ -f "$d/marks.tsv" ] || continue
		for ((r = 0; r < ROUNDS; r++)); do
			l=${letters:r:1}
			u=$(insns "$d" "untraced$l") || continue
			for lv in $(levels_of "$v"); do
				t=$(insns "$d" "$lv$l") || continue
				dir=-1
				if [ "$l" = a ]; then
					# every function, untraced (A) and traced (B), per
					# packet (kept; --resummarize reads it again)
					if [ -f "$d/profile.tsv" ]; then
						[ -n "$kd" ] || kd=$(kdir_of "$v" 2>/dev/null)
						# a stub System.map (Debian's): the boot's
						# own kallsyms, which also has the KASLR
						# base it chose
						map=$kd/System.map
						if [ "$(wc -l <"$map")" -lt 100 ] && [ -s "$d/kallsyms-kernel.txt" ]; then
							map=$d/System.map.kallsyms
							awk 'NF == 3' "$d/kallsyms-kernel.txt" >"$map"
						fi
						view "$d" untraceda
						view "$d" "${lv}a"
						"$VB_ROOT/scripts/insns-profile.sh" -m "$map" -n 100000 -x "${lv}a.64" \
							untraceda.64 "$d/view-untraceda" -- "$d/view-${lv}a" \
							>"$d/profile-$lv.txt" 2>"$d/profile-$lv.err" || continue
					fi
					[ -s "$d/profile-$lv.txt" ] || continue
					dir=$(awk -v k="$v" -v lv="$lv" -v rows="$OUT/direct-rows.tsv" '
						/^#/ || /^function/ || /^\(other\)/ || /^\[total\]/ { next }
						{ b = $(NF - 1); a = $(NF - 2); name = $0
						  sub(/ +[-0-9.]+ +[-0-9.]+ +[-+0-9.]+$/, "", name)
						  if (name ~ /\[bpf\]$/ || (a < 0.01 && b > 0)) {
							s += b
							n = name
							sub(/^bpf_prog_[0-9a-f]+_/, "bpf_prog_", n)
							sub(/^bpf_trampoline_[0-9]+/, "bpf_trampoline", n)
							printf "%s\t%s\t%s\t%.4f\n", k, lv, n, b >> rows
						  } }
						END { printf "%.2f", s }' "$d/profile-$lv.txt")
				fi
				awk -v k="$v" -v b="$b" -v r="$l" -v lv="$lv" -v u="$u" -v t="$t" -v dir="$dir" -v p="$PKTS" 'BEGIN {
					up = u / p
					printf "%s\t%d\t%s\t%s\t%d\t%.0f\t%.0f\t%.3f\t%s\t%s\n", k, b, r, lv, p, u, t,
						100 * (t / u - 1), dir < 0 ? "-" : sprintf("%.1f", dir),
						dir < 0 ? "-" : sprintf("%.3f", 100 * dir / up) }' >>"$OUT/steps.tsv"
			done
		done
	done
done

# per kernel and level: mean and 95 % CI (Student t) over the boots
ci='function tq(df) { # two-sided 95 % Student t quantile
		split("12.706 4.303 3.182 2.776 2.571 2.447 2.365 2.306 2.262 2.228 2.201 2.179 2.160 2.145 2.131 2.120 2.110 2.101 2.093 2.086", T, " ")
		return df <= 20 ? T[df] : 1.96 }'
awk -F'\t' "$ci"'
	NR == 1 { next }
	{ kb = $1 SUBSEP $4 SUBSEP $2; ws[kb] += $8; wn[kb]++; up[kb] += $6 / $5; seen[$1 SUBSEP $4] = 1
	  if ($9 != "-") { dd[kb] = $10; di[kb] = $9 } }
	END {
		print "kernel\tlevel\tboots\tuntraced_insns_per_pkt\twhole_pct\twhole_lo\twhole_hi\tdirect_pct\tdirect_lo\tdirect_hi\tdirect_insns_per_pkt\trounds_per_boot"
		for (k in seen) {
			split(k, kl, SUBSEP); m = 0; sw = sd = sdi = su = 0; nr = 0
			for (kb in wn) {
				split(kb, p, SUBSEP)
				if (p[1] != kl[1] || p[2] != kl[2] || !(kb in dd)) continue
				m++; w[m] = ws[kb] / wn[kb]; d[m] = dd[kb]; sw += w[m]; sd += d[m]; sdi += di[kb]; su += up[kb] / wn[kb]; nr += wn[kb]
			}
			if (!m) continue
			mw = sw / m; md = sd / m
			vw = vd = 0
			for (i = 1; i <= m; i++) { vw += (w[i] - mw) ^ 2; vd += (d[i] - md) ^ 2 }
			hw = m > 1 ? tq(m - 1) * sqrt(vw / (m - 1) / m) : 0
			hd = m > 1 ? tq(m - 1) * sqrt(vd / (m - 1) / m) : 0
			printf "%s\t%s\t%d\t%.0f\t%.2f\t%.2f\t%.2f\t%.2f\t%.2f\t%.2f\t%.0f\t%.1f\n", kl[1], kl[2], m,
				su / m, mw, mw - hw, mw + hw, md, md - hd, md + hd, sdi / m, nr / m
		}
	}' "$OUT/steps.tsv" | (read -r h; echo "$h"; sort -t$'\t' -k1,1 -k2,2) >"$OUT/cost.tsv"

# the functions in `direct`, mean per packet over the boots
awk -F'\t' '{ s[$1 "\t" $2 "\t" $3] += $4; n[$1 "\t" $2]++ ; f[$1 "\t" $2 "\t" $3] = $1 "\t" $2 }
	END { print "kernel\tlevel\tfunction\tinsns_per_pkt"
	      for (k in s) { split(k, p, "\t"); printf "%s\t%.2f\n", k, s[k] / 1 }
	}' "$OUT/direct-rows.tsv" >"$OUT/direct-sum.tmp"
boots_of() { awk -F'\t' -v k="$1" -v l="$2" '$1 == k && $2 == l { print $3 }' "$OUT/cost.tsv"; }
{
	head -1 "$OUT/direct-sum.tmp"
	tail -n +2 "$OUT/direct-sum.tmp" | while IFS=$'\t' read -r k l f s; do
		nb=$(boots_of "$k" "$l")
		awk -v k="$k" -v l="$l" -v f="$f" -v s="$s" -v n="${nb:-1}" 'BEGIN { printf "%s\t%s\t%s\t%.2f\n", k, l, f, s / n }'
	done | sort -t$'\t' -k1,1 -k2,2 -k4,4nr
} >"$OUT/direct-functions.tsv"
rm -f "$OUT/direct-sum.tmp" "$OUT/direct-rows.tsv"

awk -F'\t' 'NR > 1 { printf "| %s | %s | %d | %.0f | %+.2f %% [%+.2f, %+.2f] | %.0f | %+.2f %% [%+.2f, %+.2f] |\n",
	$1, $2 == "fullevery" ? "full --sample 1" : $2 == "full" ? "full (--sample 8)" : $2 == "fullkp" ? "full, kprobe fallback" : $2 == "fullduty" ? "full --duty 16" : $2 == "fullduty32" ? "full --duty 32" : $2,
	$3, $4, $5, $6, $7, $11, $8, $9, $10 }' \
	"$OUT/cost.tsv" >"$OUT/table.md"

# the block profiles (~20 MB a boot) are not kept: the function tables
# made from them are (profile-LEVEL.txt), which --resummarize reads
find "$OUT" -mindepth 3 -maxdepth 3 \( -name profile.tsv -o -name System.map.kallsyms -o -name kallsyms-kernel.txt \) -delete
find "$OUT" -mindepth 3 -maxdepth 3 -type d -name 'view-*' -exec rm -rf {} +
[ -n "$RESUM" ] || jq -n --arg now "$(git -C "$VB_ROOT" rev-parse --short HEAD)$(git -C "$VB_ROOT" diff --quiet || echo +dirty)" \
	--argjson boots "$BOOTS" --arg kernels "${kernels[*]}" \
	--arg l0 "$load0" --arg l1 "$load1" --arg secs "$(($(date +%s) - t0))" \
	--arg cmd "scripts/tracer-cost.sh --boots $BOOTS --rounds $ROUNDS --mib $MIB --kernels '$KERNELS'${LEVELS:+ --levels '$LEVELS'}" \
	--argjson rounds "$ROUNDS" --argjson bytes "$BYTES" \
	--arg failed "$(cat "$OUT/failed.txt" 2>/dev/null)" \
	'{what: "the tracer cost per level at 64 B: per boot, rounds of one loopback transfer (vb-sender vCPU 1 -> vb-recv vCPU 0, 64 B writes; on a 1-vCPU boot both on vCPU 0) untraced and one per level under vsockbatch record, order rotating by one per round and per boot",
	  rounds_per_boot: $rounds, transfer_bytes: $bytes,
	  clock: "icount (QEMU -icount shift=0,sleep=off + vb-insns plugin with block profile): instruction counts, not wall-clock; the tracer load/attach/drain is outside the marks",
	  figures: {whole: "traced / untraced guest instructions of the transfer - 1 (all vCPUs, user and kernel)",
	            direct: "instructions in [bpf] symbols plus kernel functions the same boot'"'"'s untraced transfer did not run (< 0.01 per packet), per packet, / untraced instructions per packet: a floor of the tracer'"'"'s own work"},
	  ci: "95 %, Student t over boots; a boot'"'"'s whole figure is the mean over its rounds, its direct figure round a'"'"'s",
	  attach: "fentry/fexit and tp_btf (the default attach)",
	  vcpus: "2 per boot; 1 for a KERNEL-1cpu name: debian-6.1-1cpu (under -icount Debian 6.1 stops at SMP bring-up with 2), any other the reference for what one vCPU changes",
	  commit: $now, boots: $boots, kernels: $kernels,
	  seconds: ($secs | tonumber), host_load_start: $l0, host_load_end: $l1, command: $cmd,
	  exclusions: "decided before the runs: a boot whose guest script failed, or a step without its marks, is dropped whole; nothing else",
	  failed: $failed}' >"$OUT/manifest.json"
cat "$OUT/cost.tsv"
# the runs into one archive, as experiment.sh does (cost.tsv, which
# --table-only reads, stays plain)
"$VB_ROOT/scripts/results-raw.sh" pack "$OUT"
# light mode with the series: its cost per run, from the archive
if awk -F'\t' 'NR > 1 && $1 ~ /^patched/ && $2 == "light"' "$OUT/cost.tsv" | grep -q .; then
	"$VB_ROOT/scripts/light-per-run.sh" "$OUT" >"$OUT/per-run.tsv" || exit 1
fi
[ -z "$TABLE" ] || write_table "$OUT" "${ALSO[@]}" >"$TABLE"
