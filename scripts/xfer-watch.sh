#!/bin/bash
# xfer-watch.sh: the host's view of every transfer of one experiment run.
#
# Started next to the guest (scripts/guest-run.sh -H, or by
# scripts/h2g-host.sh), it follows OUTDIR/console.log live: the guest
# script (tests/guest/experiment-run.sh) frames each transfer with
# "VB-XFER begin NAME" and "VB-XFER end NAME" lines on the serial console,
# and at each of them this samples
#   /proc/stat's cpu line       the host's busy, steal and total ticks
#   /proc/QEMU/stat             QEMU's user + system ticks (all threads)
#   /proc/BACKEND/stat          (h2g) the vhost-user-vsock back-end's
# so that every transfer has the host load it ran under.  A sub-second
# TCG transfer on a shared 2-core host is only as good as that load, and
# the experiment's exclusion rule (manifest.json) is applied to it.
# The guest writes them straight to /dev/console (a line through its
# script's stdout pipe waits for `tee` to be scheduled, i.e. until the
# transfer's busy vCPUs let it); they reach the host a few ms late
# (UART -> QEMU -> file -> inotify), which is small beside transfers of
# seconds.
#
# Environment: VB_OUTDIR, VB_GUEST_PID (guest-run.sh -H: the guest's
# `timeout` process; QEMU is its child), VB_UDS (h2g: names the back-end).
# Output: VB_OUTDIR/host-xfer.tsv, a header then one row per transfer:
#   name t_begin t_end d_total d_busy d_steal d_qemu d_backend ncpu
# (times: host epoch seconds; d_*: USER_HZ ticks between begin and end).
# Ends at "VB-XFER done" or when the guest is gone.  Exit 0, or 2 on a
# bad environment.
set -uo pipefail
[ -n "${VB_OUTDIR:-}" ] && [ -n "${VB_GUEST_PID:-}" ] ||
	{ echo "xfer-watch: run me through scripts/guest-run.sh -H (VB_OUTDIR, VB_GUEST_PID)" >&2; exit 2; }
out=$VB_OUTDIR/host-xfer.tsv
log=$VB_OUTDIR/console.log
ncpu=$(nproc)
qpid= bpid=

# find_pids: QEMU (the guest's timeout's child) and, with VB_UDS, the
# back-end serving it (its command line names the same --uds path).
# Called for every console line until both are known, so that they are
# found while the guest boots, not at the first "begin": a /proc walk
# there delayed the begin sample, and on a loaded host the lines queued
# behind it were read in a burst (a 0.1 s --quick transfer once framed as
# 12 ms).
find_pids() {
	[ -n "$qpid" ] || qpid=$(pgrep -P "$VB_GUEST_PID" | head -n 1)
	if [ -z "$bpid" ] && [ -S "${VB_UDS:-}" ]; then
		bpid=$(pgrep -f -- "vhost-user-vsock .*--uds $VB_UDS( |\$)" | head -n 1)
	fi
}
pids_known() {
	[ -n "$qpid" ] && { [ -n "$bpid" ] || [ -z "${VB_UDS:-}" ]; }
}

# ticks PID: utime + stime of PID (0 when it is gone or unknown)
ticks() {
	local f
	[ -n "$1" ] && [ -r "/proc/$1/stat" ] || { echo 0; return; }
	read -r f <"/proc/$1/stat" || { echo 0; return; }
	# fields after "pid (comm) ": state ppid ... utime is the 12th
	set -- ${f##*) }
	echo $((${12} + ${13}))
}

# snap: "epoch total busy steal qemu backend"
snap() {
	local t _c u n s i w q sq st
	t=$EPOCHREALTIME
	read -r _c u n s i w q sq st _ </proc/stat
	echo "$t $((u + n + s + i + w + q + sq + st)) $((u + n + s + q + sq)) $st $(ticks "$qpid") $(ticks "$bpid")"
}

# The file is created at the first transfer, not at start: the run
# directory is the guest's 9p mount, and a file created there from the
# host while the guest sets it up (mkdir -p /results/raw) was a suspect
# for a guest mkdir that failed with ENOENT
# (results/2026-12-01-loopback-wall, r12-patched).  It recurred with this
# change in h2g mode (results/2026-12-01-h2g-wall-wakeups, r11-p1-3),
# where h2g-host.sh created host-samples.jsonl at that moment (now it
# waits too); with this file created at start again, the loopback
# --quick run failed the same way at once (3 earlier runs passed).
header() {
	[ -e "$out" ] ||
		printf 'name\tt_begin\tt_end\td_total\td_busy\td_steal\td_qemu\td_backend\tncpu\n' >"$out"
}
declare -A begin
while IFS= read -r line; do
	line=${line%$'\r'}
	pids_known || find_pids
	case $line in
	*"VB-XFER begin "*)
		begin[${line##*VB-XFER begin }]=$(snap)
		header ;;
	*"VB-XFER end "*)
		now=$(snap)
		name=${line##*VB-XFER end }
		b=${begin[$name]:-}
		[ -n "$b" ] || continue
		read -r t0 tot0 busy0 st0 q0 be0 <<<"$b"
		read -r t1 tot1 busy1 st1 q1 be1 <<<"$now"
		printf '%s\t%s\t%s\t%d\t%d\t%d\t%d\t%d\t%d\n' "$name" "$t0" "$t1" \
			$((tot1 - tot0)) $((busy1 - busy0)) $((st1 - st0)) \
			$((q1 - q0)) $((be1 - be0)) "$ncpu" >>"$out" ;;
	*"VB-XFER done"*) break ;;
	esac
done < <(tail -n +1 -F --pid="$VB_GUEST_PID" "$log" 2>/dev/null)
header
exit 0
