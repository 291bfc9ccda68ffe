#!/bin/sh
# icount-spread.sh PAYLOADS PACKETS REPEATS [BETWEEN]: the guest half of
# scripts/icount-spread.sh.  Does the spread of guest instructions per
# byte between loopback transfers shrink with the transfer's length?  For
# each of REPEATS passes, every payload in PAYLOADS and every length in
# PACKETS (packets per transfer), one untraced loopback transfer
# (vb-sender on vCPU 1 -> vb-recv on vCPU 0, 64 KiB recv(), as the
# experiment's fixed transfers), counted like them from the receiver's
# accept() to EOF (vb-recv --insn-mark: marks 2k-1 and 2k); the pass
# order rotates the lengths so a drift in the boot does not line up with
# one length.  BETWEEN (none | memory | spin) is what runs, unmarked,
# before every marked transfer: memory writes 256 MiB to tmpfs, removes
# it and drops the page cache, so the page allocator's free lists and
# the slabs the transfer allocates from are stirred; spin burns a random
# 0-32767 shell-loop iterations on vCPU 1, so the transfer starts at
# another point of the guest's clock and of vCPU 1's run-queue time.
# VB_EARLY_SPIN=N (environment): N shell-loop iterations once, before
# the warm-up, on vCPU VB_EARLY_SPIN_CPU (default 1): the host gives each
# boot its own N, so that boots with the same randomness (--seed) start
# their first transfer at different points of their clock.
# VB_EARLY_SLEEP=S (environment): sleep S seconds once, before the
# warm-up: under -icount sleep=off the idle guest's clock warps, so this
# moves where on its clock the transfers start without executing work.
# $RESULTS/steps.tsv: k payload packets bytes status (ok | failed).
# $RESULTS/aslr.txt: the boot's kernel.randomize_va_space (/init sets it
# from VB_ASLR); $RESULTS/sched-features.txt: the scheduler features in
# force (/init sets them from VB_SCHED_FEATURES), where debugfs has them.
. /vb/guest/rotate.sh
out=${RESULTS:?}
payloads=${1:?PAYLOADS} packets=${2:?PACKETS} repeats=${3:?REPEATS}
between=${4:-none}
case $between in none|memory|spin) ;; *) echo "icount-spread: BETWEEN must be none, memory or spin, not '$between'"; exit 2 ;; esac
: >"$out/steps.tsv"
k=0 port=5000 fails=0
echo "randomize_va_space: $(cat /proc/sys/kernel/randomize_va_space)" >"$out/aslr.txt"
echo "$between" >"$out/between.txt"
f=/sys/kernel/debug/sched/features
[ -r $f ] && tr ' ' '\n' <$f | sed '/^$/d' >"$out/sched-features.txt"

# stir BETWEEN: the unmarked step before a marked transfer
stir() {
	case $1 in
	memory)
		dd if=/dev/zero of=/tmp/vb-stir bs=1M count=256 2>/dev/null
		rm -f /tmp/vb-stir
		echo 3 >/proc/sys/vm/drop_caches
		;;
	spin)
		n=$(($(od -An -N2 -tu2 /dev/urandom) % 32768))
		spin "$n"
		echo "$n" >>"$out/spin.txt"
		;;
	esac
}

run() { # run PAYLOAD PACKETS
	pl=$1 np=$2 st=ok
	b=$((pl * np))
	k=$((k + 1)) port=$((port + 1))
	stir "$between"
	vb-recv --port $port --cpu 0 --expect-bytes $b --insn-mark $((2 * k - 1)) \
		>"$out/r$k.rx" 2>&1 &
	rpid=$!
	if ! vb-sender --cid 1 --port $port --bytes $b --buf-size "$pl" --cpu 1 \
		--retry 10 >"$out/r$k.tx" 2>&1; then
		echo "step $k ($pl B x $np): vb-sender failed: $(tail -n 1 "$out/r$k.tx")"
		kill $rpid 2>/dev/null
		st=failed
	fi
	if ! wait $rpid; then
		echo "step $k: vb-recv failed: $(tail -n 1 "$out/r$k.rx")"
		st=failed
	fi
	[ $st = ok ] || fails=$((fails + 1))
	printf '%d\t%s\t%s\t%s\t%s\n' "$k" "$pl" "$np" "$b" $st >>"$out/steps.tsv"
}

spin() { # spin N [CPU]: N shell-loop iterations on vCPU CPU (default 1)
	taskset $((1 << ${2:-1})) sh -c "i=0; while [ \$i -lt $1 ]; do i=\$((i + 1)); done"
}
if [ -n "${VB_EARLY_SPIN:-}" ]; then
	case $VB_EARLY_SPIN in
	*[!0-9]*) echo "icount-spread: VB_EARLY_SPIN must be a number, not '$VB_EARLY_SPIN'"; exit 2 ;;
	esac
	case ${VB_EARLY_SPIN_CPU:-1} in
	0|1) ;;
	*) echo "icount-spread: VB_EARLY_SPIN_CPU must be 0 or 1, not '$VB_EARLY_SPIN_CPU'"; exit 2 ;;
	esac
	spin "$VB_EARLY_SPIN" "${VB_EARLY_SPIN_CPU:-1}"
	echo "$VB_EARLY_SPIN on vCPU ${VB_EARLY_SPIN_CPU:-1}" >"$out/early-spin.txt"
fi
if [ -n "${VB_EARLY_SLEEP:-}" ]; then
	case $VB_EARLY_SLEEP in
	*[!0-9.]* | "" | *.*.*) echo "icount-spread: VB_EARLY_SLEEP must be seconds, not '$VB_EARLY_SLEEP'"; exit 2 ;;
	esac
	sleep "$VB_EARLY_SLEEP"
	echo "$VB_EARLY_SLEEP s" >"$out/early-sleep.txt"
fi

# one warm-up transfer per payload, not marked: the first transfer of a
# boot pays for page-cache and slab warm-up
for pl in $payloads; do
	vb-recv --port 4999 --cpu 0 --expect-bytes $((pl * 4096)) >/dev/null 2>&1 &
	vb-sender --cid 1 --port 4999 --bytes $((pl * 4096)) --buf-size "$pl" --cpu 1 \
		--retry 10 >/dev/null 2>&1
	wait $!
done

i=0
while [ $i -lt "$repeats" ]; do
	for np in $(rotate $i $packets); do
		for pl in $payloads; do
			run "$pl" "$np"
		done
	done
	i=$((i + 1))
done
echo "icount-spread: $k steps, $fails failed"
[ $fails -eq 0 ]
