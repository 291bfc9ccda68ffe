#!/bin/bash
# install-guest.sh [-k VARIANT] [-o OUTDIR]: install the tools into a lab
# guest's image the two ways a user would, boot it, and run them there
# (tests/guest/installed.sh):
#   - `make install DESTDIR=ROOT PREFIX=/usr/local`;
#   - `make deb`, then `dpkg --root=ROOT -i` of the package (/usr).
# ROOT goes over the initramfs root (VB_GUEST_OVERLAY).  The package is
# built from HEAD: commit first.  Exit 0 when the guest test passed.
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/.." && pwd)
. "$ROOT/scripts/lib.sh"

variant=baseline out=
while getopts k:o:h opt; do
	case $opt in
	k) variant=$OPTARG ;;
	o) out=$OPTARG ;;
	*) echo "usage: ${0##*/} [-k VARIANT] [-o OUTDIR]" >&2; exit 2 ;;
	esac
done
out=${out:-$ROOT/build/check/install}
rm -rf "$out"
mkdir -p "$out"
stage=$out/root

make -C "$ROOT" -s tools >/dev/null
make -C "$ROOT" -s install DESTDIR="$stage" PREFIX=/usr/local >/dev/null
deb=$(make -C "$ROOT" -s deb | tail -n 1)
[ -f "$deb" ] || die "make deb produced no package ($deb)"
cp "$deb" "$out/"

# dpkg's own database in the image, so the package is installed the way
# dpkg installs it (and recorded as installed), not unpacked by hand.
mkdir -p "$stage/var/lib/dpkg/info" "$stage/var/lib/dpkg/updates"
: >"$stage/var/lib/dpkg/status"
# The image's shared libraries (for vsockbatch-export) are copied in by
# initramfs.sh, not installed as packages, so this empty database cannot
# satisfy the package's Depends: --force-depends, and only that.
dpkg --root="$stage" --log=/dev/null --force-depends -i "$deb" >"$out/dpkg.log" 2>&1 ||
	die "dpkg --root -i failed ($out/dpkg.log)"

mkdir -p "$stage/vb-install"
tr -d ' \n' <"$ROOT/VERSION" >"$stage/vb-install/version"
(cd "$stage" && find usr/local/bin usr/bin -type f -exec sha256sum {} + |
	sed 's|  |  /|' | awk '{ print $1, $2 }') >"$stage/vb-install/expect"

VB_GUEST_OVERLAY=$stage "$ROOT/scripts/guest-run.sh" -k "$variant" -t 300 \
	-o "$out/guest" "$ROOT/tests/guest/installed.sh" >"$out/guest-run.log" 2>&1
