#!/bin/bash
# top-tmux.sh: vsockbatch-top in a real terminal (tmux), replaying a
# recorded results file, so no root and no tracing are needed.  Checks
# that it draws its header and flow rows, re-sorts on a key, survives a
# resize down to 60x10 and back, pauses, quits on q, SIGINT and SIGTERM
# with exit 0, and leaves the terminal as it found it (stty settings
# before and after compared).  At 80x24, with 42 flows whose addresses
# are 12 characters wide: every column shown but BATCH/s, which the
# frame says it left out; the "N more" line and scrolling; the sort
# column lit (underlined); h opens the help; -b frames fit the terminal,
# start with the recording's time and carry no key help.
# Prints "top-tmux: N passed, N failed".
set -uo pipefail
ROOT=$(cd "$(dirname "$0")/.." && pwd)
TOP=$ROOT/build/vsockbatch-top
REPLAY=${1:-$ROOT/tests/fixtures/top-replay.json}
command -v tmux >/dev/null || { echo "top-tmux: tmux missing (make deps)" >&2; exit 1; }
[ -x "$TOP" ] || { echo "top-tmux: $TOP missing (run make)" >&2; exit 1; }
[ -f "$REPLAY" ] || { echo "top-tmux: replay file $REPLAY missing" >&2; exit 1; }
command -v jq >/dev/null || { echo "top-tmux: jq missing (make deps)" >&2; exit 1; }

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
		echo "  screen was:"; sed "s/^/  | /" "$tmp/screen" | tail -n 8
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
# start [COLUMNS ROWS [FILE [TOP-OPTIONS]]]
start() {
	rm -f "$tmp/rc" "$tmp/stty.before" "$tmp/stty.after"
	T kill-server 2>/dev/null
	n=$((n + 1))
	sock=$tmp/tmux.$n.sock
	T new-session -d -s vb -x "${1:-120}" -y "${2:-30}" \
		"stty -a >$tmp/stty.before; $TOP ${4-} --replay ${3:-$REPLAY}; rc=\$?; stty -a >$tmp/stty.after; echo \$rc >$tmp/rc; sleep 30"
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

# ---- 80x24 with more flows than rows -----------------------------------
# 40 more flows with 32-bit ports on both sides: rows 84 wide in full.
many=$tmp/many.json
jq '.flows += [range(40) as $i | .flows[0] | .src_port = (3846758400 - $i) | .dst_cid = 3 | .dst_port = (3846758000 + $i)]' \
	"$REPLAY" >"$many"
start 80 24 "$many" >/dev/null
titles() { awk '/^SRC / { print; exit }' "$tmp/screen"; }
check "80x24: the frame draws" wait_for "flows 1-"
for c in SRC DST PKTS/s MB/s PKT/B MAXB HOLD DR/B %DEF; do
	check "80x24: column $c visible" sh -c "awk '/^SRC / { print; exit }' $tmp/screen | tr ' ' '\n' | grep -qxF -- '$c'"
done
check "80x24: BATCH/s left out, and the frame says so" \
	sh -c "! awk '/^SRC / { print; exit }' $tmp/screen | grep -q BATCH/s && grep -q '1 column left out at 80 columns' $tmp/screen"
# a full row: 12-character SRC and DST, and the %DEF value at its end
check "80x24: rows are whole (%DEF value at the end, within 80)" \
	sh -c "grep -E '^1:3846758400 +3:3846758000 ' $tmp/screen | awk '{ exit !(\$NF == \"100\" && length(\$0) <= 80) }'"
check "80x24: the \"N more\" line (14 of 42 rows shown, 28 more; the advice line above)" \
	grep -q 'flows 1-14 of 42: 28 more' "$tmp/screen"
check "80x24: the status line offers help" grep -q 'h help' "$tmp/screen"
# the sort column's title underlined (SGR 4) in the title bar
T capture-pane -e -p -t vb >"$tmp/screen.sgr"
# (colour resets, SGR 39/49, may sit between the attribute and the text)
sed -E $'s/\x1b\\[(39|49)m//g' "$tmp/screen.sgr" >"$tmp/screen.lit"
check "80x24: the sort column is lit (bold, underlined)" \
	grep -qE $'\x1b\\[[0-9;]*1;4m *PKTS/s' "$tmp/screen.lit"
T send-keys -t vb j
check "80x24: j scrolls one row" wait_for "flows 2-15 of 42: 28 more"
T send-keys -t vb End
check "80x24: End shows the last rows" wait_for "flows 29-42 of 42: 28 more"
T send-keys -t vb b
check "80x24: b sorts by BATCH/s and brings the column back" \
	sh -c "sleep 0.3; tmux -S $sock capture-pane -p -t vb | awk '/^SRC / { print; exit }' | grep -q BATCH/s"
T send-keys -t vb h
check "80x24: h opens the help" wait_for "vsockbatch top - keys"
T send-keys -t vb x
check "80x24: any key leaves the help" wait_for "flows "
T send-keys -t vb q
check "80x24: q quits with exit 0" exited0

# -b in an 80-column terminal: fits it, a time line per frame, no keys
rm -f "$tmp/rc"
T kill-server 2>/dev/null
n=$((n + 1))
sock=$tmp/tmux.$n.sock
T new-session -d -s vb -x 80 -y 24 "$TOP -b --replay $many >/dev/tty; echo \$? >$tmp/rc; sleep 30"
wait_exit
T capture-pane -p -S - -t vb >"$tmp/screen"
check "-b: exit 0" test "$(cat "$tmp/rc" 2>/dev/null)" = 0
check "-b: the frame starts with the recording's date and time" \
	grep -qE '^vsockbatch top - replay: [0-9.]+ s recorded [0-9]{4}-[0-9]{2}-[0-9]{2} [0-9]{2}:[0-9]{2}:[0-9]{2} ' "$tmp/screen"
check "-b: no key help" sh -c "! grep -qiE 'keys|h help' $tmp/screen"
check "-b: every line within 80 columns, BATCH/s left out" \
	sh -c "awk 'length(\$0) > 80 { bad = 1 } END { exit bad }' $tmp/screen && grep -q '1 column left out at 80 columns' $tmp/screen"

echo "top-tmux: $passed passed, $failed failed"
[ "$failed" -eq 0 ]
