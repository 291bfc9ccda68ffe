#!/bin/bash
# vhost-user-reconnect.sh [-k VARIANT] [-o OUTDIR]: one back-end started
# with --reconnect serves two QEMU guests in turn (the second QEMU
# connects to the same vhost-user socket after the first exited); each
# guest receives 1 MiB host->guest (tests/guest/h2g-recv.sh, byte count
# checked).  Then SIGTERM: the back-end must exit 0 and remove both socket
# files.  Exit 0 pass, 1 fail, 2 bad usage.
set -uo pipefail
VB_ROOT=$(cd "$(dirname "$0")/.." && pwd)
VU=$VB_ROOT/build/vhost-user-vsock
VARIANT=baseline OUTDIR=
while getopts k:o:h opt; do
	case $opt in
	k) VARIANT=$OPTARG ;;
	o) OUTDIR=$OPTARG ;;
	*) sed -n '2,7p' "$0" | sed 's/^# \{0,1\}//' >&2; exit 2 ;;
	esac
done
[ -x "$VU" ] || { echo "${0##*/}: $VU missing (run make)" >&2; exit 2; }
[ -n "$OUTDIR" ] || OUTDIR=$(mktemp -d /tmp/vb-vurc.XXXXXX)
mkdir -p "$OUTDIR" || exit 1
# Unix socket paths must stay short: in /tmp.
sock=$(mktemp -d /tmp/vb-vurs.XXXXXX)
fails=0
fail() { echo "FAIL: $*"; fails=$((fails + 1)); }
"$VU" --socket "$sock/vu.sock" --uds "$sock/uds" --reconnect 2>"$OUTDIR/backend.log" &
be=$!
trap 'kill "$be" 2>/dev/null; rm -rf "$sock"' EXIT
for _ in $(seq 50); do [ -S "$sock/vu.sock" ] && break; sleep 0.1; done
send="'$VU' send --retry 60 --uds \"\$VB_UDS\" --port 1234 --bytes 1M --buf-size 4K"
for i in 1 2; do
	if ! VB_VU_DIR=$sock "$VB_ROOT/scripts/guest-run.sh" -k "$VARIANT" -U -t 300 \
		-o "$OUTDIR/guest$i" -H "$send" "$VB_ROOT/tests/guest/h2g-recv.sh" 1M \
		>"$OUTDIR/guest$i.log" 2>&1; then
		fail "guest $i: $(tail -n 2 "$OUTDIR/guest$i.log" "$OUTDIR/guest$i/h2g-recv.txt" 2>/dev/null | tr '\n' ' ')"
	fi
	kill -0 "$be" 2>/dev/null || { fail "back-end gone after guest $i"; break; }
done
kill -TERM "$be" 2>/dev/null
wait "$be"
brc=$?
[ "$brc" = 0 ] || fail "back-end exit status $brc after SIGTERM"
[ ! -e "$sock/vu.sock" ] && [ ! -e "$sock/uds" ] || fail "socket files left after SIGTERM"
n=$(grep -c 'front-end connected' "$OUTDIR/backend.log")
[ "$n" = 2 ] || fail "back-end served $n front-ends, want 2"
for i in 1 2; do
	echo "guest $i: $(grep -h 'total bytes received' "$OUTDIR/guest$i/h2g-recv.txt" 2>/dev/null)"
done
echo "back-end: $(grep -c 'waiting for the next front-end' "$OUTDIR/backend.log") waits for the next front-end, exit $brc"
[ "$fails" = 0 ] && { echo "vhost-user reconnect: PASS"; exit 0; }
echo "vhost-user reconnect: FAIL"
exit 1
