#!/bin/sh
# fuzz-vhost-user.sh FUZZER [SECONDS]: run the vhost-user libFuzzer target
# (build/tests/fuzz_vhost_user) for a bounded time, single process, from the
# seed corpus in tests/fuzz/corpus-vhost-user (copied: libFuzzer adds to
# its corpus directory, the repo's stays as committed).  Fails if the
# fuzzer finds a crash, leak or sanitizer report.
set -eu
[ $# -ge 1 ] || { echo "usage: ${0##*/} FUZZER [SECONDS]" >&2; exit 2; }
fuzzer=$1
secs=${2:-${VB_FUZZ_SECONDS:-20}}
here=$(cd "$(dirname "$0")" && pwd)
work=$(mktemp -d /tmp/vb-fuzz.XXXXXX)
trap 'rm -rf "$work"' EXIT
mkdir -p "$work/corpus"
cp "$here"/fuzz/corpus-vhost-user/* "$work/corpus/" 2>/dev/null || true
if ! "$fuzzer" -max_total_time="$secs" -rss_limit_mb=512 -timeout=5 \
	-artifact_prefix="$work/" -print_final_stats=1 "$work/corpus" \
	>"$work/log" 2>&1; then
	tail -n 40 "$work/log" >&2
	for a in "$work"/crash-* "$work"/leak-* "$work"/timeout-* "$work"/oom-*; do
		[ -f "$a" ] || continue
		mkdir -p build/fuzz-artifacts
		cp "$a" build/fuzz-artifacts/
		echo "fuzz: input kept in build/fuzz-artifacts/${a##*/}" >&2
	done
	echo "fuzz: vhost-user parser FAILED" >&2
	exit 1
fi
runs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$work/log")
cov=$(grep -o 'cov: [0-9]*' "$work/log" | tail -n 1)
echo "fuzz: vhost-user parser: ${runs:-?} inputs in ${secs}s, ${cov:-cov: ?}, no crash"
