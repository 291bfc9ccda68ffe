#!/bin/sh
# net-fixes.sh [TRIES] - the two vsock_test cases of the vsock/bpf net
# series, 41 "SOCK_STREAM sockmap blocking recv()" and 42 "SOCK_STREAM
# sockmap recv() keeps the stream in order", over loopback (CID 1), TRIES
# times each (default 5), server and client in this guest, TCP control
# channel on 127.0.0.1.  Modelled on tests/guest/vsock_test.sh.
# Writes $RESULTS/sockmap-tests/CASE-TRY.{server,client} and one summary
# line per case; the exit status is 0 (the verdict is in the counts: run
# it on kernels with and without the fixes, see kernel-patches/v7.2/net-v2/README.md).
tries=${1:-5}
port=${VSOCK_TEST_CONTROL_PORT:-12400}
out=${RESULTS:?}/sockmap-tests
mkdir -p "$out" || exit 1

for case in 41 42; do
	pass=0 fail=0 skip=0 i=0
	start=$(date +%s)
	while [ $i -lt "$tries" ]; do
		i=$((i + 1))
		port=$((port + 1))
		f=$out/$case-$i
		vsock_test --mode=server --control-port="$port" --peer-cid=1 \
			--pick="$case" >"$f.server" 2>&1 &
		spid=$!
		sleep 1
		vsock_test --mode=client --control-host=127.0.0.1 \
			--control-port="$port" --peer-cid=1 --pick="$case" \
			>"$f.client" 2>&1
		crc=$?
		wait $spid
		src=$?
		if grep -q 'Test skipped' "$f.client"; then
			skip=$((skip + 1)) v=skipped
		elif [ $crc -eq 0 ] && [ $src -eq 0 ]; then
			pass=$((pass + 1)) v=passed
		else
			fail=$((fail + 1)) v=FAILED
		fi
		echo "case $case try $i: $v (client exit $crc, server exit $src):" \
			"$(grep -v '^All tests\|^Test ID\|^[0-9]* - .*skipped$' "$f.server" "$f.client" |
			   grep -iv '^ *$' | tr '\n' ' ' | cut -c1-300)"
	done
	echo "case $case: $pass passed, $fail failed, $skip skipped of $tries" \
		"($(($(date +%s) - start)) s)" | tee "$out/summary-$case.txt"
done
exit 0
