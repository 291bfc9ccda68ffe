# shellcheck shell=bash
# Shared settings and helpers for the vsockbatch lab scripts.
# Sourced, never run.

VB_ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
VB_BASE_VERSION=6.12.117
VB_SRC_TARBALL=${VB_SRC_TARBALL:-/usr/src/linux-source-6.12.tar.xz}
VB_CACHE=${VSOCKBATCH_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/vsockbatch}
VB_PATCH_DIR=${VSOCKBATCH_PATCH_DIR:-$VB_ROOT/kernel-patches/v$VB_BASE_VERSION}
VB_CONFIG_DIR=$VB_ROOT/scripts/config
# Bump when the way a kernel is built or packaged changes, so cached
# kernels built the old way are not reused.
VB_RECIPE=3

die() {
	echo "${0##*/}: $*" >&2
	exit 1
}

log() {
	echo "[${0##*/}] $*" >&2
}

# The patches of the series, in `series` order (or sorted when the series
# file is absent); comment lines and the cover letter are skipped.
series_patches() {
	local f

	[ -d "$VB_PATCH_DIR" ] || return 0
	if [ -f "$VB_PATCH_DIR/series" ]; then
		while read -r f; do
			case "$f" in ''|'#'*) continue ;; esac
			echo "$VB_PATCH_DIR/$f"
		done <"$VB_PATCH_DIR/series"
	else
		find "$VB_PATCH_DIR" -maxdepth 1 -name '0*.patch' \
			! -name '0000-*' | sort
	fi
}

# Fixes for net that every variant carries ahead of the series, baseline
# included (`fixes` in the patch directory, one file name a line): bugs of
# the base kernel that the tests hit on baseline and patched alike, so the
# comparison is between 6.12.117 + fixes with and without the series.
fix_patches() {
	local f

	[ -f "$VB_PATCH_DIR/fixes" ] || return 0
	while read -r f; do
		case "$f" in ''|'#'*) continue ;; esac
		echo "$VB_PATCH_DIR/$f"
	done <"$VB_PATCH_DIR/fixes"
}

# variant_spec NAME: sets VB_FRAGMENTS (config fragments) and VB_NPATCHES
# (how many patches of the series, "all" or a number) for a kernel variant.
# Every variant first applies fix_patches.
#   baseline  6.12.117 + fixes, without the series
#   p1-3      + patches 1-3 (batching without the callback changes)
#   patched   + the whole series
#   debug     + the whole series with lockdep, atomic-sleep, debugobjects, KASAN,
#             and vsock built in (the modular case is baseline/patched's)
#   baseline-debug  6.12.117 + fixes with the debug checks
#   debian-*  Debian's packaged kernels (scripts/config/debian-kernels),
#             VB_KIND=debian: downloaded by scripts/debian-kernel.sh
variant_spec() {
	VB_FRAGMENTS="$VB_CONFIG_DIR/guest.config"
	VB_KIND=lab
	case "$1" in
	debian-*)	debian_spec "$1" ;;
	baseline|p1-3|patched)
			VB_FRAGMENTS="$VB_FRAGMENTS $VB_CONFIG_DIR/virtio-net.config"
			case $1 in
			baseline)	VB_NPATCHES=0 ;;
			p1-3)		VB_NPATCHES=3 ;;
			patched)	VB_NPATCHES=all ;;
			esac ;;
	debug)		VB_NPATCHES=all
			VB_FRAGMENTS="$VB_FRAGMENTS $VB_CONFIG_DIR/debug.config"
			VB_FRAGMENTS="$VB_FRAGMENTS $VB_CONFIG_DIR/vsock-builtin.config" ;;
	baseline-debug)	VB_NPATCHES=0
			VB_FRAGMENTS="$VB_FRAGMENTS $VB_CONFIG_DIR/debug.config" ;;
	*)
		echo "unknown kernel variant '$1' (known: baseline p1-3 patched debug baseline-debug $(debian_variants))" >&2
		return 2 ;;
	esac
}

# Debian's packaged kernels (scripts/config/debian-kernels): not built
# here but downloaded, verified and unpacked by scripts/debian-kernel.sh.
VB_DEBIAN_PINS=${VSOCKBATCH_DEBIAN_PINS:-$VB_CONFIG_DIR/debian-kernels}
# Bump when the way a Debian package is unpacked into a cache entry
# changes (module selection, layout).
VB_DEBIAN_RECIPE=1
# The modules a lab guest needs from a Debian kernel, dependencies are
# added from their modinfo: vsock and its transports, and virtio-pci +
# virtio-blk for the results disk (built in on some flavours).
VB_DEBIAN_MODULES="vsock vsock_loopback vmw_vsock_virtio_transport
	vmw_vsock_virtio_transport_common vhost_vsock vsock_diag
	virtio_pci virtio_blk"

debian_variants() {
	[ -f "$VB_DEBIAN_PINS" ] || return 0
	awk '!/^#/ && NF >= 4 { printf "%s%s", sep, $1; sep = " " }' "$VB_DEBIAN_PINS"
}

# debian_spec NAME: VB_DEB_PKG, VB_DEB_VERSION, VB_DEB_SHA256 from the pins.
debian_spec() {
	local line

	line=$(awk -v n="$1" '!/^#/ && $1 == n { print $2, $3, $4; exit }' \
		"$VB_DEBIAN_PINS" 2>/dev/null)
	if [ -z "$line" ]; then
		echo "unknown kernel variant '$1' (no line for it in $VB_DEBIAN_PINS; known: $(debian_variants))" >&2
		return 2
	fi
	read -r VB_DEB_PKG VB_DEB_VERSION VB_DEB_SHA256 <<<"$line"
	if ! [[ "$VB_DEB_SHA256" =~ ^[0-9a-f]{64}$ ]]; then
		echo "$VB_DEBIAN_PINS: '$1' has no valid SHA256 (got '$VB_DEB_SHA256')" >&2
		return 2
	fi
	VB_KIND=debian
	VB_FRAGMENTS=
	VB_NPATCHES=0
}

# The patch files a variant applies, one per line: the fixes, then its part
# of the series.
variant_patches() {
	fix_patches
	if [ "$VB_NPATCHES" = all ]; then
		series_patches
	elif [ "$VB_NPATCHES" -gt 0 ]; then
		local n
		n=$(series_patches | wc -l)
		[ "$n" -ge "$VB_NPATCHES" ] ||
			die "variant needs $VB_NPATCHES patches, $VB_PATCH_DIR has $n"
		# awk, not head: head exiting early would SIGPIPE the loop above,
		# and under pipefail make the variant hash fail at random
		series_patches | awk -v n="$VB_NPATCHES" 'NR <= n'
	fi
}

# Cache key of a variant: base version, the build recipe, the config
# fragments and the patches (contents, in order).
variant_hash() {
	local f
	if [ "$VB_KIND" = debian ]; then
		echo "debian recipe $VB_DEBIAN_RECIPE $VB_DEB_PKG $VB_DEB_VERSION" \
			"$VB_DEB_SHA256 modules" $VB_DEBIAN_MODULES |
			sha256sum | cut -c1-16
		return
	fi
	{
		echo "base $VB_BASE_VERSION recipe $VB_RECIPE"
		for f in $VB_FRAGMENTS; do
			echo "fragment ${f##*/}"
			cat "$f"
		done
		variant_patches | while read -r f; do
			echo "patch ${f##*/}"
			cat "$f"
		done
	} | sha256sum | cut -c1-16
}

# kernel_dir VARIANT: the cache entry of a built, verified kernel, or
# nothing (exit 1) when there is none.
kernel_dir() {
	local d
	variant_spec "$1" || return 2
	d=$VB_CACHE/kernels/$1-$(variant_hash)
	[ -f "$d/MANIFEST" ] || return 1
	(cd "$d" && sha256sum --quiet -c MANIFEST >/dev/null 2>&1) || return 1
	echo "$d"
}
