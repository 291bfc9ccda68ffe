#!/bin/sh
# Upstream tools/testing/vsock/vsock_test over loopback (CID 1): server and
# client in this guest, TCP control channel on 127.0.0.1.  Writes
# $RESULTS/vsock_test.{client,server,json}; fails unless every test passed.
port=${VSOCK_TEST_CONTROL_PORT:-12345}
out=${RESULTS:?}/vsock_test

total=$(vsock_test --list | grep -c '^[0-9]')
vsock_test --mode=server --control-port="$port" --peer-cid=1 \
	>"$out.server" 2>&1 &
spid=$!
sleep 1
vsock_test --mode=client --control-host=127.0.0.1 --control-port="$port" \
	--peer-cid=1 >"$out.client" 2>&1
crc=$?
wait $spid
src=$?
passed=$(grep -c '^[0-9]* - .*\.\.\.ok$' "$out.client")
skipped=$(grep -c '^[0-9]* - .*\.\.\.skipped$' "$out.client")
failed=$((total - passed - skipped))

printf '{"suite":"vsock_test","total":%d,"passed":%d,"skipped":%d,"failed":%d,"client_exit":%d,"server_exit":%d}\n' \
	"$total" "$passed" "$skipped" "$failed" "$crc" "$src" >"$out.json"
echo "vsock_test: $passed/$total passed, $skipped skipped (client exit $crc, server exit $src)"
if [ "$crc" -ne 0 ] || [ "$src" -ne 0 ] || [ "$passed" -ne "$total" ]; then
	echo "vsock_test: FAILED; last client lines:"
	tail -n 5 "$out.client"
	exit 1
fi
