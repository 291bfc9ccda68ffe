#!/bin/sh
# stress.sh [quick] - the vsock loopback stress test (build/vsock-stress)
# inside a lab guest:
#   default  8 flows x 4 MiB + 4 churn workers x 40 connections, seed 1
#            (every receiver/sender/end kind; closes and resets mid-run)
#   heavy   16 flows x 4 MiB + 2 churn workers, seed 2 (small vsock buffers)
#   wide    32 flows x 512 KiB + 8 churn workers x 25, seed 3 (many sockets
#            interleaved in the loopback queue: short same-flow runs)
# then a self-check that the test can fail on real vsock: a corrupted byte
# and an injected lost wake-up must each be reported as a FAIL of exactly
# the injected flow.  "quick" runs the default mix only.  Debug kernels
# (VB_VARIANT=*debug*: lockdep + KASAN, ~5x slower) get an eighth of the
# bytes, fewer churn connections and longer timeouts.
# Measured with 2 TCG vCPUs on a busy host: ~50 s on baseline and patched,
# ~110 s on debug.
#
#   scripts/guest-run.sh -k baseline -s 2 -t 600 -o /tmp/stress-base \
#       tests/guest/stress.sh
# Output: $RESULTS/stress.json = {"runs":[{"name":..,"exit":..,
# "result":<vsock-stress JSON summary>},..]} for the default and heavy
# runs (the file the baseline/patched verdict comparison reads);
# $RESULTS/stress/*.out (full program output), summary on stdout.
# On a kernel with the series' vsock:virtio_transport_rx_batch tracepoint
# the default run is traced and must contain multi-packet RX runs (else the
# test would not be exercising batching at all): $RESULTS/stress/rx_batch.txt.
# Exit 0 only if every run passed and every self-check failed as it must.
out=${RESULTS:?}/stress
mkdir -p "$out" || exit 1
fails=0

# Per-wait timeout and global deadline are generous: a busy host slows
# TCG guests several-fold, and a flake here would be read as a kernel bug.
b1=4M b2=4M b3=512K c1=40 c3=25 t=20 d=150
case "${VB_VARIANT:-}" in
*debug*) b1=512K b2=512K b3=128K c1=12 c3=8 t=60 d=400 ;;
esac
quick=0
case "${1:-}" in
quick) quick=1 ;;
"") ;;
*) echo "usage: stress.sh [quick]" >&2; exit 2 ;;
esac

fail() {
	echo "FAIL: $*"
	fails=$((fails + 1))
}

# run NAME ARGS...: one vsock-stress run; prints its flow lines and verdict
# (each prefixed by $pfx).
pfx=
run() {
	name=$1
	shift
	rm -f "$out/$name.json"
	vsock-stress --json "$out/$name.json" "$@" >"$out/$name.out" \
		2>"$out/$name.err"
	rc=$?
	echo "--- $name (vsock-stress $*): exit $rc"
	grep -v '^{' "$out/$name.out" | sed "s/^/$pfx/"
	[ -s "$out/$name.err" ] && sed "s/^/${pfx}stderr: /" "$out/$name.err"
	return $rc
}

# The runs whose verdicts must be the same on every kernel.
names=
real() {
	name=$1
	run "$@"
	rc=$?
	names="$names $name:$rc"
	if [ $rc -ne 0 ]; then
		fail "$name: vsock-stress exit $rc"
	elif ! grep -q '"verdict":"PASS"}$' "$out/$name.json" 2>/dev/null; then
		fail "$name: exit 0 but no PASS JSON summary"
	fi
}

# Batching coverage: trace RX runs during the default run, if the kernel
# has the tracepoint (patched kernels).
T=/sys/kernel/tracing
ev=$T/events/vsock/virtio_transport_rx_batch
traced=0
if [ -d "$ev" ]; then
	set -- $(cat "$T/buffer_size_kb")
	obuf=$1
	echo 4096 >"$T/buffer_size_kb" && : >"$T/trace" &&
		echo 1 >"$ev/enable" && traced=1
	[ $traced -eq 1 ] || fail "cannot enable $ev"
fi

real default -n 8 -b "$b1" -c 4 -C "$c1" -s 1 -p 20000 -t "$t" -D "$d"

if [ $traced -eq 1 ]; then
	echo 0 >"$ev/enable"
	awk '/ virtio_transport_rx_batch: / {
		n++
		for (i = 1; i <= NF; i++) {
			if ($i ~ /^pkts=/) { p = substr($i, 6) + 0 }
			if ($i ~ /^reason=/) { r[substr($i, 8)]++ }
		}
		if (p > 1) multi++
		if (p > max) max = p
		pk += p
	}
	END {
		printf "rx batching during the default run: %d runs, %d of more than one packet, %d packets, longest %d;", n, multi, pk, max
		for (k in r) printf " %s=%d", k, r[k]
		printf "\n"
	}' "$T/trace" >"$out/rx_batch.txt"
	: >"$T/trace"
	echo "$obuf" >"$T/buffer_size_kb"
	cat "$out/rx_batch.txt"
	set -- $(cat "$out/rx_batch.txt")
	# "... during the default run: N runs, M of more than one packet"
	[ "${7:-0}" -gt 0 ] && [ "${9:-0}" -gt 0 ] ||
		fail "the default run produced no multi-packet RX run"
fi
if [ $quick -eq 0 ]; then
	real heavy -n 16 -b "$b2" -c 2 -C "$c1" -s 2 -p 21000 -t "$t" -D "$d"
	real wide -n 32 -b "$b3" -c 8 -C "$c3" -s 3 -p 22000 -t "$t" -D "$d"
fi

# stress.json: one object with every real run.
{
	printf '{"runs":['
	sep=
	for nr in $names; do
		n=${nr%%:*}
		printf '%s{"name":"%s","exit":%s,"result":' "$sep" "$n" "${nr#*:}"
		if [ -s "$out/$n.json" ]; then
			tr -d '\n' <"$out/$n.json"
		else
			printf 'null'
		fi
		printf '}'
		sep=,
	done
	printf ']}\n'
} >"$RESULTS/stress.json"

# selfcheck NAME FLOW PATTERN ARGS...: the run must fail (exit 1), the
# injected flow's line must say FAIL and match PATTERN, every other flow
# must be ok.
selfcheck() {
	name=$1 flow=$2 pat=$3
	shift 3
	run "$name" "$@"
	rc=$?
	if [ $rc -ne 1 ]; then
		fail "$name: expected exit 1 (failure detected), got $rc"
		return
	fi
	if ! grep "^flow $flow \[.*: FAIL: " "$out/$name.out" | grep -q "$pat"; then
		fail "$name: flow $flow not reported as FAIL with '$pat'"
	fi
	others=$(grep -c '^flow [0-9]* \[.*: FAIL: ' "$out/$name.out")
	if [ "$others" -ne 1 ]; then
		fail "$name: $others flows failed, expected only flow $flow"
	fi
}

if [ $quick -eq 0 ]; then
	pfx='  (self-check) '
	# flow 1: lowat receiver, 4 KiB writes
	selfcheck selfcheck-corrupt 1 'byte mismatch at stream offset 40000' \
		-n 3 -b 256K -s 3 -p 23000 -t "$t" -D "$d" \
		-i corrupt:1:40000
	# one flow only: its 3 s timeout must not catch slow healthy flows
	selfcheck selfcheck-lostwake 0 'LOST WAKE-UP' \
		-n 1 -b 256K -s 3 -p 23100 -t 3 -D "$d" \
		-i lostwake:0:20000
fi

if [ $fails -eq 0 ]; then
	echo "stress: PASS"
	exit 0
fi
echo "stress: FAIL ($fails problems)"
exit 1
