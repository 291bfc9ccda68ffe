#!/bin/bash
# kernel-config-check.sh CONFIG FRAGMENT...: fail, listing them, if any
# option a fragment asks for is not what the final .config says.
# olddefconfig silently drops options whose dependencies are missing;
# this is where that is caught.
set -euo pipefail

[ $# -ge 2 ] || { echo "usage: ${0##*/} .config fragment..." >&2; exit 2; }
config=$1
shift

# A later fragment overrides an earlier one (merge_config.sh's rule), so
# the last word on each option is what is checked.
bad=$(awk '
	FNR == NR {
		if ($0 ~ /^CONFIG_[A-Za-z0-9_]+=/) {
			split($0, kv, "="); have[kv[1]] = substr($0, length(kv[1]) + 2)
		}
		next
	}
	/^CONFIG_[A-Za-z0-9_]+=/ {
		split($0, kv, "="); key = kv[1]
		if (!(key in want)) order[n++] = key
		want[key] = substr($0, length(kv[1]) + 2)
		next
	}
	/^# CONFIG_[A-Za-z0-9_]+ is not set/ {
		key = $2
		if (!(key in want)) order[n++] = key
		want[key] = "n"
	}
	END {
		for (i = 0; i < n; i++) {
			key = order[i]; w = want[key]
			if (w == "n") {
				if ((key in have) && have[key] != "n")
					print key " off (got " have[key] ")"
			} else if (!(key in have))
				print key "=" w " (not set)"
			else if (have[key] != w)
				print key "=" w " (got " have[key] ")"
		}
	}' "$config" "$@")

if [ -n "$bad" ]; then
	echo "kernel config: requested options not in effect after olddefconfig:" >&2
	echo "$bad" | sed 's/^/  /' >&2
	exit 1
fi
