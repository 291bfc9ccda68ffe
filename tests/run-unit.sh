#!/bin/sh
# run-unit.sh TEST_BINARY...: run the cmocka unit tests and print one
# summary line, "N passed, N failed", counting test cases.  cmocka's own
# per-binary summary is printed above it.
passed=0
failed=0
bad_bins=
for t in "$@"; do
	out=$("$t" 2>&1)
	rc=$?
	echo "$out"
	p=$(echo "$out" | sed -n 's/^\[  PASSED  \] \([0-9]*\) test.*/\1/p')
	f=$(echo "$out" | sed -n 's/^\[  FAILED  \] \([0-9]*\) test.*/\1/p')
	passed=$((passed + ${p:-0}))
	failed=$((failed + ${f:-0}))
	if [ $rc -ne 0 ] && [ -z "$f" ]; then
		# Crashed or exited before cmocka's summary: count it as a failure.
		failed=$((failed + 1))
		bad_bins="$bad_bins ${t##*/}"
	fi
done
[ -n "$bad_bins" ] && echo "did not finish:$bad_bins"
echo "unit tests: $passed passed, $failed failed"
[ "$failed" -eq 0 ]
