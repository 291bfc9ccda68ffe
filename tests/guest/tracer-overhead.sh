#!/bin/sh
# tracer-overhead.sh ROUNDS MODES: the guest half of scripts/tracer-overhead.sh.
# What the tracer costs, in guest instructions (QEMU -icount + the lab's
# plugin; marks by vb-mark): per round and payload (64 B, 1 KiB, 64 KiB),
# the same loopback transfer (vb-sender on vCPU 1 -> vb-recv on vCPU 0)
# run untraced ("u") and under `vsockbatch record` in each of MODES
# ("light,full" or "full"), in an order that rotates every round.  Step k
# (from 1) is marked 2k-1 / 2k from inside the command the tracer runs,
# so the tracer's load/attach/drain is not counted, only its work per
# event.  After the rounds, one run per mode and payload with --bpf-stats
# (kind "L"/"F": BPF run time per program run; not used for the
# instruction counts, bpf_stats itself reads the clock twice per run).
# $RESULTS/steps.tsv: k kind payload bytes.
# VB_OVERHEAD_TRACER=export: the traced steps run under `vsockbatch
# export` (under-export.sh: maps read every 0.1 s) instead of record, and
# there are no --bpf-stats steps (the BPF programs are record's).
. /vb/guest/rotate.sh
out=${RESULTS:?}
rounds=${1:?ROUNDS} modes=${2:?MODES}
: >"$out/steps.tsv"
k=0 port=5000 fails=0
tracer=${VB_OVERHEAD_TRACER:-record}

bytes_for() { # payload -> transfer size: ~16k packets at 64 B, more above
	case $1 in
	64) echo 1048576 ;;
	1024) echo 4194304 ;;
	*) echo 16777216 ;;
	esac
}

run() { # run KIND PAYLOAD
	kind=$1 pl=$2
	b=$(bytes_for "$pl")
	k=$((k + 1)) port=$((port + 1))
	set -- sh -c "vb-recv --port $port --cpu 0 --expect-bytes $b >$out/r$k.rx 2>&1 &
		vb-mark $((2 * k - 1))
		vb-sender --cid 1 --port $port --bytes $b --buf-size $pl --cpu 1 --retry 10 >$out/r$k.tx 2>&1 || exit 1
		wait \$! || exit 1
		vb-mark $((2 * k))"
	case $tracer$kind in
	exportl) set -- sh /vb/guest/under-export.sh light "$@" ;;
	exportf) set -- sh /vb/guest/under-export.sh full "$@" ;;
	*l) set -- vsockbatch record -m light -o "$out/l$k.json" --label payload=$pl -- "$@" ;;
	*f) set -- vsockbatch record -m full -o "$out/f$k.json" --label payload=$pl -- "$@" ;;
	*L) set -- vsockbatch record -m light --bpf-stats -o "$out/L$k.json" --label payload=$pl -- "$@" ;;
	*F) set -- vsockbatch record -m full --bpf-stats -o "$out/F$k.json" --label payload=$pl -- "$@" ;;
	esac
	"$@" >"$out/r$k.log" 2>&1 || { echo "step $k ($kind $pl) failed"; fails=$((fails + 1)); }
	printf '%d\t%s\t%s\t%s\n' "$k" "$kind" "$pl" "$b" >>"$out/steps.tsv"
}

kinds="u"
case $modes in *light*) kinds="$kinds l" ;; esac
case $modes in *full*) kinds="$kinds f" ;; esac
i=0
while [ $i -lt "$rounds" ]; do
	for pl in 64 1024 65536; do
		# round i starts at the (i mod n)-th kind
		for kind in $(rotate $i $kinds); do
			run "$kind" "$pl"
		done
	done
	i=$((i + 1))
done
for pl in 64 1024 65536; do
	[ "$tracer" = record ] || break
	case $modes in *light*) run L "$pl" ;; esac
	case $modes in *full*) run F "$pl" ;; esac
done
echo "tracer-overhead: $k steps, $fails failed"
[ $fails -eq 0 ]
