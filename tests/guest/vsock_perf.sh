#!/bin/sh
# Upstream vsock_perf over loopback (CID 1), one receiver + one sender per
# write size.  Arguments: SIZE:BYTES pairs (vsock_perf size syntax, e.g.
# 64:1M 4K:16M 64K:64M).  Writes one JSON line per size to
# $RESULTS/vsock_perf.json: sender write size, bytes, receiver Gbit/s,
# receiver time in read(), POLLIN wake-ups, sender Gbit/s.
[ $# -gt 0 ] || set -- 64:1M 4K:16M 64K:64M
port=${VSOCK_PERF_PORT:-1234}
out=${RESULTS:?}/vsock_perf
: >"$out.json"

field() { # field FILE 'label' -> first number after the label
	sed -n "s/^$2: *\([0-9.]*\).*/\1/p" "$1" | head -n 1
}

rc=0
for spec in "$@"; do
	size=${spec%%:*} bytes=${spec#*:}
	vsock_perf --port "$port" --buf-size 64K >"$out.$size.rx" 2>&1 &
	rpid=$!
	sleep 1
	if ! vsock_perf --sender 1 --port "$port" --bytes "$bytes" \
	    --buf-size "$size" >"$out.$size.tx" 2>&1; then
		echo "vsock_perf: sender failed at $size:"; cat "$out.$size.tx"
		rc=1
	fi
	wait $rpid || { echo "vsock_perf: receiver failed at $size"; rc=1; }
	rx=$(field "$out.$size.rx" 'rx performance')
	got=$(field "$out.$size.rx" 'total bytes received')
	rdt=$(field "$out.$size.rx" "total time in 'read()'")
	wk=$(field "$out.$size.rx" 'POLLIN wakeups')
	tx=$(field "$out.$size.tx" 'tx performance')
	printf '{"tool":"vsock_perf","size":"%s","bytes":"%s","rx_bytes":%s,"rx_gbps":%s,"read_s":%s,"pollin_wakeups":%s,"tx_gbps":%s}\n' \
		"$size" "$bytes" "${got:-0}" "${rx:-0}" "${rdt:-0}" "${wk:-0}" \
		"${tx:-0}" | tee -a "$out.json"
	[ -n "$rx" ] || rc=1
	port=$((port + 1))
done
exit $rc
