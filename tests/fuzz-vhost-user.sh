#!/bin/sh
# fuzz-vhost-user.sh FUZZER [SECONDS]: run one of the vhost-user back-end's
# libFuzzer targets for a bounded time, single process, from its seed
# corpus (copied: libFuzzer adds to its corpus directory, the repo's stays
# as committed).  Fails if the fuzzer finds a crash, leak, timeout or
# sanitizer report.
#   build/tests/fuzz_vhost_user  vhost-user messages with real memfds/eventfds,
#                                multi-region translation, virtqueue walker
#                                (tests/fuzz/corpus-vhost-user)
#   build/tests/fuzz_vsock_pkt   virtio-vsock packets, credit, connection
#                                table (tests/fuzz/corpus-vsock-pkt)
#   build/tests/fuzz_vu_dispatch the event loop: vhost-user messages mixed
#                                into host-event batches
#                                (tests/fuzz/corpus-vu-dispatch)
set -eu
[ $# -ge 1 ] || { echo "usage: ${0##*/} FUZZER [SECONDS]" >&2; exit 2; }
fuzzer=$1
secs=${2:-${VB_FUZZ_SECONDS:-20}}
here=$(cd "$(dirname "$0")" && pwd)
case ${fuzzer##*/} in
fuzz_vhost_user) corpus=corpus-vhost-user label="vhost-user parser" ;;
fuzz_vsock_pkt) corpus=corpus-vsock-pkt label="vsock packets" ;;
fuzz_vu_dispatch) corpus=corpus-vu-dispatch label="event loop" ;;
*) echo "${0##*/}: unknown fuzzer '$fuzzer'" >&2; exit 2 ;;
esac
work=$(mktemp -d /tmp/vb-fuzz.XXXXXX)
trap 'rm -rf "$work"' EXIT
mkdir -p "$work/corpus"
cp "$here/fuzz/$corpus"/* "$work/corpus/" 2>/dev/null || true
# TMPDIR: where a target keeps its sockets, removed with $work even after a crash.
if ! TMPDIR="$work" "$fuzzer" -max_total_time="$secs" -rss_limit_mb=1024 -timeout=5 \
	-artifact_prefix="$work/" -print_final_stats=1 "$work/corpus" \
	>"$work/log" 2>&1; then
	tail -n 40 "$work/log" >&2
	for a in "$work"/crash-* "$work"/leak-* "$work"/timeout-* "$work"/oom-*; do
		[ -f "$a" ] || continue
		mkdir -p build/fuzz-artifacts
		cp "$a" build/fuzz-artifacts/
		echo "fuzz: input kept in build/fuzz-artifacts/${a##*/}" >&2
	done
	echo "fuzz: $label FAILED" >&2
	exit 1
fi
runs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$work/log")
cov=$(grep -o 'cov: [0-9]*' "$work/log" | tail -n 1)
echo "fuzz: $label: ${runs:-?} inputs in ${secs}s, ${cov:-cov: ?}, no crash"
