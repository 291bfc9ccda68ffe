#!/bin/bash
# stress-verdicts-equal.sh A.json B.json: the stress test's verdicts (per
# run and per flow: configuration and verdict) must be identical on two
# kernels, and so must the bytes of streams that end at a fixed point.
# What depends on timing (churn byte counts, the sender's errno when the
# receiver closes first, wait counts) is not compared.  Prints the
# differences and exits 1 if there are any.
[ $# -eq 2 ] || { echo "usage: ${0##*/} A.json B.json" >&2; exit 2; }
verdicts() {
	jq -S '[.runs[] | {name, exit,
		flows: [.result.flow[]? | {flow, recv, send, pattern, "end": .end,
			dir, verdict, recv_end} +
			# Streams that end by shutdown, close or a reset at a
			# fixed offset carry exactly the same bytes on any kernel.
			(if (.end == "shutwr" or .end == "close" or .end == "abort")
			 then {bytes, chunks, exact} else {} end)]}]' "$1"
}
a=$(verdicts "$1") || { echo "${0##*/}: cannot read $1" >&2; exit 2; }
b=$(verdicts "$2") || { echo "${0##*/}: cannot read $2" >&2; exit 2; }
[ "$(echo "$a" | jq 'length')" -gt 0 ] || { echo "${0##*/}: no runs in $1" >&2; exit 2; }
if [ "$a" != "$b" ]; then
	echo "stress verdicts differ:"
	diff <(echo "$a") <(echo "$b")
	exit 1
fi
