#!/bin/bash
# cover-letter.sh SERIES [--check]: the series' cover letter,
# kernel-patches/vSERIES/0000-cover-letter.patch, from its template
# kernel-patches/vSERIES/cover-letter.in, with every table taken from
# the committed sets it names.
#
# Template: a "Subject: " line, a "Date: " line, then the body.  A body
# line "@@ ARGS" is replaced by the output of
# `scripts/series-tables.sh ARGS` (plain text); a missing or unreadable
# set fails the whole letter.  After the body: the shortlog and diffstat
# of the series' patches (`git apply --stat` of each, summed).
# --check: exit 1 if the committed letter differs from what the template
# and the sets give now (make docs-check).
# --readme FILE: the same tables, as Markdown, between FILE's lines
# "<!-- series-tables SERIES: begin -->" and "<!-- ... end -->", each
# under the template's sentence before it; with --check, exit 1 if
# FILE's block is stale instead of rewriting it.
# Exit 0; 1 a table or the check failed; 2 bad usage.
set -uo pipefail
. "$(dirname "$0")/lib.sh"
me=${0##*/}

usage() { echo "usage: $me SERIES [--check] | $me SERIES --readme FILE [--check]" >&2; exit 2; }
[ $# -ge 1 ] || usage
dir=$VB_ROOT/kernel-patches/v$1
series=$1
shift
check=0 readme=
while [ $# -gt 0 ]; do
	case $1 in
	--check) check=1 ;;
	--readme) [ $# -ge 2 ] || usage; readme=$2; shift ;;
	*) usage ;;
	esac
	shift
done
in=$dir/cover-letter.in
[ -f "$in" ] || { echo "$me: $in: no template" >&2; exit 2; }
[ -f "$dir/series" ] || { echo "$me: $dir/series: missing" >&2; exit 2; }

if [ -n "$readme" ]; then
	[ -f "$readme" ] || { echo "$me: $readme: no such file" >&2; exit 2; }
	b="<!-- series-tables $series: begin -->" e="<!-- series-tables $series: end -->"
	grep -qxF "$b" "$readme" && grep -qxF "$e" "$readme" ||
		{ echo "$me: $readme: no '$b' ... '$e' block" >&2; exit 2; }
	blk=$(mktemp) new=$(mktemp)
	trap 'rm -f "$blk" "$new"' EXIT
	# each table with the paragraph of the template that introduces it
	tail -n +3 "$in" | awk '
		/^$/ { if (para != "") last = para; para = ""; next }
		/^@@ / { print "P\t" last; print "T\t" substr($0, 4); last = ""; next }
		{ para = para (para == "" ? "" : " ") $0 }' |
	while IFS=$'\t' read -r k v; do
		if [ "$k" = P ]; then
			printf '%s\n\n' "$v"
		else
			# shellcheck disable=SC2086
			(cd "$VB_ROOT" && ./scripts/series-tables.sh --md $v) ||
				{ echo "$me: table '$v' failed" >&2; exit 1; }
			echo
		fi
	done >"$blk" || exit 1
	awk -v b="$b" -v e="$e" -v f="$blk" '
		$0 == b { print; while ((getline l < f) > 0) print l; skip = 1; next }
		$0 == e { skip = 0 }
		!skip' "$readme" >"$new"
	if [ $check = 1 ]; then
		cmp -s "$new" "$readme" ||
			{ echo "$me: $readme: the series $series tables are stale (run $me $series --readme $readme)" >&2; exit 1; }
		exit 0
	fi
	cp "$new" "$readme"
	exit 0
fi

subject=$(sed -n '1s/^Subject: //p' "$in")
date=$(sed -n '2s/^Date: //p' "$in")
[ -n "$subject" ] && [ -n "$date" ] ||
	{ echo "$me: $in: the first two lines must be 'Subject: ' and 'Date: '" >&2; exit 2; }
mapfile -t patches < <(grep -v '^#' "$dir/series" | sed '/^$/d')
n=${#patches[@]}

out=$(mktemp)
trap 'rm -f "$out"' EXIT
{
	echo "From 0000000000000000000000000000000000000000 Mon Sep 17 00:00:00 2001"
	echo "From: Vsockbatch Developers <dev@vsockbatch.org>"
	echo "Date: $date"
	echo "Subject: [PATCH 0/$n] $subject"
	echo
	tail -n +3 "$in" | while IFS= read -r line; do
		if [[ "$line" == "@@ "* ]]; then
			# shellcheck disable=SC2086
			(cd "$VB_ROOT" && ./scripts/series-tables.sh ${line#@@ }) ||
				{ echo "$me: table '${line#@@ }' failed" >&2; exit 1; }
		else
			printf '%s\n' "$line"
		fi
	done || exit 1
	echo
	echo "Vsockbatch Developers ($n):"
	for p in "${patches[@]}"; do
		# the header's Subject, its folded lines joined
		awk '/^Subject: / { s = $0; while ((getline l) > 0 && l ~ /^ /) s = s l
			sub(/^Subject: \[PATCH [0-9]*\/[0-9]*\] /, "", s); print "  " s; exit }' "$dir/$p"
	done
	echo
	for p in "${patches[@]}"; do git apply --numstat "$dir/$p"; done |
		awk -F'\t' '{ a[$3] += $1; d[$3] += $2; if (!($3 in o)) { o[$3] = ++k; f[k] = $3 } }
		END {
			for (i = 1; i <= k; i++) { n = f[i]; ta += a[n]; td += d[n]
				printf " %-46s | %4d +%d -%d\n", n, a[n] + d[n], a[n], d[n] }
			printf " %d files changed, %d insertions(+), %d deletions(-)\n", k, ta, td }'
	echo
	echo "-- "
	echo "2.39.5"
} >"$out" || exit 1

if [ $check = 1 ]; then
	cmp -s "$out" "$dir/0000-cover-letter.patch" ||
		{ echo "$me: $dir/0000-cover-letter.patch is not what $in and the sets give (run $me $series)" >&2; exit 1; }
	exit 0
fi
cp "$out" "$dir/0000-cover-letter.patch"
echo "$dir/0000-cover-letter.patch"
