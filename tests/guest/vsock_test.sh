#!/bin/sh
# Upstream tools/testing/vsock/vsock_test over loopback (CID 1): server and
# client in this guest, TCP control channel on 127.0.0.1.  Writes
# $RESULTS/vsock_test.{client,server,json}; fails unless every test passed.
port=${VSOCK_TEST_CONTROL_PORT:-12345}
out=${RESULTS:?}/vsock_test

total=$(vsock_test --list | grep -c '^[0-9]')
run_suite() {
	vsock_test --mode=server --control-port="$port" --peer-cid=1 \
		>"$out.server" 2>&1 &
	spid=$!
	sleep 1
	vsock_test --mode=client --control-host=127.0.0.1 --control-port="$port" \
		--peer-cid=1 >"$out.client" 2>&1
	crc=$?
	wait $spid
	src=$?
	# A test's verdict ends its "N - name..." line, unless the test
	# printed a diagnostic to stderr first (7.2's test 29: "No transports
	# detected"); then "ok" stands alone on a later line, before the next
	# test's.
	passed=$(awk '/^[0-9]+ - /	{ cur = /\.\.\.ok$/ ? "" : $1; n += cur == ""; next }
		cur != "" && /^ok$/	{ n++; cur = "" }
		END			{ print n + 0 }' "$out.client")
	skipped=$(grep -c '^[0-9]* - .*\.\.\.skipped$' "$out.client")
	failed=$((total - passed - skipped))
}

# Test 17 (SHUT_RD) races over loopback on every kernel, the unpatched one
# included: the server's shutdown() reaches the client as a SHUTDOWN packet
# through the loopback worker, while "SHUTRDDONE" goes over the TCP
# control socket and can arrive first; the client's send() then still
# succeeds ("expected send(2) failure, got 1").  Seen once, on baseline,
# on an idle host, among this project's first few dozen suite runs.
# Only that failure gets one more run of the whole suite, recorded in
# the JSON; any other failure stands.
attempts=1
run_suite
if [ "$crc" -ne 0 ] &&
    grep -q '^17 - SOCK_STREAM SHUT_RD\.\.\.expected send(2) failure' "$out.client"; then
	echo "vsock_test: test 17 (SHUT_RD) lost its loopback race; running the suite again"
	cp "$out.client" "$out.client.1"
	cp "$out.server" "$out.server.1"
	port=$((port + 1))
	attempts=2
	run_suite
fi

printf '{"suite":"vsock_test","total":%d,"passed":%d,"skipped":%d,"failed":%d,"client_exit":%d,"server_exit":%d,"attempts":%d}\n' \
	"$total" "$passed" "$skipped" "$failed" "$crc" "$src" "$attempts" >"$out.json"
echo "vsock_test: $passed/$total passed, $skipped skipped (client exit $crc, server exit $src)"
if [ "$crc" -ne 0 ] || [ "$src" -ne 0 ] || [ "$passed" -ne "$total" ]; then
	echo "vsock_test: FAILED; last client lines:"
	tail -n 5 "$out.client"
	exit 1
fi
