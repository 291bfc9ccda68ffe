#!/bin/bash
# man-check.sh [BUILD_DIR]: do the man pages (man/*.scd) document exactly
# the options each program's --help lists?  One line per disagreement
# ("vb-recv(1): --foo in --help, not in the man page"), a summary line,
# exit 1 on any.  Also fails when a command of `vsockbatch --help` has no
# section in vsockbatch(8), or a page in man/ is checked by nothing here.
#
# An option of --help is a -x or --long at the start of a line indented
# by 1-6 spaces (deeper lines continue a description); an option of a man
# page is a *-x* or *--long* on a line that starts a scdoc definition
# ("*-o*, *--output* _FILE_").  Both sides are program text, so neither is
# parsed beyond that.
set -euo pipefail

top=$(cd "$(dirname "$0")/.." && pwd)
build=${1:-$top/build}
man=$top/man
fails=0
checked=0
declare -A covered=()

[ -x "$build/vsockbatch" ] || { echo "man-check: $build/vsockbatch: not built (make)" >&2; exit 2; }

help_opts() {	# the options a --help text lists, sorted
	grep -E '^ {1,6}-' | sed -E 's/  +[^ -].*$//' |
		grep -oE '(^|[ ,])--?[A-Za-z][A-Za-z0-9-]*' |
		sed -E 's/^[ ,]*//' | sort -u
}

man_opts() {	# the options a scdoc text defines, sorted
	grep -E '^\*-' | grep -oE '\*--?[A-Za-z][A-Za-z0-9-]*' |
		sed 's/^\*//' | sort -u
}

section() {	# section PAGE NAME: the text under "## NAME" or "# NAME"
	awk -v name="$2" '
		/^#+ / { on = ($0 == "## " name || $0 == "# " name); next }
		on' "$1"
}

# compare LABEL HELP_OPTS MAN_OPTS
compare() {
	local d
	checked=$((checked + 1))
	while read -r d; do
		[ -n "$d" ] || continue
		case $d in
		"<"*) echo "$1: ${d#< } in --help, not in the man page" ;;
		">"*) echo "$1: ${d#> } in the man page, not in --help" ;;
		esac
		fails=$((fails + 1))
	done < <(diff <(echo "$2") <(echo "$3") | grep -E '^[<>]' || true)
}

# check PAGE SECTION LABEL COMMAND...
check() {
	local page=$man/$1 sec=$2 label=$3 h m
	shift 3
	covered[$page]=1
	[ -r "$page" ] || { echo "$label: $page missing"; fails=$((fails + 1)); return; }
	h=$("$@" --help 2>&1 | help_opts) || true
	m=$(section "$page" "$sec" | man_opts) || true
	if [ -z "$h" ] || [ -z "$m" ]; then
		echo "$label: no options found (--help: ${h:+some}${h:-none}, man page: ${m:+some}${m:-none})"
		fails=$((fails + 1))
		return
	fi
	compare "$label" "$h" "$m"
}

# The commands of vsockbatch --help, each with a section in vsockbatch(8).
cmds=$("$build/vsockbatch" --help | sed -n '/^Commands:/,/^$/p' |
	sed -nE 's/^  ([a-z]+) .*/\1/p' | sort)
secs=$(sed -nE 's/^## ([a-z]+)$/\1/p' "$man/vsockbatch.8.scd" | sort)
compare "vsockbatch(8) commands" "$cmds" "$secs"

for c in $cmds; do
	[ "$c" = top ] && continue	# documented in vsockbatch-top(8)
	check vsockbatch.8.scd "$c" "vsockbatch(8) $c" "$build/vsockbatch" "$c"
done
check vsockbatch-top.8.scd OPTIONS "vsockbatch-top(8)" "$build/vsockbatch" top
for b in "$top"/tools/bench/*.c; do
	b=$(basename "$b" .c)
	check "$b.1.scd" OPTIONS "$b(1)" "$build/$b"
done

for page in "$man"/*.scd; do
	if [ -z "${covered[$page]:-}" ]; then
		echo "man-check: $page is checked against no --help (add it here)"
		fails=$((fails + 1))
	fi
done

echo "man pages: $checked checked, $fails disagreements"
[ "$fails" -eq 0 ]
