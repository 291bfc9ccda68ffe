#!/bin/sh
# tracer-profile.sh KINDS [ROUNDS [BYTES]]: the guest half of
# scripts/tracer-cost.sh.  64 B loopback transfers (vb-sender on vCPU 1
# -> vb-recv on vCPU 0, BYTES each, default 1 MiB: 16384 packets; on a
# 1-vCPU boot both on vCPU 0),
# marked from inside the command the tracer runs, for the instruction
# counts and the plugin's block profile.  KINDS, comma-separated, run in
# the order given, ROUNDS times (default 1), each round starting one kind
# later than the one before:
#   untraced                the reference
#   full, light             vsockbatch record -m MODE
#   fullevery               -m full --sample 1 (every window timed)
#   fullduty, fulldutyN     -m full --duty 16 (window hooks 1 slice in 16),
#                           --duty N
#   fullkp, fulleverykp     the same with VSOCKBATCH_FORCE_KPROBE=1
# A warm-up transfer (unmarked, at most 4 MiB) goes first, so the first
# kind does not pay the cold caches.  $RESULTS/marks.tsv: "first_mark NAME.64 64 bytes",
# NAME = KIND followed by the round's letter (a, b, ...);
# $RESULTS/kallsyms-NAME.txt: /proc/kallsyms's module and BPF lines, read
# while the tracer is attached (before the first mark);
# $RESULTS/kallsyms-kernel.txt: its other lines (the kernel's text).
out=${RESULTS:?}
kinds=${1:?KINDS}
rounds=${2:-1}
b=${3:-1048576}
k=0 port=6000 fails=0
# the sender's vCPU: 1, or 0 where the boot has one (Debian 6.1 under
# -icount, which stops at SMP bring-up with two)
scpu=$(($(grep -c ^processor /proc/cpuinfo) > 1 ? 1 : 0))

xfer() { # xfer MARK_A MARK_B: one transfer, marked when MARK_A is set
	port=$((port + 1))
	vb-recv --port $port --cpu 0 --expect-bytes $b >/dev/null 2>&1 &
	[ -z "$1" ] || vb-mark "$1"
	vb-sender --cid 1 --port $port --bytes $b --buf-size 64 --cpu $scpu \
		--retry 10 >/dev/null 2>&1 || return 1
	wait $! || return 1
	[ -z "$2" ] || vb-mark "$2"
}

if [ "$kinds" = --xfer ]; then
	# the modules' and, while the tracer is attached, its programs' and
	# trampolines' symbols ("[bpf]"), for the profile's names
	grep '\[' /proc/kallsyms >"$out/kallsyms-$5.txt"
	port=$4 b=$6
	xfer "$2" "$3"
	exit
fi
case $rounds in [1-9] | [1-2][0-9]) ;; *) echo "tracer-profile: ROUNDS 1..26, not '$rounds'"; exit 2 ;; esac
: >"$out/marks.tsv"
# the kernel's own text symbols as this boot placed them: Debian ships
# a stub System.map (the real one is in the -dbg package)
grep -v '\[' /proc/kallsyms >"$out/kallsyms-kernel.txt"
b0=$b
[ "$b" -le 4194304 ] || b=4194304
xfer "" "" || { echo "tracer-profile: warm-up transfer failed"; exit 1; }
b=$b0
set -f
list=$(echo "$kinds" | tr ',' ' ')
n=$(echo $list | wc -w)
r=0
while [ $r -lt "$rounds" ]; do
	letter=$(echo abcdefghijklmnopqrstuvwxyz | cut -c$((r + 1)))
	i=0
	while [ $i -lt "$n" ]; do
		kind=$(echo $list | cut -d' ' -f$(((r + i) % n + 1)))
		i=$((i + 1))
		k=$((k + 1))
		a=$((2 * k - 1))
		name=$kind$letter
		case $kind in
		untraced) set -- ;;
		*) m=${kind%kp} kp=
			[ "$m" = "$kind" ] || kp=VSOCKBATCH_FORCE_KPROBE=1
			smp=
			[ "$m" != fullevery ] || m=full smp="--sample 1"
			case $m in fullduty*) smp="--duty ${m#fullduty}" m=full
				[ "$smp" != "--duty " ] || smp="--duty 16" ;;
			esac
			set -- env $kp vsockbatch record -m "$m" $smp -o "$out/$name.json" -- ;;
		esac
		"$@" sh "$0" --xfer $a $((a + 1)) $((port + 10 * k)) "$name" "$b" \
			>"$out/$name.log" 2>&1 || { echo "tracer-profile: $name failed"; fails=$((fails + 1)); continue; }
		echo "$a $name.64 64 $b" >>"$out/marks.tsv"
	done
	r=$((r + 1))
done
echo "tracer-profile: $k transfers, $fails failed"
[ $fails -eq 0 ]
