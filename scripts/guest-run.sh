#!/bin/bash
# guest-run.sh: boot a lab kernel under QEMU TCG, run one script inside,
# bring its results back.
#
# The guest's /results is OUTDIR on the host (virtio-9p), written live.
# Kernels without built-in 9p (Debian's: their cache entry's `transport`
# says "blk") get a raw virtio-blk disk instead: the guest's /init writes
# /results onto it as one tar when the script ends, and this script
# unpacks it into OUTDIR (so nothing is live there, and a guest that hangs
# returns only the console).
# The serial console is streamed to OUTDIR/console.log.  Exit status: the
# script's own, or
#   2  bad usage           3  kernel splat (oops, BUG, WARNING, lockdep...)
#   4  timeout / hang      5  the guest never reached /init
# With -U the guest also gets a vhost-user-vsock-pci device served by
# build/vhost-user-vsock (host<->guest vsock through the guest's virtio RX
# worker), and -H runs a host-side command next to the guest.  With -N
# the guest also gets a virtio-net NIC on a tap device in a private
# network namespace, which QEMU and the host command run in: nothing of
# it reaches the machine's own network.
# Never -accel kvm: this machine's KVM is a PVM hypervisor on which stock
# kernels hang.
set -uo pipefail
. "$(dirname "$0")/lib.sh"
# -N's private network: one /24 per namespace, so runs side by side do
# not collide (each namespace has its own).
VB_NET_TAP=vbtap0 VB_NET_HOST=10.0.100.1 VB_NET_GUEST=10.0.100.2

usage() {
	cat >&2 <<USAGE
usage: ${0##*/} -k VARIANT [-s SMP] [-m MEM_MB] [-t TIMEOUT_S] [-o OUTDIR]
                [-C wall|icount] [-e KEY=VALUE]... [-v] SCRIPT [ARGS...]
  -k VARIANT  lab kernel (baseline p1-3 patched debug baseline-debug); built if missing
  -K DIR      a kernel cache directory instead of a variant
  -s SMP      vCPUs (default 2)         -m MEM_MB  memory (default 1024)
  -t SECONDS  stop the guest after this long (default 600)
  -o OUTDIR   results directory (default: a new one under /tmp)
  -e K=V      environment variable for SCRIPT (repeatable)
  -C CLOCK    wall (default): TCG at full speed, the guest's clock is the
              host's; icount: -icount shift=0,sleep=off, one guest
              instruction = 1 ns of guest time, all vCPUs in one host
              thread, and the vb-insns plugin writes per-vCPU instruction
              counts at each guest mark (vb-mark) to OUTDIR/insns.tsv
  -v          also copy the console to stderr
  -U          attach a vhost-user-vsock-pci device (build/vhost-user-vsock)
  -c CID      its guest CID (default 3)
  -P BYTES    its largest packet to the guest (back-end --rx-pkt-max)
              (env VB_VU_ARGS: more back-end options, e.g. --no-event-idx;
              VB_VU_DIR: use the back-end already serving DIR/vu.sock, DIR/uds;
              VB_VU_RECONNECT=N: QEMU's chardev reconnect=N - QEMU 7.2's
              vhost-user-vsock fails at start with it, "Failed to set msg fds")
  (env VB_QEMU_SEED=N: the guest's randomness from seed N - QEMU -seed,
              which RDRAND and QEMU's own guest-random draws use - and an
              RTC that starts at a fixed date on the guest's clock: boots
              that differ only in what the host's timing gives them)
  (env VB_QEMU_SINGLESTEP=1: QEMU -singlestep, one guest instruction
              per translation block: what the guest executes and when the
              vCPUs switch no longer depend on how TCG happened to cut
              the code into blocks; about 4x slower here)
  (env VB_INSNS_PROFILE=1, with -C icount: the plugin also writes the
              kernel's instructions per translation block and vCPU at
              each mark to OUTDIR/profile.tsv: scripts/insns-profile.sh
              names their functions)
  (env VB_KERNEL_APPEND="PARAMS": more kernel parameters, e.g.
              "earlyprintk=ttyS0 initcall_debug" for a boot that stops)
  (env VB_GUEST_OVERLAY=DIR: DIR is copied over the image's root last,
              e.g. a \`make install DESTDIR=DIR\` tree; its executables
              must be static)
  -H COMMAND  host-side command (bash -c), started once the guest reached
              /init; env VB_UDS = the device's host endpoint (write
              "CONNECT <port>"), VB_OUTDIR, VB_GUEST_PID (gone = the
              guest stopped); output in OUTDIR/host.log.  The run fails
              if it fails; it is killed 30 s after the guest stopped.
  -N          a virtio-net-pci NIC on tap device $VB_NET_TAP in a network
              namespace of its own (created now, deleted at exit): host
              end $VB_NET_HOST/24, guest eth0 $VB_NET_GUEST/24 (set up by
              /init); QEMU and the -H command run in the namespace, with
              env VB_NET_GUEST = the guest's address
USAGE
	exit 2
}

VARIANT= KDIR= SMP=2 MEM=1024 TIMEOUT=600 OUTDIR= VERBOSE=0
VU=0 VU_CID=3 VU_PKT= HOSTCMD= CLOCK=wall NET=0
VB_GUEST_ENV=
while getopts k:K:s:m:t:o:e:vUc:P:H:C:Nh opt; do
	case $opt in
	k) VARIANT=$OPTARG ;;
	K) KDIR=$OPTARG ;;
	s) SMP=$OPTARG ;;
	m) MEM=$OPTARG ;;
	t) TIMEOUT=$OPTARG ;;
	o) OUTDIR=$OPTARG ;;
	e) VB_GUEST_ENV+="$OPTARG"$'\n' ;;
	v) VERBOSE=1 ;;
	U) VU=1 ;;
	c) VU_CID=$OPTARG ;;
	P) VU_PKT=$OPTARG ;;
	H) HOSTCMD=$OPTARG ;;
	C) CLOCK=$OPTARG ;;
	N) NET=1 ;;
	*) usage ;;
	esac
done
shift $((OPTIND - 1))
[ $# -ge 1 ] || usage
SCRIPT=$1
shift
for n in "$SMP" "$MEM" "$TIMEOUT"; do
	[[ "$n" =~ ^[1-9][0-9]*$ ]] || { echo "${0##*/}: '$n' is not a positive number" >&2; exit 2; }
done
[ -f "$SCRIPT" ] || { echo "${0##*/}: guest script '$SCRIPT' not found" >&2; exit 2; }
[ -z "${VB_GUEST_OVERLAY:-}" ] || [ -d "$VB_GUEST_OVERLAY" ] ||
	{ echo "${0##*/}: VB_GUEST_OVERLAY=$VB_GUEST_OVERLAY is not a directory" >&2; exit 2; }
case $CLOCK in
wall) ;;
icount)
	[ -f "$VB_ROOT/build/host/vb-insns.so" ] ||
		{ echo "${0##*/}: build/host/vb-insns.so missing (run make)" >&2; exit 2; } ;;
*) echo "${0##*/}: -C must be wall or icount, not '$CLOCK'" >&2; exit 2 ;;
esac
if [ "$VU" = 1 ]; then
	[[ "$VU_CID" =~ ^[0-9]+$ ]] && [ "$VU_CID" -ge 3 ] ||
		{ echo "${0##*/}: guest CID must be a number >= 3, not '$VU_CID'" >&2; exit 2; }
	[ -z "$VU_PKT" ] || [[ "$VU_PKT" =~ ^[1-9][0-9]*$ ]] ||
		{ echo "${0##*/}: -P needs a byte count, not '$VU_PKT'" >&2; exit 2; }
	[ -x "$VB_ROOT/build/vhost-user-vsock" ] ||
		{ echo "${0##*/}: build/vhost-user-vsock missing (run make)" >&2; exit 2; }
fi
if [ -z "$KDIR" ]; then
	[ -n "$VARIANT" ] || usage
	variant_spec "$VARIANT" || exit 2
	KDIR=$("$VB_ROOT/scripts/kernel-build.sh" "$VARIANT") || exit 1
fi
[ -f "$KDIR/bzImage" ] || { echo "${0##*/}: $KDIR has no bzImage" >&2; exit 2; }
TRANSPORT=$(cat "$KDIR/transport" 2>/dev/null || echo 9p)
case $TRANSPORT in
9p|blk) ;;
*) echo "${0##*/}: $KDIR/transport: unknown results transport '$TRANSPORT'" >&2; exit 2 ;;
esac

[ -n "$OUTDIR" ] || OUTDIR=$(mktemp -d /tmp/vb-guest.XXXXXX)
mkdir -p "$OUTDIR" || exit 1
OUTDIR=$(cd "$OUTDIR" && pwd)
rm -f "$OUTDIR/.vb-exit" "$OUTDIR/console.log"
# Unix socket paths must stay short (108 bytes): keep them in /tmp.
work=$(mktemp -d /tmp/vb-run.XXXXXX)
initrd=$work/initrd.gz
bgpids=() netns=
cleanup() {
	local p
	for p in "${bgpids[@]}"; do kill "$p" 2>/dev/null; done
	wait 2>/dev/null
	# after QEMU is gone: deleting the namespace deletes its tap device
	[ -z "$netns" ] || ip netns del "$netns" 2>/dev/null
	rm -rf "$work"
}
trap cleanup EXIT
# -N: the namespace first, so /init is told the guest's address
nsexec=()
# A runner killed by SIGKILL (or a machine reset) cannot run its trap:
# its namespace and tap stay behind.  A namespace is named after its
# runner's PID, so one whose PID is gone, or no longer a guest-run.sh,
# is stale; removing it here keeps leaks from piling up.
reap_stale_netns() {
	local n pid
	for n in $(ip netns list 2>/dev/null | sed -n 's/^\(vb-guest-[0-9]*\).*/\1/p'); do
		pid=${n#vb-guest-}
		[ "$pid" = $$ ] && continue
		grep -qs guest-run.sh "/proc/$pid/cmdline" && continue
		ip netns del "$n" 2>/dev/null &&
			echo "${0##*/}: -N: removed $n, left by a runner that is gone" >&2
	done
}
if [ "$NET" = 1 ]; then
	reap_stale_netns
	netns=vb-guest-$$
	if ! ip netns add "$netns" 2>"$work/netns.err"; then
		netns=
		echo "${0##*/}: -N: cannot create a network namespace: $(head -n 1 "$work/netns.err") (needs root and iproute2)" >&2
		exit 1
	fi
	nsexec=(ip netns exec "$netns")
	if ! { "${nsexec[@]}" ip link set lo up &&
	       "${nsexec[@]}" ip tuntap add dev "$VB_NET_TAP" mode tap &&
	       "${nsexec[@]}" ip addr add "$VB_NET_HOST/24" dev "$VB_NET_TAP" &&
	       "${nsexec[@]}" ip link set "$VB_NET_TAP" up; } 2>"$work/netns.err"; then
		echo "${0##*/}: -N: cannot set up tap device $VB_NET_TAP: $(head -n 1 "$work/netns.err")" >&2
		exit 1
	fi
	VB_GUEST_ENV+="VB_NET_ADDR=$VB_NET_GUEST/24"$'\n'
fi
export VB_GUEST_ENV
# 2: bad input (an overlay it refuses), else 1
"$VB_ROOT/scripts/initramfs.sh" "$KDIR" "$initrd" "$SCRIPT" "$@" || exit $(($? == 2 ? 2 : 1))

log="$OUTDIR/console.log"
# The guest has no ACPI, hence no HPET or PM timer: TSC calibration fails
# under TCG and the kernel falls back to jiffies, a clock that moves in
# 4 ms steps (round trips and lock hold times all read 0).  TCG's guest
# TSC runs at the host's TSC rate, so tell the guest that rate and that
# the TSC is reliable.
# Under -icount shift=0 the guest's TSC counts instructions: 1 GHz.
if [ "$CLOCK" = icount ]; then
	tsc_khz=1000000
else
	tsc_khz=$(awk -F: '/^cpu MHz/ { printf "%d", $2 * 1000; exit }' /proc/cpuinfo)
fi
[[ "$tsc_khz" =~ ^[1-9][0-9]+$ ]] || { echo "${0##*/}: cannot read the host CPU clock rate from /proc/cpuinfo" >&2; exit 1; }
# no_timer_check: under a loaded host, TCG can be too slow for the
# kernel's IO-APIC timer self-test, which then panics the boot ("IO-APIC +
# timer doesn't work!", seen twice at a load average of 17); the timer
# works, the test's time window is what fails, as in any slow VM.
# nokaslr with a block profile: its kernel addresses resolve through
# System.map, which a randomized base (Debian's kernels) would shift;
# the lab's kernels have no CONFIG_RANDOMIZE_BASE, so there it is a no-op.
kaslr=
[ "${VB_INSNS_PROFILE:-0}" != 1 ] || kaslr=" nokaslr"
# VB_KERNEL_APPEND: more kernel parameters (a boot being debugged)
case ${VB_KERNEL_APPEND:-} in
*[\'\"\\]*) echo "${0##*/}: VB_KERNEL_APPEND must not hold quotes or backslashes" >&2; exit 2 ;;
esac
[ -z "${VB_KERNEL_APPEND:-}" ] || kaslr="$kaslr $VB_KERNEL_APPEND"
qemu=(qemu-system-x86_64 -accel tcg -cpu max
	-smp "$SMP,sockets=$SMP,cores=1,threads=1" -m "$MEM"
	-nographic -no-reboot -nodefaults -serial stdio
	-kernel "$KDIR/bzImage" -initrd "$initrd"
	-append "console=ttyS0 panic=-1 loglevel=6 no_timer_check tsc=reliable tsc_early_khz=$tsc_khz vb.results=$TRANSPORT$kaslr")
if [ "$TRANSPORT" = 9p ]; then
	qemu+=(-virtfs "local,path=$OUTDIR,mount_tag=results,security_model=none,id=results")
else
	# Sparse: costs only what the guest writes.
	disk=$work/results.img
	truncate -s "${VB_RESULTS_DISK_MB:-512}M" "$disk" || exit 1
	qemu+=(-drive "file=$disk,format=raw,if=none,id=results,cache=unsafe"
		-device virtio-blk-pci,drive=results)
fi
# icount: the guest's clock is its instruction count, not the host's
# time, so a busy host slows the run but does not change what it
# measures; sleep=off warps the clock over idle time instead of waiting.
# The plugin's rows are the cost metric (scripts/insns-delta.sh).
# VB_ICOUNT_SLEEP=on lets an idle guest's clock follow the host's instead
# (its timers then fire at their real rate, not back to back over each
# warp: host->guest, where the guest mostly waits, see scripts/experiment.sh
# --icount-sleep).
if [ -n "${VB_QEMU_SEED:-}" ]; then
	[[ "$VB_QEMU_SEED" =~ ^[0-9]+$ ]] ||
		{ echo "${0##*/}: VB_QEMU_SEED must be a number, not '$VB_QEMU_SEED'" >&2; exit 2; }
	qemu+=(-seed "$VB_QEMU_SEED" -rtc base=2026-01-01T00:00:00,clock=vm)
fi
case ${VB_QEMU_SINGLESTEP:-0} in
0) ;;
1) qemu+=(-singlestep) ;;
*) echo "${0##*/}: VB_QEMU_SINGLESTEP must be 0 or 1, not '$VB_QEMU_SINGLESTEP'" >&2; exit 2 ;;
esac
if [ "$CLOCK" = icount ]; then
	case ${VB_ICOUNT_SLEEP:-off} in
	on|off) ;;
	*) echo "${0##*/}: VB_ICOUNT_SLEEP must be on or off, not '$VB_ICOUNT_SLEEP'" >&2; exit 2 ;;
	esac
	case ${VB_INSNS_PROFILE:-0} in
	0) prof= ;;
	1) prof=,profile=$OUTDIR/profile.tsv ;;
	*) echo "${0##*/}: VB_INSNS_PROFILE must be 0 or 1, not '$VB_INSNS_PROFILE'" >&2; exit 2 ;;
	esac
	rm -f "$OUTDIR/insns.tsv" "$OUTDIR/profile.tsv"
	qemu+=(-icount "shift=0,sleep=${VB_ICOUNT_SLEEP:-off}"
		-plugin "$VB_ROOT/build/host/vb-insns.so,outfile=$OUTDIR/insns.tsv$prof")
fi
if [ "$VU" = 1 ]; then
	# vhost-user needs guest memory the back-end can map: a shared memfd.
	# VB_VU_DIR: a back-end already serving DIR/vu.sock and DIR/uds
	# (started with --reconnect: one back-end for several guests).
	vudir=${VB_VU_DIR:-$work}
	qemu+=(-object "memory-backend-memfd,id=mem,size=${MEM}M,share=on"
		-numa node,memdev=mem
		-chardev "socket,id=vu,path=$vudir/vu.sock${VB_VU_RECONNECT:+,reconnect=$VB_VU_RECONNECT}"
		-device vhost-user-vsock-pci,chardev=vu)
	# --flow-stats: each host -> guest flow's no-credit time in
	# backend.log (scripts/sender-stall.sh reads it)
	vuargs=(--socket "$work/vu.sock" --uds "$work/uds" --guest-cid "$VU_CID"
		--flow-stats)
	[ -z "$VU_PKT" ] || vuargs+=(--rx-pkt-max "$VU_PKT")
	# VB_VU_ARGS: more back-end options (e.g. --no-event-idx for an A/B run)
	if [ -n "${VB_VU_ARGS:-}" ]; then
		read -ra more <<<"$VB_VU_ARGS"
		vuargs+=("${more[@]}")
	fi
	if [ -z "${VB_VU_DIR:-}" ]; then
		"$VB_ROOT/build/vhost-user-vsock" "${vuargs[@]}" 2>"$OUTDIR/backend.log" &
		backend=$!
		bgpids+=("$backend")
	fi
	for _ in $(seq 50); do [ -S "$vudir/vu.sock" ] && break; sleep 0.1; done
	[ -S "$vudir/vu.sock" ] ||
		{ echo "${0##*/}: vhost-user back-end did not start (see $OUTDIR/backend.log)" >&2; exit 1; }
fi

if [ "$NET" = 1 ]; then
	# QEMU's own virtio-net datapath (no vhost-net: that would need the
	# machine's /dev/vhost-net); the tap's virtio header keeps checksum
	# and segmentation offloads, as a user's tap set-up has them.  Added
	# last, so the other devices keep their PCI slots, at slot 0x11,
	# whose INTx line is 9p's (IRQ 10), not the vsock device's (11): the
	# guest has no MSI, and a shared line runs both drivers' handlers on
	# every interrupt (slots 0x10 and 0x13 share the vsock device's).
	qemu+=(-netdev "tap,id=net0,ifname=$VB_NET_TAP,script=no,downscript=no,vhost=off"
		-device virtio-net-pci,netdev=net0,addr=0x11,romfile=)
fi
start=$(date +%s)
: >"$log"
# (ip netns exec execs QEMU in place: it stays timeout's child)
timeout -k 5 "$TIMEOUT" "${nsexec[@]}" "${qemu[@]}" </dev/null >"$log" 2>&1 &
qpid=$!
[ "$VERBOSE" = 1 ] && { tail -f "$log" --pid "$qpid" >&2 & }
hrc=
if [ -n "$HOSTCMD" ]; then
	# The host side starts once the guest is up; it finds the device's
	# host endpoint in VB_UDS and must itself retry until the guest
	# listens.  Its status is kept for after the guest has stopped.
	(
		while ! grep -q '^VB-INIT:' "$log" 2>/dev/null; do
			kill -0 "$qpid" 2>/dev/null || exit 125
			sleep 0.2
		done
		[ "$NET" = 1 ] && export VB_NET_GUEST
		VB_UDS="${vudir:-$work}/uds" VB_OUTDIR="$OUTDIR" VB_GUEST_PID=$qpid \
			"${nsexec[@]}" bash -c "$HOSTCMD"
	) >"$OUTDIR/host.log" 2>&1 &
	hpid=$!
	bgpids+=("$hpid")
fi
wait "$qpid"
qrc=$?
if [ -n "$HOSTCMD" ]; then
	# A host command still waiting for a guest that is gone gets 30 s,
	# then it and everything it started are killed (status 143 or so).
	kill_tree() { local c; for c in $(pgrep -P "$1"); do kill_tree "$c"; done; kill "$1" 2>/dev/null; }
	for _ in $(seq 150); do kill -0 "$hpid" 2>/dev/null || break; sleep 0.2; done
	if kill -0 "$hpid" 2>/dev/null; then
		echo "${0##*/}: host command still running 30 s after the guest stopped: killed" >>"$OUTDIR/host.log"
		kill_tree "$hpid"
	fi
	wait "$hpid"
	hrc=$?
	echo "$hrc" >"$OUTDIR/host.exit"
fi
elapsed=$(($(date +%s) - start))
# An empty disk (the guest never got to write it) unpacks to nothing.
if [ "$TRANSPORT" = blk ] && ! tar -xf "$disk" -C "$OUTDIR" 2>"$work/untar.err"; then
	echo "${0##*/}: results disk: $(head -n 1 "$work/untar.err")" >&2
fi

fail() {
	echo "${0##*/}: $1 (kernel $KDIR, ${elapsed}s); last console lines:" >&2
	tail -n 30 "$log" | sed 's/^/  | /' >&2
	echo "${0##*/}: console log: $log" >&2
	exit "$2"
}

# What the kernel says wins over what the script says: a splat during a
# passing test is a failure.
splat='Kernel panic|Oops|BUG:|WARNING:|circular locking|recursive locking'
splat+='|inconsistent lock state|lock held when returning|leaked lock'
splat+='|general protection fault|soft lockup|blocked for more than'
splat+='|rcu_.*detected stall|UBSAN:|Call Trace:'
if grep -Eq "$splat" "$log"; then
	grep -E -m1 "$splat" "$log" >&2
	fail "kernel splat in the console" 3
fi
if ! grep -q '^VB-INIT:' "$log"; then
	[ "$qrc" = 124 ] || [ "$qrc" = 137 ] &&
		fail "guest never reached /init within ${TIMEOUT}s" 5
	fail "guest never reached /init (qemu exit $qrc)" 5
fi
if [ ! -f "$OUTDIR/.vb-exit" ]; then
	if [ "$qrc" = 124 ] || [ "$qrc" = 137 ]; then
		fail "timeout after ${TIMEOUT}s: the guest script did not finish" 4
	fi
	fail "guest stopped before the script finished (qemu exit $qrc)" 4
fi
rc=$(cat "$OUTDIR/.vb-exit")
[[ "$rc" =~ ^[0-9]+$ ]] || fail "unreadable exit status '$rc'" 1
if [ -n "$hrc" ] && [ "$hrc" != 0 ] && [ "$rc" = 0 ]; then
	echo "${0##*/}: host command failed (exit $hrc); its output:" >&2
	tail -n 10 "$OUTDIR/host.log" | sed 's/^/  | /' >&2
	rc=1
fi
echo "${0##*/}: script exit $rc after ${elapsed}s; results in $OUTDIR" >&2
echo "$OUTDIR"
exit "$rc"
