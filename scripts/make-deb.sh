#!/bin/bash
# make-deb.sh OUTDIR: build the vsockbatch Debian package from the
# committed tree (HEAD) with dpkg-buildpackage, in OUTDIR/src, and leave
# OUTDIR/vsockbatch_VERSION_ARCH.deb.  A copy of HEAD, not the work tree:
# the package is what a commit holds, its version string names that
# commit, and its clean step cannot touch the work tree's build/.
set -euo pipefail

[ $# -eq 1 ] || { echo "usage: make-deb.sh OUTDIR" >&2; exit 2; }
top=$(cd "$(dirname "$0")/.." && pwd)
out=$(mkdir -p "$1" && cd "$1" && pwd)
version=$(tr -d ' \n' <"$top/VERSION")
deb_version=$(dpkg-parsechangelog -l "$top/debian/changelog" -S Version)

# One version: VERSION is what --version prints, the changelog what dpkg
# installs.
if [ "$deb_version" != "$version" ]; then
	echo "make-deb: debian/changelog says $deb_version, VERSION $version: add a changelog entry (dch -v $version)" >&2
	exit 2
fi
for t in dpkg-buildpackage dh; do
	command -v "$t" >/dev/null || { echo "make-deb: $t missing (make deps)" >&2; exit 2; }
done

src=$out/src/vsockbatch-$version
rm -rf "$out/src"
mkdir -p "$src"
# What `make tools` and the package's tests need, nothing of the lab.
git -C "$top" archive HEAD Makefile VERSION bpf include tools man \
	completion debian scripts/gen-version.sh scripts/man-check.sh \
	tests/completion.sh tests/version.sh | tar -x -C "$src"
# The copy has no .git: hand --version the describe of HEAD.
VB_GIT_DESCRIBE=$(git -C "$top" describe --always --tags HEAD)
export VB_GIT_DESCRIBE
(cd "$src" && dpkg-buildpackage -us -uc -b) >"$out/build.log" 2>&1 || {
	tail -20 "$out/build.log" >&2
	echo "make-deb: dpkg-buildpackage failed; the whole log is $out/build.log" >&2
	exit 1
}
rm -f "$out"/*.deb "$out"/*.ddeb
mv "$out"/src/*.deb "$out"/src/*.ddeb "$out"/ 2>/dev/null || true
ls "$out"/vsockbatch_"$version"_*.deb
