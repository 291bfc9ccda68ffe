#!/bin/sh
# vu-event-idx.sh BYTES SIZE... - guest half of scripts/vu-event-idx.sh:
# for each SIZE in turn, vb-recv on port 4000 + i receives BYTES sent by
# the host in SIZE-byte writes (one packet each) through the lab's
# vhost-user-vsock device.  Output: $RESULTS/recv-SIZE.txt.
[ $# -ge 2 ] || { echo "usage: vu-event-idx.sh BYTES SIZE..." >&2; exit 2; }
ls /sys/bus/virtio/drivers/vmw_vsock_virtio_transport/ 2>/dev/null |
	grep -q virtio || { echo "vu-event-idx: no virtio-vsock device"; exit 1; }
bytes=$1
shift
i=0 rc=0
for size in "$@"; do
	vb-recv --port $((4000 + i)) --expect-bytes "$bytes" >"${RESULTS:?}/recv-$size.txt" 2>&1 ||
		{ echo "vu-event-idx: receive at $size: $(tail -n 1 "$RESULTS/recv-$size.txt")"; rc=1; }
	i=$((i + 1))
done
exit $rc
