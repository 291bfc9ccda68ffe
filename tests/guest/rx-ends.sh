#!/bin/sh
# rx-ends.sh - every way an RX batch can end, seen at least once: the
# series' vsock:virtio_transport_rx_batch tracepoint counts the end
# reasons QUEUE FLOW OP PKTS BYTES STATE RESCHED RXQ CONTENDED CREDIT
# while workloads made to reach each one run over loopback (CONTENDED: a
# reader blocked in lock_sock() during a run; CREDIT: a slow reader lets
# the sender's credit run low):
#   vsock-semantics   credit (32 KiB receiver: BYTES at buf_alloc / 4),
#                     backpressure (129..575-byte writes to a slow reader:
#                     RXQ at the rx_queue skb budget, PKTS, OP at the
#                     sender's SHUTDOWN, FLOW from the reader's credit
#                     updates), peek
#   two streams       two backpressure runs at once: FLOW from the other
#                     flow's packets in the same queue
#   busy loops        one per vCPU during a second backpressure run: the
#                     worker is asked to reschedule inside a batch (RESCHED;
#                     required only where the kernel is not preemptible)
#   enobufs           a receiver shrinks its buffer under a streaming sender:
#                     the ENOBUFS reset inside a batch (STATE, when the
#                     next packet was queued behind the one that caused
#                     it: retried up to $etries times); both ends must see
#                     the reset, never hang
#   vsock-sockmap     sockets put into a SOCKMAP while the sender is in full
#                     flow: sockmap takes the socket over mid-batch (STATE),
#                     retried until STATE was seen (at most $tries times)
# On a kernel without the tracepoint (baseline) the same workloads run as
# the reference and must pass; nothing is counted.  Under lockdep and KASAN
# (debug) any splat fails the whole boot (guest-run.sh exit 3).
# Measured: ~40 s on patched, ~90 s on debug (2 TCG vCPUs, busy host).
#
#   scripts/guest-run.sh -k debug -s 2 -m 2048 -t 600 -o /tmp/re tests/guest/rx-ends.sh
out=${RESULTS:?}/rx-ends
mkdir -p "$out" || exit 1
T=/sys/kernel/tracing
ev=$T/events/vsock/virtio_transport_rx_batch
bp=2097152 sm=1M stall=20 tries=6 etries=30
case "${VB_VARIANT:-}" in
*debug*) bp=524288 sm=1M stall=60 tries=4 etries=15 ;;
esac
fails=0
fail() { echo "FAIL $*"; fails=$((fails + 1)); }

# RESCHED is what a batch sees on a kernel that is not preemptible
# (6.12's lab kernels: PREEMPT_VOLUNTARY).  On a preemptible one (7.x on
# x86 has PREEMPT_LAZY only) the tick preempts the worker where it runs
# and need_resched() is rarely true when the loop tests it: counted,
# not required.
preemptible=0
case " $(uname -v) " in *" PREEMPT"*) preemptible=1 ;; esac
if [ -r /sys/kernel/debug/sched/preempt ]; then
	# PREEMPT_DYNAMIC: the model in effect is the one in parentheses
	case "$(cat /sys/kernel/debug/sched/preempt)" in
	*"(none)"*|*"(voluntary)"*) preemptible=0 ;;
	*) preemptible=1 ;;
	esac
fi
[ $preemptible = 1 ] && echo "preemptible kernel ($(uname -v)): RESCHED counted, not required"

traced=0
if [ -d "$ev" ]; then
	echo 8192 >"$T/buffer_size_kb" && : >"$T/trace" &&
		echo 1 >"$ev/enable" && traced=1
	[ $traced -eq 1 ] || fail "cannot enable $ev"
else
	echo "no vsock:virtio_transport_rx_batch tracepoint: reference run, nothing counted"
fi

count() { # count REASON: batches that ended with REASON so far
	grep -c " reason=$1 " "$T/trace"
}

vsock-semantics --port 5400 --bytes "$bp" >"$out/semantics.out" 2>&1 ||
	fail "vsock-semantics: $(grep FAIL "$out/semantics.out")"
tail -n 4 "$out/semantics.out"

# RESCHED: a busy loop on every vCPU competes with the RX worker.
hogs=
for c in $(grep -c ^processor /proc/cpuinfo | xargs seq); do
	( while :; do :; done ) &
	hogs="$hogs $!"
done
vsock-semantics --port 5410 --case backpressure --bytes "$bp" \
	>"$out/semantics-hogs.out" 2>&1 ||
	fail "vsock-semantics under load: $(grep FAIL "$out/semantics-hogs.out")"
kill $hogs
wait $hogs 2>/dev/null

# FLOW: two backpressure streams at once, so the loopback queue holds
# data of two flows interleaved.  One stream's own credit updates were
# the only FLOW source before; on 7.2 (PREEMPT_LAZY) they ended 0 or 1
# batches per boot and the check failed in 2 of 4 boots.
vsock-semantics --port 5411 --case backpressure --bytes "$bp" \
	>"$out/semantics-two-a.out" 2>&1 &
pa=$!
vsock-semantics --port 5412 --case backpressure --bytes "$bp" \
	>"$out/semantics-two-b.out" 2>&1 ||
	fail "second of two concurrent streams: $(grep FAIL "$out/semantics-two-b.out")"
wait $pa ||
	fail "first of two concurrent streams: $(grep FAIL "$out/semantics-two-a.out")"

# STATE, and the ENOBUFS reset inside a batch: a receiver shrinks its
# buffer under a streaming sender; both ends must see the reset, every
# time.  The reset ends a batch with STATE only when the packet that
# causes it opened or joined one, that is, when the next packet of the
# flow was already queued behind it; a few tries, as for the sockmap
# insertion below.
j=0
while [ $j -lt $etries ]; do
	vsock-semantics --port $((5430 + 10 * j)) --case enobufs \
	    >"$out/enobufs-$j.out" 2>&1 ||
		fail "ENOBUFS reset, try $((j + 1)): $(grep FAIL "$out/enobufs-$j.out")"
	cat "$out/enobufs-$j.out"
	j=$((j + 1))
	[ $traced -eq 1 ] && [ "$(count STATE)" -gt 0 ] && break
	[ $traced -eq 0 ] && break
done

# The transfer ($sm) is four times the receive buffer, so packets still
# arrive after the insertion and the verdict program runs on them.
# STATE: insert into a SOCKMAP mid-transfer, a few times (it must land
# inside an open batch, which is likely but not certain per try).
i=0
while [ $i -lt $tries ]; do
	i=$((i + 1))
	# Here the insertion is only the way to end a batch with STATE, but
	# every byte is still checked: a 4 KiB piece out of order right after
	# the insert is what the second net fix (vsock/bpf: keep the stream
	# in order ...) removed, and this loop is where it was first seen.
	vsock-sockmap --port $((5420 + i)) --map during --write 4K \
	    --bytes "$sm" --stall "$stall" >"$out/sockmap-$i.out" 2>&1 ||
		fail "vsock-sockmap try $i: $(tr '\n' ' ' <"$out/sockmap-$i.out")"
	[ $traced -eq 1 ] && [ "$(count STATE)" -gt 0 ] && break
done

if [ $traced -eq 1 ]; then
	echo 0 >"$ev/enable"
	line="rx batch ends:"
	for r in QUEUE FLOW OP PKTS BYTES STATE RESCHED RXQ CONTENDED CREDIT; do
		n=$(count $r)
		line="$line $r=$n"
		[ "$r" = RESCHED ] && [ $preemptible = 1 ] && continue
		[ "$n" -gt 0 ] || fail "no batch ended with $r"
	done
	echo "$line (enobufs tries: $j, sockmap tries: $i)" | tee "$out/ends.txt"
	: >"$T/trace"
fi
echo "rx-ends: $fails failure(s)"
[ $fails -eq 0 ]
