#!/bin/sh
# vhost-user-smoke.sh N1 N2 N3 - guest half of tests/vhost-user-smoke.sh
# (the guest has a vhost-user-vsock-pci device served by
# build/vhost-user-vsock on the host; the host half sends and receives):
#   1. vb-recv on port 1234 receives N1 bytes host->guest (byte count),
#      with the function tracer counting virtio_transport_rx_work() runs
#   2. vu-stream on port 1235 receives N2 bytes host->guest, every byte
#      checked against the stress stream, CRC32C printed
#   3. vu-stream sends N3 bytes guest->host to CID 2 port 5000
#   4. vb-recv on port 1236 receives N1 bytes under `vsockbatch record`
#   5. six concurrent connections (see below), one closed mid-stream by
#      the guest, one aborted mid-stream by the host (a reset)
#   6. N4 bytes host->guest in 1-byte packets into a receiver that reads
#      nothing for 2 s: a small-packet flood piles up in the guest socket
#      (6.12.92+ guests bound their RX queue by skb count; no reset allowed)
# Output in $RESULTS/vu-smoke/.  Exit 1 if any step fails.
out=${RESULTS:?}/vu-smoke
mkdir -p "$out" || exit 1
[ $# -eq 3 ] || [ $# -eq 4 ] || { echo "usage: vhost-user-smoke.sh N1 N2 N3 [N4]" >&2; exit 2; }
fails=0
fail() {
	echo "FAIL: $*"
	fails=$((fails + 1))
}

ls /sys/bus/virtio/drivers/vmw_vsock_virtio_transport/ 2>/dev/null | grep -q virtio ||
	fail "no virtio-vsock device bound to the virtio transport"
grep -i virtio /proc/interrupts >"$out/interrupts-before.txt"

t=/sys/kernel/tracing
traced=0
if [ -w $t/set_ftrace_filter ] &&
   echo virtio_transport_rx_work >$t/set_ftrace_filter 2>/dev/null; then
	echo 0 >$t/tracing_on
	echo function >$t/current_tracer
	echo 16384 >$t/buffer_size_kb
	: >$t/trace
	echo 1 >$t/tracing_on
	traced=1
fi
echo "VU-SMOKE: receiving on 1234"
vb-recv --port 1234 --expect-bytes "$1" >"$out/h2g-vb-recv.txt" 2>&1 ||
	fail "vb-recv (host->guest, $1 bytes): $(tail -n 1 "$out/h2g-vb-recv.txt")"
if [ $traced = 1 ]; then
	echo 0 >$t/tracing_on
	runs=$(grep -c 'virtio_transport_rx_work' $t/trace)
	echo "virtio_transport_rx_work runs: $runs" | tee "$out/rx-work.txt"
	echo nop >$t/current_tracer
	[ "$runs" -gt 0 ] || fail "the virtio RX worker never ran"
fi
grep -i virtio /proc/interrupts >"$out/interrupts-after.txt"

echo "VU-SMOKE: receiving on 1235"
vu-stream recv --port 1235 --expect-bytes "$2" >"$out/h2g-stream.txt" 2>&1 ||
	fail "vu-stream recv (host->guest, $2 bytes): $(tail -n 1 "$out/h2g-stream.txt")"

echo "VU-SMOKE: sending to 2:5000"
vu-stream send --cid 2 --port 5000 --bytes "$3" --buf-size 4K >"$out/g2h-stream.txt" 2>&1 ||
	fail "vu-stream send (guest->host, $3 bytes): $(tail -n 1 "$out/g2h-stream.txt")"

# 4. the same host->guest path under the vsockbatch tracer: the RX runs of
#    virtio_transport_rx_work() (batch length 1 on baseline, > 1 batched)
echo "VU-SMOKE: traced receive on 1236"
if vsockbatch record -o "$out/h2g-trace.json" --label path=vhost-user -- \
	vb-recv --port 1236 --expect-bytes "$1" >"$out/h2g-traced.txt" 2>&1; then
	vsockbatch report "$out/h2g-trace.json" >"$out/h2g-trace-report.txt" 2>&1 ||
		fail "vsockbatch report"
	vsockbatch report --json "$out/h2g-trace.json" >"$out/h2g-trace-report.json" 2>&1 ||
		fail "vsockbatch report --json"
	echo "trace mode: $(sed -n 's/^  "mode": "\([a-z]*\)".*/\1/p' "$out/h2g-trace-report.json")" \
		>"$out/h2g-trace-summary.txt"
	for k in pkts rw_pkts batches mean_batch_pkts; do
		v=$(sed -n "s/^    \"$k\": \([^,]*\),\{0,1\}\$/\1/p" "$out/h2g-trace-report.json" | head -n 1)
		echo "trace $k: $v"
	done >>"$out/h2g-trace-summary.txt"
else
	fail "traced vb-recv: $(tail -n 2 "$out/h2g-traced.txt")"
fi

# 5. five connections at once, both directions, 64 B and 64 KiB writes:
#    1301 host->guest 64 KiB writes, 1302 host->guest 64 B writes,
#    1303 host->guest closed by the guest after 1 MiB (mid-stream),
#    5001/5002 guest->host in 64 B / 64 KiB writes, 5003 guest->host
#    aborted by the host after 1 MiB (the sender must get an error, not
#    hang: "send at byte N").  Every byte checked.
echo "VU-SMOKE: concurrent"
vu-stream recv --port 1301 --expect-bytes "$2" >"$out/c1301.txt" 2>&1 & p1=$!
vu-stream recv --port 1302 --expect-bytes "$1" >"$out/c1302.txt" 2>&1 & p2=$!
vu-stream recv --port 1303 --close-after 1M --expect-bytes 1M >"$out/c1303.txt" 2>&1 & p3=$!
vu-stream send --cid 2 --port 5001 --bytes "$1" --buf-size 64 >"$out/c5001.txt" 2>&1 & p4=$!
vu-stream send --cid 2 --port 5002 --bytes "$3" --buf-size 64K >"$out/c5002.txt" 2>&1 & p5=$!
vu-stream send --cid 2 --port 5003 --bytes 64M --buf-size 4K >"$out/c5003.txt" 2>&1 & p6=$!
for p in 1301:$p1 1302:$p2 1303:$p3 5001:$p4 5002:$p5; do
	wait "${p#*:}" || fail "concurrent port ${p%%:*}: $(tail -n 1 "$out/c${p%%:*}.txt")"
done
if wait $p6; then
	fail "concurrent port 5003: sent all 64 MiB although the host aborted after 1 MiB"
else
	grep -q 'send at byte' "$out/c5003.txt" ||
		fail "concurrent port 5003: $(tail -n 1 "$out/c5003.txt")"
fi

if [ -n "${4:-}" ]; then
	echo "VU-SMOKE: small-packet flood on 1240"
	vu-stream recv --port 1240 --delay-ms 2000 --expect-bytes "$4" >"$out/flood.txt" 2>&1 ||
		fail "small-packet flood ($4 one-byte packets, read 2 s late): $(tail -n 1 "$out/flood.txt")"
fi

cat "$out"/*.txt
[ $fails -eq 0 ] && echo "PASS: vhost-user smoke" && exit 0
exit 1
