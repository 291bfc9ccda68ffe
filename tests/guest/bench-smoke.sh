#!/bin/sh
# bench-smoke.sh - the benchmark programs for real, inside a lab guest,
# over vsock loopback (CID 1):
#   vb-recv (fixed 64K recv, matched recv size, bigger vsock buffer, pinned,
#   an EPOLLET reader)
#   + vb-sender, then vb-pingpong server + client,
# then argument/runtime error paths.  Every program's JSON line must parse
# (flat object; checked by json_flat below) and the byte counts of both
# ends must agree with what was asked for.  Any mismatch fails the test.
#
#   scripts/guest-run.sh -k baseline -s 2 -t 200 -o /tmp/bench-smoke \
#       tests/guest/bench-smoke.sh
# Output: $RESULTS/bench-smoke/*.out (program output), summary on stdout.
out=${RESULTS:?}/bench-smoke
mkdir -p "$out" || exit 1
fails=0
port=5000

fail() {
	echo "FAIL: $*"
	fails=$((fails + 1))
}

# json_flat FILE TOOL -> key=value lines of the last JSON line of TOOL in
# FILE; exit 1 if there is none or it is not a well-formed flat object.
json_flat() {
	grep "^{\"tool\":\"$2\"" "$1" | tail -n 1 | awk '
	function bad(m) { print "bad JSON (" m "): " $0 > "/dev/stderr"; err = 1; exit 1 }
	function str_end(s, i,   n) {	# index of the closing quote
		n = length(s)
		while (i <= n && substr(s, i, 1) != "\"") {
			if (substr(s, i, 1) == "\\")
				i++
			i++
		}
		if (i > n)
			bad("unterminated string")
		return i
	}
	{
		s = $0; n = length(s); seen = 1
		if (substr(s, 1, 1) != "{" || substr(s, n, 1) != "}")
			bad("not an object")
		i = 2
		while (1) {
			if (substr(s, i, 1) != "\"")
				bad("key at " i)
			j = str_end(s, i + 1)
			key = substr(s, i + 1, j - i - 1)
			i = j + 1
			if (substr(s, i, 1) != ":")
				bad("colon at " i)
			i++
			rest = substr(s, i)
			if (substr(rest, 1, 1) == "\"") {
				j = str_end(s, i + 1)
				val = substr(s, i + 1, j - i - 1)
				i = j + 1
			} else if (match(rest, /^-?[0-9]+(\.[0-9]+)?([eE][-+]?[0-9]+)?/)) {
				val = substr(rest, 1, RLENGTH); i += RLENGTH
			} else if (match(rest, /^(true|false|null)/)) {
				val = substr(rest, 1, RLENGTH); i += RLENGTH
			} else {
				bad("value at " i)
			}
			print key "=" val
			c = substr(s, i, 1)
			if (c == "," ) { i++; continue }
			if (c == "}" && i == n)
				break
			bad("junk at " i)
		}
	}
	END { if (!seen && !err) { print "no JSON line" > "/dev/stderr"; exit 1 } }'
}

# get KV_FILE KEY
get() {
	sed -n "s/^$2=//p" "$1" | head -n 1
}

# stream NAME SENDER_WRITE BYTES RECV_ARGS...: one vb-recv + vb-sender run
# (the sender also gets $sender_args)
sender_args=
stream() {
	name=$1 wsize=$2 bytes=$3
	shift 3
	port=$((port + 1))
	vb-recv --port $port --expect-bytes "$bytes" "$@" \
		>"$out/$name.rx.out" 2>&1 &
	rpid=$!
	vb-sender --cid 1 --port $port --bytes "$bytes" $sender_args \
		--buf-size "$wsize" --retry 10 >"$out/$name.tx.out" 2>&1
	src=$?
	if [ $src -ne 0 ]; then
		fail "$name: vb-sender exited $src: $(tail -n 1 "$out/$name.tx.out")"
		kill $rpid 2>/dev/null	# never connected: do not wait forever
	fi
	wait $rpid
	rc=$?
	[ $rc -eq 0 ] || fail "$name: vb-recv exited $rc: $(tail -n 1 "$out/$name.rx.out")"
	json_flat "$out/$name.rx.out" vb-recv >"$out/$name.rx.kv" ||
		{ fail "$name: vb-recv JSON"; return; }
	json_flat "$out/$name.tx.out" vb-sender >"$out/$name.tx.kv" ||
		{ fail "$name: vb-sender JSON"; return; }

	want=$(vb_bytes "$bytes")
	rxb=$(get "$out/$name.rx.kv" bytes)
	txb=$(get "$out/$name.tx.kv" bytes)
	[ "$rxb" = "$want" ] || fail "$name: received $rxb bytes, want $want"
	[ "$txb" = "$want" ] || fail "$name: sent $txb bytes, want $want"
	# the human line must say the same as the JSON line
	grep -q "^total bytes received: $want\$" "$out/$name.rx.out" ||
		fail "$name: 'total bytes received' line disagrees"
	# each recv() returns at most recv_size bytes, plus the EOF call
	rs=$(get "$out/$name.rx.kv" recv_size)
	calls=$(get "$out/$name.rx.kv" recv_calls)
	min=$(( (want + rs - 1) / rs + 1 ))
	[ "$calls" -ge "$min" ] 2>/dev/null ||
		fail "$name: $calls recv() calls, at least $min expected"
	gbps=$(get "$out/$name.rx.kv" gbps)
	awk -v g="$gbps" 'BEGIN { exit !(g > 0) }' ||
		fail "$name: throughput '$gbps' not positive"
	echo "ok: $name: $rxb bytes, $calls recv() of $rs, $gbps Gbit/s" \
	     "(vsk $(get "$out/$name.rx.kv" vsk_size))"
}

# vb_bytes SIZE -> bytes (the few suffixes this script uses)
vb_bytes() {
	case $1 in
	*K) echo $(( ${1%K} * 1024 )) ;;
	*M) echo $(( ${1%M} * 1048576 )) ;;
	*) echo "$1" ;;
	esac
}

command -v vb-recv >/dev/null || { echo "FAIL: vb-recv not in PATH (run make)"; exit 1; }

stream fixed64 64 1M --recv-size 64K --rcvlowat 1 --cpu 0
stream match4k 4K 8M --recv-size match --buf-size 4K --cpu 0
stream match64 64 256K --recv-size match --buf-size 64
stream vsk64k 64K 16M --recv-size 64K --vsk-size 1M
# an edge-triggered reader: on the series' kernels the readable callbacks
# of a run coalesce, and a lost one would leave it waiting (exit 1 after
# --idle-timeout with data queued)
stream epollet64 64 4M --recv-size 64K --epoll-et --idle-timeout 20 --cpu 0
stream epollet4k 4K 16M --recv-size 4K --epoll-et --idle-timeout 20 --cpu 0
w=$(get "$out/epollet64.rx.kv" epoll_waits)
[ "$(get "$out/epollet64.rx.kv" reader)" = epoll-et ] && [ "${w:-0}" -gt 0 ] ||
	fail "epollet64: reader '$(get "$out/epollet64.rx.kv" reader)', $w epoll_wait() returns"
# SOCK_SEQPACKET, which the series leaves to the per-packet path: every
# recv() is one whole message, so the calls are exactly messages + EOF
sender_args=--seqpacket
stream seqpkt4k 4K 8M --seqpacket --recv-size 64K --cpu 0
stream seqpkt64k 64K 16M --seqpacket --recv-size 64K --cpu 0
sender_args=
for m in seqpkt4k:4096:8388608 seqpkt64k:65536:16777216; do
	n=${m%%:*} w=${m#*:}; b=${w#*:}; w=${w%%:*}
	c=$(get "$out/$n.rx.kv" recv_calls)
	[ "$c" = $((b / w + 1)) ] || fail "$n: $c recv() calls, want one per message, $((b / w + 1))"
	[ "$(get "$out/$n.rx.kv" transport)" = vsock-seqpacket ] ||
		fail "$n: transport '$(get "$out/$n.rx.kv" transport)', want vsock-seqpacket"
done
# a message longer than the recv() size is an error, not a short count
port=$((port + 1))
vb-recv --seqpacket --port $port --recv-size 1K >"$out/seqtrunc.rx.out" 2>&1 &
rpid=$!
vb-sender --seqpacket --cid 1 --port $port --bytes 64K --buf-size 4K --retry 10 \
	>"$out/seqtrunc.tx.out" 2>&1
wait $rpid
rc=$?
[ $rc -eq 1 ] && grep -q "Message too long" "$out/seqtrunc.rx.out" ||
	fail "seqtrunc: vb-recv exit $rc, '$(tail -n 1 "$out/seqtrunc.rx.out")', want 1 and EMSGSIZE"
vb-recv --seqpacket --tcp --port 1 >/dev/null 2>&1
[ $? -eq 2 ] || fail "vb-recv --seqpacket --tcp: want exit 2"
# match: recv size = 64 so calls must be exactly bytes/64 + 1 here
c=$(get "$out/match64.rx.kv" recv_calls)
[ "$c" = $((262144 / 64 + 1)) ] || fail "match64: $c recv() calls, want $((262144 / 64 + 1))"
v=$(get "$out/vsk64k.rx.kv" vsk_size)
[ "$v" = 1048576 ] || fail "vsk64k: vsock buffer $v, want 1048576"

# ping-pong
port=$((port + 1))
vb-pingpong --server --port $port --cpu 0 >"$out/pp.server.out" 2>&1 &
spid=$!
vb-pingpong --client 1 --port $port --size 256 --count 300 --warmup 20 \
	--cpu 1 >"$out/pp.client.out" 2>&1 ||
	{ fail "vb-pingpong client exited $?"; kill $spid 2>/dev/null; }
wait $spid || fail "vb-pingpong server exited $?"
if json_flat "$out/pp.client.out" vb-pingpong >"$out/pp.client.kv" &&
   json_flat "$out/pp.server.out" vb-pingpong >"$out/pp.server.kv"; then
	cb=$(get "$out/pp.client.kv" bytes)
	sb=$(get "$out/pp.server.kv" bytes)
	[ "$sb" = $((256 * 320)) ] || fail "pingpong: server echoed $sb bytes, want $((256 * 320))"
	[ "$cb" = $((2 * 256 * 320)) ] || fail "pingpong: client moved $cb bytes, want $((2 * 256 * 320))"
	p50=$(get "$out/pp.client.kv" rtt_us_p50)
	p99=$(get "$out/pp.client.kv" rtt_us_p99)
	mean=$(get "$out/pp.client.kv" rtt_us_mean)
	res=$(get "$out/pp.client.kv" clock_step_ns)
	cs=$(cat /sys/devices/system/clocksource/clocksource0/current_clocksource 2>/dev/null)
	# A jiffies clocksource (no usable TSC/HPET in the guest) makes every
	# RTT 0 or one tick: latency cannot be measured in such a lab.
	[ "${res:-0}" -gt 0 ] && [ "${res:-0}" -le 1000 ] 2>/dev/null ||
		fail "guest clock moves in steps of $res ns (clocksource $cs): RTTs are not measurable"
	awk -v a="$p50" -v b="$p99" -v m="$mean" -v r="$res" \
	    'BEGIN { exit !(a <= b && b > 0 && m > 0 && (a > 0 || r > 1000)) }' ||
		fail "pingpong: implausible RTTs p50=$p50 p99=$p99 mean=$mean"
	echo "ok: pingpong 256B x300: mean $mean us, p50 $p50 us, p99 $p99 us"
else
	fail "pingpong JSON"
fi

# error paths: usage -> 2, runtime -> 1 with a one-line reason
vb-recv --recv-size 12Q >/dev/null 2>&1; rc=$?
[ $rc -eq 2 ] || fail "vb-recv bad size: exit $rc, want 2"
vb-sender --cid 1 --port 4999 --bytes 1K --retry 0 >/dev/null 2>"$out/err.out"; rc=$?
[ $rc -eq 1 ] || fail "vb-sender without listener: exit $rc, want 1"
[ "$(wc -l <"$out/err.out")" -eq 1 ] || fail "vb-sender without listener: reason is not one line"
echo "ok: no listener -> $(cat "$out/err.out")"
vb-recv --port $((port + 1)) --cpu 63 >/dev/null 2>&1; rc=$?
[ $rc -eq 1 ] || fail "vb-recv --cpu 63: exit $rc, want 1"

if [ $fails -ne 0 ]; then
	echo "bench-smoke: $fails failure(s)"
	exit 1
fi
echo "bench-smoke: OK"
