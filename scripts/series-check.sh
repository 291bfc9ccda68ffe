#!/bin/bash
# series-check.sh [SERIES]: every patch of a series builds on its own.
#
# On the pinned base of SERIES (default 6.12; scripts/config/kernel-sources)
# applies the fixes, then the series, one patch at a time with `git am`,
# and after each one compiles the vsock code (net/vmw_vsock/ and
# drivers/vhost/) with the lab's config in a scratch object directory
# seeded from the baseline kernel's, so each step compiles only what the
# patch touched.  A patch that does not apply, does not compile or adds a
# compiler warning fails the check.  Prints one line per patch and the
# base it checked (exact Debian version).
set -euo pipefail
. "$(dirname "$0")/lib.sh"

[ $# -le 1 ] || { echo "usage: ${0##*/} [SERIES]" >&2; exit 2; }
SERIES=${1:-$VB_DEFAULT_SERIES}
variant_spec "patched-$SERIES" || exit $?
sfx=-$SERIES
[ "$SERIES" = "$VB_DEFAULT_SERIES" ] && sfx=

# The baseline kernel gives the configured, built object directory.
"$VB_ROOT/scripts/kernel-build.sh" "baseline$sfx" >/dev/null
variant_spec "patched-$SERIES"
SRC=$VB_CACHE/src/$VB_BASE_PKG-$VB_BASE_DEB
OBJ=$VB_CACHE/obj/series-check$sfx
mapfile -t patches < <(variant_patches)

exec 9>"$VB_CACHE/build.lock"
flock 9
rm -rf "$OBJ"
cp -a "$VB_CACHE/obj/baseline$sfx" "$OBJ"
git -C "$SRC" checkout -q -f -B vb-series-check base
git -C "$SRC" clean -fdq -e .vb-src-complete
export CCACHE_DIR=${CCACHE_DIR:-$VB_CACHE/ccache}
export CCACHE_BASEDIR=$VB_CACHE CCACHE_NOHASHDIR=1

fails=0 n=0
for p in "${patches[@]}"; do
	n=$((n + 1))
	if ! git -C "$SRC" -c user.name=vsockbatch -c user.email=vsockbatch@localhost \
	    am -q "$p" >/dev/null 2>&1; then
		git -C "$SRC" am --abort >/dev/null 2>&1 || true
		echo "FAIL $n ${p##*/}: does not apply to $VB_BASE_PKG $VB_BASE_DEB"
		fails=$((fails + 1))
		break
	fi
	log=$OBJ/step-$n.log
	if ! make -C "$SRC" O="$OBJ" ARCH=x86_64 CC="ccache gcc" HOSTCC="ccache gcc" \
	    -j"$(nproc)" net/vmw_vsock/ drivers/vhost/ >"$log" 2>&1; then
		echo "FAIL $n ${p##*/}: does not compile ($log)"
		grep -m 5 'error' "$log" | sed 's/^/  | /'
		fails=$((fails + 1))
		break
	fi
	if grep -q 'warning:' "$log"; then
		echo "FAIL $n ${p##*/}: compiler warnings ($log)"
		grep -m 5 'warning:' "$log" | sed 's/^/  | /'
		fails=$((fails + 1))
		continue
	fi
	echo "ok $n ${p##*/}: applies and compiles"
done
echo "series-check: $VB_BASE_PKG $VB_BASE_DEB, ${#patches[@]} patches, $fails failure(s)"
[ $fails -eq 0 ]
