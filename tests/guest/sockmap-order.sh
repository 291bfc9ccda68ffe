#!/bin/sh
# sockmap-order.sh [TRIES] [BYTES] [DELAY_US] [SETTLE_MS] - the
# reproducer of the stream reordering after a mid-transfer SOCKMAP insert
# that the second net fix removes ("vsock/bpf: keep the stream in order
# when recvmsg() reads the transport").  Each try is `vsock-sockmap --map
# during --settle SETTLE_MS --rcvbuf 4M --write 4K` (the insert waits a
# moment, so the transport still holds data when the psock takes over,
# and the large buffer keeps the sender sending meanwhile; every byte is
# checked) while vsock-widen busy-waits DELAY_US at the entry of
# __vsock_connectible_recvmsg(): on an unfixed kernel vsock_bpf_recvmsg()
# calls it right after releasing the socket lock, so the RX worker gets
# the lock in between and its verdict program moves older packets from
# the transport's head to the psock, under the reader.  On a fixed kernel
# the same delay lands in vsock_connectible_recvmsg_locked(), with the
# lock held.  Without the widening the window is a few hundred
# instructions: seen twice in ~100 transfers on a busy host, never on a
# quiet one.  With it, whether a try reorders still depends on how much
# the transport holds at the insert: 8 of 20 tries on the unfixed
# 6.12.117 baseline, 0 of 20 on the fixed one
# (kernel-patches/v6.12/README.md), so 6 tries miss a regression
# with probability ~0.05.
# Prints one line per try and "sockmap-order: N tries, N reordered, N
# other failures, widened N times"; exit 1 on any failure.
#
#   scripts/guest-run.sh -k baseline -s 2 -t 600 -o /tmp/so tests/guest/sockmap-order.sh
tries=${1:-6} bytes=${2:-4M} delay=${3:-2000} settle=${4:-1}
case "${VB_VARIANT:-}" in
*debug*) bytes=${2:-1M} ;;	# KASAN: a quarter of the bytes
esac
out=${RESULTS:?}/sockmap-order
mkdir -p "$out" || exit 1

vsock-widen --us "$delay" --func __vsock_connectible_recvmsg \
	--func vsock_connectible_recvmsg_locked >"$out/widen.out" 2>&1 &
wpid=$!
n=0
until grep -q '^attached' "$out/widen.out" 2>/dev/null; do
	n=$((n + 1))
	if [ $n -gt 100 ] || ! kill -0 $wpid 2>/dev/null; then
		echo "FAIL vsock-widen did not attach: $(tr '\n' ' ' <"$out/widen.out")"
		exit 1
	fi
	sleep 0.1
done
echo "widen: $(grep "^attached" "$out/widen.out"), $delay us per call"

i=0 bad=0 other=0
while [ $i -lt "$tries" ]; do
	i=$((i + 1))
	vsock-sockmap --port $((5600 + i)) --map during --settle "$settle" --rcvbuf 4M --write 4K \
		--bytes "$bytes" --stall 60 >"$out/try-$i.out" 2>&1
	rc=$?
	line=$(tr '\n' ' ' <"$out/try-$i.out")
	if [ $rc -eq 0 ]; then
		echo "ok   try $i: $line"
	elif grep -q '^FAIL byte' "$out/try-$i.out"; then
		echo "BAD  try $i (reordered): $line"
		bad=$((bad + 1))
	else
		echo "BAD  try $i (exit $rc): $line"
		other=$((other + 1))
	fi
done
kill -INT $wpid
wait $wpid
hits=$(sed -n 's/^hits \([0-9]*\).*/\1/p' "$out/widen.out")
echo "sockmap-order: $tries tries, $bad reordered, $other other failures, widened ${hits:-?} times" |
	tee "$out/summary.txt"
[ $bad -eq 0 ] && [ $other -eq 0 ] && [ "${hits:-0}" -gt 0 ]
