#!/bin/sh
# tracer-kprobe.sh: the tracer's kprobe/kretprobe fallback, forced.
#
# VSOCKBATCH_FORCE_KPROBE=1 makes probe skip fentry/fexit wherever a
# kprobe twin exists, as on a kernel without BPF trampolines.  Then:
# probe lists those hooks as kprobe and usable ("alt" where the default
# light mode does not attach them), record says which
# fallback it used (one line each) and names them in the results file,
# and the 64 B loopback transfer is counted as tracer.sh counts it with
# fentry: data packets = bytes sent / 64, bytes in windows = bytes sent,
# and on a baseline kernel batch length 1 with data-ready inside the
# lock and one lookup per packet.  Needs the vsock modules loaded.
out=${RESULTS:?}
port=1300
fails=0
say() { echo "tracer-kprobe: $*"; }
fail() { say "FAIL: $*"; fails=$((fails + 1)); }
. /vb/guest/assert-lib.sh
field() {
	sed -n "s/^$2: *\([0-9.]*\).*/\1/p" "$1" | head -n 1
}
TX=vsock_perf RX=vsock_perf
command -v vsock_perf >/dev/null 2>&1 || { TX=vb-sender RX=vb-recv; }
export VSOCKBATCH_FORCE_KPROBE=1

vsockbatch probe >"$out/probe-kprobe.txt" 2>&1 || fail "probe (forced kprobe)"
cat "$out/probe-kprobe.txt"
kmode=$(sed -n '1s/^kernel [^:]*: \([a-z]*\) .*/\1/p' "$out/probe-kprobe.txt")
for h in kprobe+kretprobe/vsock_loopback_work kretprobe/virtio_transport_recv_pkt \
    kprobe/vsock_data_ready kprobe+kretprobe/__lock_sock; do
	# "alt" where the default (light) mode does not need them
	grep "^  $h  *" "$out/probe-kprobe.txt" | grep -Eq " (use|alt) " ||
		fail "probe: $h not usable"
done
grep -Eq "^  f(entry|exit)[^ ]*  *(use|alt) " "$out/probe-kprobe.txt" &&
	fail "probe: an fentry/fexit hook usable although forced off"

$RX --port "$port" --buf-size 64K >"$out/kprobe.rx" 2>&1 &
rpid=$!
sleep 1
vsockbatch record -m full -o "$out/tracer-kprobe.json" -- \
	$TX --sender 1 --port "$port" --bytes 1M --buf-size 64 \
	>"$out/kprobe.tx" 2>"$out/kprobe.err"
rc=$?
cat "$out/kprobe.err"
check "$rc == 0" "record exit status"
[ "$rc" = 0 ] || kill "$rpid" 2>/dev/null
wait $rpid
n=$(grep -c "^vsockbatch: kprobe.* instead of f[a-z+]*/.*: not tried: VSOCKBATCH_FORCE_KPROBE=1" "$out/kprobe.err")
check "$n >= 4" "record names each fallback it used, one line each"
grep -q '"kretprobe/virtio_transport_recv_pkt"' "$out/tracer-kprobe.json" ||
	fail "results file does not name the kprobe hooks"

vsockbatch report --json "$out/tracer-kprobe.json" >"$out/tracer-kprobe-report.json" ||
	fail "report --json"
j=$out/tracer-kprobe-report.json
rw=$(metric "$j" rw_pkts)
bytes=$(metric "$j" batch_bytes)
mean=$(metric "$j" mean_batch_pkts)
drin=$(metric "$j" dr_inside)
drafter=$(metric "$j" dr_after)
lookups=$(metric "$j" lookups_per_pkt)
window=$(metric "$j" window_mean_ns)
max=$(metric "$j" batch_max)
sent=$(field "$out/kprobe.tx" 'total bytes sent')
say "kernel=$kmode sent=$sent rw=$rw bytes=$bytes mean=$mean dr_in=$drin dr_after=$drafter lookups/pkt=$lookups max=$max window=$window"
check "${sent:-0} == 1048576" "sender: 1 MiB sent"
check "${rw:-0} >= ${sent:-0} / 64 && ${rw:-0} <= 1.01 * ${sent:-0} / 64" \
	"data packets = bytes sent / 64 B write size (within 1%)"
check "${bytes:-0} == ${sent:-0}" "bytes in batches = bytes sent"
check "${window:-0} > 0" "window time measured"
case $kmode in
baseline)
	check "$mean == 1 && $max == 1" "baseline: batch length is 1 (mean and exact max)"
	check "${drin:-0} > 0 && ${drafter:-1} == 0" "baseline: data-ready inside the lock only"
	check "$lookups == 1" "baseline: one lookup+lock per packet"
	;;
batched)
	check "$mean > 1" "batched: mean batch length > 1"
	check "$lookups < 1" "batched: lookups per packet < 1"
	;;
*)	fail "unknown kernel mode '$kmode'" ;;
esac

say "$fails failure(s)"
[ $fails -eq 0 ]
