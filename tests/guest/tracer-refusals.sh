#!/bin/sh
# tracer-refusals.sh: what the tracer says on kernels it cannot trace.
#
# Needs a boot without the vsock modules (VB_NO_VSOCK=1, see
# scripts/guest/init) of a kernel that has them as modules (the lab's own,
# Debian's).  Each of `probe`, `record` and `top` must exit 1 with one
# line on stderr that names what to do, and record must write no file:
#   1. no vsock: the modules are not loaded (nothing of vsock is in the
#      kernel: no AF_VSOCK, no transports, no BTF of theirs), exactly a
#      kernel on which nobody loaded them;
#   2. no BTF: /sys/kernel/btf is hidden under an empty tmpfs, which is
#      what user space sees on a kernel built without
#      CONFIG_DEBUG_INFO_BTF (libbpf's other places for a vmlinux with
#      BTF, /boot and /lib/modules, hold none in the initramfs).  The
#      kernel itself keeps its BTF: this tests the tracer's detection and
#      message, which is all a kernel without BTF gets to (the tracer
#      stops before loading anything).
# Then it loads the modules for the tests that follow in the same boot.
fails=0
say() { echo "refusals: $*"; }
fail() { say "FAIL: $*"; fails=$((fails + 1)); }

# refuse CASE PATTERN CMD...: CMD exits 1, one stderr line matching PATTERN
refuse() {
	what=$1 pat=$2
	shift 2
	"$@" >/tmp/out.txt 2>/tmp/err.txt
	rc=$?
	line=$(head -n 1 /tmp/err.txt)
	n=$(wc -l </tmp/err.txt)
	if [ "$rc" -eq 1 ] && [ "$n" -eq 1 ] && grep -Eq "$pat" /tmp/err.txt; then
		say "ok: $what: $* -> exit 1: $line"
	else
		fail "$what: $* -> exit $rc, $n stderr line(s), wanted 1 matching /$pat/: $(cat /tmp/err.txt)"
	fi
}

if [ -d /sys/module/vsock ]; then
	fail "vsock is loaded: boot with VB_NO_VSOCK=1"
else
	pat='modprobe (vsock_loopback|vmw_vsock_virtio_transport)'
	refuse "no vsock" "$pat" vsockbatch probe
	refuse "no vsock" "$pat" vsockbatch record -o /tmp/none.json -d 1
	[ ! -e /tmp/none.json ] || fail "no vsock: record wrote /tmp/none.json"
	refuse "no vsock" "$pat" vsockbatch top -b -n 1
fi

# with vsock loaded, so that only the BTF is missing
modprobe vsock_loopback && modprobe vmw_vsock_virtio_transport ||
	fail "modprobe of the vsock modules"
if mount -t tmpfs none /sys/kernel/btf; then
	pat='CONFIG_DEBUG_INFO_BTF'
	refuse "no BTF" "$pat" vsockbatch probe
	refuse "no BTF" "$pat" vsockbatch record -o /tmp/none.json -d 1
	[ ! -e /tmp/none.json ] || fail "no BTF: record wrote /tmp/none.json"
	refuse "no BTF" "$pat" vsockbatch top -b -n 1
	umount /sys/kernel/btf || fail "umount /sys/kernel/btf"
else
	fail "cannot hide /sys/kernel/btf"
fi
vsockbatch probe >/dev/null 2>&1 || fail "probe after loading vsock and unhiding BTF"

say "$fails failure(s)"
[ $fails -eq 0 ]
