# shellcheck shell=bash
# Shared settings and helpers for the vsockbatch lab scripts.
# Sourced, never run.

VB_ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
VB_CACHE=${VSOCKBATCH_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/vsockbatch}
VB_CONFIG_DIR=$VB_ROOT/scripts/config
# The kernel source of each series: Debian's linux-source-X.Y, pinned by
# version and SHA256 (scripts/config/kernel-sources; debian-pins.sh says
# what happens when the archive no longer serves the pin).
VB_SOURCE_PINS=${VSOCKBATCH_SOURCE_PINS:-$VB_CONFIG_DIR/kernel-sources}
# The series the lab variants without a -X.Y suffix are built from.
VB_DEFAULT_SERIES=6.12
# Bump when the way a kernel is built or packaged changes, so cached
# kernels built the old way are not reused.
VB_RECIPE=4
. "$VB_ROOT/scripts/debian-pins.sh"

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
# comparison is between the base + fixes with and without the series.
fix_patches() {
	local f

	[ -f "$VB_PATCH_DIR/fixes" ] || return 0
	while read -r f; do
		case "$f" in ''|'#'*) continue ;; esac
		echo "$VB_PATCH_DIR/$f"
	done <"$VB_PATCH_DIR/fixes"
}

# base_spec SERIES: the kernel source of SERIES (a line of
# $VB_SOURCE_PINS) resolved against the archive: VB_SERIES, VB_BASE_SUITE,
# VB_BASE_PKG, VB_BASE_DEB (the exact Debian version, e.g.
# 6.12.118-1~deb12u1), VB_BASE_SHA256, VB_BASE_VERSION (upstream, e.g.
# 6.12.118) and VB_PATCH_DIR (kernel-patches/vSERIES).  Resolved once per
# process tree (exported), so the fallback line is said once.
base_spec() {
	local series=$1 var line pkg ver sha suite

	var=VB_BASE_RESOLVED_${series//./_}
	VB_SERIES=$series
	VB_PATCH_DIR=${VSOCKBATCH_PATCH_DIR:-$VB_ROOT/kernel-patches/v$series}
	if [ -z "${!var:-}" ]; then
		line=$(awk -v s="$series" '!/^#/ && $1 == s { print $2, $3, $4, $5; exit }' \
			"$VB_SOURCE_PINS" 2>/dev/null)
		if [ -z "$line" ]; then
			echo "no kernel source pinned for series '$series' in $VB_SOURCE_PINS" >&2
			return 2
		fi
		read -r suite pkg ver sha <<<"$line"
		if ! [[ "$sha" =~ ^[0-9a-f]{64}$ ]]; then
			echo "$VB_SOURCE_PINS: series $series has no valid SHA256 (got '$sha')" >&2
			return 2
		fi
		deb_resolve "kernel source $series" "$suite" "$pkg" "$series." \
			"$pkg" "$ver" "$sha" || return 1
		[ -z "$DEB_NOTE" ] || echo "$DEB_NOTE" >&2
		printf -v "$var" '%s %s %s %s' "$suite" "$DEB_PKG" "$DEB_VERSION" "$DEB_SHA256"
		export "${var?}"
	fi
	read -r VB_BASE_SUITE VB_BASE_PKG VB_BASE_DEB VB_BASE_SHA256 <<<"${!var}"
	VB_BASE_VERSION=${VB_BASE_DEB%%-*}
	VB_BASE_VERSION=${VB_BASE_VERSION%%+*}
}

# variant_spec NAME: sets VB_FRAGMENTS (config fragments) and VB_NPATCHES
# (how many patches of the series: "all", "all-but-last" or a number) for a
# kernel variant,
# and its base (base_spec).  Every variant first applies fix_patches.
# A lab variant may end in -X.Y, the series it is built from (default
# $VB_DEFAULT_SERIES): patched-7.2 is 7.2 + kernel-patches/v7.2.
#   baseline  the base + fixes, without the series
#   p1-3      + patches 1-3 (batching without the callback changes)
#   patched   + the whole series
#   noevent   + the whole series but its last patch, the optional rx_batch
#             tracepoint: what the tracer sees where a kernel carries the
#             series without the event
#   debug     + the whole series with lockdep, atomic-sleep, debugobjects, KASAN,
#             and vsock built in (the modular case is baseline/patched's)
#   baseline-debug  the base + fixes with the debug checks
#   debian-*  Debian's packaged kernels (scripts/config/debian-kernels),
#             VB_KIND=debian: downloaded by scripts/debian-kernel.sh
variant_spec() {
	local name=$1 series=$VB_DEFAULT_SERIES

	VB_FRAGMENTS="$VB_CONFIG_DIR/guest.config"
	VB_KIND=lab
	case "$name" in
	debian-*)	debian_spec "$name"; return ;;
	esac
	if [[ "$name" =~ ^(.*)-([0-9]+\.[0-9]+)$ ]]; then
		name=${BASH_REMATCH[1]} series=${BASH_REMATCH[2]}
	fi
	case "$name" in
	baseline|p1-3|patched|noevent)
			VB_FRAGMENTS="$VB_FRAGMENTS $VB_CONFIG_DIR/virtio-net.config"
			case $name in
			baseline)	VB_NPATCHES=0 ;;
			p1-3)		VB_NPATCHES=3 ;;
			patched)	VB_NPATCHES=all ;;
			noevent)	VB_NPATCHES=all-but-last ;;
			esac ;;
	debug)		VB_NPATCHES=all
			VB_FRAGMENTS="$VB_FRAGMENTS $VB_CONFIG_DIR/debug.config"
			VB_FRAGMENTS="$VB_FRAGMENTS $VB_CONFIG_DIR/vsock-builtin.config" ;;
	baseline-debug)	VB_NPATCHES=0
			VB_FRAGMENTS="$VB_FRAGMENTS $VB_CONFIG_DIR/debug.config" ;;
	*)
		echo "unknown kernel variant '$1' (known: baseline p1-3 patched noevent debug baseline-debug, each with an optional -X.Y series suffix, $(debian_variants))" >&2
		return 2 ;;
	esac
	base_spec "$series" || return
	# A series may need to override guest.config (last word wins):
	# guest-X.Y.config
	if [ -f "$VB_CONFIG_DIR/guest-$series.config" ]; then
		VB_FRAGMENTS="$VB_FRAGMENTS $VB_CONFIG_DIR/guest-$series.config"
	fi
	# patched-X.Y without kernel-patches/vX.Y must not quietly build a
	# baseline
	if [ "$VB_NPATCHES" != 0 ] && [ ! -f "$VB_PATCH_DIR/series" ]; then
		echo "kernel variant '$1': no series for $series ($VB_PATCH_DIR/series is missing)" >&2
		return 2
	fi
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

# debian_spec NAME: VB_DEB_PKG, VB_DEB_VERSION, VB_DEB_SHA256 (and
# VB_DEB_SUITE) of a Debian kernel variant: its pin (package, version,
# SHA256) while served, else the newest image of its series (columns 5-7:
# suite, package glob, version prefix), said in one line.
debian_spec() {
	local line var suite glob prefix

	line=$(awk -v n="$1" '!/^#/ && $1 == n { print $2, $3, $4, $5, $6, $7, $8; exit }' \
		"$VB_DEBIAN_PINS" 2>/dev/null)
	if [ -z "$line" ]; then
		echo "unknown kernel variant '$1' (no line for it in $VB_DEBIAN_PINS; known: $(debian_variants))" >&2
		return 2
	fi
	read -r VB_DEB_PKG VB_DEB_VERSION VB_DEB_SHA256 suite glob prefix split <<<"$line"
	if ! [[ "$VB_DEB_SHA256" =~ ^[0-9a-f]{64}$ ]]; then
		echo "$VB_DEBIAN_PINS: '$1' has no valid SHA256 (got '$VB_DEB_SHA256')" >&2
		return 2
	fi
	if [ -z "$prefix" ]; then
		echo "$VB_DEBIAN_PINS: '$1' names no suite, package glob and version prefix (columns 5-7)" >&2
		return 2
	fi
	var=VB_DEB_RESOLVED_${1//[.-]/_}
	if [ -z "${!var:-}" ]; then
		deb_resolve "$1" "$suite" "$glob" "$prefix" "$VB_DEB_PKG" \
			"$VB_DEB_VERSION" "$VB_DEB_SHA256" || return 1
		[ -z "$DEB_NOTE" ] || echo "$DEB_NOTE" >&2
		printf -v "$var" '%s %s %s' "$DEB_PKG" "$DEB_VERSION" "$DEB_SHA256"
		export "${var?}"
	fi
	read -r VB_DEB_PKG VB_DEB_VERSION VB_DEB_SHA256 <<<"${!var}"
	VB_DEB_SUITE=$suite
	# column 8, split kernels: the package-name prefix of the image
	# package, then those of the other packages of the same release
	# ("linux-binary-unsigned-,linux-modules-,linux-base-")
	VB_DEB_EXTRAS=
	if [ -n "$split" ]; then
		local first=${split%%,*} x rel
		rel=${VB_DEB_PKG#"$first"}
		for x in $(tr ',' ' ' <<<"${split#*,}"); do
			VB_DEB_EXTRAS+="${VB_DEB_EXTRAS:+ }$x$rel"
		done
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
	elif [ "$VB_NPATCHES" = all-but-last ]; then
		series_patches | awk 'NR > 1 { print prev } { prev = $0 }'
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
			"$VB_DEB_SHA256 ${VB_DEB_EXTRAS:+with $VB_DEB_EXTRAS }modules" $VB_DEBIAN_MODULES |
			sha256sum | cut -c1-16
		return
	fi
	{
		echo "base $VB_BASE_PKG $VB_BASE_DEB $VB_BASE_SHA256 recipe $VB_RECIPE"
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

# set_raw SET CACHE: raw_open for an experiment set, status 2 with the
# reason when SET is none (no manifest.json).
set_raw() {
	[ -f "$1/manifest.json" ] || {
		echo "${0##*/}: $1: not an experiment set (no manifest.json)" >&2
		return 2
	}
	raw_open "$1" "$2"
}

# raw_open PATH CACHE: PATH with its set's raw files readable on disk.  A
# committed set keeps its per-run data in SET/raw.tar.xz
# (scripts/results-raw.sh): PATH inside such a set (the set itself, a run
# directory under it, or the quoted form SET/raw.tar.xz:MEMBER) is
# answered by the same path in a copy of the set unpacked once under
# CACHE (a directory the caller owns and removes); any other PATH as it
# is.  Status 1, with the reason on stderr, when the archive is unreadable.
raw_open() {
	local p=$1 cache=$2 set rel key

	if [[ "$p" == */raw.tar.xz:* ]]; then
		set=${p%%/raw.tar.xz:*} rel=${p#*/raw.tar.xz:}
	else
		set=$p rel=
		while [ ! -f "$set/raw.tar.xz" ]; do
			case $set in /|.|'') echo "$p"; return 0 ;; esac
			rel=$(basename "$set")${rel:+/$rel}
			set=$(dirname "$set")
		done
	fi
	[ -f "$set/raw.tar.xz" ] || { echo "$set/raw.tar.xz: no such archive" >&2; return 1; }
	key=$(cd "$set" && pwd | md5sum | cut -c1-16)
	if [ ! -d "$cache/$key" ]; then
		"$VB_ROOT/scripts/results-raw.sh" unpack "$set" "$cache/$key.tmp" &&
			mv "$cache/$key.tmp" "$cache/$key" || return 1
	fi
	[ -e "$cache/$key${rel:+/$rel}" ] ||
		{ echo "$set/raw.tar.xz: no member ${rel:-.}" >&2; return 1; }
	echo "$cache/$key${rel:+/$rel}"
}

# raw_inplace DIR COMMAND...: COMMAND with DIR's raw files on disk (a
# re-summary rewrites them): a packed set's archive is extracted into DIR
# first, and DIR packed again after, whatever COMMAND's status, which is
# returned (1 when packing fails).
raw_inplace() {
	local dir=$1 rc=0

	shift
	if [ -f "$dir/raw.tar.xz" ]; then
		"$VB_ROOT/scripts/results-raw.sh" extract "$dir" || return 1
	fi
	"$@" || rc=$?
	"$VB_ROOT/scripts/results-raw.sh" pack "$dir" || rc=1
	return $rc
}
