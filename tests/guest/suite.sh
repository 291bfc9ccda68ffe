#!/bin/sh
# suite.sh TEST...: run guest tests (scripts under /vb/guest, with
# arguments after a colon: "tracer.sh:baseline") one after the other in
# this boot.  Each test's output goes to $RESULTS/<test>.log; the verdicts
# go to $RESULTS/suite.txt as "PASS name" / "FAIL name (exit N)".
: >"${RESULTS:?}/suite.txt"
failed=0
for t in "$@"; do
	name=${t%%:*}
	args=
	case "$t" in *:*) args=$(echo "${t#*:}" | tr ',' ' ') ;; esac
	echo "=== $name $args"
	start=$(date +%s)
	# shellcheck disable=SC2086
	sh "/vb/guest/$name" $args >"$RESULTS/${name%.sh}.log" 2>&1
	rc=$?
	tail -n 15 "$RESULTS/${name%.sh}.log"
	took=$(($(date +%s) - start))
	if [ $rc -eq 0 ]; then
		echo "PASS $name $args (${took}s)" | tee -a "$RESULTS/suite.txt"
	else
		echo "FAIL $name $args (exit $rc, ${took}s)" | tee -a "$RESULTS/suite.txt"
		failed=$((failed + 1))
	fi
done
# 0 or 1: the runner reads 3-5 as its own verdicts (splat, hang, no /init)
[ $failed -eq 0 ]
