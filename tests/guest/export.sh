#!/bin/sh
# export.sh: `vsockbatch export` in a lab guest (docs/export.md).
#
# An exporter (auto mode, --ports, reads every 0.5 s) runs while a 64 B
# loopback transfer is traced by `vsockbatch record`, with three scrape
# loops hitting it the whole time; then asserts:
#   - the page's packets, bytes and lock windows grew by exactly what
#     record counted for the same transfer (both trace every packet; the
#     guest has no other vsock traffic), and the transfer's port has
#     series of its own;
#   - every concurrent scrape (three loops through the transfer) got a whole page; OpenMetrics when asked
#     (content type, "# EOF" last), text otherwise;
#   - the mode and kernel gauges say what `vsockbatch probe` says, and the
#     measured tracer cost is on the page;
#   - a second exporter on the same port exits 2 with one line, before
#     attaching anything; SIGTERM and SIGINT detach and exit 0 (the port
#     is free again after); --textfile -m full writes the node_exporter
#     file atomically (no temporary left), with the full-mode series;
#   - -m full --sample 1 times every window and says so on the page.
# Writes $RESULTS/export-*.txt (pages), export-record.json, export-*.err.
. /vb/guest/export-lib.sh
out=${RESULTS:?}
port=1260
url=http://127.0.0.1:9477/metrics
fails=0

say() { echo "export: $*"; }
fail() { say "FAIL: $*"; fails=$((fails + 1)); }
. /vb/guest/assert-lib.sh
# total PAGE NAME: the sum of NAME's samples (any labels) on a page
total() {
	awk -v n="$2" '$1 == n || index($1, n "{") == 1 { s += $2 } END { printf "%.0f\n", s }' "$1"
}
# wait_page PID ERRFILE FILE: the page, once the exporter serves it
wait_page() {
	export_wait "$1" "$2" && wget -q -O "$3" "$url"
}

TX=vsock_perf RX=vsock_perf
command -v vsock_perf >/dev/null 2>&1 || { TX=vb-sender RX=vb-recv; }

[ $# -eq 0 ] || { echo "usage: export.sh" >&2; exit 2; }
vsockbatch probe >"$out/export-probe.txt" 2>&1 || fail "vsockbatch probe"
kmode=$(sed -n '1s/^kernel [^:]*: \([a-z]*\) .*/\1/p' "$out/export-probe.txt")
grep -q '^tracer modes: light yes' "$out/export-probe.txt" && light=1 || light=0
say "kernel mode $kmode, light mode available: $light"

# --- the dispatcher finds the dynamically linked exporter ----------------
vsockbatch export --help >/dev/null 2>"$out/export-help.err"; rc=$?
check "$rc == 0" "vsockbatch export --help (build/dyn/vsockbatch-export and its libraries)"
vsockbatch export -i 0 2>/dev/null; rc=$?
check "$rc == 2" "export -i 0 exits 2"
vsockbatch export --listen nowhere 2>/dev/null; rc=$?
check "$rc == 2" "export --listen nowhere exits 2"

# --- the exporter, and one more on its port --------------------------------
vsockbatch export -i 0.5 --ports 2>"$out/export-a.err" &
apid=$!
wait_page $apid "$out/export-a.err" "$out/export-page0.txt" || fail "no page"
t0=$(date +%s)
vsockbatch export 2>"$out/export-b.err"; rc=$?
t1=$(date +%s)
check "$rc == 2" "a second exporter on the same port exits 2"
check "$(wc -l <"$out/export-b.err") == 1" "with one line"
grep -q 'Address already in use' "$out/export-b.err" ||
	fail "port in use: reason '$(cat "$out/export-b.err")'"
check "$t1 - $t0 <= 2" "before attaching anything ($((t1 - t0)) s)"
grep -q 'loading and attaching' "$out/export-b.err" && fail "the second exporter attached"

# --- gauges ------------------------------------------------------------------
p0=$out/export-page0.txt
fm=$(total "$p0" vsockbatch_tracer_full_mode)
kb=$(total "$p0" vsockbatch_kernel_batched)
if [ "$kmode" = batched ] && [ $light = 1 ]; then
	check "$fm == 0" "light mode by default on a kernel with the rx_batch event"
else
	check "$fm == 1" "full mode on a kernel without the rx_batch event"
fi
check "$kb == $([ "$kmode" = batched ] && echo 1 || echo 0)" "kernel_batched says $kmode"
# a batched kernel whose runs full mode cannot see (no rx_batch event and
# no hook on the series' run functions) was never measured
grep -q 'runs_visible="false"' "$p0" && runs=0 || runs=1
say "runs visible: $runs"
if [ $runs = 0 ]; then
	grep -q '^vsockbatch_tracer_overhead_ratio' "$p0" &&
		fail "a cost gauge for a mode never measured (runs invisible)"
else
	grep -q '^vsockbatch_tracer_overhead_ratio{payload_bytes="64",source="results/' "$p0" ||
		fail "no measured tracer cost on the page"
fi

# run ends, hold times and write-space come from the rx_batch event alone
if [ $light = 1 ]; then
	grep -q '^vsockbatch_run_ends_total{reason="queue"}' "$p0" ||
		fail "no run-end series with the rx_batch event attached"
else
	grep -q '^vsockbatch_run_ends_total' "$p0" &&
		fail "run-end series without the rx_batch event (they would read 0)"
fi

# --- the transfer, traced by record, scraped throughout ---------------------
scrape_loop() { # scrape_loop ID: until the transfer is over, alternately OpenMetrics
	n=0 ok=0
	while [ ! -e /tmp/scrape-stop ] || [ $n -lt 10 ]; do
		if [ $((n % 2)) = 1 ]; then
			wget -q -O /tmp/scrape-$1 --header 'Accept: application/openmetrics-text; version=1.0.0' "$url" &&
				[ "$(tail -n 1 /tmp/scrape-$1)" = '# EOF' ] && ok=$((ok + 1))
		else
			wget -q -O /tmp/scrape-$1 "$url" &&
				grep -q '^vsockbatch_packets_total{cpu="0"}' /tmp/scrape-$1 &&
				! grep -q '^# EOF' /tmp/scrape-$1 && ok=$((ok + 1))
		fi
		n=$((n + 1))
	done
	echo "$ok $n" >"$out/export-scrapes-$1.txt"
}
rm -f /tmp/scrape-stop
spids=
for s in 1 2 3; do
	scrape_loop $s &
	spids="$spids $!"
done
sleep 1.5	# two reads: every packet before this is in page1
wget -q -O "$out/export-page1.txt" "$url" || fail "scrape before the transfer"
$RX --port "$port" --buf-size 64K >"$out/export.rx" 2>&1 &
rpid=$!
sleep 1
vsockbatch record -o "$out/export-record.json" -- \
	$TX --sender 1 --port "$port" --bytes 1M --buf-size 64 \
	>"$out/export.tx" 2>"$out/export-record.err"
rc=$?
check "$rc == 0" "record of the transfer"
wait $rpid || fail "receiver"
sleep 1.5	# record drained until idle; two more reads
wget -q -O "$out/export-page2.txt" "$url" || fail "scrape after the transfer"
touch /tmp/scrape-stop
# shellcheck disable=SC2086
wait $spids	# the scrape loops; the exporter runs on
for s in 1 2 3; do
	read -r ok n <"$out/export-scrapes-$s.txt" || ok=0 n=0
	check "$ok == $n && $n >= 10" \
		"scrape loop $s during the transfer: $ok of $n whole pages (text and OpenMetrics alternately)"
done

vsockbatch report --json "$out/export-record.json" >"$out/export-report.json" ||
	fail "report --json"
j=$out/export-report.json
p1=$out/export-page1.txt p2=$out/export-page2.txt
for m in pkts:vsockbatch_packets_total bytes:vsockbatch_payload_bytes_total \
	 batches:vsockbatch_lock_windows_total batch_pkts:vsockbatch_window_packets_total; do
	k=${m%%:*} n=${m#*:}
	[ $runs = 0 ] && [ "${k#batch}" != "$k" ] && continue
	rec=$(metric "$j" "$k")
	d=$(( $(total "$p2" "$n") - $(total "$p1" "$n") ))
	check "$d == ${rec:-(-1)}" "$n grew by record's $k ($d vs ${rec:-none})"
done
if [ $runs = 1 ]; then
	grep -q "^vsockbatch_port_lock_windows_total{port=\"$port\"} [1-9]" "$p2" ||
		fail "no lock-window series of its own for port $port"
fi

# --- OpenMetrics on request ---------------------------------------------------
wget -S -q -O "$out/export-page-om.txt" \
	--header 'Accept: application/openmetrics-text;version=1.0.0,text/plain;q=0.5' \
	"$url" 2>"$out/export-om-headers.txt" || fail "OpenMetrics scrape"
grep -qi 'Content-Type: application/openmetrics-text; version=1.0.0' "$out/export-om-headers.txt" ||
	fail "OpenMetrics content type: $(grep -i content-type "$out/export-om-headers.txt")"
check "$(grep -c '^# EOF$' "$out/export-page-om.txt") == 1" "one # EOF"
[ "$(tail -n 1 "$out/export-page-om.txt")" = '# EOF' ] || fail "# EOF is not last"

# --- SIGTERM detaches, the port is free again --------------------------------
t0=$(date +%s)
kill -TERM $apid
wait $apid; rc=$?
t1=$(date +%s)
check "$rc == 0" "SIGTERM: exit 0"
check "$t1 - $t0 <= 5" "SIGTERM: gone within 5 s ($((t1 - t0)) s)"
grep -q 'detaching after' "$out/export-a.err" || fail "no detach line: $(tail -n 2 "$out/export-a.err")"

# --- SIGINT, on the same port: free again ---------------------------------
vsockbatch export -d 600 2>"$out/export-c.err" &
cpid=$!
wait_page $cpid "$out/export-c.err" "$out/export-page3.txt" ||
	fail "no page: was the port not free after SIGTERM?"
kill -INT $cpid
wait $cpid; rc=$?
check "$rc == 0" "SIGINT: exit 0"

# --- textfile, full mode --------------------------------------------------
tf=/tmp/export-tf
rm -rf "$tf"
mkdir -p "$tf"
vsockbatch export -m full --textfile "$tf" -i 0.5 -d 4 2>"$out/export-tf.err"; rc=$?
check "$rc == 0" "--textfile -m full -d 4: exit 0"
cp "$tf/vsockbatch.prom" "$out/export-textfile.txt" 2>/dev/null ||
	fail "no $tf/vsockbatch.prom: $(cat "$out/export-tf.err")"
check "$(ls -A "$tf" | wc -l) == 1" "only vsockbatch.prom in the directory (no temporary left)"
grep -q '^vsockbatch_tracer_full_mode 1$' "$out/export-textfile.txt" || fail "textfile: not full mode"
grep -q '^vsockbatch_reader_wait_seconds_count ' "$out/export-textfile.txt" ||
	fail "textfile: no reader-wait histogram in full mode"
grep -q '^# EOF' "$out/export-textfile.txt" && fail "textfile: OpenMetrics' # EOF in a text file"

# --- --sample 1: every window timed, and the page says so ------------------
# (full mode; the window-time histogram exists without the rx_batch event)
vsockbatch export -m full --sample 1 -i 0.5 2>"$out/export-s1.err" &
xpid=$!
if export_wait $xpid "$out/export-s1.err"; then
	port=$((port + 1))
	$RX --port "$port" --buf-size 64K >"$out/export-s1.rx" 2>&1 &
	rpid=$!
	sleep 1
	$TX --sender 1 --port "$port" --bytes 256K --buf-size 64 >"$out/export-s1.tx" 2>&1 ||
		fail "--sample 1: transfer"
	wait $rpid || fail "--sample 1: receiver"
	sleep 1.5	# two reads after the transfer
	wget -q -O "$out/export-s1.txt" "$url" || fail "--sample 1: scrape"
	check "$(total "$out/export-s1.txt" vsockbatch_tracer_time_sample) == 1" \
		"--sample 1: vsockbatch_tracer_time_sample 1"
	if [ "$kmode" = baseline ]; then
		w=$(total "$out/export-s1.txt" vsockbatch_lock_windows_total)
		h=$(total "$out/export-s1.txt" vsockbatch_window_seconds_count)
		say "--sample 1: $h of $w windows timed"
		check "$w > 0 && $h >= $w * 0.99 && $h <= $w" \
			"--sample 1: every window timed (stale windows aside)"
	fi
else
	fail "--sample 1: no page"
fi
kill -TERM $xpid 2>/dev/null
wait $xpid; rc=$?
check "$rc == 0" "--sample 1: SIGTERM, exit 0"
vsockbatch export -s 3 2>/dev/null; rc=$?
check "$rc == 2" "export -s 3 exits 2 (not a power of two)"

say "$fails failure(s)"
[ $fails -eq 0 ]
