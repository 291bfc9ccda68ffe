#!/bin/bash
# debian-kernel.sh VARIANT: a Debian kernel image as a lab kernel.
#
# VARIANT names a line of scripts/config/debian-kernels (package, exact
# version, SHA256 of the .deb, and its series for when the archive no
# longer serves the pin).  The package is fetched with `apt-get download`
# (apt checks it against the signed archive index), its SHA256 is
# checked against the pin's (or the index's, for a fallback), and it is
# kept in $VSOCKBATCH_CACHE/debs/<sha256>.deb (scripts/debian-pins.sh).
# Unpacked, it becomes a cache entry
# $VSOCKBATCH_CACHE/kernels/<variant>-<hash> laid out like the lab's own
# (bzImage, config, System.map, modroot/, release, info, MANIFEST) with
# only the modules a lab guest loads (VB_DEBIAN_MODULES in lib.sh and
# their dependencies), decompressed (busybox modprobe reads no .ko.xz)
# and indexed with depmod.  `transport` says how results leave the guest:
# these kernels have no built-in 9p (the cloud flavours have none at all),
# so "blk": a raw tar written to a virtio-blk disk (scripts/guest-run.sh).
# Prints the entry on stdout.  No vmlinux: Debian ships it only in the
# -dbg package (~1 GB); the tracer needs the kernel's /sys/kernel/btf.
set -euo pipefail
. "$(dirname "$0")/lib.sh"

[ $# -eq 1 ] || { echo "usage: ${0##*/} VARIANT (one of: $(debian_variants))" >&2; exit 2; }
VARIANT=$1
variant_spec "$VARIANT" || exit 2
[ "$VB_KIND" = debian ] || { echo "${0##*/}: '$VARIANT' is not a Debian kernel variant" >&2; exit 2; }

HASH=$(variant_hash)
OUT=$VB_CACHE/kernels/$VARIANT-$HASH

if d=$(kernel_dir "$VARIANT"); then
	log "$VARIANT: cached kernel $d"
	echo "$d"
	exit 0
fi
mkdir -p "$VB_CACHE/debs" "$VB_CACHE/kernels"
# Not the lab's build lock: a kernel build must not hold up an unpack.
exec 9>"$VB_CACHE/debian.lock"
flock 9
if d=$(kernel_dir "$VARIANT"); then
	echo "$d"
	exit 0
fi
if [ -e "$OUT" ]; then
	log "$VARIANT: cache entry $OUT is incomplete or corrupt; unpacking again"
	rm -rf "$OUT"
fi

# The module file of NAME under DIR (names may spell '-' or '_').
module_file() {
	find "$1" -type f \( -name "$2.ko*" -o -name "${2//_/-}.ko*" \) | head -n 1
}

DEB=$(deb_fetch "$VARIANT" "$VB_DEB_SUITE" "$VB_DEB_PKG" "$VB_DEB_VERSION" \
	"$VB_DEB_SHA256") || exit 1
# Split kernels (Debian 7.x: linux-binary-unsigned-REL has the image,
# linux-modules-REL the modules, linux-base-REL config, System.map and
# the module lists): the other packages of the same release and version,
# their SHA256 from the signed index (VB_DEB_EXTRAS, debian_spec in lib.sh).
EXTRA_DEBS=()
for x in $VB_DEB_EXTRAS; do
	xsha=$(deb_sha256 "$VB_DEB_SUITE" "$x" "$VB_DEB_VERSION")
	[ -n "$xsha" ] || die "$x=$VB_DEB_VERSION is not served (needed with $VB_DEB_PKG)"
	# not inside the array assignment: its status would hide a failure
	xdeb=$(deb_fetch "$VARIANT" "$VB_DEB_SUITE" "$x" "$VB_DEB_VERSION" "$xsha") ||
		exit 1
	EXTRA_DEBS+=("$xdeb")
done

stage=$VB_CACHE/kernels/.tmp-$VARIANT-$HASH-$$
trap 'rm -rf "$stage"' EXIT
rm -rf "$stage" && mkdir -p "$stage/deb" "$stage/entry"
for d in "$DEB" "${EXTRA_DEBS[@]}"; do
	dpkg-deb -x "$d" "$stage/deb"
done
# Classic layout: /boot/vmlinuz-REL, /boot/config-REL, /lib/modules/REL;
# split layout: everything under /usr/lib/modules/REL.
vmlinuz=$( (find "$stage/deb/boot" -maxdepth 1 -name 'vmlinuz-*' 2>/dev/null || true) | head -n 1)
if [ -n "$vmlinuz" ]; then
	rel=${vmlinuz##*/vmlinuz-}
	mods=$stage/deb/lib/modules/$rel
	config=$stage/deb/boot/config-$rel
	sysmap=$stage/deb/boot/System.map-$rel
else
	vmlinuz=$(find "$stage/deb/usr/lib/modules" -mindepth 2 -maxdepth 2 \
		-name 'vmlinuz*' 2>/dev/null | head -n 1)
	[ -n "$vmlinuz" ] || die "$VB_DEB_PKG has no /boot/vmlinuz-* nor /usr/lib/modules/*/vmlinuz*"
	mods=${vmlinuz%/*}
	rel=${mods##*/}
	config=$mods/config
	sysmap=$mods/System.map
fi
[ -d "$mods/kernel" ] || die "$VB_DEB_PKG${VB_DEB_EXTRAS:+ + $VB_DEB_EXTRAS} has no modules for $rel"
e=$stage/entry
cp "$vmlinuz" "$e/bzImage"
cp "$config" "$e/config" || die "$VB_DEB_PKG: no kernel config for $rel"
cp "$sysmap" "$e/System.map" || die "$VB_DEB_PKG: no System.map for $rel"
grep -q '^CONFIG_DEBUG_INFO_BTF=y' "$e/config" ||
	log "$VARIANT: warning: $rel has no CONFIG_DEBUG_INFO_BTF: the tracer will refuse it"

# The wanted modules and everything they depend on; built-in ones need
# no file.
want=$VB_DEBIAN_MODULES picked=
while [ -n "${want// /}" ]; do
	set -- $want
	m=$1
	shift
	want="$*"
	case " $picked " in *" $m "*) continue ;; esac
	picked+=" $m"
	f=$(module_file "$mods/kernel" "$m")
	if [ -z "$f" ]; then
		grep -Eq "/(${m}|${m//_/-})\\.ko\$" "$mods/modules.builtin" ||
			die "$VB_DEB_PKG: module $m neither in the package nor built in"
		continue
	fi
	rp=${f#"$mods"/}
	mkdir -p "$e/modroot/lib/modules/$rel/$(dirname "$rp")"
	case "$f" in
	*.ko)	cp "$f" "$e/modroot/lib/modules/$rel/$rp" ;;
	*.ko.xz) xz -dc "$f" >"$e/modroot/lib/modules/$rel/${rp%.xz}" ;;
	*.ko.zst) zstd -qdc "$f" >"$e/modroot/lib/modules/$rel/${rp%.zst}" ;;
	*.ko.gz) gzip -dc "$f" >"$e/modroot/lib/modules/$rel/${rp%.gz}" ;;
	*)	die "$f: unknown module compression" ;;
	esac
	want+=" $(modinfo -F depends "$f" | tr ',' ' ')"
done
cp "$mods"/modules.builtin "$mods"/modules.builtin.modinfo "$mods"/modules.order \
	"$e/modroot/lib/modules/$rel/"
/sbin/depmod -b "$e/modroot" "$rel"

echo "$rel" >"$e/release"
echo blk >"$e/transport"
{
	echo "variant $VARIANT"
	echo "hash $HASH"
	echo "package $VB_DEB_PKG"
	echo "version $VB_DEB_VERSION"
	echo "sha256 $VB_DEB_SHA256"
	[ -z "$VB_DEB_EXTRAS" ] || echo "with $VB_DEB_EXTRAS"
	echo "modules$picked"
} >"$e/info"
(cd "$e" && find . -type f ! -name MANIFEST -print0 | sort -z |
	xargs -0 sha256sum >MANIFEST)
rm -rf "$OUT"
mv "$e" "$OUT"
log "$VARIANT: $VB_DEB_PKG $VB_DEB_VERSION ($rel) -> $OUT"
echo "$OUT"
