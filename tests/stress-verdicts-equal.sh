#!/bin/bash
# stress-verdicts-equal.sh A.json B.json: the stress test's verdicts (per
# run and per flow: configuration and verdict) must be identical on two
# kernels.  Byte counts of reset flows depend on timing and are not
# compared.  Prints the differences and exits 1 if there are any.
[ $# -eq 2 ] || { echo "usage: ${0##*/} A.json B.json" >&2; exit 2; }
verdicts() {
	jq -S '[.runs[] | {name, exit,
		flows: [.result.flow[]? | {flow, recv, send, pattern, "end": .end, dir, verdict}]}]' "$1"
}
a=$(verdicts "$1") || { echo "${0##*/}: cannot read $1" >&2; exit 2; }
b=$(verdicts "$2") || { echo "${0##*/}: cannot read $2" >&2; exit 2; }
[ "$(echo "$a" | jq 'length')" -gt 0 ] || { echo "${0##*/}: no runs in $1" >&2; exit 2; }
if [ "$a" != "$b" ]; then
	echo "stress verdicts differ:"
	diff <(echo "$a") <(echo "$b")
	exit 1
fi
