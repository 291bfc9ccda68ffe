#!/bin/sh
# advise-overhead.sh ROUNDS BYTES: the guest half of scripts/advise-overhead.sh.
# What the tracer's additions for advise cost, in guest instructions
# (QEMU -icount + the lab's plugin; marks by vb-mark): per round, the same
# 64 B loopback transfer (vb-sender on vCPU 1 -> vb-recv on vCPU 0) run
# untraced ("u"), under the tracer before the additions
# (`vsockbatch-base record`, "o") and under the current one ("n"), in an
# order that rotates every round.  Step k (from 1) is marked 2k-1 / 2k
# from inside the command the tracer runs; BYTES in bytes.
# $RESULTS/steps.tsv: k name bytes.
out=${RESULTS:?}
rounds=${1:?ROUNDS} bytes=${2:?BYTES}
: >"$out/steps.tsv"
k=0 port=5000 fails=0
run() { # run KIND
	k=$((k + 1)) port=$((port + 1))
	# The marks are inside the (traced) command: they count the transfer
	# and the tracer's work per event, not its start-up or exit.
	set -- sh -c "vb-recv --port $port --cpu 0 --expect-bytes $bytes >$out/r$k.rx 2>&1 &
		vb-mark $((2 * k - 1))
		vb-sender --cid 1 --port $port --bytes $bytes --buf-size 64 --cpu 1 --retry 10 >$out/r$k.tx 2>&1 || exit 1
		wait \$! || exit 1
		vb-mark $((2 * k))"
	case $KIND in
	o) set -- vsockbatch-base record -o "$out/o$k.json" -- "$@" ;;
	n) set -- vsockbatch record -o "$out/n$k.json" -- "$@" ;;
	esac
	"$@" >"$out/r$k.log" 2>&1 || { echo "step $k ($KIND) failed"; fails=$((fails + 1)); }
	printf '%d\t%s\t%s\n' "$k" "$KIND" "$bytes" >>"$out/steps.tsv"
}
i=0
while [ $i -lt "$rounds" ]; do
	case $((i % 3)) in
	0) order="u o n" ;; 1) order="o n u" ;; *) order="n u o" ;;
	esac
	for KIND in $order; do run; done
	i=$((i + 1))
done
[ $fails -eq 0 ]
