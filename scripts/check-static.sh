#!/bin/bash
# check-static.sh BINARY...: each BINARY is an ELF executable without a
# program interpreter (statically linked), so it runs on a guest that has
# none of the libraries it was built with.  One line per offender, exit 1.
set -euo pipefail

[ $# -gt 0 ] || { echo "usage: check-static.sh BINARY..." >&2; exit 2; }
bad=0
for f in "$@"; do
	f=$(readlink -f "$f")
	if ! readelf -h "$f" >/dev/null 2>&1; then
		echo "check-static: $f: not an ELF file"
		bad=1
	elif readelf -lW "$f" | grep -q 'Requesting program interpreter'; then
		echo "check-static: $f: dynamically linked ($(readelf -dW "$f" | sed -n 's/.*Shared library: \[\(.*\)\]/\1/p' | tr '\n' ' '))"
		bad=1
	fi
done
exit "$bad"
