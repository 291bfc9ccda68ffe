# shellcheck shell=sh
# assert-lib.sh: assertions the tracer's guest tests share (tracer.sh,
# tracer-kprobe.sh, export.sh).  The sourcing test defines say() and
# fail() (its own prefix and failure count) first.
#
# check EXPR DESCRIPTION: awk-evaluated numeric assertion
check() {
	if awk "BEGIN { exit !($1) }"; then
		say "ok: $2 ($1)"
	else
		fail "$2 ($1)"
	fi
}
# metric FILE KEY: a top-level value of report --json (4-space indented
# "key": value lines; flows are indented deeper, and histograms, which
# share some names, are objects: skipped)
metric() {
	sed -n "s/^    \"$2\": \([^,{][^,]*\),\{0,1\}\$/\1/p" "$1" | head -n 1
}
