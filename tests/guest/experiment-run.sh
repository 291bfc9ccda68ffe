#!/bin/sh
# experiment-run.sh - one run of the AB/BA experiment (scripts/experiment.sh)
# on one kernel, in one fresh guest, over vsock loopback (CID 1) or from
# the host through the lab's virtio-vsock device (MODE=h2g).
#
# Environment (set by the host with guest-run.sh -e):
#   MODE       loopback (default): sender and receiver in this guest;
#              h2g: the host sends (scripts/h2g-host.sh, the same
#              sequence of ports), this guest only receives, the device's
#              interrupt - and with it the RX worker - pinned to vCPU 1
#   PAYLOADS   write sizes in bytes, e.g. "64 256 4096"      (required)
#   SCALE      transfer bytes per payload byte (bytes = payload * SCALE)
#   CAP        upper bound of a transfer, bytes
#   XFER_SECONDS  wall clock: the untraced transfers (fixed, matched, TCP)
#              are time-bounded, whole writes for this many seconds
#              (vb-sender --seconds; h2g: the host's sender), so each lasts
#              T on every kernel; unset: SCALE/CAP bytes (icount, which
#              needs fixed work, and every warm-up and traced transfer)
#   TCP        1 (default): the fixed transfer once more over TCP, and
#              the ping-pongs over TCP too; wall clock only
#              (scripts/insns-samples.sh knows no tcp.* window).  Loopback:
#              on 127.0.0.1; h2g: from the host over the guest's virtio-net
#              NIC (guest-run.sh -N, address VB_NET_ADDR), its interrupt
#              pinned to vCPU 1 like the vsock device's
#   RTT_SIZES  ping-pong sizes in bytes (default "64 256 4096"; "" = none)
#   PP_COUNT   timed round trips per size (default 500)
#   PP_WARMUP  untimed round trips first (default 50)
#   TRACE      1 (default): one extra traced run per payload
#   TRACE_MODE full (default) or light: the tracer's mode in that run
#   VCPUS      2 (default): receiver on vCPU 0, RX worker (and loopback
#              sender) on vCPU 1; 1: all of them on vCPU 0
#   FLOWS      1 (default), 2 or 4 (h2g only): the fixed, matched and
#              traced transfers run as that many parallel flows from the
#              host, flow k > 0 to port P + 10000 * k, each its own vb-recv
#              on vCPU 0 (raw/NAME.fK.rx.out); their throughput samples
#              are the sum of the flows' rates (as iperf -P reports),
#              their recv() counts the sum of the flows'
#   SOCKET     stream (default) or seqpacket (loopback only): the vsock
#              transfers' socket type (vb-sender/vb-recv --seqpacket)
#   READER     blocking (default): vb-recv in blocking recv(); epoll-et:
#              vb-recv --epoll-et (non-blocking, EPOLLET, drained to EAGAIN)
#   STATE      kernel state name, stored as a label in traced files
#   WARMUP     1 (default): one untimed transfer of the first payload first
#   VB_ASLR    off: user address-space randomisation off (set by /init;
#              env.txt records kernel.randomize_va_space)
#   VB_SCHED_FEATURES  scheduler features set by /init for the boot;
#              env.txt records those in force
#   VB_GUEST_WRITES  "PATH=VALUE ..." written by /init for the boot (sysfs,
#              sysctl); env.txt records each file's value
#   CLOCK      wall (default) or icount (guest-run.sh -C icount): then
#              vb-recv sets instruction-count marks around every transfer
#              (accept to EOF) and marks.tsv names them; the host turns
#              them into insn_* samples (scripts/insns-samples.sh).  The
#              /proc/stat tick samples are skipped: under icount the
#              clock warps over idle time and ticks land on idle instants.
# The receiver (vb-recv, blocking recv()) is pinned to vCPU 0, the sender
# (vb-sender) to vCPU 1; ping-pong server on vCPU 0, client on vCPU 1.
# Every transfer is framed by "VB-XFER begin NAME" and "VB-XFER end NAME"
# lines on the console: the host's watcher (scripts/xfer-watch.sh) reads
# them live and samples the host's /proc/stat and QEMU's CPU time there,
# so each transfer has the host load it ran under; "VB-XFER done" last.
# In h2g mode the sender and the ping-pong client are on the host; it
# connects once the listener's "Listen port N" line is in its output file
# here (shared with the host), so no connection attempt reaches the guest
# during the previous transfer or while the tracer loads.
#
# Per payload: throughput with a fixed 64 KiB recv() size, throughput with
# recv() size = write size ("matched"), then (after RTT) one transfer
# under `vsockbatch record -m $TRACE_MODE` (fixed 64 KiB receiver; one
# mode on every kernel, so baseline and patched are traced alike: window times,
# the RX worker's CPU) - tracer overhead
# makes its throughput a separate metric, never mixed with the untraced
# ones.
#
# Output in $RESULTS:
#   samples.jsonl  one {"payload":P,"metric":M,"value":V[,"xfer":NAME]} line
#                  per number; xfer names the transfer it came from (the
#                  host's exclusion rule drops a transfer's samples)
#   raw/           every program's full output (key: value lines + JSON)
#   traced/P.json  vsockbatch results file per payload
#   marks.tsv      (icount) "first_mark name payload bytes" per transfer
#   kallsyms-modules.txt  (icount) /proc/kallsyms's module lines
#   env.txt        kernel, CPUs, clocksource, interrupts, workqueues
# Exit: 0 all measurements made, 1 one or more failed (the others are kept).
out=${RESULTS:?}
: "${PAYLOADS:?PAYLOADS not set}"
SCALE=${SCALE:-32768}
CAP=${CAP:-33554432}
RTT_SIZES=${RTT_SIZES-64 256 4096}
PP_COUNT=${PP_COUNT:-500}
PP_WARMUP=${PP_WARMUP:-50}
TRACE=${TRACE:-1}
TRACE_MODE=${TRACE_MODE:-full}
READER=${READER:-blocking}
VCPUS=${VCPUS:-2}
case $VCPUS in
1|2) ;;
*) echo "experiment-run: VCPUS is 1 or 2, not '$VCPUS'"; exit 2 ;;
esac
[ "$(nproc)" = "$VCPUS" ] || { echo "experiment-run: VCPUS=$VCPUS but $(nproc) CPUs online"; exit 2; }
# where the RX worker runs: the last vCPU (1, or 0 when alone)
RXCPU=$((VCPUS - 1))
case $READER in
blocking) reader_arg= ;;
epoll-et) reader_arg=--epoll-et ;;
*) echo "experiment-run: READER is blocking or epoll-et, not '$READER'"; exit 2 ;;
esac
case $TRACE_MODE in
full|light) ;;
*) echo "experiment-run: TRACE_MODE is full or light, not '$TRACE_MODE'"; exit 2 ;;
esac
STATE=${STATE:-unknown}
MODE=${MODE:-loopback}
SOCKET=${SOCKET:-stream}
FLOWS=${FLOWS:-1}
case $FLOWS in
1|2|4) ;;
*) echo "experiment-run: FLOWS is 1, 2 or 4, not '$FLOWS'"; exit 2 ;;
esac
[ "$FLOWS" = 1 ] || [ "$MODE" = h2g ] ||
	{ echo "experiment-run: FLOWS > 1 is for h2g (parallel flows from the host)"; exit 2; }
case $SOCKET in
stream) sock_arg= ;;
seqpacket) sock_arg=--seqpacket ;;
*) echo "experiment-run: SOCKET is stream or seqpacket, not '$SOCKET'"; exit 2 ;;
esac
[ "$SOCKET" = stream ] || [ "$MODE" = loopback ] ||
	{ echo "experiment-run: SOCKET=seqpacket is for loopback (the host back-end carries STREAM only)"; exit 2; }
CLOCK=${CLOCK:-wall}
XFER_SECONDS=${XFER_SECONDS-}
TCP=${TCP:-1}
[ "$CLOCK" = icount ] && TCP=0
case $MODE in loopback|h2g) ;; *) echo "experiment-run: MODE must be loopback or h2g, not '$MODE'"; exit 2 ;; esac
case $CLOCK in wall|icount) ;; *) echo "experiment-run: CLOCK must be wall or icount, not '$CLOCK'"; exit 2 ;; esac
case $XFER_SECONDS in
*[!0-9.]*|*.*.*|.) echo "experiment-run: XFER_SECONDS must be seconds, not '$XFER_SECONDS'"; exit 2 ;;
esac
[ -z "$XFER_SECONDS" ] || [ "$CLOCK" = wall ] ||
	{ echo "experiment-run: XFER_SECONDS is for wall clock; icount counts fixed work"; exit 2; }
# h2g TCP: the receivers listen on the NIC's address
net_addr=${VB_NET_ADDR%/*}
if [ "$MODE" = h2g ] && [ "$TCP" = 1 ] && [ -z "$net_addr" ]; then
	echo "experiment-run: TCP=1 in h2g mode needs the guest's NIC (guest-run.sh -N)"
	exit 2
fi
tcp_arg=--tcp
[ "$MODE" = h2g ] && tcp_arg=--tcp=$net_addr
mkdir -p "$out/raw" "$out/traced" || exit 1
samples=$out/samples.jsonl
: >"$samples"
fails=0
port=3000
mark=1
# icount: the modules' functions where this boot loaded them, so the
# plugin's block profile (scripts/insns-profile.sh) can name vsock's
if [ "$CLOCK" = icount ]; then
	: >"$out/marks.tsv"
	grep '\[' /proc/kallsyms >"$out/kallsyms-modules.txt"
fi

say() { echo "experiment-run: $*"; }
fail() { say "FAIL: $*"; fails=$((fails + 1)); }

for n in $PAYLOADS $RTT_SIZES $SCALE $CAP $PP_COUNT $PP_WARMUP; do
	case $n in ''|*[!0-9]*) say "bad number '$n'"; exit 2 ;; esac
done

# jval FILE TOOL KEY: KEY of the last JSON line of TOOL in FILE (flat
# object of numbers and strings, as the bench programs print it)
jval() {
	grep "^{\"tool\":\"$2\"" "$1" | tail -n 1 |
		sed -n "s/.*\"$3\":\"\{0,1\}\([^,\"}]*\)\"\{0,1\}[,}].*/\1/p"
}

# sample PAYLOAD METRIC VALUE: one line of samples.jsonl (numbers only),
# tagged with the transfer it came from ($xfer, set by stream; empty for
# the ping-pongs)
xfer=
sample() {
	case $3 in
	''|*[!0-9.eE+-]*) fail "payload $1: $2: no number ('$3')"; return ;;
	esac
	if [ -n "$xfer" ]; then
		printf '{"payload":%s,"metric":"%s","value":%s,"xfer":"%s"}\n' "$1" "$2" "$3" "$xfer" >>"$samples"
	else
		printf '{"payload":%s,"metric":"%s","value":%s}\n' "$1" "$2" "$3" >>"$samples"
	fi
}

# cpu_busy: busy time of each CPU so far, in USER_HZ ticks (10 ms on
# x86): user + nice + system + irq + softirq from /proc/stat, one number
# per CPU.  Around an untraced transfer it gives the CPU cost without the
# tracer's own (which is per lock window, so larger on unbatched kernels).
cpu_busy() {
	awk '/^cpu[0-9]/ { printf "%d ", $2 + $3 + $4 + $7 + $8 }' /proc/stat
}

# stat_samples PAYLOAD BYTES BEFORE AFTER [tcp]: busy ns per received
# byte, all CPUs, and (h2g) on the RX worker's vCPU 1, and the efficiency
# beside the throughput: Gbit/s per busy vCPU = bits / busy vCPU-ns
# (8 / ns-per-byte; the throughput divided by the vCPUs it kept busy).
# With "tcp": the TCP transfer's (stat_ns_per_byte_tcp, eff_tcp_...).
# Fewer than 5 ticks (50 ms) is too coarse to be a measurement (tiny
# --quick transfers): no sample.
stat_samples() {
	sfx=${5:+_$5}
	# ticks: all CPUs, then the RX worker's vCPU
	set -- "$1" "$2" $(echo "$3|$4" | awk -F'|' -v c="$RXCPU" '{ n = split($1, x, " "); split($2, y, " ")
		t = 0; for (i = 1; i <= n; i++) t += y[i] - x[i]; print t, y[c + 1] - x[c + 1] }')
	[ "$CLOCK" = icount ] && return 0
	if [ "$3" -ge 5 ]; then
		sample "$1" "stat_ns_per_byte$sfx" "$(awk -v t="$3" -v b="$2" 'BEGIN { printf "%.6f", t * 1e7 / b }')"
		if [ -n "$sfx" ]; then
			sample "$1" eff_tcp_gbps_per_vcpu "$(awk -v t="$3" -v b="$2" 'BEGIN { printf "%.6f", 8 * b / (t * 1e7) }')"
		else
			sample "$1" eff_gbps_per_vcpu "$(awk -v t="$3" -v b="$2" 'BEGIN { printf "%.6f", 8 * b / (t * 1e7) }')"
		fi
	fi
	# (the vsock transfer's only: for TCP vCPU 1 runs the NIC's softirq,
	# a different path to compare)
	if [ "$MODE" = h2g ] && [ -z "$sfx" ] && [ "$4" -ge 5 ]; then
		sample "$1" stat_ns_per_byte_rx_cpu "$(awk -v t="$4" -v b="$2" 'BEGIN { printf "%.6f", t * 1e7 / b }')"
		sample "$1" eff_gbps_per_rx_vcpu "$(awk -v t="$4" -v b="$2" 'BEGIN { printf "%.6f", 8 * b / (t * 1e7) }')"
	fi
	return 0
}

# ctxsw_samples PAYLOAD: the fixed transfer's sleeps per MiB received,
# untraced: the receiver's voluntary context switches (each a sleep in
# recv() ended by a wake-up from the RX path) and, over loopback, the
# sender's (waits for credit); getrusage deltas over the transfer loop
# (vb-recv, vb-sender "nvcsw")
ctxsw_samples() {
	cb=$(jval "$rx" vb-recv bytes) cn=$(jval "$rx" vb-recv nvcsw)
	case $cb in ''|0) return ;; esac
	[ -n "$cn" ] || { fail "payload $1: vb-recv printed no nvcsw"; return; }
	sample "$1" rx_nvcsw_per_mib "$(awk -v n="$cn" -v b="$cb" 'BEGIN { printf "%.4f", n * 1048576 / b }')"
	[ "$MODE" = h2g ] && return
	cn=$(jval "$tx" vb-sender nvcsw)
	[ -n "$cn" ] || { fail "payload $1: vb-sender printed no nvcsw"; return; }
	sample "$1" tx_nvcsw_per_mib "$(awk -v n="$cn" -v b="$cb" 'BEGIN { printf "%.4f", n * 1048576 / b }')"
}

bytes_for() { # bytes_for PAYLOAD: the byte-sized transfers' bytes
	b=$(($1 * SCALE))
	[ "$b" -le "$CAP" ] || b=$CAP
	echo "$b"
}

# timed KIND: true when a transfer of KIND (fixed, match, tcp, warmup,
# traced) is time-bounded
timed() {
	[ -n "$XFER_SECONDS" ] && case $1 in fixed|match|tcp) true ;; *) false ;; esac
}

# stream_h2g NAME PAYLOAD TRACED RECV_ARGS...: the receiver of a host
# sender's transfer, in the foreground (under the tracer if TRACED)
stream_h2g() {
	name=$1 p=$2 traced=$3
	shift 3
	# time-bounded: the host's sender decides the bytes
	timed "${name%%.*}" || set -- --expect-bytes "$bytes" "$@"
	case $name in tcp.*) set -- "$tcp_arg" "$@" ;; esac
	# the other flows' receivers, beside the first one's; only the
	# first sets instruction-count marks (its accept and EOF bound the
	# window: the host starts the flows at once and the back-end sends
	# them round robin, so they end within a few packets of each other)
	fargs= skip=0
	for a in "$@"; do
		[ "$skip" = 1 ] && { skip=0; continue; }
		[ "$a" = --insn-mark ] && { skip=1; continue; }
		fargs="$fargs $a"
	done
	fpids= k=1
	while [ "$k" -lt "$(flows_of "$name")" ]; do
		# shellcheck disable=SC2086 # fargs: words without spaces
		vb-recv --port $((port + 10000 * k)) --cpu 0 $reader_arg $fargs \
			>"$out/raw/$name.f$k.rx.out" 2>&1 &
		fpids="$fpids $!"
		k=$((k + 1))
	done
	set -- vb-recv --port $port --cpu 0 $reader_arg "$@"
	if [ "$traced" = 1 ]; then
		set -- vsockbatch record -m "$TRACE_MODE" -o "$out/traced/$p.json" \
			--label "payload=$p" --label "state=$STATE" \
			--label "bytes=$bytes" --label "mode=h2g" -- "$@"
	fi
	"$@" >"$rx" 2>&1
	rrc=$?
	k=1
	for fp in $fpids; do
		if ! wait "$fp"; then
			fail "$name: flow $k's receiver failed: $(tail -n 1 "$out/raw/$name.f$k.rx.out")"
			rrc=1
		fi
		k=$((k + 1))
	done
	if [ $rrc -ne 0 ]; then
		fail "$name: receiver side exited $rrc: $(tail -n 1 "$rx")"
		return 1
	fi
	return 0
}

# flows_of NAME: how many parallel flows transfer NAME runs as
flows_of() {
	case $1 in fixed.*|match.*|traced.*) echo "$FLOWS" ;; *) echo 1 ;; esac
}

# flows_sum KEY: vb-recv's KEY summed over the flows of the last transfer
# ($rx and its raw/NAME.fK.rx.out beside it)
flows_sum() {
	fs_t=$(jval "$rx" vb-recv "$1")
	k=1
	while [ "$k" -lt "$(flows_of "$xfer")" ]; do
		fs_v=$(jval "${rx%.rx.out}.f$k.rx.out" vb-recv "$1")
		[ -n "$fs_v" ] || { echo; return; }
		fs_t=$(awk -v a="$fs_t" -v b="$fs_v" 'BEGIN { printf "%.6f", a + b }')
		k=$((k + 1))
	done
	echo "$fs_t"
}

# xmark TEXT: "VB-XFER TEXT" straight onto the console, where the host's
# watcher reads it at once (this script's stdout goes through a pipe to
# tee, which runs only when the transfer's vCPUs let it)
xmark() {
	echo "VB-XFER $1" >/dev/console 2>/dev/null || echo "VB-XFER $1"
}

# stream NAME PAYLOAD TRACED RECV_ARGS...: one vb-recv + vb-sender
# transfer (h2g: the host's sender; NAME tcp.*: over TCP, on 127.0.0.1 or
# h2g over the NIC),
# between "VB-XFER begin/end NAME" lines; sets rx (receiver output file)
# and xfer, or returns 1
stream() {
	xmark "begin $1"
	stream_one "$@"
	src=$?
	xmark "end $1"
	xfer=$1
	return $src
}

stream_one() {
	name=$1 p=$2 traced=$3
	shift 3
	bytes=$(bytes_for "$p")
	port=$((port + 1))
	rx=$out/raw/$name.rx.out
	tx=$out/raw/$name.tx.out
	if [ "$CLOCK" = icount ]; then
		# the window's bytes: every flow's
		echo "$mark $name $p $((bytes * $(flows_of "$name")))" >>"$out/marks.tsv"
		set -- "$@" --insn-mark "$mark"
		mark=$((mark + 2))
	fi
	if [ "$MODE" = h2g ]; then
		stream_h2g "$name" "$p" "$traced" "$@"
		return
	fi
	peer="--cid 1" amount="--bytes $bytes" expect="--expect-bytes $bytes"
	timed "${name%%.*}" && amount="--seconds $XFER_SECONDS" expect=
	case $name in
	tcp.*)
		set -- --tcp "$@"
		peer=--tcp ;;
	*)
		[ -z "$sock_arg" ] || set -- $sock_arg "$@"
		peer="$peer $sock_arg" ;;
	esac
	vb-recv --port $port --cpu 0 $reader_arg $expect "$@" >"$rx" 2>&1 &
	rpid=$!
	set -- vb-sender $peer --port $port $amount --buf-size "$p" \
		--cpu $RXCPU --retry 10
	if [ "$traced" = 1 ]; then
		set -- vsockbatch record -m "$TRACE_MODE" -o "$out/traced/$p.json" \
			--label "payload=$p" --label "state=$STATE" \
			--label "bytes=$bytes" -- "$@"
	fi
	"$@" >"$tx" 2>&1
	trc=$?
	if [ $trc -ne 0 ]; then
		fail "$name: sender side exited $trc: $(tail -n 1 "$tx")"
		kill $rpid 2>/dev/null
		wait $rpid
		return 1
	fi
	if ! wait $rpid; then
		fail "$name: vb-recv failed: $(tail -n 1 "$rx")"
		return 1
	fi
	return 0
}

{
	echo "kernel: $(uname -r) $(uname -v)"
	echo "state: $STATE"
	echo "mode: $MODE"
	echo "socket: $SOCKET"
	echo "cpus: $(grep -c ^processor /proc/cpuinfo)"
	echo "clocksource: $(cat /sys/devices/system/clocksource/clocksource0/current_clocksource 2>/dev/null)"
	echo "payloads: $PAYLOADS"
	echo "scale: $SCALE cap: $CAP rtt: $RTT_SIZES x $PP_COUNT (+$PP_WARMUP warm-up)"
	echo "trace: $TRACE"
	echo "clock: $CLOCK"
	if [ -n "$XFER_SECONDS" ]; then
		echo "untraced transfers: $XFER_SECONDS s each (time-bounded)"
	else
		echo "untraced transfers: payload * scale bytes, at most cap"
	fi
	echo "tcp: $TCP${net_addr:+ (over the NIC, $net_addr)}"
	echo "randomize_va_space: $(cat /proc/sys/kernel/randomize_va_space)"
	if [ -r /sys/kernel/debug/sched/features ]; then
		echo "sched_features: $(cat /sys/kernel/debug/sched/features)"
	fi
	for w in ${VB_GUEST_WRITES:-}; do
		echo "guest_write: ${w%%=*} = $(cat "${w%%=*}" 2>/dev/null)"
	done
} >"$out/env.txt"
say "$(uname -r), state $STATE, mode $MODE, payloads: $PAYLOADS"

# h2g: the device's interrupt on vCPU 1, so the RX worker (queued on the
# CPU that took the interrupt) runs there, away from the receiver on
# vCPU 0: the cover letter's pinning.  The guest has no MSI, so the
# device has one INTx line, named after it in /proc/interrupts.
# The NIC's (TCP=1) goes there too, so its receive softirq runs where the
# vsock RX worker does.
# pin_irq DRIVER WHAT [alone]: the interrupt of DRIVER's virtio device
# on vCPU 1 (a shared INTx line lists every device on it: "virtio2,
# virtio0"); with "alone", refuse a line the device shares
pin_irq() {
	dev=$(ls "/sys/bus/virtio/drivers/$1/" 2>/dev/null | grep '^virtio' | head -n 1)
	irq=$(grep -E "[[:space:]]$dev(,|$)" /proc/interrupts | sed -n 's/^ *\([0-9]*\):.*/\1/p' | head -n 1)
	if [ -z "$dev" ] || [ -z "$irq" ]; then
		say "no $2 device or no interrupt for it ('$dev', '$irq')"
		exit 1
	fi
	if ! echo $RXCPU >"/proc/irq/$irq/smp_affinity_list" 2>/dev/null ||
	   [ "$(cat "/proc/irq/$irq/smp_affinity_list")" != $RXCPU ]; then
		say "cannot pin IRQ $irq ($dev) to vCPU $RXCPU"
		exit 1
	fi
	if [ "${3-}" = alone ] && grep -E "^ *$irq:" /proc/interrupts | grep -q ','; then
		say "the $2 device shares IRQ $irq: $(grep -E "^ *$irq:" /proc/interrupts | sed 's/.*fasteoi *//')"
		exit 1
	fi
	echo "$2 irq: $irq ($dev) pinned to cpu $(cat "/proc/irq/$irq/smp_affinity_list")" >>"$out/env.txt"
}
if [ "$MODE" = h2g ]; then
	# alone on its line, as without the NIC (guest-run.sh places it)
	pin_irq vmw_vsock_virtio_transport "rx" alone
	[ "$TCP" = 1 ] && pin_irq virtio_net "virtio-net"
fi

# One untimed transfer first: the first transfer of a boot pays for
# warming the slab caches and the page allocator (measured under icount:
# +1.9 % instructions per byte at 64 B against the second transfer of the
# same boot), and that would land on whichever payload comes first.
set -- $PAYLOADS
if [ "$CLOCK" = icount ] || [ "${WARMUP:-1}" = 1 ]; then
	saved_clock=$CLOCK CLOCK=wall
	stream "warmup.$1" "$1" 0 --recv-size 64K --rcvlowat 1 || fail "warm-up transfer"
	CLOCK=$saved_clock
fi

for p in $PAYLOADS; do
	b0=$(cpu_busy)
	if stream "fixed.$p" "$p" 0 --recv-size 64K --rcvlowat 1; then
		b1=$(cpu_busy)
		sample "$p" tput_fixed_gbps "$(flows_sum gbps)"
		sample "$p" recv_calls_fixed "$(flows_sum recv_calls)"
		stat_samples "$p" "$(flows_sum bytes)" "$b0" "$b1"
		ctxsw_samples "$p"
	fi
	if stream "match.$p" "$p" 0 --recv-size match --buf-size "$p"; then
		sample "$p" tput_match_gbps "$(flows_sum gbps)"
		sample "$p" recv_calls_match "$(flows_sum recv_calls)"
	fi
	# The same transfer as fixed.$p over TCP (Nagle on, as a user gets
	# it): the vsock/TCP column.
	[ "$TCP" = 1 ] || continue
	b0=$(cpu_busy)
	if stream "tcp.$p" "$p" 0 --recv-size 64K --rcvlowat 1; then
		b1=$(cpu_busy)
		sample "$p" tput_tcp_gbps "$(jval "$rx" vb-recv gbps)"
		stat_samples "$p" "$(jval "$rx" vb-recv bytes)" "$b0" "$b1" tcp
	fi
done
xfer=

# pingpong SIZE FILE TRANSPORT...: a server on vCPU 0 and a timed client
# on vCPU 1 (TRANSPORT: "--client 1" for vsock loopback, "--tcp --client
# 127.0.0.1" for TCP); 1 and a FAIL line when either side failed
pingpong() {
	ps=$1 pf=$2
	shift 2
	tr=
	[ "$1" = --tcp ] && tr=--tcp
	vb-pingpong $tr --server --port $port --cpu 0 >"$pf.server.out" 2>&1 &
	spid=$!
	vb-pingpong "$@" --port $port --size "$ps" \
		--count "$PP_COUNT" --warmup "$PP_WARMUP" --cpu $RXCPU \
		--retry 10 >"$pf.client.out" 2>&1
	crc=$?
	if [ $crc -ne 0 ]; then
		fail "ping-pong $ps ($*): client exited $crc: $(tail -n 1 "$pf.client.out")"
		kill $spid 2>/dev/null
		wait $spid
		return 1
	fi
	wait $spid || { fail "ping-pong $ps ($*): server failed"; return 1; }
}

for s in $RTT_SIZES; do
	port=$((port + 1))
	f=$out/raw/pp.$s
	if [ "$MODE" = h2g ]; then
		# The host's client times the round trips (host-samples.jsonl).
		vb-pingpong --server --port $port --cpu 0 >"$f.server.out" 2>&1 ||
			fail "ping-pong $s: server exited $?: $(tail -n 1 "$f.server.out")"
		[ "$TCP" = 1 ] || continue
		port=$((port + 1))
		f=$out/raw/pp-tcp.$s
		vb-pingpong "$tcp_arg" --server --port $port --cpu 0 >"$f.server.out" 2>&1 ||
			fail "TCP ping-pong $s: server exited $?: $(tail -n 1 "$f.server.out")"
		continue
	fi
	if pingpong "$s" "$f" --client 1; then
		# p99.9 of fewer than 1000 round trips would be their maximum
		st="mean p50 p99"
		[ "$PP_COUNT" -lt 1000 ] || st="$st p999"
		for m in $st; do
			sample "$s" "rtt_${m}_us" "$(jval "$f.client.out" vb-pingpong rtt_us_$m)"
		done
	fi
	[ "$TCP" = 1 ] || continue
	# The same round trips over TCP (TCP_NODELAY is not needed: one
	# request in flight, so Nagle never holds one back).
	port=$((port + 1))
	f=$out/raw/pp-tcp.$s
	pingpong "$s" "$f" --tcp --client 127.0.0.1 &&
		sample "$s" rtt_tcp_mean_us "$(jval "$f.client.out" vb-pingpong rtt_us_mean)"
done

if [ "$TRACE" = 1 ]; then
	for p in $PAYLOADS; do
		stream "traced.$p" "$p" 1 --recv-size 64K --rcvlowat 1 &&
			sample "$p" tput_traced_gbps "$(flows_sum gbps)"
	done
fi
xfer=
xmark done

{
	echo "--- /proc/interrupts"
	cat /proc/interrupts
	echo "--- workqueues"
	ls /sys/bus/workqueue/devices 2>/dev/null
	for w in /sys/bus/workqueue/devices/*; do
		[ -f "$w/cpumask" ] && echo "${w##*/}: cpumask $(cat "$w/cpumask")"
	done
} >>"$out/env.txt" 2>&1

say "$(wc -l <"$samples") samples, $fails failure(s)"
[ $fails -eq 0 ] || exit 1
exit 0
