#!/bin/bash
# kernel-build.sh VARIANT: build (or reuse) a guest kernel of the lab.
#
# Prints the cache entry (bzImage, vmlinux, modules, vsock_test,
# vsock_perf, MANIFEST) on stdout.  Entries live under
# $VSOCKBATCH_CACHE/kernels/<variant>-<hash>, keyed by base version,
# recipe, config fragments and patches; an entry whose MANIFEST is missing
# or does not verify is rebuilt, never used.  All variants share one git
# tree of the source (patches go in with `git am`) and keep their own
# O= object directory, so switching variants rebuilds only what the
# patches touch; ccache covers the rest.
set -euo pipefail
. "$(dirname "$0")/lib.sh"

usage() {
	echo "usage: ${0##*/} [-j JOBS] [-n] VARIANT" >&2
	echo "  -n  resolve only: print the base (package, exact version, SHA256) and the cache entry, build nothing" >&2
	echo "  VARIANT: baseline | p1-3 | patched | noevent | debug | baseline-debug | $(debian_variants | sed 's/ / | /g')" >&2
	exit 2
}

JOBS=$(nproc) RESOLVE_ONLY=0
while getopts j:nh opt; do
	case $opt in
	j) JOBS=$OPTARG ;;
	n) RESOLVE_ONLY=1 ;;
	*) usage ;;
	esac
done
shift $((OPTIND - 1))
[ $# -eq 1 ] || usage
VARIANT=$1
variant_spec "$VARIANT" || exit $?
if [ "$RESOLVE_ONLY" = 1 ]; then
	if [ "$VB_KIND" = debian ]; then
		echo "$VB_DEB_PKG $VB_DEB_VERSION $VB_DEB_SHA256"
	else
		echo "$VB_BASE_PKG $VB_BASE_DEB $VB_BASE_SHA256"
	fi
	echo "$VB_CACHE/kernels/$VARIANT-$(variant_hash)"
	exit 0
fi
# Debian's kernels are downloaded, not built.
[ "$VB_KIND" = debian ] && exec "$VB_ROOT/scripts/debian-kernel.sh" "$VARIANT"

HASH=$(variant_hash)
OUT=$VB_CACHE/kernels/$VARIANT-$HASH
if d=$(kernel_dir "$VARIANT"); then
	log "$VARIANT: cached kernel $d"
	echo "$d"
	exit 0
fi
if [ -e "$OUT" ]; then
	log "$VARIANT: cache entry $OUT is incomplete or corrupt; rebuilding"
	rm -rf "$OUT"
fi

mkdir -p "$VB_CACHE"
# One build at a time: variants share the source tree.
exec 9>"$VB_CACHE/build.lock"
flock 9
# Someone else may have built it while we waited for the lock.
if d=$(kernel_dir "$VARIANT"); then
	log "$VARIANT: cached kernel $d (built while waiting)"
	echo "$d"
	exit 0
fi

# One source tree per exact Debian version of the base.
SRC=$VB_CACHE/src/$VB_BASE_PKG-$VB_BASE_DEB
OBJ=$VB_CACHE/obj/$VARIANT

# The source comes out of the pinned .deb (apt-get download into the
# cache, SHA256 checked), never from /usr/src: the system's packages are
# not touched and a point release of linux-source-X.Y cannot swap the tree.
prepare_source() {
	local deb tarball

	if [ -f "$SRC/.vb-src-complete" ]; then
		return
	fi
	deb=$(deb_fetch "kernel source $VB_SERIES" "$VB_BASE_SUITE" \
		"$VB_BASE_PKG" "$VB_BASE_DEB" "$VB_BASE_SHA256") || exit 1
	tarball=./usr/src/$VB_BASE_PKG.tar.xz
	log "extracting $tarball from $VB_BASE_PKG $VB_BASE_DEB"
	rm -rf "$SRC" "$SRC.tmp"
	mkdir -p "$SRC.tmp"
	if ! dpkg-deb --fsys-tarfile "$deb" | tar -xOf - "$tarball" |
	    tar -xJf - -C "$SRC.tmp" --strip-components=1; then
		rm -rf "$SRC.tmp"
		die "$deb: no $tarball in it, or it does not unpack"
	fi
	grep -q "^SUBLEVEL = ${VB_BASE_VERSION##*.}\$" "$SRC.tmp/Makefile" ||
		die "$VB_BASE_PKG $VB_BASE_DEB is not Linux $VB_BASE_VERSION"
	(
		cd "$SRC.tmp"
		git init -q
		# No auto-gc: a repack of the whole tree would hold the build lock.
		git config gc.auto 0
		# Debian's top-level .gitignore ignores everything: force.
		git add -A -f
		git -c user.name=vsockbatch -c user.email=vsockbatch@localhost \
			commit -q -m "Linux $VB_BASE_VERSION (Debian $VB_BASE_PKG $VB_BASE_DEB)"
		git tag base
	)
	touch "$SRC.tmp/.vb-src-complete"
	mv "$SRC.tmp" "$SRC"
}

apply_patches() {
	local p n=0

	git -C "$SRC" checkout -q -f -B "vb-$VARIANT" base
	git -C "$SRC" clean -fdq -e .vb-src-complete
	while read -r p; do
		[ -n "$p" ] || continue
		if ! git -C "$SRC" -c user.name=vsockbatch \
		    -c user.email=vsockbatch@localhost am -q "$p" >&2; then
			git -C "$SRC" am --abort >/dev/null 2>&1 || true
			die "patch ${p##*/} does not apply to $VB_BASE_PKG $VB_BASE_DEB"
		fi
		n=$((n + 1))
	done < <(variant_patches)
	log "$VARIANT: $n patch(es) applied"
}

# What an object directory was configured from: the exact base and the
# config fragments.  Objects of another base are never reused.
objdir_key() {
	echo "$VB_BASE_PKG $VB_BASE_DEB $VB_FRAGMENTS"
}

# A fresh object directory starts as a copy of a sibling of the same base
# and config fragments, so only what the patches touch is compiled.
seed_objdir() {
	local s sfx=

	if [ -d "$OBJ" ] && [ "$(cat "$OBJ/.vb-fragments" 2>/dev/null)" != "$(objdir_key)" ]; then
		log "$VARIANT: objects of another base or configuration; starting afresh"
		rm -rf "$OBJ"
	fi
	[ -d "$OBJ" ] && return
	[[ "$VARIANT" =~ -[0-9]+\.[0-9]+$ ]] && sfx=${BASH_REMATCH[0]}
	for s in baseline patched p1-3 noevent debug baseline-debug; do
		s+=$sfx
		[ "$s" != "$VARIANT" ] || continue
		[ -f "$VB_CACHE/obj/$s/.vb-fragments" ] || continue
		[ "$(cat "$VB_CACHE/obj/$s/.vb-fragments")" = "$(objdir_key)" ] ||
			continue
		log "$VARIANT: seeding objects from $s"
		cp -a "$VB_CACHE/obj/$s" "$OBJ.tmp"
		mv "$OBJ.tmp" "$OBJ"
		return
	done
	mkdir -p "$OBJ"
}

kmake() {
	make -C "$SRC" O="$OBJ" ARCH=x86_64 CC="ccache gcc" HOSTCC="ccache gcc" \
		-j"$JOBS" "$@"
}

configure() {
	kmake -s tinyconfig >/dev/null
	# shellcheck disable=SC2086
	"$SRC/scripts/kconfig/merge_config.sh" -m -O "$OBJ" "$OBJ/.config" \
		$VB_FRAGMENTS >/dev/null
	kmake -s olddefconfig >/dev/null
	"$VB_ROOT/scripts/kernel-config-check.sh" "$OBJ/.config" $VB_FRAGMENTS
	objdir_key >"$OBJ/.vb-fragments"
}

build_vsock_tests() {
	local t=$OBJ/vsock-tests s=$SRC/tools/testing/vsock
	local cflags="-g -O2 -Wall -I$s -I$SRC/tools/include -I$OBJ/usr/include
		-Wno-pointer-sign -fno-strict-overflow -fno-strict-aliasing
		-fno-common -U_FORTIFY_SOURCE -D_GNU_SOURCE -static"

	kmake -s headers_install >/dev/null
	rm -rf "$t" && mkdir -p "$t"
	# shellcheck disable=SC2086
	gcc $cflags -o "$t/vsock_test" "$s/vsock_test.c" \
		"$s/vsock_test_zerocopy.c" "$s/timeout.c" "$s/control.c" \
		"$s/util.c" "$s/msg_zerocopy_common.c" -lpthread
	# shellcheck disable=SC2086
	gcc $cflags -o "$t/vsock_perf" "$s/vsock_perf.c" \
		"$s/msg_zerocopy_common.c"
}

package() {
	local tmp=$VB_CACHE/kernels/.tmp-$VARIANT-$HASH-$$ rel

	rm -rf "$tmp" && mkdir -p "$tmp"
	rel=$(cat "$OBJ/include/config/kernel.release")
	cp "$OBJ/arch/x86/boot/bzImage" "$OBJ/vmlinux" "$OBJ/System.map" "$tmp/"
	cp "$OBJ/.config" "$tmp/config"
	kmake -s modules_install INSTALL_MOD_PATH="$tmp/modroot" \
		INSTALL_MOD_STRIP=1 DEPMOD=/sbin/depmod >/dev/null
	rm -f "$tmp/modroot/lib/modules/$rel/build" \
		"$tmp/modroot/lib/modules/$rel/source"
	cp "$OBJ/vsock-tests/vsock_test" "$OBJ/vsock-tests/vsock_perf" "$tmp/"
	echo "$rel" >"$tmp/release"
	{
		echo "variant $VARIANT"
		echo "hash $HASH"
		echo "base $VB_BASE_PKG $VB_BASE_DEB"
		echo "base_sha256 $VB_BASE_SHA256"
		echo "head $(git -C "$SRC" rev-parse HEAD)"
		git -C "$SRC" log --format='patch %s' base..HEAD
	} >"$tmp/info"
	(cd "$tmp" && find . -type f ! -name MANIFEST -print0 | sort -z |
		xargs -0 sha256sum >MANIFEST)
	rm -rf "$OUT"
	mv "$tmp" "$OUT"
}

prepare_source
apply_patches
seed_objdir
configure
log "$VARIANT: building ($JOBS jobs) in $OBJ"
export CCACHE_DIR=${CCACHE_DIR:-$VB_CACHE/ccache}
export CCACHE_BASEDIR=$VB_CACHE CCACHE_NOHASHDIR=1 CCACHE_MAXSIZE=${CCACHE_MAXSIZE:-8G}
start=$(date +%s)
if ! kmake bzImage modules >"$OBJ/build.log" 2>&1; then
	tail -n 40 "$OBJ/build.log" >&2
	die "$VARIANT: kernel build failed (log: $OBJ/build.log)"
fi
build_vsock_tests
package
log "$VARIANT: built in $(($(date +%s) - start)) s -> $OUT"
echo "$OUT"
