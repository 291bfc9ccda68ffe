#!/bin/bash
# export-soak.sh [--minutes N] [-k VARIANT] [--out DIR] [-e KEY=VALUE]...: `vsockbatch
# export` under traffic for N minutes (default 30) in one lab guest (one
# vCPU, so that it holds one host core at most), memory sampled every
# 30 s (tests/guest/export-soak.sh: new ports all the time, a scrape a
# second).  Verdict in OUT/soak-summary.txt, on the samples after the
# first 5 minutes: the exporter's in-use heap (malloc'ed bytes, from its
# page) must not trend up - its least-squares slope times that span at
# most 64 KiB (the heap itself moves with the flows drained per read,
# 8,528 bytes each, so single samples are no test); fds within 2 of the
# first sample (a scrape in flight holds one); the page within its bound
# (ports tracked <= 8); the exporter's exit 0.  RSS is reported beside
# it: it keeps the high-water mark of the largest drain (at most 256
# flows + the other row, ~2.1 MiB), which a leak test cannot use.
# Exit 0 only when all hold.  Default OUT: results/<UTC date>-export-soak.
# -e: environment of the guest script (and so of the exporter), e.g.
# GLIBC_TUNABLES=glibc.malloc.tcache_count=0: freed chunks a thread's
# tcache holds count as in use in mallinfo2.
set -uo pipefail
. "$(dirname "$0")/lib.sh"
MIN=30 VARIANT=patched OUT= env=()
bad() { echo "${0##*/}: $*" >&2; exit 2; }
while [ $# -gt 0 ]; do
	case $1 in
	--minutes) MIN=${2-}; shift ;;
	-k) VARIANT=${2-}; shift ;;
	--out) OUT=${2-}; shift ;;
	-e) [[ "${2-}" == [A-Za-z_]*=* ]] || bad "-e needs KEY=VALUE"; env+=(-e "$2"); shift ;;
	*) sed -n '2,/^set -uo/p' "$0" | sed '$d; s/^# \{0,1\}//' >&2; exit 2 ;;
	esac
	shift
done
[[ "$MIN" =~ ^[1-9][0-9]*$ ]] || bad "--minutes needs a whole number >= 1"
[ -n "$OUT" ] || OUT=$VB_ROOT/results/$(date -u +%Y-%m-%d)-export-soak
[ -z "$(ls -A "$OUT" 2>/dev/null)" ] || bad "$OUT exists and is not empty (--out)"
mkdir -p "$OUT" && OUT=$(cd "$OUT" && pwd) || exit 1
make -C "$VB_ROOT" -j2 all >"$OUT/build.log" 2>&1 || die "build failed ($OUT/build.log)"
load0=$(cut -d' ' -f1-3 /proc/loadavg) t0=$(date +%s)
"$VB_ROOT/scripts/guest-run.sh" -k "$VARIANT" -s 1 -t $((MIN * 60 + 600)) -o "$OUT" "${env[@]}" \
	"$VB_ROOT/tests/guest/export-soak.sh" "$MIN" >/dev/null 2>"$OUT/guest-run.err"
rc=$?
load1=$(cut -d' ' -f1-3 /proc/loadavg)
[ -s "$OUT/soak.tsv" ] || die "no samples (guest exit $rc; $OUT/guest-run.err)"
awk -F'\t' -v rc="$rc" -v min="$MIN" -v l0="$load0" -v l1="$load1" -v secs=$(($(date +%s) - t0)) '
	NR == 1 { next }
	{ n++; t[n] = $1; rss[n] = $2; fds[n] = $4; ports[n] = $7; lines[n] = $6; heap[n] = $10 }
	END {
		for (i = 1; i <= n && t[i] < 300; i++) ;
		if (i > n) {
			printf "export soak: %d min, %d samples: too short for a verdict (none after 5 min)\n", min, n
			exit 1
		}
		rmax = 0; hmax = 0; maxl = 0; fdmax = 0; pmax = 0; m = 0; tm = 0; hm = 0
		for (j = i; j <= n; j++) {
			if (rss[j] > rmax) rmax = rss[j]
			if (heap[j] > hmax) hmax = heap[j]
			m++; tm += t[j]; hm += heap[j]
		}
		tm /= m; hm /= m; sxy = 0; sxx = 0
		for (j = i; j <= n; j++) {
			sxy += (t[j] - tm) * (heap[j] - hm)
			sxx += (t[j] - tm) ^ 2
		}
		trend = sxx ? sxy / sxx * (t[n] - t[i]) : 0
		for (j = 1; j <= n; j++) {
			if (fds[j] - fds[1] > fdmax) fdmax = fds[j] - fds[1]
			if (ports[j] > pmax) pmax = ports[j]
			if (lines[j] > maxl) maxl = lines[j]
		}
		hflat = heap[i] != "" && m >= 3 && trend <= 65536
		ok = hflat && fdmax <= 2 && pmax <= 8 && rc == 0
		printf "export soak: %d min, %d samples, guest exit %d, %d s, host load %s -> %s\n", min, n, rc, secs, l0, l1
		printf "heap in use: first %d B, at %d s %d B, largest after %d B, last %d B; trend over the last %d s %+.0f B: %s\n",
			heap[1], t[i], heap[i], hmax, heap[n], t[n] - t[i], trend, hflat ? "flat" : "GROWS"
		printf "RSS: first %d KiB, at %d s %d KiB, largest after %d KiB, last %d KiB\n",
			rss[1], t[i], rss[i], rmax, rss[n]
		printf "fds %d, at most %d more; ports tracked at most %d (bound 8); page lines at most %d\n",
			fds[1], fdmax, pmax, maxl
		printf "verdict: %s\n", ok ? "FLAT" : "NOT FLAT (or the run failed)"
		exit !ok
	}' "$OUT/soak.tsv" | tee "$OUT/soak-summary.txt"
