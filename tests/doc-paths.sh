#!/bin/bash
# doc-paths.sh: every path the docs quote resolves.
#
#   tests/doc-paths.sh [FILE.md...]      (default: every tracked *.md)
#
# Checked in each file:
#   - results/... and docs/... words (relative to the repository's top): the path
#     exists; a glob (results/*-h2g/) matches something; the form
#     results/SET/raw.tar.xz:MEMBER names a member (file or directory) of
#     that set's archive (scripts/results-raw.sh)
#   - Markdown link targets, ](path), relative to the file: exist
#   - `raw.tar.xz:MEMBER` in backquotes, relative to the file: a member
#     of the archive beside it; `runs/rNN-STATE...` (a named run) exists
#     beside the file: in a packed set it must be quoted in the first form
# Not quotes: a word after a shell redirection (`> results/x.md`: a
# command's output), /results/... (the guest's 9p mount), URLs.  A word
# broken over two lines at a hyphen is joined first.
# Prints each broken quote as FILE:LINE: PATH and a count.  Exit 0 all
# resolve; 1 some do not; 2 not in a git checkout.
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/.." && pwd)
cd "$ROOT"
git rev-parse --git-dir >/dev/null 2>&1 || { echo "${0##*/}: $ROOT is not a git checkout" >&2; exit 2; }
if [ $# -eq 0 ]; then mapfile -t files < <(git ls-files '*.md'); else files=("$@"); fi

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
bad=0 n=0

# member ARCHIVE MEMBER: MEMBER (or a directory of that name) is in
# ARCHIVE; each archive is listed once
member() {
	local a=$1 m=${2%/} key
	[ -f "$a" ] || return 1
	key=$tmp/$(printf '%s' "$a" | md5sum | cut -c1-16)
	[ -f "$key" ] || xz -dc "$a" | tar -tf - >"$key" || return 1
	awk -v m="$m" '$0 == m || index($0, m "/") == 1 { f = 1; exit } END { exit !f }' "$key"
}

# resolves BASE PATH: PATH (relative to BASE) exists, matches as a glob,
# or is ARCHIVE:MEMBER
resolves() {
	local base=$1 p=$2 g
	case $p in
	*raw.tar.xz:*) member "$base/${p%%:*}" "${p#*:}"; return ;;
	*'*'*)
		# shellcheck disable=SC2206 # the glob is the point
		g=($base/$p)
		[ -e "${g[0]}" ]; return ;;
	esac
	[ -e "$base/$p" ]
}

complain() { echo "$1: $2"; bad=$((bad + 1)); }

for f in "${files[@]}"; do
	dir=$(dirname "$f")
	# join results/...- broken over two lines; line numbers are of the
	# joined text's first line, close enough to find the quote
	sed -e ':a' -e '/results\/[A-Za-z0-9._/*-]*-$/{N;s/-\n[[:space:]]*/-/;ba}' "$f" >"$tmp/text"
	# results/... words: the character before must not make it part of a
	# longer path, and "> " before marks a command's output
	while IFS=: read -r ln p; do
		# trailing sentence punctuation and markdown emphasis
		p=${p%%\*\*}
		while [[ "$p" =~ [.,\;:\)]$ ]]; do p=${p%?}; done
		# a placeholder (results/SET/...), not a path
		[[ "$p" =~ /[A-Z]+(/|$) ]] && continue
		n=$((n + 1))
		resolves . "$p" || complain "$f:$ln" "$p"
	done < <(grep -noP '(?<![A-Za-z0-9_./>-])(?<!> )(results|docs)/[A-Za-z0-9._/*:-]*' "$tmp/text" || :)
	# markdown link targets
	while IFS=: read -r ln target; do
		target=${target#](}
		target=${target%%#*}
		case $target in ''|http:*|https:*|mailto:*) continue ;; esac
		n=$((n + 1))
		resolves "$dir" "$target" || complain "$f:$ln" "$target (link)"
	done < <(grep -noE '\]\([^) ]+' "$f" || :)
	# `raw.tar.xz:MEMBER` beside the file, and a named run's directory
	# (`runs/r04-p1-3...`), which a packed set holds in its archive
	while IFS=: read -r ln q; do
		q=${q//\`/}
		n=$((n + 1))
		resolves "$dir" "$q" || complain "$f:$ln" "$q"
	done < <(grep -noE '`(raw\.tar\.xz:[^`]+|runs/r[0-9]+-[^`*]+)`' "$f" || :)
done
echo "doc-paths: $n quoted paths in ${#files[@]} files, $bad do not resolve"
[ $bad -eq 0 ]
