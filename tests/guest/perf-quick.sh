#!/bin/sh
# perf-quick.sh - quick effect check of the RX batching series: upstream
# vsock_perf over loopback (CID 1) in one guest, REPS rounds, each round one
# transfer per write size (sizes interleaved within a round, so a slow
# phase of the shared host hits every size alike).  Alternate kernels on
# the host, one guest per run:
#
#   for i in 1 2 3 4; do for k in baseline patched; do
#     scripts/guest-run.sh -k $k -s 2 -t 400 -o /tmp/pq-$k-$i \
#         tests/guest/perf-quick.sh 64:2M 1K:32M 64K:256M
#   done; done
#
# Arguments: SIZE:BYTES pairs (sender --buf-size and --bytes, vsock_perf
# size syntax); default 64:2M 1K:32M 64K:256M.  Env: REPS (default 2).
# The receiver always reads with a 64 KiB buffer (vsock_perf --buf-size
# 64K, poll() + read(), SO_RCVLOWAT 1).
# Output: $RESULTS/perf-quick.json, one JSON line per transfer: round,
# write size, bytes, bytes received, receiver Gbit/s, receiver time in
# read(), POLLIN wake-ups, sender Gbit/s.  Exit 1 if a transfer failed.
# Note: the 6.12 vsock_perf receiver stops at the first poll() that reports
# POLLRDHUP, after one more read(), so it may count a little less than was
# sent (both kernels alike); its Gbit/s is bytes received / receive time.
[ $# -gt 0 ] || set -- 64:2M 1K:32M 64K:256M
reps=${REPS:-2}
case $reps in ''|*[!0-9]*|0) echo "perf-quick: bad REPS '$reps'" >&2; exit 2 ;; esac
out=${RESULTS:?}/perf-quick
mkdir -p "$out" || exit 1
json=$RESULTS/perf-quick.json
: >"$json"
port=${VSOCK_PERF_PORT:-1234}

field() { # field FILE 'label' -> first number after the label
	sed -n "s/^$2: *\([0-9.]*\).*/\1/p" "$1" | head -n 1
}

echo "perf-quick: kernel $(uname -r), $(grep -c ^processor /proc/cpuinfo) vCPUs, $reps round(s): $*"
rc=0
r=1
while [ "$r" -le "$reps" ]; do
	for spec in "$@"; do
		size=${spec%%:*} bytes=${spec#*:}
		f=$out/r$r.$size
		vsock_perf --port "$port" --buf-size 64K >"$f.rx" 2>&1 &
		rpid=$!
		sleep 1
		if ! vsock_perf --sender 1 --port "$port" --bytes "$bytes" \
		    --buf-size "$size" >"$f.tx" 2>&1; then
			echo "perf-quick: sender failed at $size (round $r):"
			cat "$f.tx"
			rc=1
		fi
		wait $rpid || { echo "perf-quick: receiver failed at $size (round $r)"; rc=1; }
		rx=$(field "$f.rx" 'rx performance')
		got=$(field "$f.rx" 'total bytes received')
		rdt=$(field "$f.rx" "total time in 'read()'")
		wk=$(field "$f.rx" 'POLLIN wakeups')
		tx=$(field "$f.tx" 'tx performance')
		if [ -z "$rx" ] || [ "${got:-0}" -le 0 ]; then
			echo "perf-quick: no result at $size (round $r)"
			rc=1
		fi
		printf '{"tool":"perf-quick","kernel":"%s","round":%d,"size":"%s","bytes":"%s","rx_bytes":%s,"rx_gbps":%s,"read_s":%s,"pollin_wakeups":%s,"tx_gbps":%s}\n' \
			"$(uname -r)" "$r" "$size" "$bytes" "${got:-0}" "${rx:-0}" \
			"${rdt:-0}" "${wk:-0}" "${tx:-0}" | tee -a "$json"
		port=$((port + 1))
	done
	r=$((r + 1))
done
exit $rc
