#!/bin/bash
# initramfs.sh KERNELDIR OUT.cpio.gz SCRIPT [ARGS...]: pack a lab initramfs.
#
# Contents: busybox-static, the kernel's modules, upstream vsock_test and
# vsock_perf built from the same tree (lab kernels only), every static binary in build/, the
# repo's tests/guest/ scripts (/vb/guest), the script to run (/vb/script)
# with its arguments (/vb/args, one per line) and environment (/vb/env,
# from VB_GUEST_ENV: newline-separated KEY=VALUE lines).  VB_GUEST_OVERLAY,
# a directory, is copied over the image root last (e.g. a `make install
# DESTDIR=` tree or a dpkg --root): tests/install-guest.sh.
set -euo pipefail
. "$(dirname "$0")/lib.sh"

[ $# -ge 3 ] || { echo "usage: ${0##*/} KERNELDIR OUT.cpio.gz SCRIPT [ARGS...]" >&2; exit 2; }
KDIR=$1 OUT=$2 SCRIPT=$3
shift 3
[ -f "$KDIR/bzImage" ] || die "$KDIR is not a lab kernel directory"
[ -f "$SCRIPT" ] || die "guest script $SCRIPT not found"
BUSYBOX=/bin/busybox
file -L "$BUSYBOX" | grep -q 'statically linked' ||
	die "$BUSYBOX is not static (apt-get install busybox-static)"

stage=$(mktemp -d)
trap 'rm -rf "$stage"' EXIT
mkdir -p "$stage"/{bin,sbin,usr/bin,lib,vb,etc}
cp "$BUSYBOX" "$stage/bin/busybox"
cp "$VB_ROOT/scripts/guest/init" "$stage/init"
chmod +x "$stage/init"
cp -a "$KDIR/modroot/lib/modules" "$stage/lib/"
# Built from the lab's own tree; a Debian kernel's entry has none (the
# guest tests use build/vb-sender and vb-recv there).
for f in vsock_test vsock_perf; do
	[ ! -f "$KDIR/$f" ] || cp "$KDIR/$f" "$stage/usr/bin/"
done

# Project binaries: only static ones would run here; refuse the others
# instead of failing obscurely inside the guest.
for f in "$VB_ROOT"/build/*; do
	[ -f "$f" ] && [ -x "$f" ] || continue
	if [ -L "$f" ]; then
		cp -a "$f" "$stage/usr/bin/"
		continue
	fi
	file "$f" | grep -q 'statically linked' ||
		die "build/${f##*/} is not statically linked"
	cp "$f" "$stage/usr/bin/"
done

# The one dynamically linked tool (build/dyn/: vsockbatch-export, whose
# libmicrohttpd has no static build here) with the shared libraries and
# loader ldd names, at the same paths.
for f in "$VB_ROOT"/build/dyn/*; do
	[ -f "$f" ] && [ -x "$f" ] || continue
	cp "$f" "$stage/usr/bin/"
	libs=$(ldd "$f") || die "ldd build/dyn/${f##*/} failed"
	for lib in $(awk '$2 == "=>" && $3 ~ /^\// { print $3 } $1 ~ /^\// { print $1 }' <<<"$libs"); do
		[ -e "$stage$lib" ] && continue
		mkdir -p "$stage${lib%/*}"
		cp -L "$lib" "$stage$lib"
	done
done

# An installed tree goes over everything else, so what it installs is
# what the guest runs; its binaries must be static like build/'s, or
# dynamic with every library already in the image (the installed
# vsockbatch-export: its libraries came with build/dyn/'s above).
if [ -n "${VB_GUEST_OVERLAY:-}" ]; then
	[ -d "$VB_GUEST_OVERLAY" ] || die "VB_GUEST_OVERLAY=$VB_GUEST_OVERLAY is not a directory"
	while IFS= read -r -d '' f; do
		file "$f" | grep -q 'ELF.*dynamically linked' || continue
		libs=$(ldd "$f" 2>/dev/null | awk '$2 == "=>" && $3 ~ /^\// { print $3 } $1 ~ /^\// { print $1 }')
		for lib in $libs; do
			# in the image, or brought by the overlay itself
			[ -e "$stage$lib" ] || [ -e "$VB_GUEST_OVERLAY$lib" ] && continue
			echo "${0##*/}: VB_GUEST_OVERLAY: ${f#"$VB_GUEST_OVERLAY"/} is dynamically linked and needs $lib, which the image lacks" >&2
			exit 2	# bad input, as the runner's own checks
		done
	done < <(find "$VB_GUEST_OVERLAY" -type f -perm -u+x -print0)
	cp -a "$VB_GUEST_OVERLAY/." "$stage/"
fi

cp -r "$VB_ROOT/tests/guest" "$stage/vb/guest"
cp "$SCRIPT" "$stage/vb/script"
: >"$stage/vb/args"
for a in "$@"; do
	case "$a" in *$'\n'*) die "guest arguments cannot contain newlines" ;; esac
	printf '%s\n' "$a" >>"$stage/vb/args"
done
: >"$stage/vb/env"
if [ -n "${VB_GUEST_ENV:-}" ]; then
	while IFS= read -r kv; do
		[ -n "$kv" ] || continue
		k=${kv%%=*} v=${kv#*=}
		[[ "$k" =~ ^[A-Za-z_][A-Za-z0-9_]*$ ]] || die "bad guest env name '$k'"
		printf "export %s='%s'\n" "$k" "${v//\'/\'\\\'\'}" >>"$stage/vb/env"
	done <<<"$VB_GUEST_ENV"
fi

(cd "$stage" && find . -print0 | cpio --null -o -H newc --quiet) |
	gzip -1 >"$OUT"
