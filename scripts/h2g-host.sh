#!/bin/bash
# h2g-host.sh: the host half of one host->guest experiment run
# (scripts/experiment.sh --mode h2g), started by scripts/guest-run.sh -H
# next to a guest running tests/guest/experiment-run.sh with MODE=h2g.
#
# Walks the guest's sequence of ports (from 3001: one warm-up transfer of
# the first payload unless WARMUP=0, then per payload a fixed, a matched
# and with TCP=1 a TCP transfer, then one ping-pong per RTT size (and with
# TCP=1 one over TCP), then per payload one traced transfer) and drives
# each from the host through the lab's vhost-user-vsock device, as the
# cover letter's host-side vsock_perf did:
#   transfer   vhost-user-vsock send: PAYLOAD-byte writes, one packet per
#              write (the CONNECT line announces the write size)
#   ping-pong  vhost-user-vsock pingpong against the guest's echo server;
#              its RTTs (host clock) go to host-samples.jsonl
#   TCP        build/vb-sender --tcp / vb-pingpong --tcp to the guest's
#              virtio-net address (VB_NET_GUEST: guest-run.sh -N runs this
#              script in the tap's private network namespace); the same
#              writes, Nagle on, host kernel TCP -> tap -> QEMU virtio-net
# Before each step it waits for the guest listener's "Listen port N" line
# in its output file (the run directory is shared with the guest), so
# connection attempts never reach the guest during the previous transfer
# or while the tracer loads.
#
# Each sender runs under bash's `time`: its CPU (user + system seconds,
# raw/host.NAME.time) is the host sender's share of the host load during
# the transfer.  scripts/xfer-watch.sh runs beside, for the whole run: the
# host's busy/steal time and QEMU's and the back-end's CPU per transfer.
#
# FLOWS (1, 2 or 4): the fixed, matched and traced transfers as that many
# parallel flows, flow k > 0 to the guest's port P + 10000 * k, all
# started at once once every flow's listener is up; their senders run
# under one `time` (raw/host.NAME.time holds all of their CPU, so the
# exclusion rule sees the whole host sender), flow k's output in
# raw/host.NAME.fK.tx.out.
#
# Environment: VB_UDS, VB_OUTDIR, VB_GUEST_PID (from guest-run.sh -H);
# PAYLOADS, SCALE, CAP, XFER_SECONDS, RTT_SIZES, PP_COUNT, PP_WARMUP,
# TRACE, WARMUP, TCP, FLOWS as given to the guest (XFER_SECONDS: the fixed,
# matched and TCP transfers are `--seconds` ones, the others SCALE/CAP
# bytes).  Output: VB_OUTDIR/host-samples.jsonl, VB_OUTDIR/raw/host.*,
# VB_OUTDIR/host-xfer.tsv.
# Exit 0 when every step worked, 1 otherwise (the others still run).
set -uo pipefail
VB_ROOT=$(cd "$(dirname "$0")/.." && pwd)
VU=$VB_ROOT/build/vhost-user-vsock
: "${VB_UDS:?run me through scripts/guest-run.sh -U -H}"
: "${VB_OUTDIR:?}" "${VB_GUEST_PID:?}" "${PAYLOADS:?}" "${SCALE:?}" "${CAP:?}"
RTT_SIZES=${RTT_SIZES-} XFER_SECONDS=${XFER_SECONDS-}
PP_COUNT=${PP_COUNT:-500} PP_WARMUP=${PP_WARMUP:-50} TRACE=${TRACE:-1}
TCP=${TCP:-0} FLOWS=${FLOWS:-1}
case $FLOWS in 1|2|4) ;; *) echo "h2g-host: FLOWS is 1, 2 or 4, not '$FLOWS'" >&2; exit 2 ;; esac
for n in $PAYLOADS $RTT_SIZES $SCALE $CAP $PP_COUNT $PP_WARMUP; do
	[[ "$n" =~ ^[0-9]+$ ]] || { echo "h2g-host: bad number '$n'" >&2; exit 2; }
done
[ -z "$XFER_SECONDS" ] || [[ "$XFER_SECONDS" =~ ^[0-9]*\.?[0-9]+$ ]] ||
	{ echo "h2g-host: XFER_SECONDS must be seconds, not '$XFER_SECONDS'" >&2; exit 2; }
[ -x "$VU" ] || { echo "h2g-host: $VU missing (run make)" >&2; exit 2; }
case $TCP in 0) ;; 1)
	[ -n "${VB_NET_GUEST:-}" ] ||
		{ echo "h2g-host: TCP=1 needs the guest's NIC (guest-run.sh -N: VB_NET_GUEST)" >&2; exit 2; }
	for b in vb-sender vb-pingpong; do
		[ -x "$VB_ROOT/build/$b" ] || { echo "h2g-host: build/$b missing (run make)" >&2; exit 2; }
	done ;;
*) echo "h2g-host: TCP must be 0 or 1, not '$TCP'" >&2; exit 2 ;;
esac
# raw/ is the guest's to create (through 9p): a host mkdir at the same
# moment once made the guest's fail.  Nothing is written there before the
# guest's first listener has its output file in it.
raw=$VB_OUTDIR/raw
samples=$VB_OUTDIR/host-samples.jsonl
# created by the first sample (after the guest listens), not now: a file
# created in the guest's 9p directory while it sets it up made its
# mkdir -p /results/raw fail (see xfer-watch.sh)
port=3000 fails=0
"$VB_ROOT/scripts/xfer-watch.sh" &
watcher=$!

say() { echo "h2g-host: $*"; }
fail() { say "FAIL: $*"; fails=$((fails + 1)); }

# wait_listen FILE PORT: until the guest listener writing FILE listens on
# PORT; 1 if the guest is gone first
wait_listen() {
	until grep -qx "Listen port $2" "$1" 2>/dev/null; do
		kill -0 "$VB_GUEST_PID" 2>/dev/null || { fail "guest gone before port $2"; return 1; }
		sleep 0.05
	done
}

amount_for() { # amount_for PAYLOAD KIND: send's --bytes or --seconds, as the guest's
	local b
	if [ -n "$XFER_SECONDS" ] && [[ $2 == fixed || $2 == match || $2 == tcp ]]; then
		echo "--seconds $XFER_SECONDS"
		return
	fi
	b=$(($1 * SCALE))
	((b <= CAP)) || b=$CAP
	echo "--bytes $b"
}

# send NAME PAYLOAD: the host sender(s) of the guest's next transfer
# (NAME tcp.*: over TCP to the guest's NIC, never vsock: this host's own
# vsock device is not the lab's)
send() {
	port=$((port + 1))
	local TIMEFORMAT='%3U %3S %3R' rc sender n=1 k
	case $1 in fixed.*|match.*|traced.*) n=$FLOWS ;; esac
	wait_listen "$raw/$1.rx.out" "$port" || return 1
	for ((k = 1; k < n; k++)); do
		wait_listen "$raw/$1.f$k.rx.out" $((port + 10000 * k)) || return 1
	done
	case $1 in
	tcp.*)	sender=("$VB_ROOT/build/vb-sender" "--tcp=$VB_NET_GUEST") ;;
	*)	sender=("$VU" send --uds "$VB_UDS") ;;
	esac
	# shellcheck disable=SC2046 # amount_for's two words
	{ time send_flows "$1" "$2" "$n" "${sender[@]}"; } 2>"$raw/host.$1.time"
	rc=$?
	[ $rc -eq 0 ] || fail "$1 (port $port): sender exited $rc: $(tail -n 1 "$raw/host.$1.tx.out")"
}

# send_flows NAME PAYLOAD N SENDER...: N senders at once, flow k to port
# + 10000 * k; the status of the first that failed
send_flows() {
	local name=$1 p=$2 n=$3 k rc=0 pids=() f
	shift 3
	for ((k = 0; k < n; k++)); do
		f=$raw/host.$name.tx.out
		((k == 0)) || f=$raw/host.$name.f$k.tx.out
		# shellcheck disable=SC2046 # amount_for's two words
		"$@" --port $((port + 10000 * k)) $(amount_for "$p" "${name%%.*}") \
			--buf-size "$p" --retry 10 >"$f" 2>&1 &
		pids+=($!)
	done
	for k in "${pids[@]}"; do
		wait "$k"
		f=$?
		((f == 0 || rc != 0)) || rc=$f
	done
	return $rc
}

# jnum FILE KEY: KEY of the JSON line in FILE (a number)
jnum() {
	grep '^{"tool":' "$1" | tail -n 1 | sed -n "s/.*\"$2\":\([0-9.eE+-]*\)[,}].*/\1/p"
}

# The guest's untimed warm-up transfer of the first payload (WARMUP=1,
# the default of tests/guest/experiment-run.sh) comes first.
if [ "${WARMUP:-1}" = 1 ]; then
	set -- $PAYLOADS
	send "warmup.$1" "$1"
fi
for p in $PAYLOADS; do
	send "fixed.$p" "$p"
	send "match.$p" "$p"
	[ "$TCP" = 0 ] || send "tcp.$p" "$p"
done
# pingpong SIZE NAME METRIC_PREFIX STATS CLIENT...: the host's client of
# the guest's next echo server (raw/NAME.SIZE.server.out); STATS of its
# rtt_us_* (mean p50 p99 p999) become METRIC_PREFIX_STAT_us samples
pingpong() {
	local s=$1 n=$2 pre=$3 stats=$4 f m v rc
	shift 4
	port=$((port + 1))
	f=$raw/host.$n.$s.client.out
	wait_listen "$raw/$n.$s.server.out" "$port" || return
	"$@" --port "$port" --size "$s" --count "$PP_COUNT" \
		--warmup "$PP_WARMUP" --retry 10 >"$f" 2>&1
	rc=$?
	if [ $rc -ne 0 ]; then
		fail "$n $s (port $port): client exited $rc: $(tail -n 1 "$f")"
		return
	fi
	for m in $stats; do
		v=$(jnum "$f" "rtt_us_$m")
		[ -n "$v" ] || { fail "$n $s: no rtt_us_$m"; continue; }
		printf '{"payload":%s,"metric":"%s_%s_us","value":%s}\n' "$s" "$pre" "$m" "$v" >>"$samples"
	done
}
for s in $RTT_SIZES; do
	# p99.9 of fewer than 1000 round trips would be their maximum
	st="mean p50 p99"
	[ "$PP_COUNT" -lt 1000 ] || st="$st p999"
	pingpong "$s" pp rtt "$st" "$VU" pingpong --uds "$VB_UDS"
	[ "$TCP" = 0 ] ||
		pingpong "$s" pp-tcp rtt_tcp mean "$VB_ROOT/build/vb-pingpong" --tcp --client "$VB_NET_GUEST"
done
if [ "$TRACE" = 1 ]; then
	for p in $PAYLOADS; do
		send "traced.$p" "$p"
	done
fi
# The watcher ends at the guest's "VB-XFER done" (or with the guest).
wait "$watcher"
[ -e "$samples" ] || : >"$samples"
say "$(wc -l <"$samples") samples, $fails failure(s)"
[ "$fails" -eq 0 ]
