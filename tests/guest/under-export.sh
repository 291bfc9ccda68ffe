#!/bin/sh
# under-export.sh MODE COMMAND...: run COMMAND while `vsockbatch export -m
# MODE` reads the maps every 0.1 s (ten times its default rate): the
# exporter's counterpart of `vsockbatch record -m MODE -- COMMAND` for
# tracer-overhead.sh.  The exporter is attached and serving before
# COMMAND starts and stopped (SIGTERM, exit 0 expected) after it ends.
. /vb/guest/export-lib.sh
mode=${1:?MODE}
shift
vsockbatch export -m "$mode" -i 0.1 2>/tmp/under-export.err &
epid=$!
export_wait $epid /tmp/under-export.err || exit 1
"$@"
rc=$?
kill -TERM $epid
wait $epid || { cat /tmp/under-export.err; rc=1; }
exit $rc
