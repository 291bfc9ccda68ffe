#!/bin/sh
# vsockmon.sh - packet capture through a vsockmon tap during loopback
# transfers (build/vsock-tap): no drop, every packet whole, the captured
# OP_RW payload byte for byte the stream sent, connection setup and
# teardown seen.  64 B writes (long RX batches on patched) and 4 KiB
# writes.  On a kernel with the vsock:virtio_transport_rx_batch tracepoint
# the 64 B capture must have run alongside multi-packet batches, or it
# would not show anything about batching.
# Measured: ~15 s on baseline and patched, ~40 s on debug (2 TCG vCPUs).
#
#   scripts/guest-run.sh -k patched -s 2 -t 300 -o /tmp/vm tests/guest/vsockmon.sh
out=${RESULTS:?}/vsockmon
mkdir -p "$out" || exit 1
T=/sys/kernel/tracing
ev=$T/events/vsock/virtio_transport_rx_batch
small=1048576 big=8388608
case "${VB_VARIANT:-}" in
*debug*) small=262144 big=2097152 ;;
esac
fails=0

modprobe vsockmon || { echo "FAIL modprobe vsockmon"; exit 1; }
traced=0
if [ -d "$ev" ]; then
	: >"$T/trace" && echo 1 >"$ev/enable" && traced=1
fi
vsock-tap --port 5501 --write 64 --bytes "$small" >"$out/tap-64.out" 2>&1 ||
	fails=$((fails + 1))
cat "$out/tap-64.out"
if [ $traced -eq 1 ]; then
	echo 0 >"$ev/enable"
	multi=$(grep -c ' pkts=\([2-9]\|[1-9][0-9]\)' "$T/trace")
	echo "rx batches of more than one packet during the capture: $multi"
	[ "$multi" -gt 0 ] || {
		echo "FAIL no multi-packet RX batch ran during the capture"
		fails=$((fails + 1))
	}
	: >"$T/trace"
fi
vsock-tap --port 5502 --write 4096 --bytes "$big" >"$out/tap-4K.out" 2>&1 ||
	fails=$((fails + 1))
cat "$out/tap-4K.out"
echo "vsockmon: $fails failure(s)"
[ $fails -eq 0 ]
