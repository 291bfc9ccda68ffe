#!/bin/bash
# lab-inputs.sh: bad input to the lab gets a one-line reason and a
# non-zero exit, never a hang or a silent success: an unknown variant, a
# missing source package, a patch that does not apply, a guest that never
# reaches /init, bad runner arguments, an unknown experiment mode, the
# host half of h2g run by hand, a file compare-sets cannot read.  Prints
# "N passed, N failed".
set -uo pipefail
ROOT=$(cd "$(dirname "$0")/.." && pwd)
tmp=$(mktemp -d /tmp/vb-inputs.XXXXXX)
trap 'rm -rf "$tmp"' EXIT
passed=0 failed=0

# expect NAME WANT_RC PATTERN COMMAND...: COMMAND must exit WANT_RC and say
# PATTERN on stderr.
expect() {
	local name=$1 want=$2 pat=$3 rc
	shift 3
	"$@" >"$tmp/out" 2>"$tmp/err"
	rc=$?
	if [ "$rc" = "$want" ] && grep -Eq -e "$pat" "$tmp/err"; then
		echo "ok: $name (exit $rc: $(grep -E -m1 -e "$pat" "$tmp/err"))"
		passed=$((passed + 1))
	else
		echo "FAIL: $name: exit $rc (want $want), stderr:"
		sed 's/^/  | /' "$tmp/err" | tail -n 8
		failed=$((failed + 1))
	fi
}

# outcome RC NAME WHY: count a good-case check; WHY is printed when RC != 0
outcome() {
	if [ "$1" = 0 ]; then
		echo "ok: $2"
		passed=$((passed + 1))
	else
		echo "FAIL: $2: $3"
		failed=$((failed + 1))
	fi
}

expect "unknown kernel variant" 2 "unknown kernel variant 'nosuch'" \
	"$ROOT/scripts/kernel-build.sh" nosuch
expect "kernel-build without a variant" 2 "usage" \
	"$ROOT/scripts/kernel-build.sh"
expect "experiment: bad --icount-sleep" 2 "--icount-sleep must be on or off" \
	"$ROOT/scripts/experiment.sh" --clock icount --icount-sleep maybe
expect "experiment: --icount-sleep without icount" 2 "needs --clock icount" \
	"$ROOT/scripts/experiment.sh" --icount-sleep on
expect "runner: bad VB_ICOUNT_SLEEP" 2 "VB_ICOUNT_SLEEP must be on or off" \
	env VB_ICOUNT_SLEEP=sometimes "$ROOT/scripts/guest-run.sh" -k baseline -C icount \
	"$ROOT/tests/guest/vsock_test.sh"
# vsock-widen refuses bad usage before it loads anything (so this is
# safe on the host: nothing is attached)
expect "vsock-widen: --us 0" 2 "--us needs 1..100000" \
	"$ROOT/build/vsock-widen" --us 0 --func x
expect "vsock-widen: no --func" 2 "at least one --func" \
	"$ROOT/build/vsock-widen" --us 10
# The config check: a later fragment overrides an earlier one (the debug
# variant turns guest.config's vsock modules into built-ins), and an
# option the final .config lost is named.
printf 'CONFIG_VSOCKETS=y\nCONFIG_X=m\n' >"$tmp/kc"
printf 'CONFIG_VSOCKETS=m\nCONFIG_X=m\n' >"$tmp/kf1"
printf 'CONFIG_VSOCKETS=y\n' >"$tmp/kf2"
"$ROOT/scripts/kernel-config-check.sh" "$tmp/kc" "$tmp/kf1" "$tmp/kf2" \
	2>"$tmp/err"
outcome $? "config check: later fragment wins" \
	"config check: later fragment wins: $(cat "$tmp/err")"
expect "config check: the earlier fragment's word is not the last" 1 \
	"CONFIG_VSOCKETS=m \(got y\)" \
	"$ROOT/scripts/kernel-config-check.sh" "$tmp/kc" "$tmp/kf2" "$tmp/kf1"
# The base is a pin (scripts/config/kernel-sources): a pin the archive no
# longer serves falls back to the newest of its series, in one line; a
# series the archive does not have at all is a clear failure.  -n resolves
# without building.  (Asks the apt index only; nothing is downloaded.)
printf '6.12 bookworm linux-source-6.12 6.12.1-1~deb12u1 %064d\n' 0 >"$tmp/pins-old"
expect "source pin not served: newest of the series, said once" 0 \
	"^kernel source 6\.12: pinned linux-source-6\.12 6\.12\.1-1~deb12u1 not served; using linux-source-6\.12 6\.12\.[0-9]+-" \
	env VSOCKBATCH_SOURCE_PINS="$tmp/pins-old" "$ROOT/scripts/kernel-build.sh" -n patched
[ "$(wc -l <"$tmp/err")" = 1 ] && grep -q "^linux-source-6\.12 6\.12\.[0-9]*-" "$tmp/out"
outcome $? "source pin not served: one line, the fallback's exact version printed" \
	"$(cat "$tmp/err" "$tmp/out")"
printf '6.12 bookworm linux-source-6.99 6.99.1-1 %064d\n' 0 >"$tmp/pins-none"
expect "source series the archive lacks" 1 "not served and the archive \(bookworm\) has no linux-source-6\.99" \
	env VSOCKBATCH_SOURCE_PINS="$tmp/pins-none" "$ROOT/scripts/kernel-build.sh" -n baseline
printf '6.12 bookworm linux-source-6.12 6.12.1-1~deb12u1 not-a-sha\n' >"$tmp/pins-bad"
expect "source pin without a SHA256" 2 "no valid SHA256" \
	env VSOCKBATCH_SOURCE_PINS="$tmp/pins-bad" "$ROOT/scripts/kernel-build.sh" -n baseline
expect "lab variant of an unpinned series" 2 "no kernel source pinned for series '9\.9'" \
	"$ROOT/scripts/kernel-build.sh" -n baseline-9.9
expect "patched variant without a series directory" 2 "no series for 6\.12 \(/nonexistent/series is missing\)" \
	env VSOCKBATCH_PATCH_DIR=/nonexistent "$ROOT/scripts/kernel-build.sh" -n patched
# Drift: an older pin that is still served is named with the newer
# versions, and the series is tried on the newest (the files it touches,
# out of the newest .deb: ~20 s).
printf '6.12 bookworm linux-source-6.12 6.12.117-1~deb12u1 e849faf31ca3555757f3a8877cb01af92122f744f75d1f3102734651c4e14703\n' >"$tmp/pins-117"
VSOCKBATCH_SOURCE_PINS="$tmp/pins-117" "$ROOT/scripts/pins-drift.sh" >"$tmp/drift" 2>&1 &&
	grep -q "^drift: source 6\.12: pin linux-source-6\.12 6\.12\.117-1~deb12u1 served; newer: .*linux-source-6\.12=6\.12\.118-1~deb12u1" "$tmp/drift" &&
	grep -Eq "^drift: source 6\.12: the series (applies|does NOT apply) to 6\.12\.[0-9]+" "$tmp/drift"
outcome $? "pins-drift: newer versions of an old pin, the series tried on the newest" \
	"$(cat "$tmp/drift")"
# A pin the archive does not serve with nothing newer than it (a version
# it never had): informational, exit 0, the fallback named and the series
# tried on it.  This exit was 1 and stopped make check at its first line
# (the pin-absent cold run, 2026-12-03).
{ grep -v '^6\.12 ' "$ROOT/scripts/config/kernel-sources"
  printf '6.12 bookworm linux-source-6.12 6.12.999-1~deb12u1 %064d\n' 0; } >"$tmp/pins-999"
awk '$1 == "debian-6.12" { $2 = "linux-image-6.12.999+deb12-cloud-amd64-unsigned"; $3 = "6.12.999-1~deb12u1" } { print }' \
	"$ROOT/scripts/config/debian-kernels" >"$tmp/deb-999"
VSOCKBATCH_SOURCE_PINS="$tmp/pins-999" VSOCKBATCH_DEBIAN_PINS="$tmp/deb-999" \
	"$ROOT/scripts/pins-drift.sh" >"$tmp/drift999" 2>&1 &&
	grep -q "^drift: source 6\.12: pin linux-source-6\.12 6\.12\.999-1~deb12u1 NOT served; the lab takes linux-source-6\.12=6\.12\.[0-9]" "$tmp/drift999" &&
	grep -Eq "^drift: source 6\.12: the series (applies|does NOT apply) to 6\.12\.[0-9]+" "$tmp/drift999" &&
	grep -q "^drift: image debian-6\.12: pin .* NOT served; the lab takes linux-image-6\.12\.[0-9]*+deb12-cloud-amd64-unsigned=" "$tmp/drift999"
outcome $? "pins-drift: pins ahead of the archive, exit 0 and the fallbacks named" \
	"$(cat "$tmp/drift999")"
# The same rule for Debian's images: a gone pin takes the newest image of
# its series (package glob + version prefix).
awk '$1 == "debian-6.12" { $3 = "6.12.1-1~deb12u1"; $4 = sprintf("%064d", 0) } { print }' \
	"$ROOT/scripts/config/debian-kernels" >"$tmp/deb-pins"
expect "image pin not served: newest of the series" 0 \
	"^debian-6\.12: pinned linux-image-6\.12\.118\+deb12-cloud-amd64-unsigned 6\.12\.1-1~deb12u1 not served; using linux-image-6\.12\.[0-9]+\+deb12-cloud-amd64-unsigned 6\.12\." \
	env VSOCKBATCH_DEBIAN_PINS="$tmp/deb-pins" "$ROOT/scripts/kernel-build.sh" -n debian-6.12
expect "runner: unknown variant" 2 "unknown kernel variant" \
	"$ROOT/scripts/guest-run.sh" -k nosuch "$ROOT/tests/guest/vsock_test.sh"
expect "runner: bad vCPU count" 2 "not a positive number" \
	"$ROOT/scripts/guest-run.sh" -k baseline -s 0 "$ROOT/tests/guest/vsock_test.sh"
expect "runner: vhost-user device with a reserved CID" 2 "CID must be a number >= 3" \
	"$ROOT/scripts/guest-run.sh" -k baseline -U -c 2 "$ROOT/tests/guest/vsock_test.sh"
expect "runner: VB_GUEST_OVERLAY not a directory" 2 "VB_GUEST_OVERLAY=.* is not a directory" \
	env VB_GUEST_OVERLAY="$tmp/nosuch" "$ROOT/scripts/guest-run.sh" -k baseline \
	"$ROOT/tests/guest/vsock_test.sh"
# An installed tree whose binary a busybox guest could not run: jq
# needs libjq, which no image has (libc alone would be there, for the
# exporter).
mkdir -p "$tmp/overlay/usr/bin" && cp /usr/bin/jq "$tmp/overlay/usr/bin/"
expect "runner: VB_GUEST_OVERLAY with a dynamic binary" 2 "usr/bin/jq is dynamically linked and needs /lib/x86_64-linux-gnu/libjq.so.1" \
	env VB_GUEST_OVERLAY="$tmp/overlay" "$ROOT/scripts/guest-run.sh" -k baseline \
	"$ROOT/tests/guest/vsock_test.sh"
expect "runner: missing script" 2 "not found" \
	"$ROOT/scripts/guest-run.sh" -k baseline /nonexistent.sh

# A kernel directory whose "bzImage" is not a kernel: SeaBIOS finds
# nothing to boot, no /init is ever reached.
mkdir -p "$tmp/kernel/modroot/lib/modules"
head -c 65536 /dev/zero >"$tmp/kernel/bzImage"
touch "$tmp/kernel/vsock_test" "$tmp/kernel/vsock_perf"
expect "guest never reaches /init" 5 "never reached /init" \
	"$ROOT/scripts/guest-run.sh" -K "$tmp/kernel" -t 20 -o "$tmp/noinit" \
	"$ROOT/tests/guest/vsock_test.sh"

# A patch that does not apply to the base (needs the lab's source tree;
# waits for a concurrent kernel build to finish).
mkdir -p "$tmp/patches"
cat >"$tmp/patches/0001-bogus.patch" <<'PATCH'
From 0000000000000000000000000000000000000000 Mon Sep 17 00:00:00 2001
From: Nobody <nobody@example.org>
Date: Thu, 1 Jan 2026 00:00:00 +0000
Subject: [PATCH] bogus: a hunk that matches nothing

---
 net/vmw_vsock/vsock_loopback.c | 2 +-
 1 file changed, 1 insertion(+), 1 deletion(-)

diff --git a/net/vmw_vsock/vsock_loopback.c b/net/vmw_vsock/vsock_loopback.c
--- a/net/vmw_vsock/vsock_loopback.c
+++ b/net/vmw_vsock/vsock_loopback.c
@@ -1,3 +1,3 @@
-this line is not in the file
+neither is this one
 nor this
 nor that
PATCH
echo 0001-bogus.patch >"$tmp/patches/series"
expect "patch that does not apply" 1 "patch 0001-bogus.patch does not apply" \
	env VSOCKBATCH_PATCH_DIR="$tmp/patches" \
	"$ROOT/scripts/kernel-build.sh" patched

expect "runner: unknown clock" 2 "-C must be wall or icount, not 'tsc'" \
	"$ROOT/scripts/guest-run.sh" -k baseline -C tsc "$ROOT/tests/guest/vsock_test.sh"
expect "experiment: unknown clock" 2 "--clock must be wall or icount, not 'rdtsc'" \
	"$ROOT/scripts/experiment.sh" --clock rdtsc --out "$tmp/exp"

# Instruction windows of a vb-insns file: exact sums, missing marks and
# malformed rows refused.
printf '# vb-insns\n1\t7\t0\t10\t100\n1\t7\t1\t5\t50\n2\t8\t0\t30\t300\n2\t8\t1\t6\t70\n' >"$tmp/insns.tsv"
[ "$("$ROOT/scripts/insns-delta.sh" "$tmp/insns.tsv" 7 8 | jq -c '[.vcpus[0].user, .vcpus[1].kernel, .user, .kernel, .total]')" = "[20,20,21,220,241]" ]
outcome $? "insns-delta: per-vCPU and total deltas" \
	"insns-delta: wrong deltas"
expect "insns-delta: mark missing" 1 "mark 9 not found" \
	"$ROOT/scripts/insns-delta.sh" "$tmp/insns.tsv" 9 8
expect "insns-delta: end before start" 1 "mark 7 after mark 8 not found" \
	"$ROOT/scripts/insns-delta.sh" "$tmp/insns.tsv" 8 7
printf '1\t7\t0\tten\t100\n' >"$tmp/bad.tsv"
expect "insns-delta: malformed row" 2 "line 1 is not" \
	"$ROOT/scripts/insns-delta.sh" "$tmp/bad.tsv" 7 8
expect "insns-samples: not an icount run" 2 "marks.tsv not found" \
	"$ROOT/scripts/insns-samples.sh" "$tmp"
expect "icount-tables: a wall-clock set" 1 "not an instruction-count" \
	"$ROOT/scripts/icount-tables.sh" "$ROOT/results/2026-11-30-quiet"
expect "vb-mark: bad id" 2 "ID: a number 1..65535" "$ROOT/build/vb-mark" 0

# A block profile (vb-insns profile=): a window's blocks resolve to the
# kernel's and the modules' functions and sum to the window's kernel
# count; a profile that disagrees with insns.tsv is refused.
pr=$tmp/prof/runs/r00-baseline
mkdir -p "$pr"
printf '# vb-insns\n1\t1\t0\t0\t1000\n1\t1\t1\t0\t2000\n2\t2\t0\t0\t1100\n2\t2\t1\t0\t2640\n3\texit\t0\t0\t1200\n3\texit\t1\t0\t2640\n' >"$pr/insns.tsv"
printf '1 fixed.64 64 6400\n' >"$pr/marks.tsv"
# window (1, 2]: vCPU 0 100 (f_a 60, f_b 40), vCPU 1 640 (f_b 40,
# vsock_rx 600 at the module's second function); seq 3 is outside
printf '# seq\tid\tvcpu\tblock\tblock_insns\tinsns\n2\t2\t0\tffffffff81000010\t6\t60\n2\t2\t0\tffffffff81000100\t4\t40\n2\t2\t1\tffffffff81000104\t4\t40\n2\t2\t1\tffffffffa0000040\t10\t600\n3\texit\t0\tffffffff81000010\t6\t100\n' >"$pr/profile.tsv"
printf 'ffffffff81000000 T _text\nffffffff81000000 T f_a\nffffffff81000100 t f_b\nffffffff81001000 T _etext\nffffffff82000000 D some_data\n' >"$tmp/prof/System.map"
printf 'ffffffffa0000000 t vsock_lookup\t[vsock]\nffffffffa0000040 t vsock_rx\t[vsock]\n' >"$pr/kallsyms-modules.txt"
"$ROOT/scripts/insns-profile.sh" -m "$tmp/prof/System.map" fixed.64 "$pr" >"$tmp/prof.out" 2>"$tmp/prof.err" &&
	[ "$(awk '$1 == "vsock_rx" { print $1, $2, $3 } $1 == "f_b" || $1 == "f_a" || $1 == "[total]" { print $1, $2 }' "$tmp/prof.out" | tr '\n' ' ')" = "vsock_rx [vsock] 6.00 f_b 0.80 f_a 0.60 [total] 7.40 " ]
outcome $? "insns-profile: functions and modules per write, summing to the window" \
	"insns-profile: $(cat "$tmp/prof.out" "$tmp/prof.err")"
"$ROOT/scripts/insns-profile.sh" -m "$tmp/prof/System.map" -c 0 fixed.64 "$pr" -- "$pr" >"$tmp/prof.out" 2>"$tmp/prof.err" &&
	grep -Eq '^\[total\] +1\.00 +1\.00 +\+0\.00$' "$tmp/prof.out" && ! grep -q vsock_rx "$tmp/prof.out"
outcome $? "insns-profile: one vCPU, two groups" \
	"insns-profile -c 0: $(cat "$tmp/prof.out" "$tmp/prof.err")"
"$ROOT/scripts/insns-profile.sh" -m "$tmp/prof/System.map" -l f_b fixed.64 "$pr" >"$tmp/prof.out" 2>"$tmp/prof.err" &&
	grep -Eq '^ffffffff81000100 +0\.1000  -$' "$tmp/prof.out" && grep -Eq '^ffffffff81000104 +0\.1000  -$' "$tmp/prof.out" &&
	grep -Eq '^\[total\] +0\.80' "$tmp/prof.out" && ! grep -q ffffffff81000010 "$tmp/prof.out"
outcome $? "insns-profile -l: one function's blocks, executions per write" \
	"insns-profile -l f_b: $(cat "$tmp/prof.out" "$tmp/prof.err")"
expect "insns-profile: bad -l" 2 "-l needs a function name" \
	"$ROOT/scripts/insns-profile.sh" -l 'f_b; rm' fixed.64 "$pr"
cp -r "$pr" "$tmp/prof/runs/r01-baseline"
printf '2\t2\t1\tffffffff81000104\t4\t44\n' >>"$tmp/prof/runs/r01-baseline/profile.tsv"
expect "insns-profile: profile and counts disagree" 1 "the profile sums to 784 instructions, insns.tsv to 740" \
	"$ROOT/scripts/insns-profile.sh" -m "$tmp/prof/System.map" fixed.64 "$tmp/prof/runs/r01-baseline"
expect "insns-profile: no such transfer" 1 "no transfer match.64" \
	"$ROOT/scripts/insns-profile.sh" -m "$tmp/prof/System.map" match.64 "$pr"
expect "insns-profile: bad vCPU" 2 "-c needs a vCPU number or 'all', not 'one'" \
	"$ROOT/scripts/insns-profile.sh" -c one fixed.64 "$pr"
expect "insns-profile: no profile" 2 "no profile.tsv" \
	"$ROOT/scripts/insns-profile.sh" fixed.64 "$ROOT/results/2026-12-02-h2g-icount-64-long/runs/r00-baseline"
expect "insns-profile: no kernel map" 2 "no set manifest.json or env.txt" \
	"$ROOT/scripts/insns-profile.sh" fixed.64 "$pr"
printf '2\t2\t1\tnot-hex\t4\t44\n' >>"$tmp/prof/runs/r01-baseline/profile.tsv"
expect "insns-profile: malformed profile" 2 "profile line 8 is malformed" \
	"$ROOT/scripts/insns-profile.sh" -m "$tmp/prof/System.map" fixed.64 "$tmp/prof/runs/r01-baseline"
# profile-spread.sh on a one-run set made of the fixture above: the
# run's kernel found through the manifest, the named functions split off
printf '{"runs":[{"dir":"runs/r00-baseline","status":0,"state":"baseline"}],"states":[{"name":"baseline","kernel_dir":"%s","kernel_version":"6.12.117+ (root@vm) #1 SMP Tue"}]}\n' "$tmp/prof" >"$tmp/prof/manifest.json"
echo '{"host_load":{"per_transfer":[]}}' >"$tmp/prof/summary.json"
printf 'kernel: 6.12.117+ #1 SMP Tue\nstate: baseline\n' >"$pr/env.txt"
"$ROOT/scripts/profile-spread.sh" "$tmp/prof" fixed.64 "vsock_rx [vsock]" f_a >"$tmp/prof.out" 2>"$tmp/prof.err" &&
	grep -Fqx '| r00-baseline | 7.40 | 6.60 | 0.80 |' "$tmp/prof.out" &&
	grep -Fqx '| baseline | 1 | 7.40 | 0.00 % | 0.80 | 0.00 % |' "$tmp/prof.out"
outcome $? "profile-spread: a set's runs with and without named functions" \
	"profile-spread: $(cat "$tmp/prof.out" "$tmp/prof.err")"
expect "profile-spread: a function no run executed" 2 "'f_typo' ran in none of the runs' fixed.64 windows" \
	"$ROOT/scripts/profile-spread.sh" "$tmp/prof" fixed.64 f_a f_typo
expect "profile-spread: not a set" 2 "no manifest.json and summary.json" \
	"$ROOT/scripts/profile-spread.sh" "$pr" fixed.64 f_a
expect "experiment: --profile without icount" 2 "--profile needs --clock icount" \
	"$ROOT/scripts/experiment.sh" --profile --out "$tmp/exp"
expect "runner: bad VB_INSNS_PROFILE" 2 "VB_INSNS_PROFILE must be 0 or 1, not 'yes'" \
	env VB_INSNS_PROFILE=yes "$ROOT/scripts/guest-run.sh" -k baseline -C icount "$ROOT/tests/guest/vsock_test.sh"

expect "experiment: bad --aslr" 2 "--aslr must be on or off, not 'no'" \
	"$ROOT/scripts/experiment.sh" --aslr no --out "$tmp/exp"
expect "experiment: bad --sched-features" 2 "--sched-features: 'lag' is not a feature name" \
	"$ROOT/scripts/experiment.sh" --sched-features lag --out "$tmp/exp"
expect "experiment: unknown mode" 2 "--mode must be loopback or h2g, not 'tcp'" \
	"$ROOT/scripts/experiment.sh" --mode tcp --out "$tmp/exp"
expect "experiment: bad --seconds" 2 "--seconds needs a duration in .0, 600., not '0'" \
	"$ROOT/scripts/experiment.sh" --seconds 0 --out "$tmp/exp"
expect "experiment: --seconds with icount" 2 "--seconds sizes wall-clock transfers" \
	"$ROOT/scripts/experiment.sh" --clock icount --seconds 2 --out "$tmp/exp"
expect "experiment: bad exclusion limit" 2 "--max-other/--max-steal need a number or 'off', not 'lots'" \
	"$ROOT/scripts/experiment.sh" --max-other lots --out "$tmp/exp"
expect "experiment: bad --trace-rounds" 2 "--trace-rounds needs a number, not 'some'" \
	"$ROOT/scripts/experiment.sh" --trace-rounds some --out "$tmp/exp"
expect "vb-sender: --bytes and --seconds" 2 "give --bytes or --seconds, not both" \
	"$ROOT/build/vb-sender" --tcp --bytes 1M --seconds 1
expect "vb-sender: --cid with --tcp" 2 "--cid is the vsock peer: not with --tcp" \
	"$ROOT/build/vb-sender" --tcp --cid 1
expect "vb-recv: --vsk-size with --tcp" 2 "--vsk-size is a vsock option" \
	"$ROOT/build/vb-recv" --tcp --vsk-size 1M
expect "vb-pingpong: --tcp client needs an address" 2 "invalid value '1' for --client" \
	"$ROOT/build/vb-pingpong" --tcp --client 1
expect "xfer-watch outside the runner" 2 "run me through scripts/guest-run.sh -H" \
	env -u VB_OUTDIR "$ROOT/scripts/xfer-watch.sh"
expect "h2g host half outside the runner" 1 "run me through scripts/guest-run.sh -U -H" \
	env -u VB_UDS "$ROOT/scripts/h2g-host.sh"
# (refused before it starts the host watcher or connects anywhere)
expect "h2g host half: bad XFER_SECONDS" 2 "XFER_SECONDS must be seconds, not 'soon'" \
	env VB_UDS=/nonexistent VB_OUTDIR="$tmp" VB_GUEST_PID=$$ PAYLOADS=64 SCALE=1 CAP=1 \
	XFER_SECONDS=soon "$ROOT/scripts/h2g-host.sh"
expect "h2g host half: TCP without the guest's NIC" 2 "TCP=1 needs the guest's NIC" \
	env -u VB_NET_GUEST VB_UDS=/nonexistent VB_OUTDIR="$tmp" VB_GUEST_PID=$$ PAYLOADS=64 SCALE=1 CAP=1 \
	TCP=1 "$ROOT/scripts/h2g-host.sh"
expect "h2g host half: bad TCP" 2 "TCP must be 0 or 1, not 'yes'" \
	env VB_UDS=/nonexistent VB_OUTDIR="$tmp" VB_GUEST_PID=$$ PAYLOADS=64 SCALE=1 CAP=1 \
	TCP=yes "$ROOT/scripts/h2g-host.sh"
# the guest half refuses before it creates or opens anything
expect "guest half: h2g TCP without a NIC" 2 "needs the guest's NIC" \
	sh -c 'env -u VB_NET_ADDR RESULTS="$1/gh" MODE=h2g TCP=1 PAYLOADS=64 sh "$2" >&2' _ "$tmp" \
	"$ROOT/tests/guest/experiment-run.sh"
# -N without network namespaces (an `ip` that cannot make one)
mkdir -p "$tmp/noip"
printf '#!/bin/sh\necho "mount --make-shared /run/netns failed: Operation not permitted" >&2\nexit 1\n' >"$tmp/noip/ip"
chmod +x "$tmp/noip/ip"
expect "guest-run -N without network namespaces" 1 "-N: cannot create a network namespace: mount" \
	env PATH="$tmp/noip:$PATH" "$ROOT/scripts/guest-run.sh" -k baseline -N -t 20 \
	"$ROOT/tests/guest/vsock_test.sh"
# -N removes the namespace of a runner that is gone (killed by SIGKILL
# or a reset: no trap ran) and keeps a live runner's; the fake `ip`
# lists both, logs what it is asked to delete, then refuses the new one
sh -c 'exit 0' & deadpid=$!
wait $deadpid
bash -c 'sleep 60; :' guest-run.sh </dev/null >/dev/null 2>&1 & livepid=$!
mkdir -p "$tmp/staleip"
cat >"$tmp/staleip/ip" <<EOS
#!/bin/sh
case "\$1 \$2" in
"netns list") echo "vb-guest-$deadpid"; echo "vb-guest-$$ (id: 3)"; echo "vb-guest-$livepid" ;;
"netns del") echo "\$3" >>"$tmp/staleip/deleted" ;;
*) echo "RTNETLINK answers: Operation not permitted" >&2; exit 1 ;;
esac
EOS
chmod +x "$tmp/staleip/ip"
expect "guest-run -N removes a dead runner's namespace" 1 "-N: removed vb-guest-$deadpid, left by a runner that is gone" \
	env PATH="$tmp/staleip:$PATH" "$ROOT/scripts/guest-run.sh" -k baseline -N -t 20 \
	"$ROOT/tests/guest/vsock_test.sh"
# this shell is not a guest-run.sh, so its "namespace" counts as stale
# too; the live "guest-run.sh" keeps its own
if [ "$(sort "$tmp/staleip/deleted" 2>/dev/null | tr '\n' ' ')" = "$(printf '%s\n' "vb-guest-$deadpid" "vb-guest-$$" | sort | tr '\n' ' ')" ]; then
	echo "ok: guest-run -N deletes exactly the stale namespaces"
	passed=$((passed + 1))
else
	echo "FAIL: guest-run -N deleted: $(tr '\n' ' ' <"$tmp/staleip/deleted" 2>/dev/null)"
	failed=$((failed + 1))
fi
kill $livepid 2>/dev/null
mkdir -p "$tmp/notaset"
echo '{"format":"something-else"}' >"$tmp/notaset/summary.json"
expect "compare-sets: not a summary" 1 "notaset/summary.json: not a vsockbatch experiment summary" \
	"$ROOT/scripts/compare-sets.sh" "$tmp/notaset"
expect "compare-sets: bad reference" 1 "not a reference file" \
	"$ROOT/scripts/compare-sets.sh" --reference "$tmp/notaset/summary.json" "$ROOT/results/2026-11-30-quiet"
expect "tracer-cost: --table-only on a set without cost.tsv" 2 "not a tracer-cost table" \
	"$ROOT/scripts/tracer-cost.sh" --table-only "$tmp/notaset" --table "$tmp/t.h"
expect "tracer-cost-tables: a set without cost.tsv" 2 "no cost.tsv \\(not a tracer-cost set\\)" \
	"$ROOT/scripts/tracer-cost-tables.sh" --goals "$tmp"
expect "tracer-cost-tables: unknown mode" 2 "unknown mode '--html'" \
	"$ROOT/scripts/tracer-cost-tables.sh" --html "$ROOT/results/2026-12-03-tracer-cost"
expect "tracer-cost-tables: a file without the block" 2 "has no '<!-- tracer-cost-table SETS -->' block" \
	"$ROOT/scripts/tracer-cost-tables.sh" --check "$ROOT/VERSION"
expect "light-per-run: no set" 2 "usage: SET" \
	"$ROOT/scripts/light-per-run.sh"
expect "light-per-run: not a tracer-cost set" 2 "notaset: no steps.tsv and raw.tar.xz" \
	"$ROOT/scripts/light-per-run.sh" "$tmp/notaset"
# the per-run table a set commits is what the script makes from it
# (each set's beside the one before it)
prev=$ROOT/results/2026-12-06-tracer-cost-held
for lpr in "$ROOT/results/2026-12-06-tracer-cost-light-prog" \
	   "$ROOT/results/2026-12-06-tracer-cost-attach"; do
	[ -x "$ROOT/build/vsockbatch" ] || break
	if "$ROOT/scripts/light-per-run.sh" "$prev" "$lpr" 2>"$tmp/err" |
	   cmp -s - "$lpr/per-run.tsv"; then
		echo "ok: light-per-run: $lpr/per-run.tsv regenerates"
		passed=$((passed + 1))
	else
		echo "FAIL: light-per-run: $lpr/per-run.tsv does not regenerate"
		failed=$((failed + 1))
	fi
	prev=$lpr
done
expect "tracer-cost: --boots 1" 2 "--boots needs a number >= 2" \
	"$ROOT/scripts/tracer-cost.sh" --boots 1
expect "tracer-cost: unknown kernel" 2 "unknown kernel 'nosuch'" \
	"$ROOT/scripts/tracer-cost.sh" --kernels "baseline nosuch"
expect "tracer-cost: debian-6.1 on two vCPUs" 2 "name debian-6.1-1cpu" \
	"$ROOT/scripts/tracer-cost.sh" --kernels "debian-6.1"
expect "tracer-cost: a -1cpu name of no kernel" 2 "unknown kernel 'nosuch-1cpu'" \
	"$ROOT/scripts/tracer-cost.sh" --kernels "nosuch-1cpu"
expect "tracer-cost: an unknown level" 2 "unknown level 'fast'" \
	"$ROOT/scripts/tracer-cost.sh" --levels "fullduty fast"
expect "tracer-cost: --mib past 128" 2 "--mib needs a number 1..128" \
	"$ROOT/scripts/tracer-cost.sh" --mib 129
expect "tracer-cost: --also a set without cost.tsv" 2 "--also: $tmp/notaset/cost.tsv missing" \
	"$ROOT/scripts/tracer-cost.sh" --table-only "$ROOT/results/2026-12-06-tracer-cost-attach" \
	--also "$tmp/notaset" --table "$tmp/t3.h"
expect "duty-toggle-cost: --duty 1" 2 "--duty needs a number 2..64" \
	"$ROOT/scripts/duty-toggle-cost.sh" --duty 1 --out "$tmp/dt"
expect "duty-toggle-cost: a kernel with the series" 2 "--kernel: baseline or baseline-7.2" \
	"$ROOT/scripts/duty-toggle-cost.sh" --kernel patched --out "$tmp/dt"
expect "duty-toggle-cost: no --out" 2 "--out DIR is required" \
	"$ROOT/scripts/duty-toggle-cost.sh" --boots 2
expect "tracer-overhead: --rounds 1" 2 "--rounds needs a number >= 2" \
	"$ROOT/scripts/tracer-overhead.sh" --rounds 1
# the exporter's lab scripts: bad input before any build or boot
expect "export-soak: --minutes 0" 2 "--minutes needs a whole number >= 1" \
	"$ROOT/scripts/export-soak.sh" --minutes 0
mkdir -p "$tmp/soak-full" && : >"$tmp/soak-full/x"
expect "export-soak: --out not empty" 2 "exists and is not empty" \
	"$ROOT/scripts/export-soak.sh" --minutes 1 --out "$tmp/soak-full"
expect "export-read-cost: --rounds x" 2 "--rounds needs a whole number >= 1" \
	"$ROOT/scripts/export-read-cost.sh" --rounds x
expect "export-read-cost: --out not empty" 2 "exists and is not empty" \
	"$ROOT/scripts/export-read-cost.sh" --out "$tmp/soak-full"
expect "icount-spread: --repeats 1" 2 "--repeats needs a number >= 2" \
	"$ROOT/scripts/icount-spread.sh" --repeats 1
expect "icount-spread: bad --seed" 2 "--seed needs a number, not 'lucky'" \
	"$ROOT/scripts/icount-spread.sh" --seed lucky
expect "icount-spread: bad --aslr" 2 "--aslr must be on or off, not 'maybe'" \
	"$ROOT/scripts/icount-spread.sh" --aslr maybe
expect "icount-spread: bad --between" 2 "--between must be none, memory or spin, not 'shake'" \
	"$ROOT/scripts/icount-spread.sh" --between shake
expect "icount-spread: bad --sched-features" 2 "--sched-features: 'no_lag' is not a feature name" \
	"$ROOT/scripts/icount-spread.sh" --sched-features "NO_PLACE_LAG no_lag"
expect "icount-spread: bad --early-spin-cpu" 2 "--early-spin-cpu must be 0 or 1, not '2'" \
	"$ROOT/scripts/icount-spread.sh" --early-spin --early-spin-cpu 2
# VB_ASLR: /init turns user ASLR off for the whole boot, and refuses a
# value it does not know before the script starts
printf 'cat /proc/sys/kernel/randomize_va_space >"$RESULTS/aslr"\n' >"$tmp/aslr.sh"
"$ROOT/scripts/guest-run.sh" -k baseline -t 60 -o "$tmp/aslr-off" -e VB_ASLR=off "$tmp/aslr.sh" \
	>/dev/null 2>"$tmp/err" && [ "$(cat "$tmp/aslr-off/aslr" 2>/dev/null)" = 0 ]
outcome $? "guest /init: VB_ASLR=off gives randomize_va_space 0" "$(tail -n 1 "$tmp/err")"
"$ROOT/scripts/guest-run.sh" -k baseline -t 60 -o "$tmp/aslr-on" "$tmp/aslr.sh" \
	>/dev/null 2>"$tmp/err" && [ "$(cat "$tmp/aslr-on/aslr" 2>/dev/null)" = 2 ]
outcome $? "guest /init: ASLR left on by default (randomize_va_space 2)" "$(tail -n 1 "$tmp/err")"
expect "guest /init: bad VB_ASLR" 4 "VB_ASLR must be on or off, not 'maybe'" \
	"$ROOT/scripts/guest-run.sh" -k baseline -t 60 -o "$tmp/aslr-bad" -e VB_ASLR=maybe "$tmp/aslr.sh"
# VB_SCHED_FEATURES: /init sets scheduler features for the whole boot and
# refuses a name the kernel does not know
printf 'cat /sys/kernel/debug/sched/features >"$RESULTS/features"\n' >"$tmp/schedf.sh"
"$ROOT/scripts/guest-run.sh" -k baseline -t 60 -o "$tmp/schedf" -e "VB_SCHED_FEATURES=NO_PLACE_LAG NO_RUN_TO_PARITY" \
	"$tmp/schedf.sh" >/dev/null 2>"$tmp/err" &&
	grep -qw NO_PLACE_LAG "$tmp/schedf/features" && grep -qw NO_RUN_TO_PARITY "$tmp/schedf/features" &&
	grep -qw DELAY_DEQUEUE "$tmp/schedf/features"
outcome $? "guest /init: VB_SCHED_FEATURES turns two features off, leaves the rest" "$(tail -n 1 "$tmp/err")"
expect "guest /init: unknown VB_SCHED_FEATURES" 4 "cannot set scheduler feature 'NO_SUCH_FEATURE'" \
	"$ROOT/scripts/guest-run.sh" -k baseline -t 60 -o "$tmp/schedf-bad" -e VB_SCHED_FEATURES=NO_SUCH_FEATURE "$tmp/schedf.sh"
# VB_GUEST_WRITES: /init writes tunables under /sys and /proc/sys for the
# whole boot, reads them back, and refuses any other path or a file the
# kernel does not have
printf 'cat /sys/kernel/slab/kmalloc-8k/min_partial /proc/sys/vm/stat_interval >"$RESULTS/gw"\n' >"$tmp/gw.sh"
"$ROOT/scripts/guest-run.sh" -k baseline -t 60 -o "$tmp/gw" \
	-e "VB_GUEST_WRITES=/sys/kernel/slab/kmalloc-8k/min_partial=1024 /proc/sys/vm/stat_interval=3" \
	"$tmp/gw.sh" >/dev/null 2>"$tmp/err" && [ "$(tr '\n' ' ' <"$tmp/gw/gw" 2>/dev/null)" = "1024 3 " ]
outcome $? "guest /init: VB_GUEST_WRITES sets a slab and a vm tunable for the boot" "$(tail -n 1 "$tmp/err")"
expect "guest /init: VB_GUEST_WRITES outside /sys and /proc/sys" 4 "'/etc/hostname=x' is not /sys/... or /proc/sys/...=VALUE" \
	"$ROOT/scripts/guest-run.sh" -k baseline -t 60 -o "$tmp/gw-bad" -e VB_GUEST_WRITES=/etc/hostname=x "$tmp/gw.sh"
expect "guest /init: VB_GUEST_WRITES to a file the kernel lacks" 4 "cannot set /proc/sys/vm/no_such_knob to '1'" \
	"$ROOT/scripts/guest-run.sh" -k baseline -t 60 -o "$tmp/gw-bad2" -e VB_GUEST_WRITES=/proc/sys/vm/no_such_knob=1 "$tmp/gw.sh"
expect "experiment: bad --guest-write" 2 "--guest-write: '/proc/sys/../x=1' is not /sys/...=VALUE" \
	"$ROOT/scripts/experiment.sh" --guest-write /proc/sys/../x=1 --out "$tmp/exp"
expect "runner: bad VB_QEMU_SEED" 2 "VB_QEMU_SEED must be a number, not '-1'" \
	env VB_QEMU_SEED=-1 "$ROOT/scripts/guest-run.sh" -k baseline "$ROOT/tests/guest/vsock_test.sh"
expect "runner: VB_KERNEL_APPEND with a quote" 2 "VB_KERNEL_APPEND must not hold quotes or backslashes" \
	env VB_KERNEL_APPEND='quiet" init=/bin/sh' "$ROOT/scripts/guest-run.sh" -k baseline "$ROOT/tests/guest/vsock_test.sh"
expect "runner: bad VB_QEMU_SINGLESTEP" 2 "VB_QEMU_SINGLESTEP must be 0 or 1, not 'yes'" \
	env VB_QEMU_SINGLESTEP=yes "$ROOT/scripts/guest-run.sh" -k baseline "$ROOT/tests/guest/vsock_test.sh"
expect "icount-spread: unknown kernel" 2 "unknown kernel variant 'nosuch'" \
	"$ROOT/scripts/icount-spread.sh" --kernels "baseline nosuch"
expect "icount-spread: --resummarize without its table" 2 "not an icount-spread table" \
	"$ROOT/scripts/icount-spread.sh" --resummarize "$tmp/notaset"
# and the good case: a committed icount set's tables, the paired spread included
"$ROOT/scripts/icount-tables.sh" "$ROOT/results/2026-12-01-h2g-icount-sleep-8p" >"$tmp/ict.md" 2>"$tmp/err" &&
   grep -q '^| 1 KiB | 8 | 3.349 | 3.21 | -4.1 % \[-4.3 %, -4 %\] | 0.2 % |' "$tmp/ict.md" &&
   grep -q '^| 1 KiB | 0.24 % (8) / 0.98 | 0.2 % (8) / 0.99 | 0.19 % (8) / 0.99 |$' "$tmp/ict.md" &&
   grep -q '^| 1 KiB | 0.99 (8) / 0.64-1.01 | 1 (8) / 0.64-1.01 | 0.99 (8) / 0.65-0.99 |$' "$tmp/ict.md"
outcome $? "icount-tables: h2g-icount-sleep-8p, change, paired-spread and host-correlation rows" \
	"icount-tables on results/2026-12-01-h2g-icount-sleep-8p: $(head -c 300 "$tmp/err")"
# a transfer the host-load rule excluded leaves the spread tables: mark
# round 0's 1 KiB transfers excluded in a copy, and n falls from 8 to 7
ict=$tmp/ict-set
"$ROOT/scripts/results-raw.sh" unpack "$ROOT/results/2026-12-01-h2g-icount-sleep-8p" "$ict"
jq '(.host_load.per_transfer[] | select(.round == 0 and .xfer == "fixed.1024") | .excluded) = true' \
	"$ROOT/results/2026-12-01-h2g-icount-sleep-8p/summary.json" >"$ict/summary.json"
"$ROOT/scripts/icount-tables.sh" "$ict" >"$tmp/ict-x.md" 2>"$tmp/err" &&
   grep -q '^| 1 KiB | .* (7) / .* (7) / .* (7) / [0-9.-]* |$' "$tmp/ict-x.md" &&
   grep -q '^| 1 KiB | [0-9.-]* (7) / [0-9.-]*-[0-9.]* | ' "$tmp/ict-x.md" &&
   ! grep -q '^| 1 KiB | 0.24 % (8)' "$tmp/ict-x.md"
outcome $? "icount-tables: transfers the host-load rule excluded leave the spread tables" \
	"icount-tables on an excluded copy: $(head -c 300 "$tmp/err")"
# the committed spread set's tables are what its transfers give
mkdir -p "$tmp/spread"
cp "$ROOT/results/2026-12-01-icount-spread/steps-insns.tsv" "$tmp/spread/"
"$ROOT/scripts/icount-spread.sh" --resummarize "$tmp/spread" 2>"$tmp/err" &&
   cmp -s "$tmp/spread/spread.tsv" "$ROOT/results/2026-12-01-icount-spread/spread.tsv" &&
   cmp -s "$tmp/spread/table.md" "$ROOT/results/2026-12-01-icount-spread/table.md"
outcome $? "icount-spread --resummarize rebuilds results/2026-12-01-icount-spread" \
	"icount-spread --resummarize differs from the committed tables: $(head -c 300 "$tmp/err")"
# and the context-switch tables from a set whose tools printed them
cp -r "$ROOT/results/2026-12-01-icount-1k-boots" "$tmp/ctxsw"
rm -f "$tmp/ctxsw/ctxsw.tsv" "$tmp/ctxsw/ctxsw.md"
"$ROOT/scripts/icount-spread.sh" --resummarize "$tmp/ctxsw" 2>"$tmp/err" &&
   cmp -s "$tmp/ctxsw/ctxsw.tsv" "$ROOT/results/2026-12-01-icount-1k-boots/ctxsw.tsv" &&
   cmp -s "$tmp/ctxsw/ctxsw.md" "$ROOT/results/2026-12-01-icount-1k-boots/ctxsw.md"
outcome $? "icount-spread --resummarize rebuilds results/2026-12-01-icount-1k-boots/ctxsw.{tsv,md}" \
	"the context-switch tables differ from the committed ones: $(head -c 300 "$tmp/err")"
# the tool's stored table is exactly what its named sets generate: the
# main one (VB_OVERHEAD_SET) and those its rows name beside it (--also)
set_name=$(sed -n 's/^#define VB_OVERHEAD_SET "\(.*\)"$/\1/p' "$ROOT/tools/vsockbatch/overhead_table.h")
also=()
for s in $(sed -n 's/.*, "\(results\/[^"]*\)" },$/\1/p' "$ROOT/tools/vsockbatch/overhead_table.h" | sort -u); do
	[ "$s" = "$set_name" ] || also+=(--also "$ROOT/$s")
done
[ -n "$set_name" ] &&
   "$ROOT/scripts/tracer-cost.sh" --table-only "$ROOT/$set_name" "${also[@]}" --table "$tmp/t.h" 2>"$tmp/err" &&
   cmp -s "$tmp/t.h" "$ROOT/tools/vsockbatch/overhead_table.h"
outcome $? "overhead_table.h regenerates from $set_name ${also[*]}" \
	"overhead_table.h is not what '${set_name:-no set}' generates: $(head -c 300 "$tmp/err")"
# light with the series is quoted per run: a set with its rows but no
# per-run rows of its own is refused, not written with zeros
mkdir -p "$tmp/noperrun"
cp "$ROOT/$set_name/cost.tsv" "$tmp/noperrun/"
# (its per-run.tsv: the rows of the sets it was made from, none its own)
cp "$ROOT/$set_name/per-run.tsv" "$tmp/noperrun/"
expect "tracer-cost: --table-only on a set without its per-run rows" 2 "per-run.tsv has no rows of noperrun" \
	"$ROOT/scripts/tracer-cost.sh" --table-only "$tmp/noperrun" --table "$tmp/t2.h"
[ ! -e "$tmp/t2.h" ] && [ ! -e "$tmp/t2.h.tmp" ]
outcome $? "tracer-cost: the refused table is not written" "$tmp/t2.h or its .tmp exists"
grep -q '"patched", "6.12.\*+", 64, .*, [1-9][0-9.]*, [0-9.]*, [0-9.]*, [0-9.]*, "results/[^"]*" },$' "$tmp/t.h"
outcome $? "overhead_table.h: patched light carries its cost per run" \
	"no per-run figures on the patched light row of $tmp/t.h"
# one-vCPU rows: Debian 6.1's (no two-vCPU row) goes to the tool's
# table, Debian 6.12's (a reference beside its two-vCPU row) does not
grep -q '"debian-6.1-1cpu", "6.1.0-\*"' "$tmp/t.h" && ! grep -q '"debian-6.12-1cpu"' "$tmp/t.h"
outcome $? "overhead_table.h: Debian 6.1's one-vCPU row in, 6.12's reference out" \
	"the one-vCPU rows of $tmp/t.h are not as tracer-cost.sh's header says"
# a set's raw archive (scripts/results-raw.sh): clear refusals
mkdir -p "$tmp/rawset/runs" "$tmp/rawdest" && echo x >"$tmp/rawset/runs/a.log" && touch "$tmp/rawdest/f"
expect "results-raw: unpack into a directory that is not empty" 2 "rawdest: not empty" \
	"$ROOT/scripts/results-raw.sh" unpack "$ROOT/results/2026-12-01-icount-1k-boots" "$tmp/rawdest"
expect "results-raw: a member the archive lacks" 1 "no member runs/none" \
	"$ROOT/scripts/results-raw.sh" cat "$ROOT/results/2026-12-01-icount-1k-boots" runs/none
"$ROOT/scripts/results-raw.sh" pack "$tmp/rawset" 2>/dev/null
head -c 100 "$tmp/rawset/raw.tar.xz" >"$tmp/rawset/cut" && mv "$tmp/rawset/cut" "$tmp/rawset/raw.tar.xz"
expect "results-raw: a cut archive" 1 "raw.tar.xz: cannot unpack" \
	"$ROOT/scripts/results-raw.sh" unpack "$tmp/rawset" "$tmp/rawout"
expect "results-raw: unknown command" 2 "unknown command 'zip'" \
	"$ROOT/scripts/results-raw.sh" zip "$tmp/rawset"
# and the good case: the committed loopback set next to the cover letter
"$ROOT/scripts/compare-sets.sh" "$ROOT/results/2026-11-30-quiet" >"$tmp/cmp.md" 2>"$tmp/err" &&
   grep -q '^| 64 B | +31.8 % \[-0.4 %, +74.4 %\], n=8, MDE 47.1 % - \*\*not resolved\*\*, excludes the cover letter value | +92.9 % \[+89.3 %, +96.6 %\] |$' "$tmp/cmp.md" &&
   grep -q '^| 512 B | +40.3 % .* - confirmed |' "$tmp/cmp.md" &&
   grep -q '^| 512 B | -49.1 % .* - \*\*contradicted: larger\*\* |' "$tmp/cmp.md" &&
   [ "$(grep -c '^### ' "$tmp/cmp.md")" -ge 10 ]
outcome $? "compare-sets: loopback set vs the cover letter, $(grep -c '^### ' "$tmp/cmp.md") tables" \
	"compare-sets on results/2026-11-30-quiet: $(head -c 300 "$tmp/err")"

# The series' tables: usage, sets that are not sets, tables that can fail.
expect "series-tables: unknown table" 2 "usage" \
	"$ROOT/scripts/series-tables.sh" nosuch "$ROOT/results/2026-12-01-h2g-wall-timed"
expect "series-tables: not a set" 1 "no summary.json" \
	"$ROOT/scripts/series-tables.sh" wall "$tmp"
expect "series-tables: icount of a wall-clock set" 1 "not an instruction-count set" \
	"$ROOT/scripts/series-tables.sh" icount "$ROOT/results/2026-12-01-h2g-wall-timed"
expect "traced-waits: not a set" 2 "not an experiment set" \
	"$ROOT/scripts/traced-waits.sh" "$tmp"
expect "sender-stall: not a set" 2 "not an experiment set" \
	"$ROOT/scripts/sender-stall.sh" "$tmp"
expect "sender-stall: no set" 2 "usage" "$ROOT/scripts/sender-stall.sh"
expect "sender-stall: a set from before --flow-stats" 1 "no back-end flow lines" \
	"$ROOT/scripts/sender-stall.sh" "$ROOT/results/2026-12-07-h2g-v3-e"
# the back-end's own count, untraced and traced, paired by round
"$ROOT/scripts/sender-stall.sh" "$ROOT/results/2026-12-07-h2g-v3-t" >"$tmp/ss.md" 2>"$tmp/err" &&
	grep -q '^| 4096 | fixed | baseline | 8 | 59.5 \[54.9, 64.1\] | - |$' "$tmp/ss.md" &&
	grep -q '^| 65536 | traced | p1-3 | 8 | 71.1 \[68.5, 73.7\] | +9.9 \[+6.1, +13.7\] (n 8) |$' "$tmp/ss.md"
outcome $? "sender-stall: the committed set's no-credit shares" \
	"$(head -c 300 "$tmp/err"; head -c 600 "$tmp/ss.md")"
# time per MiB split by what held the sender back, with the RX-buffer
# column and the credit returns of a back-end that logs them
"$ROOT/scripts/sender-stall.sh" --per-mib "$ROOT/results/2026-12-07-h2g-v3-credit" >"$tmp/pm.md" 2>"$tmp/err" &&
	grep -q '^| 4096 | fixed | baseline | 16 | 8.15 | 4.64 | 0.73 | 2.78 | 8.21 |$' "$tmp/pm.md" &&
	grep -q '^| 4096 | fixed | patched | 16 | 8.25 (+0.10 \[-0.34, +0.54\]) | 4.83 (+0.19 \[-0.37, +0.75\]) | 0.27 (-0.46 \[-0.55, -0.37\]) | 3.15 (+0.37 \[+0.18, +0.56\]) | 6.43 (-1.78 \[-2.30, -1.26\]) |$' "$tmp/pm.md"
outcome $? "sender-stall --per-mib: the committed set's split" \
	"$(head -c 300 "$tmp/err"; head -c 600 "$tmp/pm.md")"
# older back-ends: no RX-buffer column, the rest is "with credit"
"$ROOT/scripts/series-tables.sh" sendertime "$ROOT/results/2026-12-07-h2g-v3-t" >"$tmp/pm.txt" 2>"$tmp/err" &&
	grep -q '^  4 KiB .*with credit, ms ' "$tmp/pm.txt" && ! grep -q 'no RX buffer' "$tmp/pm.txt"
outcome $? "series-tables sendertime: a set without the RX-buffer column" \
	"$(head -c 300 "$tmp/err"; head -c 600 "$tmp/pm.txt")"
# the set's exclusion rule applies: 7 of 8 traced baseline transfers left
"$ROOT/scripts/sender-stall.sh" "$ROOT/results/2026-12-07-h2g-v3-light" >"$tmp/ex.md" 2>"$tmp/err" &&
	grep -q '^| 4096 | traced | baseline | 7 |' "$tmp/ex.md"
outcome $? "sender-stall: the set's host-load exclusions are left out" \
	"$(head -c 300 "$tmp/err"; grep traced "$tmp/ex.md" | head -c 400)"
# parallel flows: flow 0 only, one row per run
[ "$("$ROOT/scripts/sender-stall.sh" --tsv "$ROOT/results/2026-12-07-h2g-v3-flows2" 2>"$tmp/err" |
	awk -F'\t' '$1 == 4096 && $2 == "fixed"' | wc -l)" = 24 ]
outcome $? "sender-stall: a set with 2 flows reads flow 0 of each of its 24 runs" "$(head -c 300 "$tmp/err")"
expect "sender-stall: --per-mib --vs without a state" 2 "usage" \
	"$ROOT/scripts/sender-stall.sh" --per-mib --vs
expect "experiment: --flows 3" 2 "--flows is 1, 2 or 4" \
	"$ROOT/scripts/experiment.sh" --flows 3 --mode h2g
expect "experiment: --flows on loopback" 2 "--flows is for --mode h2g" \
	"$ROOT/scripts/experiment.sh" --flows 2
expect "experiment: --socket seqpacket from the host" 2 "seqpacket is for --mode loopback" \
	"$ROOT/scripts/experiment.sh" --socket seqpacket --mode h2g
expect "experiment: --socket bad" 2 "--socket is stream or seqpacket" \
	"$ROOT/scripts/experiment.sh" --socket dgram
expect "cover-letter: no such series" 2 "no template" \
	"$ROOT/scripts/cover-letter.sh" 9.9
expect "cover-letter: bad option" 2 "usage" \
	"$ROOT/scripts/cover-letter.sh" 7.2 --nosuch
# both sets of the 6.12 v2 wall clock: 4 KiB lost in both, nothing else
"$ROOT/scripts/series-tables.sh" wall "$ROOT/results/2026-12-01-h2g-wall-timed" \
	"$ROOT/results/2026-12-01-h2g-wall" >"$tmp/st.txt" 2>"$tmp/err" &&
	[ "$(grep -c ' yes$' "$tmp/st.txt")" = 1 ] && grep -q '^  4 KiB .* yes$' "$tmp/st.txt"
outcome $? "series-tables: a loss both sets resolve is named, and only it" \
	"$(head -c 300 "$tmp/err"; head -c 600 "$tmp/st.txt")"

echo "lab input tests: $passed passed, $failed failed"
[ "$failed" -eq 0 ]
