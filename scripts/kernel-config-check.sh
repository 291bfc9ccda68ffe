#!/bin/bash
# kernel-config-check.sh CONFIG FRAGMENT...: fail, listing them, if any
# option a fragment asks for is not what the final .config says.
# olddefconfig silently drops options whose dependencies are missing;
# this is where that is caught.
set -euo pipefail

[ $# -ge 2 ] || { echo "usage: ${0##*/} .config fragment..." >&2; exit 2; }
config=$1
shift

bad=$(awk '
	FNR == NR {
		if ($0 ~ /^CONFIG_[A-Za-z0-9_]+=/) {
			split($0, kv, "="); have[kv[1]] = substr($0, length(kv[1]) + 2)
		}
		next
	}
	/^CONFIG_[A-Za-z0-9_]+=/ {
		split($0, kv, "="); want = substr($0, length(kv[1]) + 2)
		if (!(kv[1] in have))
			print kv[1] "=" want " (not set)"
		else if (have[kv[1]] != want)
			print kv[1] "=" want " (got " have[kv[1]] ")"
		next
	}
	/^# CONFIG_[A-Za-z0-9_]+ is not set/ {
		if (($2 in have) && have[$2] != "n")
			print $2 " off (got " have[$2] ")"
	}' "$config" "$@")

if [ -n "$bad" ]; then
	echo "kernel config: requested options not in effect after olddefconfig:" >&2
	echo "$bad" | sed 's/^/  /' >&2
	exit 1
fi
