#!/bin/sh
# tracer-profile.sh KINDS: the guest half of scripts/tracer-profile.sh.
# One 64 B loopback transfer (vb-sender on vCPU 1 -> vb-recv on vCPU 0,
# 1 MiB: 16384 packets) per kind, marked from inside the command the
# tracer runs, for the plugin's block profile: where the tracer's own
# instructions go.  KINDS, comma-separated, in order:
#   untraced                the reference
#   full, light             vsockbatch record -m MODE
#   fullevery               -m full --sample 1 (every window timed)
#   fullkp, fulleverykp     the same with VSOCKBATCH_FORCE_KPROBE=1
# A warm-up transfer (unmarked) goes first, so the first kind does not
# pay the cold caches.  $RESULTS/marks.tsv: "first_mark name.64 64
# bytes"; $RESULTS/kallsyms-KIND.txt: /proc/kallsyms's module and BPF
# lines, read while KIND's tracer is attached (before its first mark).
out=${RESULTS:?}
kinds=${1:?KINDS}
b=1048576
k=0 port=6000 fails=0

xfer() { # xfer MARK_A MARK_B: one transfer, marked when MARK_A is set
	port=$((port + 1))
	vb-recv --port $port --cpu 0 --expect-bytes $b >/dev/null 2>&1 &
	[ -z "$1" ] || vb-mark "$1"
	vb-sender --cid 1 --port $port --bytes $b --buf-size 64 --cpu 1 \
		--retry 10 >/dev/null 2>&1 || return 1
	wait $! || return 1
	[ -z "$2" ] || vb-mark "$2"
}

if [ "$kinds" = --xfer ]; then
	# the modules' and, while the tracer is attached, its programs' and
	# trampolines' symbols ("[bpf]"), for the profile's names
	grep '\[' /proc/kallsyms >"$out/kallsyms-$5.txt"
	port=$4
	xfer "$2" "$3"
	exit
fi
: >"$out/marks.tsv"
xfer "" "" || { echo "tracer-profile: warm-up transfer failed"; exit 1; }
for kind in $(echo "$kinds" | tr ',' ' '); do
	k=$((k + 1))
	a=$((2 * k - 1))
	case $kind in
	untraced) set -- ;;
	*) m=${kind%kp} kp=
		[ "$m" = "$kind" ] || kp=VSOCKBATCH_FORCE_KPROBE=1
		smp=
		[ "$m" != fullevery ] || m=full smp="--sample 1"
		set -- env $kp vsockbatch record -m "$m" $smp -o "$out/$kind.json" -- ;;
	esac
	"$@" sh "$0" --xfer $a $((a + 1)) $((port + 10 * k)) "$kind" \
		>"$out/$kind.log" 2>&1 || { echo "tracer-profile: $kind failed"; fails=$((fails + 1)); continue; }
	echo "$a $kind.64 64 $b" >>"$out/marks.tsv"
done
echo "tracer-profile: $k kinds, $fails failed"
[ $fails -eq 0 ]
