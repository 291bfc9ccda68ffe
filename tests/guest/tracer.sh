#!/bin/sh
# tracer.sh: the vsockbatch tracer in a lab guest, both modes.
#
# vsock_perf at 64 B over loopback (CID 1) under `vsockbatch record`, then
# asserts on `vsockbatch report --json`:
#   Each kernel: the same transfer traced by a light-mode and a full-mode
#   tracer at once (one record runs the other), so both see the same
#   packets.
#   baseline kernel: every batch is 1 packet (exact max 1), data-ready
#     runs under the lock (0% deferred), one lookup+lock per packet;
#     light (the recv_pkt event alone) agrees with full on packets and
#     bytes and sees no windows;
#   batched kernel: light (the rx_batch event alone) and full agree
#     exactly on bytes, batches and packets in batches; light counts the
#     runs' data packets and no control packet; mean batch > 1 and max <=
#     64 (the series' cap), one or two data-ready calls per run (the
#     first readable packet and the run's end), lookups per packet < 1.
#   Full mode times 1 window in 8 by default (--sample): timed_windows
#   about batches / 8; a second transfer with --sample 1 times them all.
#   The kernel mode comes from `vsockbatch probe` and must match $EXPECT
#   when set (baseline|batched).  Also exercises `top -b`/`--json` live,
#   report, and the error paths that need a real kernel.
#
# Writes $RESULTS/tracer.json (results file; light.json too on batched
# kernels), tracer-report.{txt,json}, tracer-top.{txt,jsonl}, probe.txt.
out=${RESULTS:?}
port=1234
fails=0

say() { echo "tracer: $*"; }
fail() { say "FAIL: $*"; fails=$((fails + 1)); }
. /vb/guest/assert-lib.sh

field() { # field FILE 'label' -> first number after "label:"
	sed -n "s/^$2: *\([0-9.]*\).*/\1/p" "$1" | head -n 1
}

# The benchmark: upstream vsock_perf where the lab built it (its own
# kernels), else the project's vb-sender/vb-recv, which take the same
# options and print the same lines (Debian's kernels).
TX=vsock_perf RX=vsock_perf
command -v vsock_perf >/dev/null 2>&1 || { TX=vb-sender RX=vb-recv; }

start_receiver() { # start_receiver OUTFILE
	$RX --port "$port" --buf-size 64K >"$1" 2>&1 &
	rpid=$!
	sleep 1
}

sender() {
	$TX --sender 1 --port "$port" --bytes "${BYTES:-1M}" --buf-size 64
}

[ $# -eq 0 ] || { echo "usage: tracer.sh" >&2; exit 2; }

# --- what does this kernel offer? -----------------------------------------
cs=$(cat /sys/devices/system/clocksource/clocksource0/current_clocksource 2>/dev/null)
say "clocksource: ${cs:-unknown}"
[ "$cs" = jiffies ] && fail "clocksource is jiffies: every time below reads 0 (4 ms steps)"
vsockbatch probe >"$out/probe.txt" 2>&1 || fail "vsockbatch probe"
cat "$out/probe.txt"
kmode=$(sed -n '1s/^kernel [^:]*: \([a-z]*\) .*/\1/p' "$out/probe.txt")
say "kernel mode: $kmode"
if [ -n "${EXPECT:-}" ] && [ "$kmode" != "$EXPECT" ]; then
	fail "kernel mode '$kmode', expected '$EXPECT'"
fi
grep -q 'vsock_loopback_work *\(use\|alt\)' "$out/probe.txt" ||
	fail "vsock_loopback_work hook not available (module BTF?)"

# --- usage errors need no kernel, but check their exit codes here too ---
vsockbatch record >/dev/null 2>&1; rc=$?
check "$rc == 2" "record without -o exits 2"
vsockbatch record -o /tmp/x.json -d abc >/dev/null 2>&1; rc=$?
check "$rc == 2" "record -d abc exits 2"
echo '{"format":"vsockbatch-results","version":' >/tmp/trunc.json
vsockbatch report /tmp/trunc.json 2>/tmp/err.txt; rc=$?
check "$rc == 2" "report of a truncated file exits 2"
grep -q truncated /tmp/err.txt || fail "truncated file: reason '$(cat /tmp/err.txt)'"

# Light mode where the series batches without its event: the run-close
# function, once per run, and virtio_transport_recv_pkt() for the packets
# in no run (a data packet that the next one would not join opens none),
# so light counts the transfer exactly: 1 MiB in 16384 packets of 64 B.
# No hold time, no end reason; the reader's lock waits are timed
# (__lock_sock).
light_run_close() {
	start_receiver "$out/light-rc.rx"
	vsockbatch record -m light -o "$out/light-rc.json" $labels -- \
		$TX --sender 1 --port "$port" --bytes 1M --buf-size 64 \
		>"$out/light-rc.tx" 2>"$out/light-rc.err"
	rc=$?
	cat "$out/light-rc.err"
	check "$rc == 0" "light mode at the run-close function: record exit status"
	wait $rpid
	port=$((port + 1))
	vsockbatch report "$out/light-rc.json" >"$out/light-rc.txt" 2>&1 || fail "report (light, run-close)"
	cat "$out/light-rc.txt"
	vsockbatch report --json "$out/light-rc.json" >"$out/light-rc-report.json" ||
		fail "report --json (light, run-close)"
	lj=$out/light-rc-report.json
	lrw=$(metric "$lj" rw_pkts)
	lbytes=$(metric "$lj" bytes)
	lbp=$(metric "$lj" batch_pkts)
	lmean=$(metric "$lj" mean_batch_pkts)
	lmax=$(metric "$lj" batch_max)
	hold=$(metric "$lj" kb_hold_mean_ns)
	say "run-close light: rw=$lrw bytes=$lbytes in runs=$lbp mean=$lmean max=$lmax hold=$hold"
	check "${lbytes:-0} == 1048576 && ${lrw:-0} == 16384" \
		"light at the run-close function: every byte and data packet"
	check "${lbp:-0} > 0 && ${lbp:-0} <= ${lrw:-0}" "light: packets in runs among the data packets"
	grep -q 'fentry/virtio_transport_recv_pkt' "$out/light-rc.json" ||
		fail "light file does not name the hook of the packets in no run"
	check "${lmean:-0} > 1 && ${lmax:-99} <= 64" "light: mean run > 1, max within the 64-packet cap"
	[ "$hold" = null ] || fail "light at the run-close function reports a hold time ($hold)"
	grep -q 'fentry/virtio_transport_rx_batch_close' "$out/light-rc.json" ||
		fail "light file does not name the run-close hook"
	grep -q '__lock_sock' "$out/light-rc.json" ||
		fail "light file does not name the lock-wait hook"
	grep -q '^  reader waits ' "$out/light-rc.txt" ||
		fail "light report has no reader-wait line"
	grep -q '^  rx_batch runs' "$out/light-rc.txt" &&
		fail "light report prints a hold time it cannot have"
}

# --- the traced 64 B transfer ---------------------------------------------
# On a batched kernel a light-mode tracer runs inside the full-mode one:
# both are attached before the sender starts and drain after it exits.
labels="--label payload=64 --label receiver=$RX --label kernel=$kmode"
start_receiver "$out/tracer.rx"
# a kernel that batches without the rx_batch event (the series without
# its last patch; the lab's noevent): full mode sees its runs through the
# series' exported virtio_transport_rx_batch_recv()/_end(), light mode
# at the run-close function where fentry reaches it
grep -q '^tracer modes: light yes' "$out/probe.txt" && light=1 || light=0
if [ "$kmode" = batched ] && [ $light = 0 ]; then
	vsockbatch record -m full -o "$out/tracer.json" $labels -- \
		$TX --sender 1 --port "$port" --bytes 1M --buf-size 64 \
		>"$out/tracer.tx" 2>"$out/tracer.err"
	rc=$?
	cat "$out/tracer.err"
	check "$rc == 0" "batched kernel without rx_batch: record exit status"
	wait $rpid
	vsockbatch report --json "$out/tracer.json" >"$out/tracer-report.json" || fail "report --json"
	j=$out/tracer-report.json
	grep -q '"runs_visible": false' "$out/tracer.json" && fail "runs not visible (rx_batch_recv/_end hooks missing?)"
	rw=$(metric "$j" rw_pkts)
	bp=$(metric "$j" batch_pkts)
	mean=$(metric "$j" mean_batch_pkts)
	max=$(metric "$j" batch_max)
	lookups=$(metric "$j" lookups_per_pkt)
	say "p1-3-like: rw=$rw batch_pkts=$bp mean=$mean max=$max lookups/pkt=$lookups"
	# a run that opens and closes in one call (1 packet: RXQ, RESCHED,
	# BYTES bounds) is not seen from outside those functions
	check "${rw:-0} >= 16384 && ${bp:-0} >= 0.9 * ${rw:-1} && ${bp:-0} <= ${rw:-0}" \
		">= 90% of the data packets seen in runs (1-packet runs are not)"
	check "${mean:-0} > 1 && ${max:-99} <= 64" "mean run > 1, max within the 64-packet cap"
	check "${lookups:-1} < 1" "lookups per packet < 1"
	if grep -q '^tracer modes: light runs' "$out/probe.txt"; then
		light_run_close
	else
		vsockbatch record -m light -o /tmp/light.json -d 1 2>/tmp/err.txt; rc=$?
		check "$rc == 1" "batched kernel without rx_batch: record -m light refused"
		grep -q "light mode on a kernel that batches needs the series' vsock:virtio_transport_rx_batch" /tmp/err.txt ||
			fail "light refusal: reason '$(cat /tmp/err.txt)'"
		[ -e /tmp/light.json ] && fail "light refusal wrote a file"
	fi
	say "$fails failure(s) (batched kernel without the rx_batch event)"
	[ $fails -eq 0 ]
	exit $?
else
	# and, on a batched kernel, light mode's per-run fallback beside it
	vsockbatch record -m full -o "$out/tracer.json" $labels -- \
		vsockbatch record -m light -o "$out/light.json" $labels -- \
		env VSOCKBATCH_NO_HELD=1 \
		vsockbatch record -m light -o "$out/light-perrun.json" $labels -- \
		$TX --sender 1 --port "$port" --bytes 1M --buf-size 64 \
		>"$out/tracer.tx" 2>"$out/tracer.err"
fi
rc=$?
cat "$out/tracer.err"
check "$rc == 0" "record exit status"
# a record that failed before starting the sender leaves the receiver
# waiting for a connection that never comes
[ "$rc" = 0 ] || kill "$rpid" 2>/dev/null
wait $rpid || fail "receiver"
port=$((port + 1))
# vsock_perf's receiver stops at the first POLLRDHUP after one read(), so
# it can miss the tail when the sender's SHUTDOWN lands while data is
# still queued -- more likely with deferred wake-ups.  The tail is not
# bounded by its 64 KiB buffer: 970752 of 1048576 bytes (76 KiB short)
# on patched with the per-run light tracer inside the full one.  Exact
# byte accounting is checked on the tracer's side below.
got=$(field "$out/tracer.rx" 'total bytes received')
check "${got:-0} > 1048576 / 2" "receiver got most of 1 MiB (vsock_perf's RDHUP tail aside)"

vsockbatch report "$out/tracer.json" >"$out/tracer-report.txt" 2>&1 ||
	fail "report"
vsockbatch report --json "$out/tracer.json" >"$out/tracer-report.json" ||
	fail "report --json"
cat "$out/tracer-report.txt"
j=$out/tracer-report.json

pkts=$(metric "$j" pkts)
rw=$(metric "$j" rw_pkts)
bytes=$(metric "$j" batch_bytes)
batches=$(metric "$j" batches)
mean=$(metric "$j" mean_batch_pkts)
max=$(metric "$j" batch_max)
defer=$(metric "$j" pct_deferred)
drin=$(metric "$j" dr_inside)
drafter=$(metric "$j" dr_after)
lookups=$(metric "$j" lookups_per_pkt)
mapfull=$(metric "$j" map_full)
window=$(metric "$j" window_mean_ns)
timed=$(metric "$j" timed_windows)
say "timed windows $timed of $batches (--sample 8)"
# 1 in 8 per CPU slot; control windows advance the count too, and a slot
# taken by another task starts again at a timed window: about 1/8 (2058
# of 16384 on baseline-7.2, make check 2026-12-03), more where runs are
# long and windows few (patched-7.2, 2026-12-06: 161 of 1171, 221 of
# 1613, 247 of 1655, the last over the old bound of 1.1/8 + 8).  1 in 4
# or in 1 would still fail.
check "${timed:-0} >= ${batches:-0} / 8 * 0.9 - 8 && ${timed:-0} <= ${batches:-0} / 8 * 1.3 + 8" \
	"--sample 8 (default): about 1 window in 8 timed"
grep -q '"time_sample": 8' "$out/tracer.json" || fail "tracer.json does not say --sample 8"
say "pkts=$pkts rw=$rw batches=$batches mean=$mean max=$max deferred=$defer% dr_in=$drin dr_after=$drafter lookups/pkt=$lookups window=$window"

# 1 MiB in 64 B sends = 16384 RW packets, all seen (record drains the
# worker after the sender exits)
check "${rw:-0} >= 16384" "all 16384 data packets seen"
check "${bytes:-0} >= 1048576" "all 1 MiB inside batches"
# ... and they agree with the benchmark's own count: each 64 B send()
# is one RW packet (a send split by a short credit makes one more), and
# the bytes in batches are exactly the bytes sent
sent=$(field "$out/tracer.tx" 'total bytes sent')
check "${sent:-0} == 1048576" "sender: 1 MiB sent"
check "${rw:-0} >= ${sent:-0} / 64 && ${rw:-0} <= 1.01 * ${sent:-0} / 64" \
	"data packets = bytes sent / 64 B write size (within 1%)"
check "${bytes:-0} == ${sent:-0}" "bytes in batches = bytes sent"
check "${batches:-0} > 0" "batches recorded"
check "${mapfull:-1} == 0" "no map overflow"
check "${window:-0} > 0" "window time measured"
grep -q '"trace_mode": "full"' "$j" || fail "tracer.json is not full mode"
misses=$(sed -n 's/^    "recursion_misses": \([0-9]*\).*/\1/p' "$j")
check "${misses:-1} == 0" "no program run skipped by the kernel (recursion)"
grep -q '"mode": "'"$kmode"'"' "$j" || fail "report mode differs from probe"

case $kmode in
baseline)
	check "$mean == 1 && $max == 1" "baseline: batch length is 1 (mean and exact max)"
	check "${drin:-0} > 0 && ${drafter:-1} == 0" "baseline: data-ready under the lock only"
	check "$defer == 0" "baseline: 0% deferred"
	check "$lookups == 1" "baseline: one lookup+lock per packet"
	# light on a stock kernel: the recv_pkt event alone
	vsockbatch report --json "$out/light.json" >"$out/light-report.json" ||
		fail "report --json light"
	l=$out/light-report.json
	grep -q '"trace_mode": "light"' "$l" || fail "light.json is not light mode"
	nh=$(sed -n '/"hooks": \[/,/\]/p' "$out/light.json" | grep -c '"tp')
	check "$nh == 1" "baseline light: one tracepoint program (recv_pkt)"
	for k in bytes rw_pkts; do
		a=$(metric "$j" $k)
		b=$(metric "$l" $k)
		check "${a:-x} == ${b:-y}" "baseline: light and full agree on $k"
	done
	check "$(metric "$l" batches) == 0" "baseline light: no windows seen"
	grep -q '"own_insns_per_run": null' "$l" ||
		fail "baseline light: a cost per run quoted for a per-packet level"
	# light counts per op; packets, data, control and credit updates
	# are derived from those counts (vb_stats_fold_ops)
	lp=$(metric "$l" pkts); lr=$(metric "$l" rw_pkts)
	lc=$(metric "$l" ctrl_pkts); lcr=$(metric "$l" credit_rx)
	say "light: pkts=$lp rw=$lr ctrl=$lc credit_rx=$lcr (full: ctrl=$(metric "$j" ctrl_pkts))"
	check "${lp:-x} == ${lr:-0} + ${lc:-0}" "baseline light: packets = data + control"
	check "${lc:-0} >= 1" "baseline light: the connection's control packets counted"
	check "${lc:-1} <= $(metric "$j" ctrl_pkts)" "baseline light: no more control packets than the full tracer around it"
	check "${lcr:-1} <= ${lc:-0}" "baseline light: credit updates among the control packets"
	;;
batched)
	check "$mean > 1 && $max <= 64" "batched: mean batch length > 1, max within the 64-packet cap"
	# a run wakes its reader at the first readable packet and once
	# more at its end if data came after that: at least one call per
	# run, at most two, and fewer calls than data packets
	drall="${drin:-0} + ${drafter:-0}"
	check "$drall >= 0.9 * ${batches:-0}" "batched: a data-ready call for the runs"
	check "$drall <= 2 * ${batches:-0} + ${rw:-0} - $(metric "$j" batch_pkts)" "batched: at most two data-ready calls per run"
	check "$drall < ${rw:-0}" "batched: fewer data-ready calls than data packets"
	check "$defer > 0" "batched: data-ready calls deferred to the ends of runs"
	check "$lookups < 1" "batched: lookups per packet < 1"
	vsockbatch report --json "$out/light.json" >"$out/light-report.json" ||
		fail "report --json light"
	l=$out/light-report.json
	grep -q '"trace_mode": "light"' "$l" || fail "light.json is not light mode"
	nh=$(sed -n '/"hooks": \[/,/\]/p' "$out/light.json" | grep -c '"tp')
	check "$nh == 1" "light mode: the rx_batch tracepoint program only"
	# runs are held per CPU and drained before each read (lpend.c);
	# the flow-map-per-run fallback would pass the counts below too
	grep -q "held-runs drain" "$out/tracer.err" &&
		fail "light: the held runs' drain cannot run here"
	# full's windows include the packets in no run (a window each),
	# light's runs do not: both give the packets that joined a run
	for k in batch_max dr_after kb_end_queue kb_end_pkts; do
		a=$(metric "$j" $k)
		b=$(metric "$l" $k)
		check "${a:-x} == ${b:-y}" "light and full agree on $k"
	done
	check "$(metric "$l" batch_pkts) - $(metric "$l" batches) == $(metric "$j" batch_pkts) - $(metric "$j" batches)" \
		"light and full agree on the packets that joined a run"
	check "$(metric "$l" batches) <= $(metric "$j" batches)" "light: runs among full's windows"
	# light counts the runs at the event and every other packet at
	# virtio_transport_recv_pkt(): all data, as full's per-packet event;
	# the connection's control packets as far as light, attached inside
	# full, was there for them
	for k in rw_pkts bytes; do
		check "$(metric "$l" $k) == $(metric "$j" $k)" "light and full agree on $k"
	done
	lc=$(metric "$l" ctrl_pkts)
	check "${lc:-0} >= 1 && ${lc:-0} <= $(metric "$j" ctrl_pkts)" \
		"light: the connection's control packets counted, no more than full's"
	grep -q 'fentry/virtio_transport_recv_pkt' "$out/light.json" ||
		fail "light file does not name the hook of the packets in no run"
	# the fallback (rx_batch_btf, a flow lookup per run) sees the same
	grep -q "VSOCKBATCH_NO_HELD=1: light mode looks up the flow map per run" "$out/tracer.err" ||
		fail "light: VSOCKBATCH_NO_HELD=1 did not choose the per-run path"
	vsockbatch report --json "$out/light-perrun.json" >"$out/light-perrun-report.json" ||
		fail "report --json light-perrun"
	for k in batches batch_pkts batch_bytes batch_max dr_after kb_end_queue kb_end_pkts rw_pkts bytes; do
		a=$(metric "$l" $k)
		b=$(metric "$out/light-perrun-report.json" $k)
		check "${a:-x} == ${b:-y}" "light: held and per-run paths agree on $k"
	done
	vsockbatch report -w "$out/light.json" | grep -q "^  packets  *[0-9]* (data [0-9]*, control [0-9]*)" ||
		fail "light report does not count the data and control packets"
	# it runs once per run: the set's cost per run, at this run length
	grep -q '"own_insns_per_run":' "$out/light.json" ||
		fail "light.json quotes no cost per run"
	pr=$(metric "$l" own_pct_at_run_len)
	say "light: own code at this recording's $mean packets per run: $pr %"
	check "${pr:-0} > 0 && ${pr:-9} < 5" "light: its own code at this run length quoted"
	vsockbatch report -w "$out/light.json" | grep -q "it runs once per kernel run: .* at this recording's" ||
		fail "light report does not apply the cost per run to its run length"
	;;
*)
	fail "unknown kernel mode '$kmode'"
	;;
esac

# --- --sample 1: every window timed ------------------------------------------
start_receiver "$out/sample1.rx"
vsockbatch record -m full --sample 1 -o "$out/sample1.json" -- \
	$TX --sender 1 --port "$port" --bytes 256K --buf-size 64 \
	>"$out/sample1.tx" 2>"$out/sample1.err" || fail "record --sample 1"
wait $rpid || fail "receiver (--sample 1)"
port=$((port + 1))
vsockbatch report --json "$out/sample1.json" >"$out/sample1-report.json" ||
	fail "report --json (--sample 1)"
a=$(metric "$out/sample1-report.json" timed_windows)
b=$(metric "$out/sample1-report.json" batches)
say "--sample 1: timed windows $a of $b"
check "${b:-0} > 0 && ${a:-0} >= ${b:-1} * 0.99 && ${a:-0} <= ${b:-0}" \
	"--sample 1: every window timed (stale windows aside)"
grep -q '"time_sample": 1' "$out/sample1.json" || fail "sample1.json does not say --sample 1"
vsockbatch record --sample 3 -o /tmp/s3.json -d 1 2>/tmp/err.txt; rc=$?
check "$rc == 2" "record --sample 3: bad usage (not a power of two)"
check "$(wc -l </tmp/err.txt) == 1" "with one line"
[ -e /tmp/s3.json ] && fail "record --sample 3 wrote a file"

# --- --duty 8: window hooks attached 1 time slice in 8 ------------------------
# Kernels without the series only.  A light tracer runs inside: its exact
# packet and byte counts are what --duty's own recv_pkt_light must give.
vsockbatch record --duty 0 -o /tmp/d0.json -d 1 2>/tmp/err.txt; rc=$?
check "$rc == 2" "record --duty 0: bad usage"
check "$(wc -l </tmp/err.txt) == 1" "with one line"
vsockbatch record --duty 65 -o /tmp/d0.json -d 1 2>/dev/null; rc=$?
check "$rc == 2" "record --duty 65: bad usage"
[ -e /tmp/d0.json ] && fail "record --duty 0/65 wrote a file"
if [ "$kmode" = baseline ]; then
	# The accounting, without timing: one 10 s slice covers the whole
	# transfer (the opener is on before the sender starts), so the
	# window hooks see every packet.
	start_receiver "$out/duty.rx"
	VSOCKBATCH_SLICE_MS=10000 vsockbatch record -m full --duty 8 -o "$out/duty.json" -- \
		vsockbatch record -m light -o "$out/duty-light.json" -- \
		$TX --sender 1 --port "$port" --bytes 1M --buf-size 64 \
		>"$out/duty.tx" 2>"$out/duty.err" || fail "record --duty 8"
	wait $rpid || fail "receiver (--duty 8)"
	port=$((port + 1))
	cat "$out/duty.err"
	vsockbatch report --json "$out/duty.json" >"$out/duty-report.json" ||
		fail "report --json (--duty 8)"
	vsockbatch report --json "$out/duty-light.json" >"$out/duty-light-report.json" ||
		fail "report --json (light inside --duty 8)"
	d=$out/duty-report.json
	for k in pkts bytes rw_pkts ctrl_pkts; do
		a=$(metric "$d" $k)
		b=$(metric "$out/duty-light-report.json" $k)
		check "${a:-x} == ${b:-y}" "--duty 8: every packet counted, as light counts them ($k)"
	done
	p=$(metric "$d" pkts); w=$(metric "$d" window_pkts); bt=$(metric "$d" batches)
	say "--duty 8, one 10 s slice: window hooks saw $w of $p packets, $bt windows"
	check "${w:-0} == ${p:-1}" "--duty 8, one slice over the transfer: the window hooks saw every packet"
	check "${bt:-0} > 0 && ${bt:-0} <= ${w:-0}" "--duty 8: windows only from the packets the hooks saw"
	check "$(metric "$d" lookups_per_pkt) == 1" "--duty 8: one lookup+lock per packet"
	check "$(metric "$d" mean_batch_pkts) == 1" "--duty 8: every window 1 packet"
	# one data-ready per data packet (control packets call none)
	dri=$(metric "$d" dr_inside); drw=$(metric "$d" rw_pkts)
	check "${dri:-0} >= 0.99 * ${drw:-1} && ${dri:-0} <= ${drw:-0}" \
		"--duty 8: a data-ready under the lock per data packet ($dri of $drw)"
	grep -q '"window_duty": 8' "$out/duty.json" || fail "duty.json does not say --duty 8"
	grep -q '"window_slice_ms": 10000' "$out/duty.json" || fail "duty.json does not say its 10 s slice"
	grep -q '"window_duty": 1' "$out/duty-light.json" || fail "light inside: window_duty is not 1"
	vsockbatch report -w "$out/duty.json" | grep -q "window hooks attached 1 time slice (10000 ms) in 8 (--duty): they saw $w of the $p packets" ||
		fail "report does not say the window hooks saw $w of $p packets"
	vsockbatch advise "$out/duty.json" >/dev/null 2>/tmp/err.txt; rc=$?
	check "$rc == 2" "advise refuses a --duty recording"
	grep -q "recorded with --duty 8" /tmp/err.txt || fail "advise: reason '$(cat /tmp/err.txt)'"
	# The toggles: 50 ms slices attach and detach the window hooks
	# again and again.  Idle: under this boot's multi-threaded TCG, a
	# toggle that patched virtio_transport_recv_pkt while the other vCPU
	# ran it once ended in an int3 oops at +1, the int3 executed after
	# the poke had put the nop back (2026-12-07).  Real CPUs are synced
	# by the poke (an IPI to each) before it is done; we have not seen it
	# under icount, where every vCPU runs on one host thread and where
	# the cost set toggles under traffic.
	VSOCKBATCH_SLICE_MS=50 vsockbatch record -m full --duty 2 -d 2 -o "$out/duty2.json" \
		2>"$out/duty2.err" || fail "record --duty 2 -d 2"
	tail -n 1 "$out/duty2.err"
	n=$(sed -n 's/.*the window hooks saw \([0-9]*\) of the packets in \([0-9]*\) slices of 50 ms$/\2/p' "$out/duty2.err")
	check "${n:-0} >= 3" "--duty 2, 50 ms slices for 2 s: the window hooks went on again ($n slices)"
	grep -q "the window hooks stay off" "$out/duty2.err" && fail "--duty 2: a toggle failed"
else
	vsockbatch record -m full --duty 8 -o /tmp/d8.json -d 1 2>/tmp/err.txt; rc=$?
	check "$rc == 2" "record --duty 8 on a kernel with the series: bad usage"
	check "$(wc -l </tmp/err.txt) == 1" "with one line"
	grep -q "on a kernel without the series" /tmp/err.txt || fail "--duty refusal: reason '$(cat /tmp/err.txt)'"
	[ -e /tmp/d8.json ] && fail "record --duty on a batched kernel wrote a file"
fi

# --- top, live, while traffic flows ----------------------------------------
vsockbatch top -b -i 1 -n 6 >"$out/tracer-top.txt" 2>&1 &
tpid=$!
n=0	# the first frame is printed once the tracer is attached
while [ $n -lt 60 ] && ! grep -q "^vsockbatch top" "$out/tracer-top.txt"; do
	sleep 0.5
	n=$((n + 1))
done
start_receiver "$out/top.rx"
BYTES=256K sender >"$out/top.tx" 2>&1 || fail "sender under top"
wait $rpid
wait $tpid || fail "top -b"
cat "$out/tracer-top.txt"
# each frame: a time line, then the kernel, its mode, the tracer's
# mode and map use; no key help
grep -q "^vsockbatch top - [0-9][0-9]:[0-9][0-9]:[0-9][0-9] - live" "$out/tracer-top.txt" ||
	fail "top -b: no header with the frame's time"
grep -q "^kernel .* ($kmode), [a-z]* mode, flows [0-9]*/256, map full [0-9]*" "$out/tracer-top.txt" || fail "top -b: no kernel mode, tracer mode, flows and map-full in the header"
grep -qi "keys\|h help" "$out/tracer-top.txt" && fail "top -b: key help in batch frames"
# an idle interval's CPU figure is a share of the interval, not a wrap
awk '/^lookups\/pkt .* busy/ { v = $0; sub(/.*: /, "", v); sub(/% busy.*/, "", v);
	if (v + 0 > 100.5) bad = 1 } END { exit bad }' "$out/tracer-top.txt" ||
	fail "top -b: a CPU figure over 100 % busy"
grep -q "^1:[0-9]* *1:$port " "$out/tracer-top.txt" ||
	fail "top -b: no live row for the flow to 1:$port"
vsockbatch top --json --sample 2 -i 1 -n 1 >"$out/tracer-top.jsonl" 2>&1 || fail "top --json"
[ "$(grep -c '^{' "$out/tracer-top.jsonl")" -eq 1 ] || fail "top --json: not one line"
# --sample reaches the tracer in full mode (auto: kernels without the
# rx_batch event); light mode has no window times
if grep -q '"trace_mode":"light"' "$out/tracer-top.jsonl"; then
	grep -q '"time_sample":null' "$out/tracer-top.jsonl" || fail "top --json, light: time_sample not null"
else
	grep -q '"time_sample":2,' "$out/tracer-top.jsonl" || fail "top --json --sample 2: time_sample not 2"
fi
port=$((port + 1))
vsockbatch top -b --replay "$out/tracer.json" >"$out/tracer-replay.txt" ||
	fail "top --replay"
grep -q "^1:[0-9]* *1:1234 " "$out/tracer-replay.txt" ||
	fail "replay: no row for the 1:* -> 1:1234 flow"

# --- record's command line: -o, what it says, -i, SIGHUP, early Ctrl-C ------
vsockbatch record -o /nonexistent/dir/x.json -d 1 2>/tmp/err.txt; rc=$?
check "$rc == 2" "record -o into a missing directory exits 2 (before attaching)"
[ "$(wc -l </tmp/err.txt)" -eq 1 ] && grep -q "/nonexistent/dir" /tmp/err.txt ||
	fail "record -o: reason '$(cat /tmp/err.txt)'"
vsockbatch record -o /tmp/iv.json -d 3 -i 1 >/tmp/iv.out 2>/tmp/iv.err; rc=$?
cat /tmp/iv.err /tmp/iv.out
check "$rc == 0" "record -d 3 -i 1"
grep -qE "record: (light|full) mode, attached [0-9]+ hooks in [0-9.]+ s:" /tmp/iv.err ||
	fail "record does not say its mode and what it attached"
grep -q "record: kernel .*, $kmode RX path" /tmp/iv.err || fail "record does not say the kernel mode"
grep -q "Ctrl-C to end" /tmp/iv.err || fail "record does not say 'Ctrl-C to end'"
head -n 1 /tmp/iv.out | grep -q "^TIME  *PKTS/s " || fail "record -i: no column titles"
n=$(grep -c '^[0-9][0-9]:[0-9][0-9]:[0-9][0-9] ' /tmp/iv.out)
check "$n >= 2" "record -i 1 -d 3: interval lines"
awk 'length($0) > 80 { exit 1 }' /tmp/iv.out || fail "record -i: a line over 80 columns"
# wait_gone PID SECONDS: 0 once PID has ended
wait_gone() {
	local i=0
	while kill -0 "$1" 2>/dev/null; do
		i=$((i + 1))
		[ $i -gt $(($2 * 10)) ] && return 1
		sleep 0.1
	done
}
vsockbatch record -o /tmp/hup.json 2>/tmp/hup.err &
p=$!
i=0
until grep -q "Ctrl-C to end" /tmp/hup.err 2>/dev/null || [ $i -gt 600 ]; do i=$((i + 1)); sleep 0.1; done
kill -HUP $p
if wait_gone $p 60; then
	wait $p; rc=$?
	check "$rc == 0" "record ends on SIGHUP with exit 0"
	vsockbatch report /tmp/hup.json >/dev/null 2>&1 ||
		fail "record wrote no readable file on SIGHUP"
else
	fail "record still running 60 s after SIGHUP"
	kill -KILL $p 2>/dev/null
fi
# SIGINT at every moment of a run, record and top: sigint-loop.sh
rm -f /tmp/iv.json /tmp/hup.json

# --- a kernel without vsock: clear refusals --------------------------------
if rmmod vsock_loopback vmw_vsock_virtio_transport vmw_vsock_virtio_transport_common 2>/dev/null; then
	vsockbatch probe >/dev/null 2>/tmp/err.txt; rc=$?
	check "$rc == 1" "probe without vsock modules exits 1"
	grep -q "kernel without vsock" /tmp/err.txt || fail "probe: reason '$(cat /tmp/err.txt)'"
	vsockbatch record -o /tmp/none.json -d 1 2>/tmp/err.txt; rc=$?
	check "$rc == 1" "record without vsock modules exits 1"
	grep -q "kernel without vsock" /tmp/err.txt || fail "record: reason '$(cat /tmp/err.txt)'"
	[ "$(wc -l </tmp/err.txt)" -eq 1 ] || fail "record: reason is not one line"
	[ -e /tmp/none.json ] && fail "record wrote a file without vsock"
	modprobe vsock_loopback
elif grep -q '/vsock\.ko' "/lib/modules/$(uname -r)/modules.builtin" 2>/dev/null; then
	say "skip: vsock built in, nothing to unload for the no-vsock refusal"
else
	say "skip: vsock modules busy, cannot test the no-vsock refusal"
fi

say "$fails failure(s)"
[ $fails -eq 0 ]
