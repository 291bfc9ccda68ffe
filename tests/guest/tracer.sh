#!/bin/sh
# tracer.sh [check|overhead ROUNDS]: the vsockbatch tracer in a lab guest.
#
# check (default): vsock_perf at 64 B over loopback (CID 1) under
#   `vsockbatch record`, then asserts on `vsockbatch report --json`:
#   baseline kernel: every batch is 1 packet, data-ready runs inside the
#     lock (0% deferred), about one lookup per packet;
#   batched kernel: mean batch > 1, data-ready runs after the unlock,
#     lookups per packet < 1, the rx_batch tracepoint was seen.
#   The kernel mode comes from `vsockbatch probe` and must match $EXPECT
#   when set (baseline|batched).  Also exercises `top -b`/`--json` live,
#   report, and the error paths that need a real kernel.
# overhead ROUNDS: ROUNDS pairs of the same 64 B transfer without and
#   with `vsockbatch record` (order alternates), receiver Gbit/s of each
#   to $RESULTS/tracer-overhead.json.
#
# Writes $RESULTS/tracer.json (results file), tracer-report.{txt,json},
# tracer-top.{txt,jsonl}, probe.txt.
out=${RESULTS:?}
mode=${1:-check}
port=1234
fails=0

say() { echo "tracer: $*"; }
fail() { say "FAIL: $*"; fails=$((fails + 1)); }

# metric FILE KEY: a top-level metric/total of report --json (4-space
# indented "key": value lines; flows are indented deeper)
metric() {
	sed -n "s/^    \"$2\": \([^,]*\),\{0,1\}\$/\1/p" "$1" | head -n 1
}

# check EXPR DESCRIPTION: awk-evaluated numeric assertion
check() {
	if awk "BEGIN { exit !($1) }"; then
		say "ok: $2 ($1)"
	else
		fail "$2 ($1)"
	fi
}

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

if [ "$mode" = overhead ]; then
	rounds=${2:-3}
	: >"$out/tracer-overhead.json"
	i=0
	while [ $i -lt "$rounds" ]; do
		for traced in $( [ $((i % 2)) -eq 0 ] && echo "0 1" || echo "1 0"); do
			start_receiver "$out/ovh.rx"
			if [ "$traced" = 1 ]; then
				vsockbatch record --bpf-stats -o "$out/ovh-$i.json" -- \
					$TX --sender 1 --port "$port" \
					--bytes "${BYTES:-1M}" --buf-size 64 \
					>"$out/ovh.tx" 2>&1 || fail "record round $i"
			else
				sender >"$out/ovh.tx" 2>&1 || fail "sender round $i"
			fi
			wait $rpid
			rx=$(field "$out/ovh.rx" 'rx performance')
			tx=$(field "$out/ovh.tx" 'tx performance')
			printf '{"round":%d,"traced":%d,"rx_gbps":%s,"tx_gbps":%s}\n' \
				"$i" "$traced" "${rx:-0}" "${tx:-0}" |
				tee -a "$out/tracer-overhead.json"
			port=$((port + 1))
		done
		i=$((i + 1))
	done
	# per round: traced/untraced receiver rate (busybox awk has no
	# log/exp: the host takes the geometric mean); ratio of the means
	awk -F'[:,}]' '{ v[$2 "," $4] = $6; s[$4] += $6; n[$4]++; if ($2 + 1 > r) r = $2 + 1 }
		END {
			for (i = 0; i < r; i++)
				if (v[i ",0"] > 0)
					printf "tracer: round %d traced/untraced %.3f\n", i, v[i ",1"] / v[i ",0"]
			if (n[0] && n[1] && s[0] > 0)
				printf "tracer: untraced mean %.6f Gbit/s, traced mean %.6f Gbit/s, ratio of means %.3f\n",
					s[0]/n[0], s[1]/n[1], (s[1]/n[1]) / (s[0]/n[0])
		}' "$out/tracer-overhead.json" | tee "$out/tracer-overhead.txt"
	# the tracer's own time inside its programs, per packet (noise-free)
	for f in "$out"/ovh-*.json; do
		vsockbatch report --json "$f" >"$f.report" || fail "report $f"
		rn=$(sed -n 's/^    "bpf_run_ns": \([0-9]*\).*/\1/p' "$f.report")
		rc=$(sed -n 's/^    "bpf_run_cnt": \([0-9]*\).*/\1/p' "$f.report")
		pk=$(metric "$f.report" pkts)
		ms=$(sed -n 's/^    "recursion_misses": \([0-9]*\).*/\1/p' "$f.report")
		awk "BEGIN { printf \"tracer: %s: %d BPF runs, %.0f ns in BPF per packet (%.1f runs/packet), recursion misses %d\\n\", \"${f##*/}\", $rc, $rn / $pk, $rc / $pk, $ms }" |
			tee -a "$out/tracer-overhead.txt"
	done
	[ $fails -eq 0 ]
	exit $?
fi

[ "$mode" = check ] || { echo "usage: tracer.sh [check|overhead ROUNDS]" >&2; exit 2; }

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
grep -q 'vsock_loopback_work *use' "$out/probe.txt" ||
	fail "vsock_loopback_work hook not in use (module BTF?)"

# --- usage errors need no kernel, but check their exit codes here too ---
vsockbatch record >/dev/null 2>&1; rc=$?
check "$rc == 2" "record without -o exits 2"
vsockbatch record -o /tmp/x.json -d abc >/dev/null 2>&1; rc=$?
check "$rc == 2" "record -d abc exits 2"
echo '{"format":"vsockbatch-results","version":' >/tmp/trunc.json
vsockbatch report /tmp/trunc.json 2>/tmp/err.txt; rc=$?
check "$rc == 2" "report of a truncated file exits 2"
grep -q truncated /tmp/err.txt || fail "truncated file: reason '$(cat /tmp/err.txt)'"

# --- the traced 64 B transfer ---------------------------------------------
start_receiver "$out/tracer.rx"
vsockbatch record -o "$out/tracer.json" --label payload=64 \
	--label receiver=$RX --label kernel="$kmode" -- \
	$TX --sender 1 --port "$port" --bytes 1M --buf-size 64 \
	>"$out/tracer.tx" 2>"$out/tracer.err"
rc=$?
cat "$out/tracer.err"
check "$rc == 0" "record exit status"
# a record that failed before starting the sender leaves the receiver
# waiting for a connection that never comes
[ "$rc" = 0 ] || kill "$rpid" 2>/dev/null
wait $rpid || fail "receiver"
port=$((port + 1))
# vsock_perf's receiver stops at the first POLLRDHUP after one read(), so
# it can miss the tail (< its 64 KiB buffer) when the sender's SHUTDOWN
# lands while data is still queued -- more likely with deferred wake-ups.
# Exact byte accounting is checked on the tracer's side below.
got=$(field "$out/tracer.rx" 'total bytes received')
check "${got:-0} > 1048576 - 65536" "receiver got 1 MiB (minus vsock_perf's RDHUP tail)"

vsockbatch report "$out/tracer.json" >"$out/tracer-report.txt" 2>&1 ||
	fail "report"
vsockbatch report --json "$out/tracer.json" >"$out/tracer-report.json" ||
	fail "report --json"
cat "$out/tracer-report.txt"
j=$out/tracer-report.json

pkts=$(metric "$j" pkts)
rw=$(metric "$j" rw_pkts)
batches=$(metric "$j" batches)
mean=$(metric "$j" mean_batch_pkts)
defer=$(metric "$j" pct_deferred)
drin=$(metric "$j" dr_inside)
drafter=$(metric "$j" dr_after)
lookups=$(metric "$j" lookups_per_pkt)
kbruns=$(metric "$j" kb_runs)
mapfull=$(metric "$j" map_full)
empty=$(metric "$j" empty_windows)
holdp50=$(metric "$j" hold_p50_ns)
say "pkts=$pkts rw=$rw batches=$batches mean=$mean deferred=$defer% dr_in=$drin dr_after=$drafter lookups/pkt=$lookups kb_runs=$kbruns hold_p50=$holdp50"

# 1 MiB in 64 B sends = 16384 RW packets, all seen (record drains the
# worker after the sender exits)
bytes=$(metric "$j" batch_bytes)
check "${rw:-0} >= 16384" "all 16384 data packets seen"
check "${bytes:-0} >= 1048576" "all 1 MiB inside lock windows"
check "${batches:-0} > 0" "batches recorded"
check "${mapfull:-1} == 0" "no map overflow"
check "${empty:-1} == 0" "every worker lock window had its packet"
check "${holdp50:-0} > 0" "lock hold time measured"
misses=$(sed -n 's/^    "recursion_misses": \([0-9]*\).*/\1/p' "$j")
check "${misses:-1} == 0" "no program run skipped by the kernel (recursion)"
grep -q '"mode": "'"$kmode"'"' "$j" || fail "report mode differs from probe"

case $kmode in
baseline)
	check "$mean == 1" "baseline: batch length is 1"
	check "${drin:-0} > 0 && ${drafter:-1} == 0" "baseline: data-ready inside the lock only"
	check "$defer == 0" "baseline: 0% deferred"
	check "$lookups >= 0.95" "baseline: about one lookup per packet"
	;;
batched)
	check "$mean > 1" "batched: mean batch length > 1"
	# runs defer; a packet that cannot open a run (e.g. the socket is
	# closing) takes the unbatched path and wakes under the lock
	check "${drafter:-0} >= 0.9 * ${batches:-0}" "batched: data-ready after the unlock for the batches"
	check "$defer >= 99" "batched: >= 99% of data-ready calls deferred"
	check "$lookups < 1" "batched: lookups per packet < 1"
	check "${kbruns:-0} > 0" "batched: rx_batch tracepoint events"
	;;
*)
	fail "unknown kernel mode '$kmode'"
	;;
esac

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
grep -q "^vsockbatch top - live" "$out/tracer-top.txt" || fail "top -b: no header"
grep -q "kernel .* $kmode" "$out/tracer-top.txt" || fail "top -b: no kernel mode"
grep -q "^1:[0-9]* *1:$port " "$out/tracer-top.txt" ||
	fail "top -b: no live row for the flow to 1:$port"
vsockbatch top --json -i 1 -n 1 >"$out/tracer-top.jsonl" 2>&1 || fail "top --json"
[ "$(grep -c '^{' "$out/tracer-top.jsonl")" -eq 1 ] || fail "top --json: not one line"
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
grep -q "record: attached [0-9]* hooks:" /tmp/iv.err || fail "record does not say what it attached"
grep -q "record: kernel .*, $kmode RX path" /tmp/iv.err || fail "record does not say the kernel mode"
grep -q "Ctrl-C to end" /tmp/iv.err || fail "record does not say 'Ctrl-C to end'"
head -n 1 /tmp/iv.out | grep -q "^TIME  *PKTS/s " || fail "record -i: no column titles"
n=$(grep -c '^[0-9][0-9]:[0-9][0-9]:[0-9][0-9] ' /tmp/iv.out)
check "$n >= 2" "record -i 1 -d 3: interval lines"
awk 'length($0) > 80 { exit 1 }' /tmp/iv.out || fail "record -i: a line over 80 columns"
# catches_int PID: the process has a SIGINT handler (SigCgt bit 2)
catches_int() {
	local m
	m=$(sed -n 's/^SigCgt:[[:space:]]*//p' "/proc/$1/status" 2>/dev/null)
	[ -n "$m" ] && [ $(( 0x$m & 2 )) -ne 0 ]
}
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
until grep -q "Ctrl-C to end" /tmp/hup.err || [ $i -gt 600 ]; do i=$((i + 1)); sleep 0.1; done
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
# a Ctrl-C while the programs load and attach (seconds under TCG) ends
# the run then, instead of being lost and tracing for the whole -d
t0=$(date +%s)
vsockbatch record -o /tmp/int.json -d 300 2>/tmp/int.err &
p=$!
i=0
until catches_int $p || [ $i -gt 100 ]; do i=$((i + 1)); sleep 0.05; done
kill -INT $p
if wait_gone $p 120; then
	wait $p; rc=$?
	t=$(( $(date +%s) - t0 ))
	cat /tmp/int.err
	check "$t < 120" "record ended $t s after an early SIGINT (-d 300)"
	if grep -q "while attaching" /tmp/int.err; then
		check "$rc == 1" "SIGINT during the attach: exit 1, nothing recorded"
		[ -e /tmp/int.json ] && fail "record wrote a file after an interrupted attach"
	else
		check "$rc == 0" "SIGINT right after the attach: exit 0"
	fi
else
	fail "record still running 120 s after SIGINT (signal lost during the attach)"
	kill -KILL $p 2>/dev/null
fi
rm -f /tmp/iv.json /tmp/hup.json /tmp/int.json

# --- a kernel without vsock: clear refusals --------------------------------
if rmmod vsock_loopback vmw_vsock_virtio_transport 2>/dev/null; then
	vsockbatch probe >/dev/null 2>/tmp/err.txt; rc=$?
	check "$rc == 1" "probe without vsock modules exits 1"
	grep -q "kernel without vsock" /tmp/err.txt || fail "probe: reason '$(cat /tmp/err.txt)'"
	vsockbatch record -o /tmp/none.json -d 1 2>/tmp/err.txt; rc=$?
	check "$rc == 1" "record without vsock modules exits 1"
	grep -q "kernel without vsock" /tmp/err.txt || fail "record: reason '$(cat /tmp/err.txt)'"
	[ "$(wc -l </tmp/err.txt)" -eq 1 ] || fail "record: reason is not one line"
	[ -e /tmp/none.json ] && fail "record wrote a file without vsock"
	modprobe vsock_loopback
else
	say "skip: vsock modules busy, cannot test the no-vsock refusal"
fi

say "$fails failure(s)"
[ $fails -eq 0 ]
