#!/bin/bash
# experiment-quick.sh: end-to-end check of the AB/BA experiment pipeline.
#
# Runs `scripts/experiment.sh --quick --out TMP` (3 guest runs: baseline,
# p1-3, patched; payloads 64 B and 4 KiB; one pair) and checks that every
# output exists and is well formed: the manifest and per-run raw files,
# summary.json (format, the three comparisons, the expected rows and
# keys), report.md (its tables), the plots (non-empty SVG and PNG).
# Prints one line per check and "experiment-quick: OK" or the failures.
# The raw per-run files are checked in the set's raw.tar.xz, unpacked
# (experiment.sh packs them).
# Exit 0 all good, 1 a check failed.  The set is removed on success
# unless VB_KEEP=1; its path is printed on failure.  VB_EXPQ_SET=DIR
# checks an existing --quick set instead of making one.
# --mode h2g: the host->guest mode (lab's vhost-user-vsock device), with
# its own checks: the host's sender and ping-pong outputs, the device
# interrupt pinned to vCPU 1, every traced packet processed there by
# virtio_transport_rx_work(), batches of exactly 1 packet on baseline and
# more than 1 at 64 B on the batched kernels, the RX-vCPU cost table.
# Every mode: the host's record of every transfer (host-xfer.jsonl: host
# busy cores, steal, QEMU's, the back-end's and the host sender's cores,
# the rest) and the exclusion rule, applied mechanically by the summary
# to copies of the set with rules that must exclude all, none and exactly
# the transfers above a threshold.  Wall clock: the TCP column (the same
# transfers and ping-pongs over TCP: loopback on 127.0.0.1, h2g from the
# host over the guest's virtio-net NIC in a private network namespace,
# its interrupt pinned to vCPU 1, the namespace gone afterwards) and the
# efficiency samples.
# --clock icount: the instruction-count mode, with its own checks: the
# plugin's insns.tsv and marks.tsv per run, positive insn_* samples for
# every transfer (untraced, matched, traced), the summary's insn rows,
# clock and measured tracer overhead, the report's icount tables; run
# with --profile: each run's block profile sums exactly to its counts
# (scripts/insns-profile.sh) and names the RX path each kernel has
# (virtio_transport_recv_pkt unbatched, the batch loop on patched and,
# host -> guest, on p1-3, which batches the guest RX worker only).
#   tests/experiment-quick.sh [--mode loopback|h2g] [--clock wall|icount]
set -uo pipefail
MODE=loopback CLOCK=wall
while [ $# -gt 0 ]; do
	case $1 in
	--mode) MODE=${2-}; shift ;;
	--clock) CLOCK=${2-}; shift ;;
	*) echo "usage: ${0##*/} [--mode loopback|h2g] [--clock wall|icount]" >&2; exit 2 ;;
	esac
	shift
done
case $MODE in loopback|h2g) ;; *) echo "${0##*/}: bad mode '$MODE'" >&2; exit 2 ;; esac
case $CLOCK in wall|icount) ;; *) echo "${0##*/}: bad clock '$CLOCK'" >&2; exit 2 ;; esac
ROOT=$(cd "$(dirname "$0")/.." && pwd)
VB=$ROOT/build/vsockbatch
LAB=$ROOT/build/vsockbatch-lab
fails=0
ok() { echo "ok: $*"; }
bad() { echo "FAIL: $*"; fails=$((fails + 1)); }
check() { # check DESCRIPTION COMMAND...
	local d=$1
	shift
	if "$@" >/dev/null 2>&1; then ok "$d"; else bad "$d"; fi
}

command -v jq >/dev/null || { echo "experiment-quick: jq missing" >&2; exit 1; }
for b in "$VB" "$LAB"; do
	[ -x "$b" ] || { echo "experiment-quick: $b missing (run make)" >&2; exit 1; }
done
tmp=$(mktemp -d /tmp/vb-expq.XXXXXX) || exit 1
if [ -n "${VB_EXPQ_SET:-}" ]; then
	# check an existing quick set (no run; the stdout/stderr checks are
	# made on its summary.txt only)
	out=$VB_EXPQ_SET
	cp "$out/summary.txt" "$tmp/stdout" 2>/dev/null
	echo "checking the existing set $out"
else
	out=$tmp/set
	# namespaces present before the run are not this run's to judge
	ns_before=$(ip netns list 2>/dev/null | sed -n 's/^\(vb-guest-[0-9]*\).*/\1/p')
	start=$(date +%s)
	prof=()
	[ "$CLOCK" = icount ] && prof=(--profile)
	"$ROOT/scripts/experiment.sh" --quick --mode "$MODE" --clock "$CLOCK" "${prof[@]}" --out "$out" >"$tmp/stdout" 2>"$tmp/stderr"
	rc=$?
	echo "experiment.sh --quick --mode $MODE --clock $CLOCK: exit $rc after $(($(date +%s) - start))s"
	[ $rc -eq 0 ] && ok "experiment.sh exit 0" || { bad "experiment.sh exit $rc"; tail -n 5 "$tmp/stderr"; }
	check "progress lines (run k/R, elapsed, ETA) on stderr" \
		grep -q '^\[experiment\] run 3/3: .*elapsed .*ETA' "$tmp/stderr"
	# guest-run.sh -N's namespaces are named after their runner's PID
	# (the run's runners are gone now: any of their namespaces is a leak)
	check "no network namespace left behind (guest-run.sh -N)" sh -c '
		for n in $(ip netns list 2>/dev/null | sed -n "s/^\(vb-guest-[0-9]*\).*/\1/p"); do
			case " $1 " in *" $n "*) continue ;; esac
			kill -0 "${n#vb-guest-}" 2>/dev/null || exit 1
		done' sh "$(echo $ns_before)"
fi
check "headline table on stdout" grep -q '^64B *tput_fixed_gbps' "$tmp/stdout"

# The set keeps its runs in one archive (scripts/results-raw.sh); the
# checks below read them from an unpacked copy.
check "raw data packed: raw.tar.xz, no runs/ beside it" \
	sh -c "test -s '$out/raw.tar.xz' && test ! -e '$out/runs'"
if [ -f "$out/raw.tar.xz" ]; then
	"$ROOT/scripts/results-raw.sh" unpack "$out" "$tmp/unpacked" &&
		out=$tmp/unpacked || bad "raw.tar.xz unpacks"
fi

# manifest and raw files
m=$out/manifest.json
check "manifest.json parses, 3 runs, all status 0" \
	jq -e '(.runs | length) == 3 and all(.runs[]; .status == 0) and .quick == true' "$m"
check "manifest: states with kernel hash and patch list" \
	jq -e '[.states[].name] == ["baseline","p1-3","patched"] and all(.states[]; (.kernel_hash | length) > 0 and (.patches | type) == "array")' "$m"
check "manifest: every run with its host load at start and end; host-load.txt" \
	sh -c "jq -e 'all(.runs[]; (.loadavg1_start | type) == \"number\" and (.loadavg1_end | type) == \"number\")' '$m' && grep -Eq '^[0-9:]{8} [0-9.]+ ' '$out/host-load.txt'"
check "manifest: p1-3 has 3 patches, patched more" \
	jq -e '(.states[1].patches | length) == 3 and (.states[2].patches | length) > 3 and (.states[0].patches | length) == 0' "$m"
for d in $(jq -r '.runs[].dir' "$m" 2>/dev/null); do
	r=$out/$d
	check "$d: console.log, env.txt" test -s "$r/console.log" -a -s "$r/env.txt"
	check "$d: samples.jsonl lines are {payload, metric, value}" \
		jq -e -s 'length > 0 and all(.[]; (.payload | type) == "number" and (.metric | type) == "string" and (.value | type) == "number")' "$r/samples.jsonl"
	for p in 64 4096; do
		for k in fixed match traced; do
			check "$d: raw/$k.$p rx+tx with a JSON line" \
				grep -q '^{"tool":"vb-recv"' "$r/raw/$k.$p.rx.out"
		done
		check "$d: traced/$p.json is a results file" "$VB" report --json "$r/traced/$p.json"
		for mt in tput_fixed_gbps tput_match_gbps recv_calls_fixed recv_calls_match tput_traced_gbps; do
			check "$d: sample $mt at $p" \
				jq -e -s --arg m "$mt" --argjson p "$p" 'any(.[]; .metric == $m and .payload == $p and .value > 0)' "$r/samples.jsonl"
		done
	done
	# --quick transfers last ~0.1 s: a few 10 ms ticks, so the guest may
	# (rightly) drop a sample as too coarse; any it keeps must be sane.
	check "$d: untraced CPU cost samples (/proc/stat), if any, positive" \
		jq -e -s 'all(.[] | select(.metric | startswith("stat_")); .value > 0)' "$r/samples.jsonl"
	if [ "$CLOCK" = icount ]; then
		check "$d: insns.tsv from the plugin, with marks and the exit row" \
			sh -c "grep -q '^# seq' '$r/insns.tsv' && grep -Eq '^[0-9]+	[0-9]+	1	' '$r/insns.tsv' && grep -q '	exit	' '$r/insns.tsv'"
		check "$d: marks.tsv names every transfer (fixed, match, traced x 2 payloads)" \
			sh -c "[ \$(wc -l <'$r/marks.tsv') -eq 6 ]"
		for p in 64 4096; do
			for mt in insn_per_byte insn_kernel_per_byte insn_cpu0_per_byte insn_cpu1_per_byte insn_per_byte_match insn_per_byte_traced; do
				check "$d: sample $mt at $p, positive" \
					jq -e -s --arg m "$mt" --argjson p "$p" '[.[] | select(.metric == $m and .payload == $p)] | length == 1 and all(.[]; .value > 0)' "$r/samples.jsonl"
			done
			check "$d: $p: idle share of guest time (icount_warp_pct) in 0..100" \
				jq -e -s --argjson p "$p" '[.[] | select(.metric == "icount_warp_pct" and .payload == $p)] | length == 1 and all(.[]; .value >= 0 and .value <= 100)' "$r/samples.jsonl"
			# where the kernel's instructions went: the profile and the
			# counts are one counter, and it sees the kernel's RX path
			check "$d: $p: block profile sums to the window's kernel count" \
				sh -c "'$ROOT/scripts/insns-profile.sh' -n 200 fixed.$p '$r' >'$tmp/prof.$p'"
			# p1-3 batches the guest RX worker only (host -> guest)
			case $d in
			*baseline) fn=virtio_transport_recv_pkt ;;
			*p1-3) fn=virtio_transport_recv_pkt
				[ "$MODE" = h2g ] && fn=virtio_transport_rx_batch_recv_run ;;
			*) fn=virtio_transport_rx_batch_recv_run ;;
			esac
			# rows "name [module] value": the module's function, run
			check "$d: $p: the profile names the kernel's RX path ($fn)" \
				awk -v fn="$fn" '$1 == fn && $2 ~ /^\[/ && $3 > 0 { ok = 1 } END { exit !ok }' "$tmp/prof.$p"
			check "$d: $p: kernel part <= total, vCPUs sum to the total" \
				jq -e -s --argjson p "$p" 'map(select(.payload == $p)) | (map(select(.metric == "insn_per_byte"))[0].value) as $t |
					(map(select(.metric == "insn_kernel_per_byte"))[0].value) <= $t and
					((map(select(.metric == "insn_cpu0_per_byte" or .metric == "insn_cpu1_per_byte")) | map(.value) | add) - $t | fabs) < 1e-6 * $t' "$r/samples.jsonl"
		done
	fi
	check "$d: host-xfer.jsonl: one record per measured transfer, sane cores" \
		jq -e -s --argjson n "$(nproc)" --arg tcp "$([ "$CLOCK" = wall ] && echo 1 || echo 0)" '
			(map(.xfer) | sort) as $have |
			([64, 4096] | map(tostring) | map("fixed." + ., "match." + ., "traced." + .) +
			 (if $tcp == "1" then ([64, 4096] | map("tcp." + tostring)) else [] end)) as $want |
			($want - $have) == [] and
			all(.[]; (.host_s > 0) and (.busy_cores >= 0 and .busy_cores <= $n + 0.01) and
			    (.steal_pct >= 0 and .steal_pct <= 100) and .qemu_cores >= 0 and
			    .other_cores >= 0 and (.sender_cores | type) == "number" and (.backend_cores | type) == "number")' "$r/host-xfer.jsonl"
	# counts, so >= 0 (a short transfer may never make either side wait)
	check "$d: sleeps per MiB of the receiver$([ "$MODE" = h2g ] || echo ' and the sender') at both payloads" \
		jq -e -s --arg h2g "$([ "$MODE" = h2g ] && echo 1 || echo 0)" '
			([.[] | select(.metric == "rx_nvcsw_per_mib")] | length == 2 and all(.[]; .value >= 0)) and
			([.[] | select(.metric == "tx_nvcsw_per_mib")] | if $h2g == "1" then length == 0 else length == 2 and all(.[]; .value >= 0) end)' "$r/samples.jsonl"
	check "$d: samples of transfers name their transfer (xfer)" \
		jq -e -s 'all(.[] | select(.metric == "tput_fixed_gbps" or .metric == "tput_match_gbps"); (.xfer | test("^(fixed|match)\\.[0-9]+$")))' "$r/samples.jsonl"
	if [ "$CLOCK" = wall ]; then
		for p in 64 4096; do
			check "$d: TCP transfer $p: vb-recv over tcp, sample tput_tcp_gbps" \
				sh -c "grep -q '^{\"tool\":\"vb-recv\",\"format\":1,\"transport\":\"tcp\"' '$r/raw/tcp.$p.rx.out' &&
				       jq -e -s --argjson p $p 'any(.[]; .metric == \"tput_tcp_gbps\" and .payload == \$p and .value > 0)' '$r/samples.jsonl'"
		done
		check "$d: TCP ping-pong at 64 B" \
			jq -e -s 'any(.[]; .metric == "rtt_tcp_mean_us" and .payload == 64 and .value > 0)' "$r/samples.jsonl"
		check "$d: efficiency samples (Gbit/s per busy vCPU), if any, positive" \
			jq -e -s 'all(.[] | select(.metric | startswith("eff_")); .value > 0)' "$r/samples.jsonl"
	fi
	if [ "$MODE" = h2g ]; then
		check "$d: host sender's CPU time per transfer (bash time)" \
			grep -Eqx '[0-9.]+ [0-9.]+ [0-9.]+' "$r/raw/host.fixed.64.time"
	fi
	if [ "$MODE$CLOCK" = h2gwall ]; then
		check "$d: TCP from the host's vb-sender to the NIC's address" \
			grep -q '^{"tool":"vb-sender","format":1,"transport":"tcp"' "$r/raw/host.tcp.64.tx.out"
		check "$d: NIC interrupt pinned to vCPU 1" \
			grep -q '^virtio-net irq: [0-9]* (virtio[0-9]*) pinned to cpu 1$' "$r/env.txt"
		check "$d: TCP samples carry no RX-vCPU cost (that is the vsock path's)" \
			jq -e -s '[.[] | select(.xfer != null and (.xfer | startswith("tcp.")) and (.metric | test("rx_(cpu|vcpu)")))] | length == 0' "$r/samples.jsonl"
	fi
	check "$d: RTT samples at 64 B" \
		jq -e -s '[.[] | select(.payload == 64 and (.metric | test("^rtt_(mean|p50|p99)_us$")))] | length == 3' "$r/samples.jsonl"
	[ "$MODE" = h2g ] || continue
	check "$d: device interrupt pinned to vCPU 1" grep -q '^rx irq: [0-9]* (virtio[0-9]*) pinned to cpu 1$' "$r/env.txt"
	check "$d: host side: every step done, exit 0" \
		sh -c "grep -q '0 failure(s)' '$r/host.log' && grep -qx 0 '$r/host.exit'"
	for p in 64 4096; do
		for k in fixed match traced; do
			grep '^{' "$r/raw/host.$k.$p.tx.out" >"$tmp/tx.json" 2>/dev/null
			check "$d: host sender of $k.$p: one packet per write, all bytes" \
				jq -e -s --argjson p "$p" 'map(select(.tool == "vhost-user-vsock-send")) | length == 1 and .[0].pkt_size == $p and .[0].bytes > 0' "$tmp/tx.json"
		done
		check "$d: traced $p: all packets on vCPU 1, RX worker there" \
			jq -e '(.per_cpu | map(select(.cpu != 1)) | all(.counters.pkts == 0)) and
			       (.per_cpu | map(select(.cpu == 1)) | .[0].counters.worker_calls > 0 and .[0].counters.pkts > 0) and
			       (.hooks | any(. == "fentry+fexit/virtio_transport_rx_work"))' "$r/traced/$p.json"
	done
	case $d in
	*-baseline) want='. == 1' ;;
	*) want='. > 1' ;;
	esac
	check "$d: traced 64 B: mean batch $want" \
		jq -e "(.totals.batch_pkts / .totals.batches) | $want" "$r/traced/64.json"
done
if [ "$MODE" = h2g ]; then
	check "manifest: h2g mode, RX worker on vCPU 1" \
		jq -e '.experiment.mode == "h2g" and .experiment.rx_cpu == 1 and (.machine.transport | test("vhost-user"))' "$m"
	check "summary.json: RX-vCPU cost rows at 64 and 4096" \
		jq -e '[.comparisons[0].rows[] | select(.metric == "cost_per_byte_rx_cpu") | .payload] == [64, 4096]' "$out/summary.json"
	check "report.md: RX worker table names virtio_transport_rx_work" \
		grep -q 'calls (virtio_transport_rx_work)' "$out/report.md"
	check "report.md: the cover letter's Guest CPU1 table" \
		grep -qF "RX worker's vCPU (the cover letter's Guest CPU1 table)" "$out/report.md"
fi

if [ "$CLOCK" = wall ]; then
	check "untraced CPU cost sampled in at least one run at 64 B" \
		sh -c "cat '$out'/runs/*/samples.jsonl | jq -e -s 'any(.[]; .metric == \"stat_ns_per_byte\" and .payload == 64)'"
	check "summary.json: the tracer's wall-clock cost per state and payload" \
		jq -e '(.tracer_overhead | length) == 6 and all(.tracer_overhead[]; (.overhead_pct | type) == "number" and .n_runs == 1)' "$out/summary.json"
	check "report.md: the tracer's wall-clock cost table" \
		grep -qF "Wall-clock time per byte of the traced transfer" "$out/report.md"
else
	check "manifest and summary: clock icount" \
		jq -e '.experiment.clock == "icount"' "$m"
	check "summary.json: clock icount, insn rows at 64 and 4096 with an MDE key" \
		jq -e '.clock == "icount" and all(.comparisons[]; [.rows[] | select(.metric == "insn_per_byte") | .payload] == [64, 4096]) and
			all(.comparisons[].rows[]; has("mde_pct"))' "$out/summary.json"
	check "summary.json: tracer overhead measured per state and payload" \
		jq -e '(.tracer_overhead | length) == 6 and all(.tracer_overhead[]; (.overhead_pct | type) == "number" and .n_runs == 1)' "$out/summary.json"
	for h in "Clock: **icount**" "Guest instructions per received byte, all vCPUs" "The tracer's own cost (measured)" "MDE" "Idle share of guest time"; do
		check "report.md: '$h'" grep -qF "$h" "$out/report.md"
	done
fi

# summary.json
s=$out/summary.json
check "summary.json: format, version, three comparisons" \
	jq -e '.format == "vsockbatch-experiment-summary" and .version == 1 and ([.comparisons[].name] == ["baseline->patched","baseline->p1-3","p1-3->patched"])' "$s"
check "summary.json: method with seed, machine, states, rounds" \
	jq -e '(.method.bootstrap.seed | startswith("0x")) and (.method.ci | test("t-interval")) and (.machine.qemu | test("QEMU")) and (.states | length) == 3 and .rounds == 1' "$s"
# The tracer cannot see the runs of p1-3 (batching without the series'
# rx_batch event, and the tracer hooks no generic socket lock function),
# and write-space is only in that event: those traced rows are null where
# not measured, numbers where they are.  Write-space is per run: a payload
# whose traced transfer formed no run (every packet alone in the queue)
# has no row.
for mt in tput_fixed_gbps tput_match_gbps recv_calls_match cost_per_byte batch_pkts hold_mean_ns dr_per_pkt ws_per_pkt lookups_per_pkt tput_traced_gbps; do
	rows='[64, 4096]'
	case $mt in
	batch_pkts|hold_mean_ns|dr_per_pkt|lookups_per_pkt) need='(.name == "baseline->patched")' ;;
	ws_per_pkt) need='false' rows='(if (. - [64, 4096]) == [] and (unique | length) == length then . else null end)' ;;
	*) need='true' ;;
	esac
	check "summary.json: $mt rows for 64 and 4096 in every comparison, with all keys" \
		jq -e --arg m "$mt" "all(.comparisons[]; [.rows[] | select(.metric == \$m) | .payload] | . == ($rows)) and
			all(.comparisons[]; . as \$c | all(.rows[] | select(.metric == \$m);
			    has(\"baseline\") and has(\"patched\") and has(\"change_pct\") and has(\"ci_low_pct\") and
			    has(\"ci_high_pct\") and (.unit | length) > 0 and
			    (if (\$c | $need) then .n_pairs == 1 and (.baseline | type) == \"number\" else true end)))" "$s"
done
check "summary.json: RTT rows at 64 B only" \
	jq -e '[.comparisons[0].rows[] | select(.metric | test("^rtt_(mean|p50|p99)_us$")) | .payload] == [64, 64, 64]' "$s"
check "summary.json: cost unit says cpu-clock or cycles" \
	jq -e '.cost_unit == "cpu-clock-ns/byte" or .cost_unit == "cycles/byte"' "$s"
check "summary.json: per-CPU tracer table per state" \
	jq -e 'all(.per_cpu_traced[]; length >= 1)' "$s"

# report.md
md=$out/report.md
if [ "$CLOCK" = icount ]; then tput_h="RX rate in guest time, 64K recv"; else tput_h="End-to-end RX throughput, 64K recv"; fi
for h in "$tput_h" "Fixed-syscall stress test" \
	 "Request-response latency" "CPU cost per received byte" \
	 "P1-P3 contribution" "P4-P5 contribution" "Tracer view" \
	 "Where the RX worker ran" "t-interval on the per-pair log ratios" \
	 "seed 0x"; do
	check "report.md: '$h'" grep -qF "$h" "$md"
done
check "report.md: table rows for 64B and 4K" \
	sh -c "grep -q '^| 64B | ' '$md' && grep -q '^| 4K | ' '$md'"

# plots
plots_want="tput-fixed tput-match nsbyte change hist-batch hist-hold"
[ "$CLOCK" = icount ] && plots_want="$plots_want insn change-insn"
for p in $plots_want; do
	check "plots/$p.svg non-empty SVG" sh -c "test -s '$out/plots/$p.svg' && grep -q '<svg' '$out/plots/$p.svg'"
	check "plots/$p.png non-empty PNG" sh -c "test -s '$out/plots/$p.png' && head -c 8 '$out/plots/$p.png' | od -An -c | grep -q 'P   N   G'"
done

# host load and the exclusion rule
s_early=$out/summary.json
check "manifest: exclusion rule with its limits, transfer sizing, TCP flag" \
	jq -e '(.experiment.exclusion.rule | length) > 0 and (.experiment.exclusion | has("max_other_cores") and has("max_steal_pct")) and
		(.experiment.transfer_sizing | length) > 0 and (.experiment.tcp | type) == "boolean"' "$m"
if [ "$CLOCK" = wall ]; then
	xs=$(jq -r '.experiment.transfer_seconds // 0' "$m")
	check "manifest: untraced transfers time-bounded (transfer_seconds $xs > 0)" \
		jq -e '.experiment.transfer_seconds > 0 and (.experiment.transfer_sizing | test("time-bounded"))' "$m"
	# the host's clock frames each one (VB-XFER begin/end around the sender)
	check "every untraced transfer lasted >= $xs s on the host's clock" \
		sh -c "cat '$out'/runs/*/host-xfer.jsonl | jq -s -e --argjson t '$xs' \
			'map(select(.kind == \"fixed\" or .kind == \"match\" or .kind == \"tcp\")) | length > 0 and all(.[]; .host_s >= \$t)'"
fi
nrec=$(cat "$out"/runs/*/host-xfer.jsonl 2>/dev/null | wc -l)
check "summary.json: host_load lists every transfer record ($nrec), the rule, counts" \
	jq -e --argjson n "$nrec" '.host_load.transfers == $n and (.host_load.per_transfer | length) == $n and
		(.host_load.rule | length) > 0 and (.host_load.excluded | type) == "number" and .host_load.runs_without_host_record == 0' "$s_early"
check "report.md: host load section" grep -qF "Host load per transfer and the exclusion rule" "$out/report.md"
check "report.md: efficiency section" grep -qF "Efficiency beside throughput" "$out/report.md"
if [ "$CLOCK" = wall ]; then
	check "summary.json: vsock/TCP throughput ratio per state at 64 and 4096" \
		jq -e '[.vsock_vs_tcp[] | select(.ratio == "tput_vsock_over_tcp")] | length == 6 and all(.[]; .ratio_mean > 0)' "$s_early"
	check "summary.json: TCP rows in the comparisons (control)" \
		jq -e '[.comparisons[0].rows[] | select(.metric == "tput_tcp_gbps") | .payload] == [64, 4096]' "$s_early"
	check "report.md: vsock beside TCP, per state" \
		sh -c "grep -qF 'vsock beside TCP' '$out/report.md' && grep -q '^| 64B | .* | .* | [0-9.]* (n=1) |' '$out/report.md'"
fi
# The rule, applied by the summary alone: everything, nothing, and
# exactly what lies above a threshold.
rule_set() { # rule_set MAX_OTHER MAX_STEAL: excluded count of a copy of the set
	rm -rf "$tmp/rule"
	cp -r "$out" "$tmp/rule"
	jq --argjson o "$1" --argjson st "$2" '.experiment.exclusion.max_other_cores = $o | .experiment.exclusion.max_steal_pct = $st' \
		"$out/manifest.json" >"$tmp/rule/manifest.json"
	"$LAB" summarize --allow-missing "$tmp/rule" >/dev/null 2>&1 || { echo fail; return; }
	jq '.host_load.excluded' "$tmp/rule/summary.json"
}
nmeas=$(cat "$out"/runs/*/host-xfer.jsonl | jq -s '[.[] | select(.kind != "warmup")] | length')
[ "$(rule_set -1 null)" = "$nmeas" ] && grep -qF "Excluded transfers:" "$tmp/rule/report.md" &&
	jq -e '.host_load.dropped_samples > 0 and ([.comparisons[0].rows[] | select(.metric == "tput_fixed_gbps")] | all(.n_pairs == 0))' "$tmp/rule/summary.json" >/dev/null &&
	ok "exclusion rule 'other > -1 core': all $nmeas measured transfers excluded, their samples dropped, listed" ||
	bad "exclusion rule 'other > -1 core' did not exclude all $nmeas transfers"
[ "$(rule_set 1000 null)" = 0 ] && ok "exclusion rule 'other > 1000 cores': none excluded" ||
	bad "exclusion rule 'other > 1000 cores' excluded some"
thr=$(cat "$out"/runs/*/host-xfer.jsonl | jq -s '[.[] | select(.kind != "warmup") | .other_cores] | sort | .[length / 2 | floor]')
want=$(cat "$out"/runs/*/host-xfer.jsonl | jq -s --argjson t "$thr" '[.[] | select(.kind != "warmup" and .other_cores > $t)] | length')
[ "$(rule_set "$thr" null)" = "$want" ] && ok "exclusion rule 'other > median ($thr)': exactly the $want above it" ||
	bad "exclusion rule 'other > $thr' did not exclude exactly $want"
wants=$(cat "$out"/runs/*/host-xfer.jsonl | jq -s '[.[] | select(.kind != "warmup" and .steal_pct > 0)] | length')
[ "$(rule_set null 0)" = "$wants" ] && ok "exclusion rule 'steal > 0 %': exactly the $wants with steal" ||
	bad "exclusion rule 'steal > 0 %' did not exclude exactly $wants"

# the summarizer refuses a broken set
cp -r "$out" "$tmp/broken"
jq '.runs[0].round = 7' "$out/manifest.json" >"$tmp/broken/manifest.json"
"$LAB" summarize "$tmp/broken" >/dev/null 2>"$tmp/broken.err"
rc=$?
[ $rc -eq 2 ] && [ "$(wc -l <"$tmp/broken.err")" -eq 1 ] &&
	ok "summarize refuses an incomplete round plan (exit 2, one line)" ||
	bad "summarize on a broken plan: exit $rc: $(cat "$tmp/broken.err")"

if [ $fails -ne 0 ]; then
	echo "experiment-quick: $fails failure(s); set kept in $out"
	exit 1
fi
if [ "${VB_KEEP:-0}" = 1 ] || [ -n "${VB_EXPQ_SET:-}" ]; then
	echo "set kept in $out"
	rm -rf "$tmp/broken"
else
	rm -rf "$tmp"
fi
echo "experiment-quick: OK"
exit 0
