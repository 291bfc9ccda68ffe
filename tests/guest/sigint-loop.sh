#!/bin/sh
# sigint-loop.sh: Ctrl-C always ends `vsockbatch record` and `vsockbatch
# top`, whenever it comes: SIGINT at delays from 0 to 5 s after the
# program took SIGINT over (so during the load, the attach and the
# tracing), on whatever kernel this boot runs.  Each run must end within
# BOUND seconds of the signal, and end right:
#   record: exit 0 with a readable file, or exit 1 with "interrupted
#           (signal 2) while attaching: nothing recorded" and no file;
#   top -b: exit 0, or exit 1 with "interrupted (signal 2) while
#           attaching".
# Prints, per kernel, how long the attach (start to the "Ctrl-C to end"
# line) and the detach (SIGINT after the attach to the exit) take.
#
# Why "after the program took SIGINT over": a non-interactive shell
# starts a background job with SIGINT ignored, and between fork and exec
# the child still shows the shell's own handler in SigCgt.  A signal sent
# then is the shell's to lose, not the tool's (the old tracer.sh check
# raced there).  So the delay starts when /proc/PID/comm is the tool and
# SigCgt has the SIGINT bit: exec clears inherited handlers, so only the
# tool's own sigaction sets it.
BOUND=${VB_SIGINT_BOUND:-20}
DELAYS=${VB_SIGINT_DELAYS:-0 0.1 0.3 0.6 1 1.5 2 3 4 5}
fails=0 runs=0
say() { echo "sigint: $*"; }
fail() { say "FAIL: $*"; fails=$((fails + 1)); }

# vsock must be there (Debian kernels boot without it for the refusals)
[ -d /sys/module/vsock ] || modprobe vsock_loopback 2>/dev/null

ms() { awk '{ printf "%d", $1 * 1000 }' /proc/uptime; }

# took_over PID NAME: PID runs NAME and has its own SIGINT handler
took_over() {
	[ "$(cat "/proc/$1/comm" 2>/dev/null)" = "$2" ] || return 1
	m=$(sed -n 's/^SigCgt:[[:space:]]*//p' "/proc/$1/status" 2>/dev/null)
	[ -n "$m" ] && [ $((0x$m & 2)) -ne 0 ]
}

# wait_gone PID SECONDS: 0 once PID has ended
wait_gone() {
	i=0
	while kill -0 "$1" 2>/dev/null; do
		i=$((i + 1))
		[ $i -gt $(($2 * 20)) ] && return 1
		sleep 0.05
	done
}

# interrupt WHAT DELAY ERRFILE CMD...: start CMD, SIGINT DELAY s after it
# took SIGINT over; sets rc and took_ms (signal to exit)
interrupt() {
	what=$1 d=$2 errf=$3
	shift 3
	"$@" >/tmp/sig.out 2>"$errf" &
	p=$!
	i=0
	until took_over $p vsockbatch; do
		i=$((i + 1))
		if [ $i -gt 600 ] || ! kill -0 $p 2>/dev/null; then
			fail "$what: never installed its SIGINT handler (30 s): $(cat "$errf")"
			kill -KILL $p 2>/dev/null
			wait $p 2>/dev/null
			return 1
		fi
		sleep 0.05
	done
	[ "$d" = 0 ] || sleep "$d"
	t0=$(ms)
	kill -INT $p
	if ! wait_gone $p "$BOUND"; then
		fail "$what: still running $BOUND s after SIGINT (delay $d s)"
		kill -KILL $p 2>/dev/null
		wait $p 2>/dev/null
		return 1
	fi
	wait $p
	rc=$?
	took_ms=$(($(ms) - t0))
	runs=$((runs + 1))
	return 0
}

say "kernel $(uname -r), bound $BOUND s, delays: $DELAYS"

# --- attach and detach times --------------------------------------------
att_max=0 det_max=0
for k in 1 2 3; do
	# a file of its own: the shell truncates it in the child after the
	# fork, so a reused one may still show the last run's line here
	err=/tmp/sig-$k.err
	rm -f "$err"
	t0=$(ms)
	vsockbatch record -o /tmp/sig.json 2>"$err" &
	p=$!
	i=0
	until grep -q "Ctrl-C to end" "$err" 2>/dev/null; do
		i=$((i + 1))
		if [ $i -gt 1200 ] || ! kill -0 $p 2>/dev/null; then
			fail "record never attached (60 s): $(cat "$err")"
			kill -KILL $p 2>/dev/null
			break
		fi
		sleep 0.05
	done
	att=$(($(ms) - t0))
	t0=$(ms)
	kill -INT $p
	wait $p
	rc=$?
	det=$(($(ms) - t0))
	[ $rc -eq 0 ] || fail "record after the attach: exit $rc: $(cat "$err")"
	say "attach $att ms, detach+write $det ms ($(sed -n 's/.*\(attached [0-9]* hooks in [0-9.]* s\).*/\1/p' "$err"))"
	[ $att -gt $att_max ] && att_max=$att
	[ $det -gt $det_max ] && det_max=$det
	rm -f /tmp/sig.json
done
say "attach-max ${att_max} ms detach-max ${det_max} ms"

# --- record ---------------------------------------------------------------
worst=0 early=0 late=0
for d in $DELAYS; do
	rm -f /tmp/int.json
	interrupt "record" "$d" /tmp/int.err \
		vsockbatch record -o /tmp/int.json -d 300 || continue
	[ $took_ms -gt $worst ] && worst=$took_ms
	if grep -q "while attaching" /tmp/int.err; then
		early=$((early + 1))
		[ $rc -eq 1 ] || fail "record, delay $d s: interrupted attach exited $rc, not 1"
		grep -q "interrupted (signal 2) while attaching: nothing recorded" /tmp/int.err ||
			fail "record, delay $d s: message '$(tail -n 1 /tmp/int.err)'"
		[ -e /tmp/int.json ] && fail "record, delay $d s: a file after an interrupted attach"
	else
		late=$((late + 1))
		[ $rc -eq 0 ] || fail "record, delay $d s: exit $rc after the attach: $(tail -n 2 /tmp/int.err)"
		vsockbatch report /tmp/int.json >/dev/null 2>&1 ||
			fail "record, delay $d s: no readable file"
	fi
	say "record, SIGINT $d s after start: exit $rc in $took_ms ms ($(tail -n 1 /tmp/int.err | cut -c1-60))"
done
say "record: $early interrupted while attaching, $late after; slowest exit $worst ms"

# --- top -b ---------------------------------------------------------------
worst=0
for d in $DELAYS; do
	interrupt "top" "$d" /tmp/top.err vsockbatch top -b -i 1 || continue
	[ $took_ms -gt $worst ] && worst=$took_ms
	if grep -q "while attaching" /tmp/top.err; then
		[ $rc -eq 1 ] || fail "top, delay $d s: interrupted attach exited $rc, not 1"
	else
		[ $rc -eq 0 ] || fail "top, delay $d s: exit $rc: $(tail -n 2 /tmp/top.err)"
	fi
	say "top -b, SIGINT $d s after start: exit $rc in $took_ms ms"
done
say "top: slowest exit $worst ms"
rm -f /tmp/int.json /tmp/sig.out /tmp/sig-*.err

say "$runs runs, $fails failure(s)"
[ $fails -eq 0 ]
