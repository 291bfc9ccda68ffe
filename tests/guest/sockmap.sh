#!/bin/sh
# sockmap.sh - a loopback vsock stream whose receiving socket is in a BPF
# SOCKMAP, read with blocking recv() (build/vsock-sockmap): every byte
# delivered, no EAGAIN, no stall, no splat.  Cases:
#   none         no map (the reference)
#   pre 64/4K    socket in the map before the transfer, SK_PASS verdict
#                (the reproducer of the vsock_bpf recvmsg() deadlock the
#                series' net fix repairs), 64 B and 4 KiB writes
#   during       socket inserted after a quarter of the transfer, while
#                the sender is in full flow (RX batches open on patched);
#                data still queued at the insert and the verdict's
#                packets meet here (the second net fix keeps them in
#                order)
#   noverdict    psock without a verdict program: the socket keeps its
#                default callbacks and is batched on patched
# then the checker's own failures: a flipped byte and a missing byte must
# each FAIL.  Debug kernels (lockdep + KASAN) move a quarter of the bytes.
# Measured: ~10 s on baseline and patched, ~25 s on debug (2 TCG vCPUs).
#
#   scripts/guest-run.sh -k patched -s 2 -t 300 -o /tmp/sm tests/guest/sockmap.sh
out=${RESULTS:?}/sockmap
mkdir -p "$out" || exit 1
big=4M small=256K stall=20
# "during" at 64 B: four times the receive buffer (256 KiB), so that at
# least three quarters must still be sent after the insert and the
# verdict program has to run.  With just the buffer's size the sender
# could finish before the reader's first quarter (7.2 patched did).
during=1M
case "${VB_VARIANT:-}" in
*debug*) big=1M small=64K stall=60 ;;
esac
fails=0 port=5210

run() { # run NAME EXPECT(pass|fail) ARGS...
	name=$1 want=$2
	shift 2
	port=$((port + 1))
	vsock-sockmap --port "$port" --stall "$stall" "$@" >"$out/$name.out" 2>&1
	rc=$?
	got=pass
	[ $rc -eq 0 ] || got=fail
	if [ "$got" = "$want" ] && { [ $rc -le 1 ]; }; then
		echo "ok   $name: $(tail -n 1 "$out/$name.out")"
	else
		echo "BAD  $name (exit $rc, wanted $want):"
		sed 's/^/     /' "$out/$name.out"
		fails=$((fails + 1))
	fi
}

run none-64     pass --map none   --write 64 --bytes "$small"
run pre-64      pass --map pre    --write 64 --bytes "$small"
run pre-4K      pass --map pre    --write 4K --bytes "$big"
run during-64   pass --map during --write 64 --bytes "$during"
run during-4K   pass --map during --write 4K --bytes "$big"
run noverdict   pass --map pre --verdict none --write 64 --bytes "$small"
# The checker must be able to fail.
run inject-corrupt fail --map pre --write 64 --bytes 64K --inject corrupt
stall=3
run inject-stall fail --map pre --write 64 --bytes 64K --inject stall

cat "$out"/*.out | grep '^map=' >"$out/summary.txt"
echo "sockmap: $fails bad case(s)"
[ $fails -eq 0 ]
