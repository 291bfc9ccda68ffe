#!/bin/bash
# advise-overhead.sh [--base REV] [--rounds N] [--bytes SIZE] [-k VARIANT] [--out DIR]
#
# What the tracer's measurements for `vsockbatch advise` cost: guest
# instructions per byte (QEMU -icount + the lab's vb-insns plugin, so not
# disturbed by the host's load) of a 64 B loopback transfer untraced, under
# the tracer as of REV (default ea4c8e2~1, before the additions)
# and under the current tracer, N rounds in rotating order in one boot
# (tests/guest/advise-overhead.sh).  Statistics: vsockbatch-lab abstat on
# per-round pairs (base tracer vs current, untraced vs each).
# Output (default results/<UTC date>-advise-overhead/): insns.tsv,
# steps.tsv, pairs.tsv, abstat.txt/.json, the recordings, manifest.json;
# the recordings packed into raw.tar.xz (scripts/results-raw.sh).
set -uo pipefail
. "$(dirname "$0")/lib.sh"
BASE=ea4c8e2~1 ROUNDS=6 BYTES=1M VARIANT=baseline OUT=
while [ $# -gt 0 ]; do
	case $1 in
	--base) BASE=${2-}; shift ;;
	--rounds) ROUNDS=${2-}; shift ;;
	--bytes) BYTES=${2-}; shift ;;
	-k) VARIANT=${2-}; shift ;;
	--out) OUT=${2-}; shift ;;
	*) sed -n '2,/^set -uo/p' "$0" | sed '$d; s/^# \{0,1\}//' >&2; exit 2 ;;
	esac
	shift
done
[[ "$ROUNDS" =~ ^[1-9][0-9]*$ ]] && [ "$ROUNDS" -ge 2 ] || die "--rounds needs a number >= 2"
case $BYTES in
*K) BYTES=$((${BYTES%K} * 1024)) ;;
*M) BYTES=$((${BYTES%M} * 1048576)) ;;
esac
[[ "$BYTES" =~ ^[1-9][0-9]*$ ]] || die "--bytes needs a size (bytes, K or M)"
command -v jq >/dev/null || die "jq missing (make deps)"
[ -n "$OUT" ] || OUT=$VB_ROOT/results/$(date -u +%Y-%m-%d)-advise-overhead
[ -z "$(ls -A "$OUT" 2>/dev/null)" ] || die "$OUT exists and is not empty (--out)"
mkdir -p "$OUT" && OUT=$(cd "$OUT" && pwd) || exit 1

# The tracer as of BASE, built in a scratch worktree, shipped to the guest
# as build/vsockbatch-base (initramfs.sh copies every static build/ binary).
wt=$(mktemp -d /tmp/vb-base.XXXXXX)
trap 'git -C "$VB_ROOT" worktree remove --force "$wt" 2>/dev/null; rm -rf "$wt"; rm -f "$VB_ROOT/build/vsockbatch-base"' EXIT
git -C "$VB_ROOT" worktree add -q --detach "$wt" "$BASE" || die "cannot check out $BASE"
make -C "$wt" -j2 build/vsockbatch >"$OUT/base-build.log" 2>&1 || die "build of $BASE failed ($OUT/base-build.log)"
cp "$wt/build/vsockbatch" "$VB_ROOT/build/vsockbatch-base"

kdir=$("$VB_ROOT/scripts/kernel-build.sh" "$VARIANT") || die "$VARIANT: kernel build failed"
# What was measured, taken before the run (the tree may move on meanwhile);
# tree hashes survive a rebase, commit ids do not.
now=$(git -C "$VB_ROOT" rev-parse --short HEAD)$(git -C "$VB_ROOT" diff --quiet HEAD -- bpf include tools || echo +dirty)
trees=$(for d in bpf include tools/vsockbatch; do echo "$d $(git -C "$VB_ROOT" rev-parse --short "HEAD:$d")"; done | paste -sd" ")
load0=$(cut -d' ' -f1-3 /proc/loadavg) t0=$(date +%s)
"$VB_ROOT/scripts/guest-run.sh" -K "$kdir" -t 1500 -C icount -o "$OUT" \
	"$VB_ROOT/tests/guest/advise-overhead.sh" "$ROUNDS" "$BYTES" >/dev/null 2>"$OUT/guest-run.err"
rc=$?
load1=$(cut -d' ' -f1-3 /proc/loadavg)
# per step: guest instructions per byte between its marks
while IFS=$'\t' read -r k kind b; do
	t=$("$VB_ROOT/scripts/insns-delta.sh" "$OUT/insns.tsv" $((2 * k - 1)) $((2 * k)) | jq -r .total)
	printf '%s\t%s\t%s\n' "$k" "$kind" "$(awk -v t="$t" -v b="$b" 'BEGIN { printf "%.4f", t / b }')"
done <"$OUT/steps.tsv" >"$OUT/insns-per-byte.tsv"
# pairs per round: steps 3r+1..3r+3 hold u, o, n in some order
awk -F'\t' '{ r = int(($1 - 1) / 3); v[r, $2] = $3; first[r] = first[r] ? first[r] : $2; if (r + 1 > n) n = r + 1 }
	END { for (r = 0; r < n; r++) {
		printf "tracer_base_vs_none\t%d\t%s\t%s\t%s\n", r, first[r] == "u" ? "AB" : "BA", v[r, "u"], v[r, "o"]
		printf "tracer_now_vs_none\t%d\t%s\t%s\t%s\n", r, first[r] == "u" ? "AB" : "BA", v[r, "u"], v[r, "n"]
		printf "tracer_now_vs_base\t%d\t%s\t%s\t%s\n", r, first[r] == "n" ? "BA" : "AB", v[r, "o"], v[r, "n"]
	} }' "$OUT/insns-per-byte.tsv" >"$OUT/pairs.tsv"
"$VB_ROOT/build/vsockbatch-lab" abstat "$OUT/pairs.tsv" | tee "$OUT/abstat.txt"
"$VB_ROOT/build/vsockbatch-lab" abstat --json "$OUT/pairs.tsv" >"$OUT/abstat.json"
jq -n --arg base "$BASE" --arg now "$now" --arg trees "$trees" \
	--argjson rounds "$ROUNDS" --arg bytes "$BYTES" --arg kernel "$VARIANT $(basename "$kdir")" \
	--arg l0 "$load0" --arg l1 "$load1" --argjson rc "$rc" --arg secs "$(($(date +%s) - t0))" \
	--arg cmd "scripts/advise-overhead.sh --base $BASE --rounds $ROUNDS --bytes $BYTES -k $VARIANT" \
	'{what: "guest instructions per byte, 64 B loopback, untraced vs tracer at base vs tracer now",
	  clock: "icount (QEMU -icount shift=0,sleep=off + vb-insns plugin): instruction counts, not wall-clock",
	  base_commit: $base, now_commit: $now,
	  now_trees_bpf_include_tools_vsockbatch: $trees, rounds: $rounds, bytes: $bytes, kernel: $kernel,
	  guest_exit: $rc, seconds: ($secs | tonumber), host_load_start: $l0, host_load_end: $l1,
	  command: $cmd, exclusions: "none"}' >"$OUT/manifest.json"
# the raw files into one archive, as experiment.sh does
"$VB_ROOT/scripts/results-raw.sh" pack "$OUT" || rc=1
[ $rc -eq 0 ]
