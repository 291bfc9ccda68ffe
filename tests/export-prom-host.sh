#!/bin/bash
# export-prom-host.sh: host half of the Prometheus test, run by
# guest-run.sh -N -U -H inside the lab's private network namespace (the
# guest half is tests/guest/export-prom.sh).
#
# Starts the Debian package's Prometheus (scrape every 1 s, the shipped
# recording rules) against the guest's exporter, sends 64 B writes for
# TRANSFER_S seconds to the guest through the vhost-user device, which
# the guest records with `vsockbatch record`, then asks Prometheus'
# HTTP API and compares with the record of the same transfer:
#   packets       sum(vsockbatch_packets_total) after - before the transfer
#   pkts/window   increase(vsockbatch_window_packets_total[R])
#                 / increase(vsockbatch_lock_windows_total[R])
#   the recording rule vsockbatch:packets_per_window:ratio_rate1m
#   lookups/pkt   sum(increase(vsockbatch_socket_lookups_total[R]))
#                 / sum(increase(vsockbatch_packets_total[R]))
# Tolerance: 0.5 % for packets, 1 % for the ratios (both tracers see
# every packet; the exporter's counts reach Prometheus through 1-s reads
# and scrapes, and the guest's clock, which dates the record, may be off
# the host's by a fraction of a second: R has 3 s of quiet either side).
# Also fetches the page over AF_VSOCK (the device's host endpoint).
# Verdicts in $VB_OUTDIR/export-prom.txt; exit 1 on any failure.
set -uo pipefail
ROOT=$(cd "$(dirname "$0")/.." && pwd)
out=${VB_OUTDIR:?} guest=${VB_NET_GUEST:?} uds=${VB_UDS:?}
TRANSFER_S=${TRANSFER_S:-15}
PORT=1270 VPORT=9478 PROM=127.0.0.1:9090
fails=0
say() { echo "export-prom-host: $*" | tee -a "$out/export-prom.txt"; }
fail() { say "FAIL: $*"; fails=$((fails + 1)); }
check() { # check EXPR TEXT
	if awk "BEGIN { exit !($1) }"; then say "ok: $2 ($1)"; else fail "$2 ($1)"; fi
}
: >"$out/export-prom.txt"
tmp=$(mktemp -d)
ppid_prom=
cleanup() {
	[ -z "$ppid_prom" ] || { kill "$ppid_prom" 2>/dev/null; wait "$ppid_prom" 2>/dev/null; }
	rm -rf "$tmp"
	touch "$out/host-done"	# never leave the guest waiting
}
trap cleanup EXIT
wait_file() { # wait_file PATH SECONDS
	local i
	for ((i = 0; i < $2 * 2; i++)); do
		[ -e "$1" ] && return 0
		kill -0 "$VB_GUEST_PID" 2>/dev/null || return 1
		sleep 0.5
	done
	return 1
}
# query PROMQL [UNIX_TIME]: the first result's value, or empty
query() {
	curl -sf --max-time 10 --get --data-urlencode "query=$1" \
		${2:+--data-urlencode "time=$2"} "http://$PROM/api/v1/query" |
		jq -r '.data.result[0].value[1] // empty'
}

wait_file "$out/exporter-up" 300 || { fail "the guest's exporter never came up"; exit 1; }
cp "$ROOT/monitoring/vsockbatch.rules.yml" "$tmp/"
cat >"$tmp/prometheus.yml" <<YML
global:
  scrape_interval: 1s
  evaluation_interval: 1s
rule_files: ['vsockbatch.rules.yml']
scrape_configs:
  - job_name: vsockbatch
    static_configs:
      - targets: ['$guest:9477']
YML
prometheus --config.file="$tmp/prometheus.yml" --storage.tsdb.path="$tmp/data" \
	--web.listen-address="$PROM" >"$out/prometheus.log" 2>&1 &
ppid_prom=$!
for ((i = 0; i < 120; i++)); do
	[ "$(query 'up{job="vsockbatch"}')" = 1 ] && break
	kill -0 "$ppid_prom" 2>/dev/null || { fail "prometheus exited: $(tail -n 3 "$out/prometheus.log")"; exit 1; }
	sleep 1
done
[ "$(query 'up{job="vsockbatch"}')" = 1 ] || { fail "Prometheus never scraped the exporter"; exit 1; }
curl -sf "http://$PROM/api/v1/targets" >"$out/prom-targets.json"
say "Prometheus $(prometheus --version 2>&1 | head -n 1 | awk '{ print $3 }') scrapes $guest:9477"
sleep 3		# quiet scrapes before the transfer
"$ROOT/build/vhost-user-vsock" send --retry 120 --uds "$uds" --port "$PORT" \
	--seconds "$TRANSFER_S" --buf-size 64 >"$out/prom-send.txt" 2>&1 ||
	fail "host send: $(tail -n 2 "$out/prom-send.txt")"
wait_file "$out/transfer-done" 120 || { fail "the guest never finished recording"; exit 1; }
t_seen=$(date +%s.%N)	# the host's time when the record had ended
sleep 2

rec=$out/prom-record.json
start_ns=$(jq -r .start_unix_ns "$rec") dur_ns=$(jq -r .duration_ns "$rec")
r_pkts=$(jq -r .totals.pkts "$rec") r_win=$(jq -r .totals.batches "$rec")
r_wpk=$(jq -r .totals.batch_pkts "$rec")
"$ROOT/build/vsockbatch" report --json "$rec" >"$out/prom-record-report.json"
r_lk=$(jq -r '.metrics.lookups_per_pkt // empty' "$out/prom-record-report.json")
# A TCG guest's clock can jump at boot (seen once: 0.11 s -> 22970 s in
# the console's timestamps, an RCU stall report after it), and the record
# is then dated hours off the host's, where Prometheus's samples are.
# The host saw transfer-done within ~1 s of the record's end (0.5-s polls
# and the JSON write): beyond 2 s apart, the record is re-dated by the
# host's clock, which the 3 s of quiet either side of the range absorb.
skew=$(awk -v s="$start_ns" -v d="$dur_ns" -v t="$t_seen" \
	'BEGIN { printf "%.3f", (s + d) / 1e9 - t }')
if awk -v k="$skew" 'BEGIN { exit !(k > 2 || k < -2) }'; then
	say "the guest's clock is ${skew} s off the host's: the record's end is dated by the host's ($t_seen)"
	start_ns=$(awk -v s="$start_ns" -v k="$skew" 'BEGIN { printf "%.0f", s - k * 1e9 }')
fi
t_before=$(awk -v s="$start_ns" 'BEGIN { printf "%.3f", s / 1e9 - 3 }')
t_after=$(awk -v s="$start_ns" -v d="$dur_ns" 'BEGIN { printf "%.3f", (s + d) / 1e9 + 3 }')
range=$(awk -v a="$t_after" -v b="$t_before" 'BEGIN { printf "%ds", a - b + 0.999 }')
say "record: $r_pkts packets, $r_win windows, $r_wpk packets in windows in $((dur_ns / 1000000)) ms; PromQL range $range ending $t_after"

p_before=$(query 'sum(vsockbatch_packets_total)' "$t_before")
p_after=$(query 'sum(vsockbatch_packets_total)' "$t_after")
p_d=$(awk -v a="$p_after" -v b="$p_before" 'BEGIN { print a - b }')
check "$r_pkts > 1000 && ${p_d:-0} >= $r_pkts * 0.995 && ${p_d:-0} <= $r_pkts * 1.005" \
	"packets: Prometheus $p_d vs record $r_pkts (0.5 %)"
ppw=$(query "increase(vsockbatch_window_packets_total[$range]) / increase(vsockbatch_lock_windows_total[$range])" "$t_after")
r_ppw=$(awk -v a="$r_wpk" -v b="$r_win" 'BEGIN { printf "%.4f", a / b }')
check "${ppw:-0} >= $r_ppw * 0.99 && ${ppw:-0} <= $r_ppw * 1.01" \
	"packets per window: PromQL ${ppw:-none} vs record $r_ppw (1 %)"
rule=$(query 'vsockbatch:packets_per_window:ratio_rate1m' "$t_after")
check "${rule:-0} >= $r_ppw * 0.99 && ${rule:-0} <= $r_ppw * 1.01" \
	"recording rule vsockbatch:packets_per_window:ratio_rate1m ${rule:-none} vs record $r_ppw (1 %)"
lk=$(query "sum(increase(vsockbatch_socket_lookups_total[$range])) / sum(increase(vsockbatch_packets_total[$range]))" "$t_after")
check "${lk:-0} >= ${r_lk:-2} * 0.99 && ${lk:-0} <= ${r_lk:-2} * 1.01" \
	"lookups per packet: PromQL ${lk:-none} vs record ${r_lk:-none} (1 %)"
hold=$(query "histogram_quantile(0.99, sum by (le) (increase(vsockbatch_lock_hold_seconds_bucket[$range])))" "$t_after")
kb=$(query 'vsockbatch_kernel_batched' "$t_after")
say "kernel_batched ${kb:-none}, lock hold p99 ${hold:-none (baseline: no rx_batch event)} s"

# the same page over AF_VSOCK, through the device's host endpoint
{ printf 'CONNECT %s\n' "$VPORT"; sleep 1; printf 'GET /metrics HTTP/1.0\r\n\r\n'; sleep 20; } |
	timeout 25 socat -t 5 - "UNIX-CONNECT:$uds" >"$out/vsock-page.txt" 2>"$out/vsock-page.err"
head -n 1 "$out/vsock-page.txt" | grep -q '^OK ' || fail "vsock: no OK from the back-end: $(head -c 200 "$out/vsock-page.txt")"
grep -q '^HTTP/1\.[01] 200' "$out/vsock-page.txt" || fail "vsock: no HTTP 200"
grep -q '^vsockbatch_packets_total{cpu="0"} [0-9]' "$out/vsock-page.txt" &&
	say "ok: the page over AF_VSOCK port $VPORT ($(grep -c '^vsockbatch_' "$out/vsock-page.txt") samples)" ||
	fail "vsock: no vsockbatch_packets_total on the page"

say "$fails failure(s)"
[ $fails -eq 0 ]
