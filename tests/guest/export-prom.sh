#!/bin/sh
# export-prom.sh: guest half of the Prometheus test (tests/export-prom-host.sh
# is the host half; run-guest-tests.sh starts both with guest-run.sh -N -U).
#
# Serves `vsockbatch export` on the private network (and on AF_VSOCK port
# 9478, which the host reaches through the vhost-user device), says so
# in /results/exporter-up, then records the host's 64 B transfer with
# `vsockbatch record` (/results/prom-record.json).  After the transfer
# and a few more scrapes: /results/transfer-done; once the host has
# queried Prometheus (/results/host-done, at most 180 s), SIGTERM must
# stop the exporter with status 0.
. /vb/guest/export-lib.sh
out=${RESULTS:?}
port=1270
fails=0
say() { echo "export-prom: $*"; }
fail() { say "FAIL: $*"; fails=$((fails + 1)); }

ls /sys/bus/virtio/drivers/vmw_vsock_virtio_transport/ 2>/dev/null |
	grep -q virtio || { say "no virtio-vsock device"; exit 1; }
vsockbatch export --listen 0.0.0.0:9477 --vsock-port 9478 --ports -i 1 \
	2>"$out/prom-exporter.err" &
epid=$!
export_wait $epid "$out/prom-exporter.err" || exit 1
touch "$out/exporter-up"
say "exporter up; recording the host's transfer on port $port"
vsockbatch record -o "$out/prom-record.json" --label payload=64 -- \
	vb-recv --port "$port" >"$out/prom-recv.txt" 2>"$out/prom-record.err" ||
	fail "record: $(tail -n 3 "$out/prom-record.err")"
sleep 4		# a few more reads and scrapes after the transfer
touch "$out/transfer-done"
i=0
while [ ! -e "$out/host-done" ] && [ $i -lt 360 ]; do
	sleep 0.5
	i=$((i + 1))
done
[ -e "$out/host-done" ] || fail "the host never finished its queries"
kill -TERM $epid
wait $epid; rc=$?
[ $rc -eq 0 ] || fail "exporter exit status $rc after SIGTERM"
cat "$out/prom-exporter.err"
say "$fails failure(s)"
[ $fails -eq 0 ]
