#!/bin/bash
# advise-host.sh: the host half of the advise scenarios, started by
# scripts/guest-run.sh -U -H next to a guest running
# tests/guest/advise-run.sh.  Walks VB_OUTDIR/plan.txt (format there) and,
# once the guest's receiver for a step listens ("Listen port N" in its
# output file), sends the step's bytes in PAYLOAD-byte writes with
# `vhost-user-vsock send` (one packet per write; PAYLOAD@RATE paces the
# writes to RATE bytes/s); a step with a second
# flow gets a second sender on port + 500 at the same time.
# Exit 0 when every sender finished, 1 otherwise.
set -uo pipefail
VB_ROOT=$(cd "$(dirname "$0")/.." && pwd)
VU=$VB_ROOT/build/vhost-user-vsock
: "${VB_UDS:?run me through scripts/guest-run.sh -U -H}" "${VB_OUTDIR:?}" "${VB_GUEST_PID:?}"
plan=$VB_OUTDIR/plan.txt raw=$VB_OUTDIR/raw
[ -f "$plan" ] || { echo "advise-host: no $plan" >&2; exit 2; }
port=4000 fails=0

say() { echo "advise-host: $*"; }
fail() { say "FAIL: $*"; fails=$((fails + 1)); }
wait_listen() { # wait_listen FILE PORT
	until grep -qx "Listen port $2" "$1" 2>/dev/null; do
		kill -0 "$VB_GUEST_PID" 2>/dev/null || { fail "guest gone before port $2"; return 1; }
		sleep 0.05
	done
}
send() { # send PORT PAYLOAD[@RATE] BYTES OUT
	local rate=()
	case $2 in *@*) rate=(--rate "${2#*@}") ;; esac
	"$VU" send --uds "$VB_UDS" --port "$1" --bytes "$3" --buf-size "${2%@*}" \
		"${rate[@]}" --retry 10 >"$4" 2>&1
}

while read -r name _ p b p2 b2 _; do
	case $name in ''|'#'*) continue ;; esac
	port=$((port + 1))
	wait_listen "$raw/$name.rx.out" "$port" || continue
	if [ "$p2" != - ]; then
		wait_listen "$raw/$name.rx2.out" $((port + 500)) || continue
		send $((port + 500)) "$p2" "$b2" "$raw/host.$name.tx2.out" &
		s2=$!
	fi
	send "$port" "$p" "$b" "$raw/host.$name.tx.out" ||
		fail "$name: sender exited $?: $(tail -n 1 "$raw/host.$name.tx.out")"
	if [ "$p2" != - ]; then
		wait "$s2" || fail "$name: second sender failed: $(tail -n 1 "$raw/host.$name.tx2.out")"
	fi
done <"$plan"
say "$fails failure(s)"
[ "$fails" -eq 0 ]
