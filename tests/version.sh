#!/bin/bash
# version.sh [BUILD_DIR]: `vsockbatch --version` names the release in
# VERSION, a git describe, and the build id of the BPF object it embeds
# (the first 16 hex digits of the SHA-256 of build/bpf/vsockbatch.bpf.o);
# vsockbatch-top says the same under its own name.  One line per failure,
# exit 1 on any.
set -euo pipefail

top=$(cd "$(dirname "$0")/.." && pwd)
build=${1:-$top/build}
fails=0
fail() {
	echo "FAIL: $*"
	fails=$((fails + 1))
}

[ -x "$build/vsockbatch" ] || { echo "version: $build/vsockbatch: not built" >&2; exit 2; }
out=$("$build/vsockbatch" --version)
release=$(tr -d ' \n' <"$top/VERSION")
id=$(sha256sum "$build/bpf/vsockbatch.bpf.o" | cut -c1-16)

[ "$(sed -n 1p <<<"$out")" = "vsockbatch $release" ] ||
	fail "first line '$(sed -n 1p <<<"$out")', not 'vsockbatch $release'"
grep -qE '^git: [0-9a-f]{7,}|^git: v?[0-9]' <<<"$out" || fail "no git describe line"
[ "$(sed -n 's/^bpf object: \([0-9a-f]*\) .*/\1/p' <<<"$out")" = "$id" ] ||
	fail "BPF build id is not the embedded object's ($id)"
[ "$("$build/vsockbatch" -V)" = "$out" ] || fail "-V differs from --version"
[ "$("$build/vsockbatch-top" --version | sed -n 1p)" = "vsockbatch-top $release" ] ||
	fail "vsockbatch-top --version"
# --version is the only argument it takes.
rc=0
"$build/vsockbatch" --version extra >/dev/null 2>&1 || rc=$?
[ "$rc" -eq 2 ] || fail "--version with an extra argument: exit $rc, not 2"

echo "version: $((6 - fails)) passed, $fails failed"
[ "$fails" -eq 0 ]
