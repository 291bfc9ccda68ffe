#!/bin/bash
# pins-drift.sh: how far the archive has moved past each pin.
#
# For every kernel source (scripts/config/kernel-sources) and Debian image
# (scripts/config/debian-kernels) pin: whether the archive still serves
# it, which newer versions of its series it serves, and, for a source
# whose series has moved on, whether the series' patches (fixes first,
# then the series, in order) still apply to the newest: the files they
# touch are taken out of the newest linux-source .deb (downloaded into
# the cache) and the patches applied to them with `git apply`.
#
# Informational: exit 0 while every pin is served or has a fallback, even
# when the series no longer applies to the newest (that is said in one
# line); exit 1 when a series has no version in the archive at all.
set -uo pipefail
. "$(dirname "$0")/lib.sh"

[ $# -eq 0 ] || { echo "usage: ${0##*/} (no arguments; VSOCKBATCH_SOURCE_PINS, VSOCKBATCH_DEBIAN_PINS name other pin files)" >&2; exit 2; }

status=0

# newer SUITE GLOB PREFIX VERSION: "PKG=VER" of every version of the
# series newer than VERSION, newest last
newer() {
	local v p

	deb_versions "$1" "$2" "$3" | while read -r v p; do
		dpkg --compare-versions "$v" gt "$4" && echo "$p=$v"
	done | paste -sd' ' -
}

# served_word SUITE PKG VER: "served" or "NOT served"
served_word() {
	apt_suite_update "$1" >/dev/null 2>&1
	if [ -n "$(deb_sha256 "$1" "$2" "$3")" ]; then
		echo served
	else
		echo "NOT served"
	fi
}

# applies SERIES SUITE PKG VER SHA: does the series apply to PKG=VER?
applies() {
	local series=$1 suite=$2 pkg=$3 ver=$4 sha=$5 deb tmp files p

	if [ ! -f "$VB_ROOT/kernel-patches/v$series/series" ]; then
		echo "no kernel-patches/v$series/series to apply"
		return 1
	fi
	deb=$(deb_fetch "drift $series" "$suite" "$pkg" "$ver" "$sha") || return 2
	tmp=$(mktemp -d /tmp/vb-drift.XXXXXX)
	VB_PATCH_DIR=$VB_ROOT/kernel-patches/v$series VB_NPATCHES=all
	mapfile -t patches < <(variant_patches)
	files=$(sed -n 's|^diff --git a/\([^ ]*\) b/.*|\1|p' "${patches[@]}" | sort -u)
	# shellcheck disable=SC2086
	dpkg-deb --fsys-tarfile "$deb" | tar -xOf - "./usr/src/$pkg.tar.xz" |
		tar -xJf - -C "$tmp" --strip-components=1 --wildcards \
			$(for f in $files; do echo "*/$f"; done) 2>/dev/null
	for p in "${patches[@]}"; do
		if ! (cd "$tmp" && git apply -p1 "$p") 2>"$tmp.err"; then
			echo "${p##*/}: $(head -n 1 "$tmp.err")"
			rm -rf "$tmp" "$tmp.err"
			return 1
		fi
	done
	rm -rf "$tmp" "$tmp.err"
	echo "${#patches[@]} patches"
	return 0
}

# fallback SUITE GLOB PREFIX: "PKG=VER" of what the lab takes when a pin is
# not served: the newest of its series (deb_resolve's rule), or nothing
fallback() {
	local nw
	nw=$(deb_newest "$1" "$2" "$3") && echo "${nw% *}=${nw#* }"
}
while read -r series suite pkg ver sha; do
	case "$series" in ''|'#'*) continue ;; esac
	served=$(served_word "$suite" "$pkg" "$ver")
	n=$(newer "$suite" "$pkg" "$series." "$ver")
	if [ -n "$n" ]; then
		echo "drift: source $series: pin $pkg $ver $served; newer: $n"
		target=${n##* }
	elif [ "$served" = served ]; then
		echo "drift: source $series: pin $pkg $ver served; nothing newer"
		continue
	elif target=$(fallback "$suite" "$pkg" "$series."); then
		# a pin the archive never served or dropped, nothing newer
		echo "drift: source $series: pin $pkg $ver NOT served; the lab takes $target"
	else
		echo "drift: source $series: pin $pkg $ver NOT served; no $pkg $series.* in the archive"
		status=1
		continue
	fi
	nv=${target#*=}
	if how=$(applies "$series" "$suite" "$pkg" "$nv" \
	    "$(deb_sha256 "$suite" "$pkg" "$nv")"); then
		echo "drift: source $series: the series applies to $nv ($how)"
	else
		echo "drift: source $series: the series does NOT apply to $nv: $how"
	fi
done <"$VB_SOURCE_PINS"
while read -r name pkg ver sha suite glob prefix; do
	case "$name" in ''|'#'*) continue ;; esac
	served=$(served_word "$suite" "$pkg" "$ver")
	n=$(newer "$suite" "$glob" "$prefix" "$ver")
	if [ -n "$n" ] || [ "$served" = served ]; then
		echo "drift: image $name: pin $pkg $ver $served; ${n:+newer: }${n:-nothing newer}"
	elif target=$(fallback "$suite" "$glob" "$prefix"); then
		echo "drift: image $name: pin $pkg $ver NOT served; the lab takes $target"
	else
		echo "drift: image $name: pin $pkg $ver NOT served; no $glob ($prefix*) in the archive"
		status=1
	fi
done <"$VB_DEBIAN_PINS"
exit $status
