#!/bin/bash
# doc-paths.sh: every path the Markdown quotes exists.  Checked in each
# *.md git tracks or would (not the per-run files under results/*/runs/):
#   - `results/...` and `docs/...` paths, from the top of the tree; a
#     glob must match something; placeholders (<date>) and redirect
#     targets ("> results/x", a command's output) are skipped;
#   - relative Markdown links, [text](path), from the file's directory.
# One line per missing path, a summary line, exit 1 on any.
set -euo pipefail

top=$(cd "$(dirname "$0")/.." && pwd)
cd "$top"
missing=0
checked=0

exists() {	# a path or a glob, relative to the current directory
	compgen -G "$1" >/dev/null || [ -e "$1" ]
}

while IFS= read -r f; do
	dir=$(dirname "$f")
	while IFS= read -r p; do
		p=${p%\*\*}	# **results/** is bold Markdown, not a glob
		[ -n "$p" ] || continue
		checked=$((checked + 1))
		exists "$p" || { echo "$f: $p does not exist"; missing=$((missing + 1)); }
	done < <(sed -E 's#> *(results|docs)/[^ ]*##g' "$f" |
		grep -oE '(^|[^A-Za-z0-9_./-])(results|docs)/[A-Za-z0-9._/*<>-]*[A-Za-z0-9_/*>]' |
		grep -v '<' | sed -E 's/^[^rd]//' || true)
	while IFS= read -r l; do
		checked=$((checked + 1))
		exists "$dir/$l" || { echo "$f: link $l does not exist"; missing=$((missing + 1)); }
	done < <(grep -oE '\]\([^)#[:space:]]+' "$f" | sed 's/^](//' |
		grep -vE '^[a-z]+:' || true)
done < <(git ls-files --cached --others --exclude-standard '*.md' | grep -v '^results/[^/]*/runs/')

echo "doc paths: $checked checked, $missing missing"
[ "$missing" -eq 0 ]
