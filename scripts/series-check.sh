#!/bin/bash
# series-check.sh [SERIES]: every patch of a series builds on its own.
#
# On the pinned base of SERIES (default 6.12; scripts/config/kernel-sources)
# applies the fixes, then the series, one patch at a time with `git am`,
# and after each one:
#  * checkpatch.pl --strict at 80 columns (netdev's width) on the patch;
#  * builds the lab's kernel with vsock as modules (`make`: bzImage,
#    modules and modpost, so an unexported symbol fails here too);
#  * builds vmlinux with vsock built in (scripts/config/vsock-builtin.config,
#    the way most distributions' tiny kernels ship it).
# Both object directories are seeded from the baseline kernel's, so each
# step compiles only what the patch (or the flipped options) touched.  A
# patch that does not apply, does not build, adds a compiler warning or a
# checkpatch complaint fails the check.  Prints one line per patch and
# the base it checked (exact Debian version).
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
OBJ_BI=$OBJ-builtin
rm -rf "$OBJ" "$OBJ_BI"
cp -a "$VB_CACHE/obj/baseline$sfx" "$OBJ"
cp -a "$VB_CACHE/obj/baseline$sfx" "$OBJ_BI"
git -C "$SRC" checkout -q -f -B vb-series-check base
git -C "$SRC" clean -fdq -e .vb-src-complete
export CCACHE_DIR=${CCACHE_DIR:-$VB_CACHE/ccache}
export CCACHE_BASEDIR=$VB_CACHE CCACHE_NOHASHDIR=1
kmake() { # kmake OBJDIR TARGET...
	local o=$1
	shift
	make -C "$SRC" O="$o" ARCH=x86_64 CC="ccache gcc" HOSTCC="ccache gcc" \
		-j"$(nproc)" "$@"
}
"$SRC/scripts/kconfig/merge_config.sh" -m -O "$OBJ_BI" "$OBJ_BI/.config" \
	"$VB_CONFIG_DIR/vsock-builtin.config" >/dev/null
kmake "$OBJ_BI" -s olddefconfig >/dev/null
"$VB_ROOT/scripts/kernel-config-check.sh" "$OBJ_BI/.config" \
	"$VB_CONFIG_DIR/vsock-builtin.config"

# The base tree is one imported commit without history, so a Fixes: tag
# cannot be resolved here (UNKNOWN_COMMIT_ID); everything else counts.
checkpatch() {
	"$SRC/scripts/checkpatch.pl" --strict --max-line-length=80 --no-tree \
		--ignore UNKNOWN_COMMIT_ID --quiet "$1"
}

# build STEP NAME OBJDIR TARGET...: 0 when it builds without a warning
build() {
	local n=$1 name=$2 o=$3 log
	shift 3
	log=$o/step-$n.log
	if ! kmake "$o" "$@" >"$log" 2>&1; then
		echo "FAIL $n $name: does not build ($log)"
		grep -m 5 'error' "$log" | sed 's/^/  | /'
		return 1
	fi
	if grep -q 'warning:' "$log"; then
		echo "FAIL $n $name: compiler warnings ($log)"
		grep -m 5 'warning:' "$log" | sed 's/^/  | /'
		return 1
	fi
}

fails=0 n=0
for p in "${patches[@]}"; do
	n=$((n + 1))
	name=${p##*/}
	if ! git -C "$SRC" -c user.name=vsockbatch -c user.email=vsockbatch@localhost \
	    am -q "$p" >/dev/null 2>&1; then
		git -C "$SRC" am --abort >/dev/null 2>&1 || true
		echo "FAIL $n $name: does not apply to $VB_BASE_PKG $VB_BASE_DEB"
		fails=$((fails + 1))
		break
	fi
	ok=1
	if ! cp_out=$(checkpatch "$p" 2>&1); then
		echo "FAIL $n $name: checkpatch --strict"
		echo "$cp_out" | head -n 8 | sed 's/^/  | /'
		ok=0
	fi
	build "$n" "$name" "$OBJ" || { fails=$((fails + 1)); break; }
	build "$n" "$name (vsock built in)" "$OBJ_BI" vmlinux ||
		{ fails=$((fails + 1)); break; }
	if [ $ok = 1 ]; then
		echo "ok $n $name: applies, checkpatch clean, builds as modules and built in"
	else
		fails=$((fails + 1))
	fi
done
echo "series-check: $VB_BASE_PKG $VB_BASE_DEB, ${#patches[@]} patches, $fails failure(s)"
[ $fails -eq 0 ]
