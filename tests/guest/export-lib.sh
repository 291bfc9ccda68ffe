# shellcheck shell=sh
# export-lib.sh: sourced by the exporter's guest scripts (export.sh,
# export-prom.sh, export-soak.sh, export-read-cost.sh, under-export.sh).
#
# export_wait PID ERRFILE [URL]: 0 once the exporter PID serves URL
# (default http://127.0.0.1:9477/metrics; the attach takes seconds under
# TCG), 1 with its stderr printed if it exits or 120 s pass first.
export_wait() {
	_i=0
	until wget -q -O /dev/null "${3:-http://127.0.0.1:9477/metrics}" 2>/dev/null; do
		_i=$((_i + 1))
		if [ $_i -ge 600 ] || ! kill -0 "$1" 2>/dev/null; then
			echo "exporter not serving: $(cat "$2")"
			return 1
		fi
		sleep 0.2
	done
}
