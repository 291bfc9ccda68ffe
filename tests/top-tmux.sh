#!/bin/bash
# top-tmux.sh: vsockbatch-top in a real terminal (tmux), replaying a
# recorded results file, so no root and no tracing are needed.  Checks
# that it draws its header and flow rows, re-sorts on a key, survives a
# resize down to 60x10 and back, pauses, quits on q, SIGINT and SIGTERM
# with exit 0, and leaves the terminal as it found it (stty settings
# before and after compared).  Prints "top-tmux: N passed, N failed".
set -uo pipefail
ROOT=$(cd "$(dirname "$0")/.." && pwd)
TOP=$ROOT/build/vsockbatch-top
REPLAY=${1:-$ROOT/tests/fixtures/top-replay.json}
command -v tmux >/dev/null || { echo "top-tmux: tmux missing (make deps)" >&2; exit 1; }
[ -x "$TOP" ] || { echo "top-tmux: $TOP missing (run make)" >&2; exit 1; }
[ -f "$REPLAY" ] || { echo "top-tmux: replay file $REPLAY missing" >&2; exit 1; }

tmp=$(mktemp -d /tmp/vb-toptmux.XXXXXX)
# A fresh tmux server (socket) per scenario: reusing one right after
# kill-server races with its exit.
n=0
sock=$tmp/tmux.0.sock
T() { tmux -S "$sock" "$@"; }
trap 'for s in "$tmp"/tmux.*.sock; do tmux -S "$s" kill-server 2>/dev/null; done; rm -rf "$tmp"' EXIT
passed=0 failed=0
check() { # check DESCRIPTION COMMAND...
	local d=$1
	shift
	if "$@"; then
		echo "ok: $d"; passed=$((passed + 1))
	else
		echo "FAIL: $d"; failed=$((failed + 1))
		echo "  screen was:"; sed 's/^/  | /' "$tmp/screen" | head -n 12
	fi
}
screen() { T capture-pane -p -t vb >"$tmp/screen"; }
# wait_for TEXT: up to 5 s for TEXT on the screen.
wait_for() {
	local i
	for i in $(seq 50); do
		screen
		grep -qF -- "$1" "$tmp/screen" && return 0
		sleep 0.1
	done
	return 1
}
# wait_exit: up to 5 s for the program to end; its status in $tmp/rc.
wait_exit() {
	local i
	for i in $(seq 50); do
		[ -s "$tmp/rc" ] && return 0
		sleep 0.1
	done
	return 1
}

# One session per scenario: the shell records stty before and after, and
# the program's exit status - last, so that rc present means stty.after
# is complete (the other order once failed a check on a half-written file).
start() {
	rm -f "$tmp/rc" "$tmp/stty.before" "$tmp/stty.after"
	T kill-server 2>/dev/null
	n=$((n + 1))
	sock=$tmp/tmux.$n.sock
	T new-session -d -s vb -x 120 -y 30 \
		"stty -a >$tmp/stty.before; $TOP --replay $REPLAY; rc=\$?; stty -a >$tmp/stty.after; echo \$rc >$tmp/rc; sleep 30"
	wait_for "vsockbatch top"
}
restored() { [ -s "$tmp/stty.after" ] && cmp -s "$tmp/stty.before" "$tmp/stty.after"; }
exited0() { wait_exit && [ "$(cat "$tmp/rc")" = 0 ]; }

check "draws the header" start
check "shows a flow row" grep -qE '[0-9]+:[0-9]+ +[0-9]+:[0-9]+' "$tmp/screen"
# first_flow: the source column of the first flow row on the screen.
first_flow() {
	screen
	awk '/^SRC / { getline; print $1; exit }' "$tmp/screen"
}
T send-keys -t vb m
check "m sorts by MB/s" wait_for "sort MB/s"
top1=$(first_flow)
T send-keys -t vb r
sleep 0.5
top2=$(first_flow)
check "r reverses the order (first row $top1 -> $top2)" \
	test -n "$top1" -a -n "$top2" -a "$top1" != "$top2"
check "not paused before space" sh -c "! grep -q PAUSED $tmp/screen"
T resize-window -t vb -x 60 -y 10 2>/dev/null || T resize-pane -t vb -x 60 -y 10
sleep 0.5
check "still drawing at 60x10" wait_for "vsockbatch"
T resize-window -t vb -x 120 -y 30 2>/dev/null || T resize-pane -t vb -x 120 -y 30
sleep 0.5
check "redraws at 120x30" wait_for "vsockbatch top"
T send-keys -t vb ' '
check "space pauses" wait_for "PAUSED"
T send-keys -t vb q
check "q quits with exit 0" exited0
check "q restores the terminal" restored

start >/dev/null
T send-keys -t vb C-c
check "Ctrl-C quits with exit 0" exited0
check "Ctrl-C restores the terminal" restored

start >/dev/null
# The program is the child of the pane's shell (matching on the command
# line would also hit the tmux server, whose argv holds that command).
pane=$(T display-message -p -t vb '#{pane_pid}')
pid=$(pgrep -P "${pane:-0}" -x vsockbatch-top)
[ -n "$pid" ] && kill -TERM "$pid"
check "SIGTERM quits with exit 0" exited0
check "SIGTERM restores the terminal" restored

echo "top-tmux: $passed passed, $failed failed"
[ "$failed" -eq 0 ]
