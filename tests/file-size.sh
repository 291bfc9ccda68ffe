#!/bin/bash
# file-size.sh: no tracked file above the repository's limit, 1 MiB (the
# size git stores, from the index), but the exceptions below.  A clone
# should carry code and the lab's plain results; raw data goes into a
# set's raw.tar.xz (scripts/results-raw.sh), and what still does not fit
# is named here with its reason.
# Prints every offending file with its size and a count.  Exit 0 none;
# 1 some; 2 not in a git checkout.
set -euo pipefail
MAX=$((1024 * 1024))
# path: reason
EXCEPTIONS=(
	# The four --profile sets keep each run's block profile as
	# profile.tsv.gz (already gzip -9: xz cannot shrink it); 1.1-2.8 MiB
	# each, the data scripts/insns-profile.sh and profile-spread.sh read.
	results/2026-12-02-h2g-icount-64-pcp-high/raw.tar.xz
	results/2026-12-02-h2g-icount-64-profile/raw.tar.xz
	results/2026-12-02-h2g-icount-64-slab-keep/raw.tar.xz
	results/2026-12-03-h2g-icount-64-profile-7.2/raw.tar.xz
)
ROOT=$(cd "$(dirname "$0")/.." && pwd)
cd "$ROOT"
git rev-parse --git-dir >/dev/null 2>&1 || { echo "${0##*/}: $ROOT is not a git checkout" >&2; exit 2; }

declare -A allowed
for e in "${EXCEPTIONS[@]}"; do allowed[$e]=1; done
bad=0 n=0
# "size path" of every tracked file, sizes of the blobs in the index
while read -r size path; do
	n=$((n + 1))
	[ "$size" -gt "$MAX" ] || continue
	[ -z "${allowed[$path]:-}" ] || continue
	echo "$path: $size bytes (limit $MAX)"
	bad=$((bad + 1))
done < <(git ls-files -s | sed 's/^[0-7]* \([0-9a-f]*\) [0-3]\t/\1 /' |
	git cat-file --batch-check='%(objectsize) %(rest)')
# an exception that no longer needs one is stale
for e in "${EXCEPTIONS[@]}"; do
	s=$(git ls-files -s -- "$e" | awk '{ print $2 }')
	if [ -z "$s" ]; then
		echo "$e: listed as an exception but not tracked"
		bad=$((bad + 1))
	elif [ "$(git cat-file -s "$s")" -le "$MAX" ]; then
		echo "$e: listed as an exception but within the limit"
		bad=$((bad + 1))
	fi
done
echo "file-size: $n tracked files, $bad above $MAX bytes without an exception"
[ $bad -eq 0 ]
