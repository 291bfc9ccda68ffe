#!/bin/sh
# h2g-recv.sh BYTES [PORT]: guest half of a host->guest transfer through
# the lab's vhost-user-vsock device (scripts/guest-run.sh -U -H ...): a
# blocking-recv() receiver that must get exactly BYTES; the host half is
# `vhost-user-vsock send`.  Fails if no virtio-vsock device is bound.
[ $# -ge 1 ] || { echo "usage: h2g-recv.sh BYTES [PORT]" >&2; exit 2; }
ls /sys/bus/virtio/drivers/vmw_vsock_virtio_transport/ 2>/dev/null |
	grep -q virtio || { echo "h2g-recv: no virtio-vsock device"; exit 1; }
vb-recv --port "${2:-1234}" --expect-bytes "$1" | tee "${RESULTS:?}/h2g-recv.txt"
