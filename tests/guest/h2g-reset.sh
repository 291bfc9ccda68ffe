#!/bin/sh
# h2g-reset.sh - guest half of the device-removal test (run by
# tests/run-guest-tests.sh with scripts/guest-run.sh -U -H: the host sends
# 64 MiB in 64 B writes to port 1240, then 1 MiB to port 1241).  While the
# first transfer is in full flow (RX batches open in
# virtio_transport_rx_work() on the patched kernel), the virtio-vsock
# device is unbound from its driver: virtio_vsock_remove() resets every
# socket (virtio_vsock_reset_sock()) and tears the queues down.  Then:
#   - the receiver must end (error or EOF) within 30 s, not hang, and
#     must have received some but not all of the 64 MiB (else the removal
#     missed the transfer);
#   - the device is bound again and the second transfer must arrive
#     complete: nothing was left locked or leaked by the removal.
# Any splat fails the boot (guest-run.sh exit 3).
out=${RESULTS:?}/h2g-reset
mkdir -p "$out" || exit 1
drv=/sys/bus/virtio/drivers/vmw_vsock_virtio_transport
dev=$(ls "$drv" 2>/dev/null | grep '^virtio' | head -n 1)
[ -n "$dev" ] || { echo "FAIL no virtio-vsock device bound"; exit 1; }
T=/sys/kernel/tracing
ev=$T/events/vsock/virtio_transport_rx_batch
traced=0
[ -d "$ev" ] && : >"$T/trace" && echo 1 >"$ev/enable" && traced=1
fails=0

vb-recv --port 1240 >"$out/recv-1.txt" 2>&1 &
rpid=$!
# Let the transfer run (the host retries until the guest listens).
n=0
while [ $n -lt 60 ]; do
	sleep 1
	n=$((n + 1))
	# Untraced (baseline): 4 s into a transfer that takes ~20 s or more.
	[ $traced -eq 1 ] || { [ $n -ge 4 ] && break; continue; }
	# Removal while batches of more than one packet are being formed.
	grep -q ' pkts=\([2-9]\|[1-9][0-9]\)' "$T/trace" && [ $n -ge 3 ] && break
done
echo "unbinding $dev after $n s"
echo "$dev" >"$drv/unbind" || { echo "FAIL unbind $dev"; exit 1; }
n=0
while kill -0 $rpid 2>/dev/null && [ $n -lt 30 ]; do
	sleep 1
	n=$((n + 1))
done
if kill -0 $rpid 2>/dev/null; then
	echo "FAIL the receiver still waits 30 s after the device was removed"
	kill $rpid
	fails=$((fails + 1))
fi
wait $rpid
rrc=$?
got=$(sed -n -e 's/.*recv() after \([0-9]*\) bytes.*/\1/p' \
	-e 's/^total bytes received: //p' "$out/recv-1.txt" | head -n 1)
echo "receiver 1 ended with exit $rrc after ${got:-?} bytes: $(tail -n 1 "$out/recv-1.txt")"
case "${got:-0}" in
67108864) echo "FAIL all 64 MiB arrived: the removal came after the transfer"
	fails=$((fails + 1)) ;;
0) echo "FAIL no data before the removal: it came before the transfer"
	fails=$((fails + 1)) ;;
esac
if [ $traced -eq 1 ]; then
	echo 0 >"$ev/enable"
	echo "rx batches before the removal: $(grep -c ' virtio_transport_rx_batch: ' "$T/trace")," \
		"ends: $(grep -o ' reason=[A-Z]*' "$T/trace" | sort | uniq -c | tr -s ' \n' ' ')"
fi

echo "$dev" >"$drv/bind" || { echo "FAIL rebind $dev"; exit 1; }
ls "$drv" | grep -q "^$dev\$" || { echo "FAIL $dev not bound again"; exit 1; }
vb-recv --port 1241 --expect-bytes 1M >"$out/recv-2.txt" 2>&1 || {
	echo "FAIL after rebinding: $(tail -n 2 "$out/recv-2.txt")"
	fails=$((fails + 1))
}
echo "receiver 2: $(grep '^total bytes' "$out/recv-2.txt")"
echo "h2g-reset: $fails failure(s)"
[ $fails -eq 0 ]
