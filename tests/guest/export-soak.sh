#!/bin/sh
# export-soak.sh MINUTES: guest half of scripts/export-soak.sh.
#
# `vsockbatch export --ports --max-ports 8 --port-age 5 -i 1` runs for
# MINUTES while 64 B loopback transfers go on back to back, each on a new
# port (1000 ports in turn, so the flow map is drained and the port table
# fills, overflows into "other" and ages out all the time), and a scrape
# loop fetches the page once a second as Prometheus would.  Every 30 s
# one row of $RESULTS/soak.tsv: seconds, the exporter's VmRSS and VmHWM
# (KiB), open fds, threads, page lines, ports tracked, packets counted,
# transfers done, the exporter's in-use heap (bytes, from its page).  Ends with SIGTERM (exit status 0 expected).
. /vb/guest/export-lib.sh
out=${RESULTS:?}
minutes=${1:?MINUTES}
url=http://127.0.0.1:9477/metrics
end=$(($(date +%s) + minutes * 60))

vsockbatch export --ports --max-ports 8 --port-age 5 -i 1 2>"$out/soak-exporter.err" &
epid=$!
export_wait $epid "$out/soak-exporter.err" || exit 1

# traffic: back to back, a new port each time
(
	port=20000 n=0
	while [ "$(date +%s)" -lt $end ]; do
		vb-recv --port $port --expect-bytes 1M >/dev/null 2>&1 &
		vb-sender --cid 1 --port $port --bytes 1M --buf-size 64 --retry 10 >/dev/null 2>&1
		wait $! && n=$((n + 1))
		echo $n >/tmp/soak-transfers
		port=$((port + 1))
		[ $port -lt 21000 ] || port=20000
	done
) &
tpid=$!
# Prometheus' part: a scrape a second
(
	while [ "$(date +%s)" -lt $end ]; do
		wget -q -O /tmp/soak-page "$url" 2>/dev/null
		sleep 1
	done
) &
spid=$!

field() { sed -n "s/^$1:[[:space:]]*\([0-9]*\).*/\1/p" /proc/$epid/status; }
printf 'seconds\trss_kib\thwm_kib\tfds\tthreads\tpage_lines\tports_tracked\tpackets\ttransfers\theap_bytes\n' >"$out/soak.tsv"
t0=$(date +%s)
while :; do
	now=$(date +%s)
	wget -q -O /tmp/soak-sample "$url" 2>/dev/null
	printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n' $((now - t0)) "$(field VmRSS)" "$(field VmHWM)" \
		"$(ls /proc/$epid/fd | wc -l)" "$(field Threads)" "$(wc -l </tmp/soak-sample)" \
		"$(sed -n 's/^vsockbatch_ports_tracked //p' /tmp/soak-sample)" \
		"$(awk '/^vsockbatch_packets_total/ { s += $2 } END { printf "%.0f", s }' /tmp/soak-sample)" \
		"$(cat /tmp/soak-transfers 2>/dev/null || echo 0)" \
		"$(sed -n 's/^vsockbatch_exporter_heap_bytes //p' /tmp/soak-sample)" >>"$out/soak.tsv"
	[ "$now" -lt $end ] || break
	sleep 30
done
wait $tpid $spid
kill -TERM $epid
wait $epid
rc=$?
cat "$out/soak-exporter.err"
echo "export-soak: exporter exit status $rc after SIGTERM"
[ $rc -eq 0 ]
