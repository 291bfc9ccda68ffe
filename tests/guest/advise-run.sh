#!/bin/sh
# advise-run.sh: the guest half of the advise scenarios (tests/advise-lab.sh
# in make check, scripts/advise-ab.sh for the AB/BA runs): host->guest
# transfers through the lab's vhost-user-vsock device, each received by
# vb-recv with the step's options, traced or not.  The host half is
# scripts/advise-host.sh, which walks the same plan.
#
# The plan is $RESULTS/plan.txt (written by the host before the boot), one
# step a line:
#   NAME TRACED PAYLOAD BYTES PAYLOAD2 BYTES2 [VB-RECV OPTIONS...]
# TRACED 1: under `vsockbatch record` (rec/NAME.json); 0: untraced, with
# `vb-mark` instruction marks around it when the lab's icount mode is on
# (marks 2k-1 and 2k for step k, from 1).  PAYLOAD/BYTES: the host's write
# size (PAYLOAD@RATE: paced to RATE bytes/s) and transfer size; PAYLOAD2/BYTES2 ("-" = none) a second, concurrent
# connection (the starve scenario).  Ports from 4001 (second flow: +500).
# The device interrupt, and with it the RX worker, is pinned to vCPU 1.
#
# VB-RECV OPTIONS "A // B": A for the first receiver, B for the second.
# Output in $RESULTS: rec/*.json, raw/NAME.rx.out (+ .rx2.out), steps.tsv
# (name traced bytes gbps recv_calls seconds gbps-of-the-second-flow).  Exit 0 when every step
# received its bytes, 1 otherwise.
out=${RESULTS:?}
plan=$out/plan.txt
[ -f "$plan" ] || { echo "advise-run: no $plan"; exit 2; }
mkdir -p "$out/raw" "$out/rec" || exit 1
: >"$out/steps.tsv"
fails=0 port=4000 k=0

say() { echo "advise-run: $*"; }
fail() { say "FAIL: $*"; fails=$((fails + 1)); }
jval() { # jval FILE KEY: KEY of vb-recv's JSON line
	grep '^{"tool":"vb-recv"' "$1" | tail -n 1 |
		sed -n "s/.*\"$2\":\"\{0,1\}\([^,\"}]*\)\"\{0,1\}[,}].*/\1/p"
}

dev=$(ls /sys/bus/virtio/drivers/vmw_vsock_virtio_transport/ 2>/dev/null | grep '^virtio' | head -n 1)
irq=$(grep -E "[[:space:]]$dev\$" /proc/interrupts | sed -n 's/^ *\([0-9]*\):.*/\1/p' | head -n 1)
if [ -z "$dev" ] || [ -z "$irq" ] || ! echo 1 >"/proc/irq/$irq/smp_affinity_list"; then
	say "no virtio-vsock device, or cannot pin its interrupt ('$dev', '$irq')"
	exit 1
fi
say "$(uname -r); rx irq $irq pinned to cpu $(cat "/proc/irq/$irq/smp_affinity_list")"
mark() { command -v vb-mark >/dev/null && vb-mark "$1"; }

while read -r name traced p b p2 b2 opts; do
	case $name in ''|'#'*) continue ;; esac
	port=$((port + 1)) k=$((k + 1))
	rx=$out/raw/$name.rx.out
	# "OPTS1 // OPTS2": the second flow's receiver gets its own options
	opts1=${opts%%//*} opts2=${opts#*//}
	# shellcheck disable=SC2086
	set -- vb-recv --port $port --expect-bytes "$b" $opts1
	if [ "$p2" != - ]; then
		# two connections, one recording: the second receiver in the
		# background of a shell the tracer runs
		set -- sh -c "vb-recv --port $((port + 500)) --expect-bytes $b2 $opts2 \
			>$out/raw/$name.rx2.out 2>&1 & $* ; r=\$?; wait \$! || r=1; exit \$r"
	fi
	t0=$(date +%s.%N 2>/dev/null || date +%s)
	if [ "$traced" = 1 ]; then
		vsockbatch record -o "$out/rec/$name.json" --label "step=$name" \
			--label "payload=$p" --label "bytes=$b" -- "$@" >"$rx" 2>&1
	else
		mark $((2 * k - 1))
		"$@" >"$rx" 2>&1
		rc=$?
		mark $((2 * k))
		[ $rc -eq 0 ]
	fi || fail "$name: receiver exited $?: $(tail -n 1 "$rx")"
	t1=$(date +%s.%N 2>/dev/null || date +%s)
	g2=-
	[ "$p2" = - ] || g2=$(jval "$out/raw/$name.rx2.out" gbps)
	printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$name" "$traced" "$b" \
		"$(jval "$rx" gbps)" "$(jval "$rx" recv_calls)" \
		"$(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.3f", b - a }')" \
		"${g2:--}" >>"$out/steps.tsv"
done <"$plan"
say "$k steps, $fails failure(s)"
[ $fails -eq 0 ]
