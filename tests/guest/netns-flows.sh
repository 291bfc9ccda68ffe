#!/bin/sh
# netns-flows.sh - two connections with the same addresses in two vsock
# namespaces, through the one loopback worker at the same time.
#
# Since 7.0 vsock has network namespaces: in "local" mode a namespace has
# its own ports, so two namespaces can each hold a connection
# 1:4000 -> 1:1234.  Loopback queues the packets of both on one list and
# its worker receives them interleaved.  The series (patch 3) lets a
# packet join an open RX batch, skipping the socket lookup, only when it
# is of the same flow; on 7.x the namespace is part of the flow.  If it
# were not, a packet of one namespace's connection would be queued on the
# other's socket: one receiver gets more bytes than its sender sent and
# the other fewer (or a reset).  Here each receiver must get exactly its
# sender's bytes, in 64 B writes so that packets of the two flows
# alternate in the worker's list.  On baseline the same run is the
# reference.  Needs /proc/sys/net/vsock/child_ns_mode (7.0 and later).
#
#   scripts/guest-run.sh -k patched-7.2 -s 2 -o /tmp/nf tests/guest/netns-flows.sh
out=${RESULTS:?}/netns-flows
mkdir -p "$out" || exit 1
b1=3M b2=5M limit=300
case "${VB_VARIANT:-}" in
*debug*) b1=768K b2=1280K ;;	# KASAN: a quarter of the bytes
esac
fails=0
fail() { echo "FAIL $*"; fails=$((fails + 1)); }

modprobe vsock_loopback 2>/dev/null
if [ ! -f /proc/sys/net/vsock/child_ns_mode ]; then
	echo "FAIL no /proc/sys/net/vsock/child_ns_mode: a kernel without vsock namespaces"
	exit 1
fi

# flow NAME BYTES CPU: in a new namespace (a child of the one this runs
# in, so "local"), a receiver on 1234 and a sender from port 4000 to it,
# pinned to CPU: the two senders on two vCPUs fill the loopback queue at
# the same time, so the worker's list alternates between the flows.
# Writes $out/NAME.{mode,recv,send}; exit 0 when both ends are content.
flow() {
	unshare -n sh -c '
		out=$1 name=$2 bytes=$3 cpu=$4
		cat /proc/sys/net/vsock/ns_mode >"$out/$name.mode"
		vb-recv --port 1234 --expect-bytes "$bytes" \
			>"$out/$name.recv" 2>&1 &
		r=$!
		vb-sender --cid 1 --port 1234 --src-port 4000 --cpu "$cpu" \
			--bytes "$bytes" --buf-size 64 >"$out/$name.send" 2>&1
		s=$?
		wait $r
		rr=$?
		[ $s -eq 0 ] && [ $rr -eq 0 ]' flow "$out" "$1" "$2" "$3"
}

# In a namespace of its own (global, like its parent) whose children are
# made local: the initial namespace's child_ns_mode is write-once, and
# other tests of this boot may need it.  Both flows at once.
if [ "${1:-}" = --flows ]; then
	echo local >/proc/sys/net/vsock/child_ns_mode || exit 3
	flow a "$b1" 0 &
	pa=$!
	flow b "$b2" 1 &
	pb=$!
	wait $pa
	ra=$?
	wait $pb
	rb=$?
	[ $ra -eq 0 ] && [ $rb -eq 0 ]
	exit
fi
start=$(date +%s)
timeout "$limit" unshare -n sh "$0" --flows >"$out/run.log" 2>&1
rc=$?
took=$(($(date +%s) - start))
killall vb-recv vb-sender 2>/dev/null
echo "two flows ($b1 and $b2 in 64 B writes), ${took}s, exit $rc"
case $rc in
0) ;;
3) fail "child_ns_mode=local refused" ;;
124|143) fail "not done within ${limit}s (a receiver waiting for bytes that went elsewhere?)" ;;
*) fail "a flow failed (exit $rc)" ;;
esac
for n in a b; do
	m=$(cat "$out/$n.mode" 2>/dev/null)
	[ "$m" = local ] || fail "namespace $n: ns_mode '$m', not local"
	grep -h 'total bytes\|FAIL\|error\|expect' "$out/$n.recv" "$out/$n.send" 2>/dev/null |
		sed "s/^/  $n: /"
done
[ $fails -eq 0 ] && echo "PASS: each namespace's receiver got exactly its sender's bytes"
[ $fails -eq 0 ]
