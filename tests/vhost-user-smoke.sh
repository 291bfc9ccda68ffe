#!/bin/bash
# vhost-user-smoke.sh [-k VARIANT] [-o OUTDIR] [-t TIMEOUT_S] [-c CID] [-p RX_PKT_MAX]:
# host->guest and guest->host vsock traffic through build/vhost-user-vsock.
#
# Boots a lab kernel under QEMU TCG (the options of scripts/guest-run.sh)
# with a vhost-user-vsock-pci device served by the back-end, guest memory
# in a shared memfd, and runs tests/guest/vhost-user-smoke.sh inside:
#   host `vhost-user-vsock send` -> guest vb-recv        (N1 bytes, 64 B writes)
#   host `vhost-user-vsock send` -> guest vu-stream recv (N2 bytes, checked, CRC)
#   guest vu-stream send -> host `vhost-user-vsock recv --verify` (N3 bytes)
#   host `vhost-user-vsock send` -> guest vb-recv under `vsockbatch record`
#   then six connections at once, both directions, 64 B and 64 KiB writes,
#   one closed by the guest mid-stream (the host sender must get an error),
#   one aborted by the host mid-stream (the guest sender must get an error),
#   then a small-packet flood: N4 (VB_VU_N4, 64K) bytes in 1-byte packets
#   into a guest reader that sleeps 2 s before it reads
# Passes only if every byte count and CRC32C matches on both ends, the
# guest's RX worker ran, the tracer saw every data packet in RX batches
# of length 1 on a baseline kernel and > 1 on a batched one (with -p <=
# 1024), the console has no splat, and the back-end exits 0 after QEMU.  Exit 0 pass, 1 fail, 2 bad usage.
set -uo pipefail
. "$(dirname "$0")/../scripts/lib.sh"

VARIANT=baseline OUTDIR= TIMEOUT=300 CID=3 PKT=65536
N1=${VB_VU_N1:-4M} N2=${VB_VU_N2:-16M} N3=${VB_VU_N3:-8M} N4=${VB_VU_N4:-64K}
while getopts k:o:t:c:p:h opt; do
	case $opt in
	k) VARIANT=$OPTARG ;;
	o) OUTDIR=$OPTARG ;;
	t) TIMEOUT=$OPTARG ;;
	c) CID=$OPTARG ;;
	p) PKT=$OPTARG ;;
	*) echo "usage: ${0##*/} [-k VARIANT] [-o OUTDIR] [-t TIMEOUT_S] [-c CID] [-p RX_PKT_MAX]" >&2; exit 2 ;;
	esac
done
[[ "$TIMEOUT" =~ ^[1-9][0-9]*$ ]] || { echo "${0##*/}: bad timeout '$TIMEOUT'" >&2; exit 2; }
[[ "$CID" =~ ^[1-9][0-9]*$ ]] && [ "$CID" -ge 3 ] || { echo "${0##*/}: bad CID '$CID'" >&2; exit 2; }
variant_spec "$VARIANT" || exit 2
for b in vhost-user-vsock vb-recv vu-stream; do
	[ -x "$VB_ROOT/build/$b" ] || { echo "${0##*/}: build/$b missing (run make)" >&2; exit 2; }
done
KDIR=$("$VB_ROOT/scripts/kernel-build.sh" "$VARIANT") || exit 1

[ -n "$OUTDIR" ] || OUTDIR=$(mktemp -d /tmp/vb-vu-smoke.XXXXXX)
mkdir -p "$OUTDIR" && OUTDIR=$(cd "$OUTDIR" && pwd) || exit 1
rm -f "$OUTDIR/.vb-exit" "$OUTDIR"/*.log "$OUTDIR"/host-*.txt
# Unix socket paths must stay short (108 bytes): keep them in /tmp.
sock=$(mktemp -d /tmp/vb-vu.XXXXXX)
initrd="$sock/initrd.gz"
pids=()
cleanup() {
	local p
	for p in "${pids[@]}"; do kill "$p" 2>/dev/null; done
	wait 2>/dev/null
	rm -rf "$sock"
}
trap cleanup EXIT
"$VB_ROOT/scripts/initramfs.sh" "$KDIR" "$initrd" \
	"$VB_ROOT/tests/guest/vhost-user-smoke.sh" "$N1" "$N2" "$N3" "$N4" || exit 1

vu="$VB_ROOT/build/vhost-user-vsock"
"$vu" --socket "$sock/vu.sock" --uds "$sock/uds" --guest-cid "$CID" --rx-pkt-max "$PKT" \
	2>"$OUTDIR/backend.log" &
backend=$!
pids+=("$backend")
# The guest->host receiver listens where the back-end will connect.
"$vu" recv --listen "$sock/uds_5000" --verify --expect-bytes "$N3" \
	>"$OUTDIR/host-recv-5000.txt" 2>&1 &
hrecv=$!
pids+=("$hrecv")
# ... and for the concurrent guest->host streams (64 B and 64 KiB writes).
"$vu" recv --listen "$sock/uds_5001" --verify --expect-bytes "$N1" \
	>"$OUTDIR/host-recv-5001.txt" 2>&1 &
hrecv1=$!
"$vu" recv --listen "$sock/uds_5002" --verify --expect-bytes "$N3" \
	>"$OUTDIR/host-recv-5002.txt" 2>&1 &
hrecv2=$!
# ... and one the host aborts after 1 MiB: a reset mid-stream.
"$vu" recv --listen "$sock/uds_5003" --verify --close-after 1M --expect-bytes 1M \
	>"$OUTDIR/host-recv-5003.txt" 2>&1 &
hrecv3=$!
pids+=("$hrecv1" "$hrecv2" "$hrecv3")
for _ in $(seq 50); do [ -S "$sock/vu.sock" ] && [ -S "$sock/uds_5000" ] &&
	[ -S "$sock/uds_5001" ] && [ -S "$sock/uds_5002" ] && [ -S "$sock/uds_5003" ] &&
	break; sleep 0.1; done

tsc_khz=$(awk -F: '/^cpu MHz/ { printf "%d", $2 * 1000; exit }' /proc/cpuinfo)
qemu=(qemu-system-x86_64 -accel tcg -cpu max
	-smp 2,sockets=2,cores=1,threads=1 -m 1024
	-object memory-backend-memfd,id=mem,size=1024M,share=on -numa node,memdev=mem
	-chardev socket,id=vu,path="$sock/vu.sock" -device vhost-user-vsock-pci,chardev=vu
	-nographic -no-reboot -nodefaults -serial stdio
	-kernel "$KDIR/bzImage" -initrd "$initrd"
	-append "console=ttyS0 panic=-1 loglevel=6 tsc=reliable tsc_early_khz=$tsc_khz"
	-virtfs "local,path=$OUTDIR,mount_tag=results,security_model=none,id=results")
start=$(date +%s)
timeout -k 5 "$TIMEOUT" "${qemu[@]}" </dev/null >"$OUTDIR/console.log" 2>&1 &
qpid=$!
pids+=("$qpid")

# host_send PORT BYTES BUFSIZE OUT: retry while the guest is not listening
# yet (the back-end closes our socket on the guest's RST before "OK");
# any other failure is final.
host_send() {
	local deadline=$((start + TIMEOUT))
	while [ "$(date +%s)" -lt "$deadline" ] && kill -0 "$qpid" 2>/dev/null; do
		if "$vu" send --uds "$sock/uds" --port "$1" --bytes "$2" \
			--buf-size "$3" >"$4" 2>"$4.err"; then
			return 0
		fi
		grep -q 'connection refused or reset' "$4.err" || return 1
		sleep 0.5
	done
	return 1
}
fails=0
fail() { echo "FAIL: $*"; fails=$((fails + 1)); }
host_send 1234 "$N1" 64 "$OUTDIR/host-send-1234.txt" || fail "host send to guest port 1234: $(tail -n 1 "$OUTDIR/host-send-1234.txt.err" 2>/dev/null)"
host_send 1235 "$N2" 64K "$OUTDIR/host-send-1235.txt" || fail "host send to guest port 1235: $(tail -n 1 "$OUTDIR/host-send-1235.txt.err" 2>/dev/null)"
host_send 1236 "$N1" 64 "$OUTDIR/host-send-1236.txt" || fail "host send to guest port 1236 (traced): $(tail -n 1 "$OUTDIR/host-send-1236.txt.err" 2>/dev/null)"
# Concurrent: three host senders at once (the guest's 5001/5002 senders
# run at the same time); the guest closes 1303 after 1 MiB of 64 MiB, so
# that sender must fail with a write error, not hang.
host_send 1301 "$N2" 64K "$OUTDIR/host-send-1301.txt" & s1=$!
host_send 1302 "$N1" 64 "$OUTDIR/host-send-1302.txt" & s2=$!
host_send 1303 64M 4K "$OUTDIR/host-send-1303.txt" & s3=$!
wait $s1 || fail "host send to 1301: $(tail -n 1 "$OUTDIR/host-send-1301.txt.err")"
wait $s2 || fail "host send to 1302: $(tail -n 1 "$OUTDIR/host-send-1302.txt.err")"
if wait $s3; then
	fail "host send to 1303 finished although the guest closed after 1 MiB"
else
	grep -q 'write at byte' "$OUTDIR/host-send-1303.txt.err" ||
		fail "host send to 1303: $(tail -n 1 "$OUTDIR/host-send-1303.txt.err")"
fi
# A small-packet flood: N4 bytes in 1-byte writes, one packet each, into a
# guest reader that sleeps 2 s first; it must arrive whole, no reset.
host_send 1240 "$N4" 1 "$OUTDIR/host-send-1240.txt" ||
	fail "host small-packet flood to 1240: $(tail -n 1 "$OUTDIR/host-send-1240.txt.err")"
wait "$qpid"
qrc=$?
elapsed=$(($(date +%s) - start))
# QEMU gone: the back-end must notice and exit cleanly.
for _ in $(seq 50); do kill -0 "$backend" 2>/dev/null || break; sleep 0.1; done
if kill -0 "$backend" 2>/dev/null; then
	fail "back-end still running after QEMU exited"
else
	wait "$backend"; brc=$?
	[ "$brc" = 0 ] || fail "back-end exit status $brc"
fi
# recv_wait PID OUT: a host receiver's exit status.  QEMU is gone, so
# one still listening 10 s on never gets its bytes (a guest that failed
# before connecting): killed, a line saying so in OUT, status 1 -- not a
# wait without end.
recv_wait() {
	for _ in $(seq 100); do kill -0 "$1" 2>/dev/null || break; sleep 0.1; done
	if kill "$1" 2>/dev/null; then
		wait "$1" 2>/dev/null
		echo "still listening 10 s after QEMU exited: killed" >>"$2"
		return 1
	fi
	wait "$1"
}
recv_wait "$hrecv" "$OUTDIR/host-recv-5000.txt"; hrc=$?
recv_wait "$hrecv1" "$OUTDIR/host-recv-5001.txt" || fail "host receiver 5001 (guest->host, 64 B writes): $(tail -n 1 "$OUTDIR/host-recv-5001.txt")"
recv_wait "$hrecv2" "$OUTDIR/host-recv-5002.txt" || fail "host receiver 5002 (guest->host, 64 KiB writes): $(tail -n 1 "$OUTDIR/host-recv-5002.txt")"
recv_wait "$hrecv3" "$OUTDIR/host-recv-5003.txt" || fail "host receiver 5003 (aborted after 1 MiB): $(tail -n 1 "$OUTDIR/host-recv-5003.txt")"

splat='Kernel panic|Oops|BUG:|WARNING:|circular locking|recursive locking'
splat+='|inconsistent lock state|general protection fault|soft lockup'
splat+='|blocked for more than|rcu_.*detected stall|UBSAN:|Call Trace:'
grep -Eq "$splat" "$OUTDIR/console.log" && fail "kernel splat: $(grep -E -m1 "$splat" "$OUTDIR/console.log")"
grep -q '^VB-INIT:' "$OUTDIR/console.log" || fail "guest never reached /init (qemu exit $qrc)"
grc=$(cat "$OUTDIR/.vb-exit" 2>/dev/null || echo none)
[ "$grc" = 0 ] || fail "guest script exit '$grc' (qemu exit $qrc after ${elapsed}s)"
[ "$hrc" = 0 ] || fail "host receiver (guest->host): $(tail -n 1 "$OUTDIR/host-recv-5000.txt")"

val() { sed -n "s/^$2: *//p" "$1" 2>/dev/null | tail -n 1; }
g=$OUTDIR/vu-smoke
bytes() { numfmt --from=iec "$1"; }
[ "$(val "$g/h2g-vb-recv.txt" 'total bytes received')" = "$(bytes "$N1")" ] ||
	fail "vb-recv got '$(val "$g/h2g-vb-recv.txt" 'total bytes received')' bytes, host sent $(bytes "$N1")"
[ -n "$(val "$OUTDIR/host-send-1235.txt" crc32c)" ] &&
[ "$(val "$g/h2g-stream.txt" crc32c)" = "$(val "$OUTDIR/host-send-1235.txt" crc32c)" ] ||
	fail "host->guest CRC: host sent $(val "$OUTDIR/host-send-1235.txt" crc32c), guest got $(val "$g/h2g-stream.txt" crc32c)"
[ -n "$(val "$g/g2h-stream.txt" crc32c)" ] &&
[ "$(val "$g/g2h-stream.txt" crc32c)" = "$(val "$OUTDIR/host-recv-5000.txt" crc32c)" ] ||
	fail "guest->host CRC: guest sent $(val "$g/g2h-stream.txt" crc32c), host got $(val "$OUTDIR/host-recv-5000.txt" crc32c)"

# Concurrent streams and the flood: CRCs equal on both ends.
for pair in "flood.txt host-send-1240.txt" \
	    "c1301.txt host-send-1301.txt" "c1302.txt host-send-1302.txt" \
	    "c5001.txt ../host-recv-5001.txt" "c5002.txt ../host-recv-5002.txt"; do
	set -- $pair
	a=$(val "$g/$1" crc32c)
	b=$(val "$OUTDIR/${2#../}" crc32c)
	[ -n "$a" ] && [ "$a" = "$b" ] || fail "concurrent ${1%.txt}: guest crc32c '$a', host '$b'"
done
[ "$(val "$g/c1303.txt" bytes)" = 1048576 ] ||
	fail "guest closing 1303 mid-stream: read '$(val "$g/c1303.txt" bytes)' checked bytes, expected 1048576"
[ "$(val "$OUTDIR/host-recv-5003.txt" bytes)" = 1048576 ] ||
	fail "host aborting 5003 mid-stream: read '$(val "$OUTDIR/host-recv-5003.txt" bytes)' checked bytes, expected 1048576"

# The point of the device: the guest's RX worker, batched or not.
tmode=$(val "$g/h2g-trace-summary.txt" 'trace mode')
tmean=$(val "$g/h2g-trace-summary.txt" 'trace mean_batch_pkts')
trw=$(val "$g/h2g-trace-summary.txt" 'trace rw_pkts')
[ -n "$trw" ] && [ "$trw" -ge $(( $(bytes "$N1") / PKT )) ] ||
	fail "tracer saw ${trw:-no} data packets, expected >= $(( $(bytes "$N1") / PKT ))"
case $tmode in
baseline) awk "BEGIN { exit !(${tmean:-0} == 1) }" || fail "baseline kernel: mean RX batch $tmean, expected 1" ;;
batched)
	# Small packets arrive faster than one worker run drains them.
	[ "$PKT" -gt 1024 ] || awk "BEGIN { exit !(${tmean:-0} > 1) }" ||
		fail "batched kernel: mean RX batch ${tmean:-?} at ${PKT}-byte packets, expected > 1" ;;
*) fail "tracer mode '$tmode' (baseline or batched expected)" ;;
esac

echo "host->guest vb-recv:   $(val "$g/h2g-vb-recv.txt" 'total bytes received') bytes, $(val "$g/h2g-vb-recv.txt" 'rx performance') (64 B host writes)"
echo "host->guest vu-stream: $(val "$g/h2g-stream.txt" bytes) bytes checked, crc32c guest $(val "$g/h2g-stream.txt" crc32c) host $(val "$OUTDIR/host-send-1235.txt" crc32c), $(val "$g/h2g-stream.txt" gbps) Gbit/s"
echo "guest->host vu-stream: $(val "$OUTDIR/host-recv-5000.txt" bytes) bytes checked, crc32c guest $(val "$g/g2h-stream.txt" crc32c) host $(val "$OUTDIR/host-recv-5000.txt" crc32c)"
echo "$(cat "$g/rx-work.txt" 2>/dev/null)"
echo "traced host->guest (vsockbatch):" $(cat "$g/h2g-trace-summary.txt" 2>/dev/null)
echo "concurrent: 1301 $(val "$g/c1301.txt" bytes) B, 1302 $(val "$g/c1302.txt" bytes) B (64 B writes), 1303 closed by the guest at $(val "$g/c1303.txt" bytes) B (host: $(tail -n 1 "$OUTDIR/host-send-1303.txt.err")), 5001 $(val "$OUTDIR/host-recv-5001.txt" bytes) B (64 B writes), 5002 $(val "$OUTDIR/host-recv-5002.txt" bytes) B, 5003 aborted by the host at $(val "$OUTDIR/host-recv-5003.txt" bytes) B (guest: $(tail -n 1 "$g/c5003.txt")); CRCs match"
echo "back-end: $(tail -n 1 "$OUTDIR/backend.log")"
echo "results in $OUTDIR (${elapsed}s)"
if [ "$fails" -ne 0 ]; then
	echo "vhost-user smoke: FAILED ($fails)"; exit 1
fi
echo "vhost-user smoke: PASS"
