#!/bin/bash
# completion.sh [BUILD_DIR]: the bash completion (completion/vsockbatch.bash)
# against the built programs: commands, each command's options from its
# --help, option values, vsockbatch-top, a bench program.  Prints one line
# per failure and "completion: N passed, N failed".
set -euo pipefail

top=$(cd "$(dirname "$0")/.." && pwd)
build=$(cd "${1:-$top/build}" && pwd)
bc=/usr/share/bash-completion/bash_completion
[ -r "$bc" ] || { echo "completion: $bc missing (make deps: bash-completion)" >&2; exit 2; }
[ -x "$build/vsockbatch" ] || { echo "completion: $build/vsockbatch: not built" >&2; exit 2; }

# bash-completion is written for interactive shells: not under set -eu.
set +eu
# shellcheck disable=SC1090
. "$bc"
# shellcheck disable=SC1091
. "$top/completion/vsockbatch.bash"
PATH=$build:$PATH
passed=0
failed=0

# complete LINE: COMPREPLY for LINE with the cursor at its end
complete_line() {
	local line=$1 spec fn
	read -ra COMP_WORDS <<<"$line"
	[[ $line == *" " ]] && COMP_WORDS+=("")
	COMP_CWORD=$((${#COMP_WORDS[@]} - 1))
	COMP_LINE=$line
	COMP_POINT=${#line}
	COMPREPLY=()
	spec=$(complete -p "${COMP_WORDS[0]}")
	fn=${spec#*-F }
	fn=${fn%% *}
	"$fn" "${COMP_WORDS[0]}" "${COMP_WORDS[COMP_CWORD]}" \
		"${COMP_WORDS[COMP_CWORD - 1]}"
	printf '%s\n' "${COMPREPLY[@]}" | sort
}

# expect LINE WORD...: each WORD among the completions of LINE
expect() {
	local line=$1 got w miss=""
	shift
	got=$(complete_line "$line")
	for w in "$@"; do
		grep -qxF -- "$w" <<<"$got" || miss="$miss $w"
	done
	if [ -z "$miss" ]; then
		passed=$((passed + 1))
	else
		echo "FAIL: '$line' lacks:$miss (got: $(echo $got))"
		failed=$((failed + 1))
	fi
}

# refuse LINE WORD: WORD not among the completions of LINE
refuse() {
	if complete_line "$1" | grep -qxF -- "$2"; then
		echo "FAIL: '$1' offers $2"
		failed=$((failed + 1))
	else
		passed=$((passed + 1))
	fi
}

expect "vsockbatch " record report compare advise top probe --version
expect "vsockbatch re" record report
refuse "vsockbatch re" probe
expect "vsockbatch record --" --output --duration --mode --bpf-stats --label --duty
expect "vsockbatch record --duty " 1 16 32
refuse "vsockbatch top --" --duty
refuse "vsockbatch record --" --json
expect "vsockbatch report -" --json --per-flow --wide
expect "vsockbatch compare --" --base --patched --level --iters
expect "vsockbatch record -m " light full
expect "vsockbatch top -s " pkts mb batches len hold deferred
expect "vsockbatch record -s " 1 8 1024
refuse "vsockbatch record -s " pkts
expect "vsockbatch export --sample " 1 8 1024
expect "vsockbatch-top --" --replay --batch --interval --sample
expect "vsockbatch-top --" --replay --batch --interval
refuse "vsockbatch-top --" --output
expect "vb-recv --" --port --recv-size --insn-mark
expect "vb-sender --" --cid --seconds --buf-size

echo "completion: $passed passed, $failed failed"
[ "$failed" -eq 0 ]
