#!/bin/bash
# experiment.sh: the AB/BA experiment of the RX batching series (`make
# experiment`), shaped like the cover letter's methodology, scaled for
# QEMU TCG on a small shared machine.
#
#   scripts/experiment.sh [--quick] [--mode loopback|h2g] [--pairs N]
#                         [--payloads LIST] [--label NAME] [--out DIR]
#                         [--scale N] [--cap SIZE] [--rtt-count N] [--no-trace]
#                         [--trace-rounds N] [--trace-mode full|light]
#                         [--reader blocking|epoll-et] [--vcpus 1|2]
#                         [--socket stream|seqpacket] [--flows 1|2|4]
#                         [--clock wall|icount] [--seconds T] [--no-tcp]
#                         [--max-other CORES] [--max-steal PCT]
#                         [--icount-sleep on|off] [--aslr on|off]
#                         [--sched-features LIST] [--guest-write LIST]
#                         [--profile] [--series X.Y]
#   scripts/experiment.sh --resummarize DIR
#
# Three kernel states (baseline, p1-3, patched; scripts/kernel-build.sh).
# --series X.Y: the states of that series (kernel variants baseline-X.Y,
# p1-3-X.Y, patched-X.Y; kernel-patches/vX.Y on the base pinned in
# scripts/config/kernel-sources); default the lab's default series.  The
# states keep their names, each carries its variant and exact base.
# N rounds; each round boots one fresh guest per state (2 vCPUs) and runs
# tests/guest/experiment-run.sh there; round i runs baseline, p1-3,
# patched, round i+1 the reverse, so every comparison gets N pairs with
# AB and BA alternating.  Per run: throughput with a fixed 64 KiB recv()
# and with recv() size = write size, recv() counts, ping-pong RTT at 64 B,
# 256 B and 4 KiB, and one traced transfer per payload (vsockbatch record).
# Transfer size = payload * SCALE, at most CAP (the cover letter used
# payload * 1 MiB capped at 2 GiB; TCG is ~100x slower).
#
# --mode loopback (default): sender and receiver in the guest, over vsock
# loopback (CID 1): the batched code runs in vsock_loopback_work().
# --mode h2g: the cover letter's path.  The guest gets the lab's
# vhost-user-vsock device (guest-run.sh -U, CID 3); the host sends
# (scripts/h2g-host.sh: `vhost-user-vsock send`, one packet per write)
# and runs the ping-pong client; the guest only receives, vb-recv on
# vCPU 0 and the device interrupt - hence virtio_transport_rx_work() -
# pinned to vCPU 1.  RTTs are timed on the host.  Default label "h2g".
#
# Default (wall clock): 16 pairs as in the cover letter, payloads 64 256
# 512 1K 4K 8K 16K 64K, untraced transfers (fixed, matched, TCP) of
# --seconds 2 each, 300 round trips per RTT size: 48 guest runs, traced
# transfers in the first --trace-rounds 4 rounds.
# Wall-clock transfers are time-bounded, as iperf's and netperf's are:
# the sender (vb-sender --seconds; h2g: `vhost-user-vsock send
# --seconds`) writes whole writes until T has passed, so every transfer
# lasts T on every kernel and on a busy host.  Until 2026-12-01 they were
# sized in bytes from a table of quiet-host rates, which could not keep
# them >= T: in results/2026-12-01-loopback-wall 6.6 % ran 1.58-2.0 s (its
# 16 pairs' fastest transfers beat the table's rates by up to 19 %), in
# results/2026-12-01-h2g-wall all ran 1.7-1.9 s, and the slower kernels'
# transfers ran up to 1.8x longer than needed.  Warm-up and traced
# transfers keep payload * SCALE (65536), at most CAP (64M), and icount
# keeps SCALE/CAP for all (it counts fixed work).
# --trace-mode light: the traced transfers under `vsockbatch record -m
# light` instead of full mode (full: window times, data-ready latency,
# the credit samples advise reads).  On the series' kernels light runs no
# tracer code inside the run's socket lock, as full mode does for the
# packets that join a run; it still times the reader's lock waits.
# --reader epoll-et: the guest's receiver reads as an edge-triggered event
# loop (vb-recv --epoll-et: non-blocking, EPOLLET, drained to EAGAIN, a
# lost wake-up fails the run) instead of in blocking recv().
# --socket seqpacket (loopback only): the transfers over SOCK_SEQPACKET
# (vb-sender/vb-recv --seqpacket: each write one message, each recv() one
# message, the 64 KiB receiver or recv() size = write size), which the
# series leaves unbatched; no TCP column and no ping-pong (both are stream
# workloads).  The lab's host back-end carries STREAM only.
# --flows N (h2g only; 1, 2 or 4): the fixed, matched and traced
# transfers as N parallel flows from the host (N senders started at once,
# N receivers on vCPU 0), so the RX queue interleaves N flows and a run
# of one flow ends where another's packet comes; throughput is the sum of
# the flows' rates.
# --vcpus 1: a one-vCPU guest, receiver and RX worker (and, on loopback,
# the sender) on vCPU 0; the default 2 keeps the RX worker on vCPU 1.
# --trace-rounds N: the traced transfers only in the first N rounds
# (default 4 with the wall clock: 4 AB/BA pairs; every round with icount
# and --quick; 0 = --no-trace).  They come after the untraced
# transfers of a run, so leaving them out changes nothing the untraced
# tables measure; the tracer's figures are counts per packet and its
# cost a same-boot ratio, which 4 pairs resolve.  Tracing every round
# took 16-23 s of each 75-99 s loopback run
# (results/2026-12-01-loopback-wall).
# Time budget (quiet host, measured with these defaults): loopback
# 47:56 min (results/2026-12-01-loopback-wall-timed: 48 runs of ~54 s,
# ~76 s in the traced rounds), h2g 48:55 min with the TCP column
# (results/2026-12-01-h2g-wall-tcp: ~55 s, ~78 s traced; 34:19 min
# without it, results/2026-12-01-h2g-wall-timed); with byte-sized
# transfers and every round traced they took 68:52 and 44 min.
# Under a load average of 8-9 a run of the old 8-pair design took up to
# 157 s and its results drowned in noise (results/2026-11-30-default).
# --clock icount keeps 8 pairs and SCALE/CAP sizing (its cross-boot
# spread is ~1 %).
# --seconds T: the untraced transfers' duration (wall clock only).
# --no-tcp: leave out the TCP transfers and ping-pongs (wall clock; icount
# has none).  Loopback: TCP on 127.0.0.1 in the same guest.  h2g: from the
# host over the guest's virtio-net NIC, a tap device in a private network
# namespace (scripts/guest-run.sh -N: QEMU's virtio-net, host kernel TCP;
# nothing of it touches the machine's own network), the NIC's interrupt
# pinned to vCPU 1 like the vsock device's.
# --aslr off: the guests' user address-space randomisation off
# (kernel.randomize_va_space = 0).  Over loopback at 1 KiB it carries most
# of the per-boot spread of the instruction count: the boot's draw sets
# how often the worker preempts the sender (results/
# 2026-12-01-icount-boot-state).  Default on, as a user's guest has it.
# --sched-features LIST: scheduler features for every guest boot (/init,
# VB_SCHED_FEATURES; NAME or NO_NAME, e.g. NO_PLACE_LAG), recorded in
# env.txt and the manifest.  Default: the kernel's own, as a user's guest
# has them.  For the question which part of the scheduler carries the
# loopback count's per-boot state (results/2026-12-02-icount-sched).
# Host load per transfer: the guest frames each transfer with VB-XFER
# lines on its console; scripts/xfer-watch.sh (host) samples /proc/stat,
# QEMU's and the back-end's CPU at both ends, h2g-host.sh times the host
# sender: runs/*/host-xfer.jsonl (host s, guest s, host busy cores, steal
# %, QEMU, back-end and sender cores, other cores).
# --max-other CORES, --max-steal PCT: the exclusion rule, fixed before the
# runs and written into the manifest (experiment.exclusion): a transfer
# during which the rest of the host kept more than CORES cores busy
# (default 0.5 of the 2) or steal exceeded PCT % (default 5) is excluded,
# all its samples with it, by the summary (counted and listed in
# report.md; its pairs become incomplete and are dropped).  'off'
# disables a limit; --quick and loopback icount record the rule without
# applying it by default; host->guest icount applies it (the host's load
# moves that count, see below).
# --clock wall (default): TCG at full speed, timed by the guest's clock,
# which follows the host's: throughput and RTT as the cover letter
# measures them, and as noisy as the host is busy.
# --clock icount: QEMU's instruction counting (-icount shift=0,sleep=off,
# guest-run.sh -C icount) with the lab's vb-insns plugin: the cost
# metric is guest instructions per received byte (insn_* samples: all
# vCPUs, kernel only, per vCPU; untraced, matched recv() and traced),
# exact per vCPU; over loopback independent of the host's load,
# host->guest not (how fast QEMU runs against the back-end sets the
# packets per interrupt: the exclusion rule applies).  icount runs all
# vCPUs in one host thread, one after the other: it measures work, not
# parallel throughput; its "Gbit/s" are guest time, i.e. instructions.
# --guest-write "PATH=VALUE ...": kernel tunables under /sys or
# /proc/sys for every guest boot (/init, VB_GUEST_WRITES), set before the
# test and read back; env.txt and the manifest record them.  Default:
# none, as a user's guest has it.  For control experiments such as
# results/2026-12-02-h2g-icount-64-slab-keep (the page allocator's state).
# --profile (icount only): the vb-insns plugin also writes the kernel's
# instructions per translation block at every mark (guest-run.sh
# VB_INSNS_PROFILE=1), kept as runs/*/profile.tsv.gz (the transfers'
# windows' rows only):
# scripts/insns-profile.sh names the functions of a transfer's window
# and compares runs.  The counts are the same with and without it (one
# counter; host->guest 64 B: 35.8 / 33.4 instructions per byte, baseline
# / patched, with it and without, results/2026-12-02-h2g-icount-64-profile
# and -64-long), and so was the time (18:32 against 19:32 min).
# --icount-sleep on|off (icount only; default on with --mode h2g, off
# over loopback): -icount sleep=on, so an idle guest's
# clock follows the host's instead of warping to its next timer: with
# sleep=off a guest that waits for the host (h2g) runs its timers back
# to back over every warp and counts them as work (even with NO_HZ_IDLE:
# results/2026-12-01-h2g-icount, transfers idle ~100 % of guest time
# counted up to 85 % more per byte than busy ones).
# --quick: payloads 64 and 4K, tiny
# transfers (wall: --seconds 0.1, ~1 MiB at 64 B even on a busy host;
# icount: 64 B -> 512 KiB, 4 KiB -> 2 MiB: just above
# the 256 KiB socket buffer), one pair, RTT at 64 B only: 91 s measured
# before the TCP transfers, a few minutes on a busy host (make check /
# make lab).
#
# Output: results/<UTC date>-<label>/ (or --out DIR): manifest.json, one
# directory per run (runs/rNN-STATE: console.log, samples.jsonl, raw/,
# traced/, env.txt, host-xfer.{tsv,jsonl}) - packed at the end, with the
# set's other raw files, into raw.tar.xz (scripts/results-raw.sh; unpack
# to read them) -, summary.json, report.md
# (with vsock beside TCP, efficiency, host load and exclusions),
# summary.txt (the headline
# table), plots/*.{dat,svg,png}, host-load.txt (the host's load average
# every 10 s while the runs went on; each run's load at start and end is
# in the manifest too: TCG timings are only as good as the host is quiet).  Progress (run k of R, elapsed, ETA) on
# stderr.  Exit: 0 all runs and the summary fine; 1 a run or the summary
# failed (everything that was measured is kept); 2 bad usage.
set -uo pipefail
. "$(dirname "$0")/lib.sh"

usage() { # usage [STATUS]: the header comment; 2 (to stderr) unless told
	if [ "${1:-2}" = 0 ]; then
		sed -n '2,/^set -uo/p' "$0" | sed '$d; s/^# \{0,1\}//'
		exit 0
	fi
	sed -n '2,/^set -uo/p' "$0" | sed '$d; s/^# \{0,1\}//' >&2
	exit 2
}

STATES=(baseline p1-3 patched)
QUICK=0 PAIRS= PAYLOADS= LABEL= OUT= SCALE= CAP= RTT_COUNT= TRACE=1 MODE=loopback
TRACE_ROUNDS= TRACE_MODE=full READER=blocking VCPUS=2 SOCKET=stream FLOWS=1
CLOCK=wall XSECS= TCP=1 MAX_OTHER= MAX_STEAL= ISLEEP= ASLR=on SCHEDF= GWRITES=
PROFILE=0 RESUM= SERIES=
while [ $# -gt 0 ]; do
	case $1 in
	--quick) QUICK=1 ;;
	--mode) MODE=${2-}; shift ;;
	--pairs) PAIRS=${2-}; shift ;;
	--payloads) PAYLOADS=${2-}; shift ;;
	--label) LABEL=${2-}; shift ;;
	--out) OUT=${2-}; shift ;;
	--scale) SCALE=${2-}; shift ;;
	--cap) CAP=${2-}; shift ;;
	--rtt-count) RTT_COUNT=${2-}; shift ;;
	--no-trace) TRACE=0 ;;
	--trace-rounds) TRACE_ROUNDS=${2-}; shift ;;
	--trace-mode) TRACE_MODE=${2-}; shift ;;
	--reader) READER=${2-}; shift ;;
	--vcpus) VCPUS=${2-}; shift ;;
	--socket) SOCKET=${2-}; shift ;;
	--flows) FLOWS=${2-}; shift ;;
	--clock) CLOCK=${2-}; shift ;;
	--seconds) XSECS=${2-}; shift ;;
	--no-tcp) TCP=0 ;;
	--max-other) MAX_OTHER=${2-}; shift ;;
	--max-steal) MAX_STEAL=${2-}; shift ;;
	--icount-sleep) ISLEEP=${2-}; shift ;;
	--aslr) ASLR=${2-}; shift ;;
	--sched-features) SCHEDF=${2-}; shift ;;
	--profile) PROFILE=1 ;;
	--guest-write) GWRITES=${2-}; shift ;;
	--resummarize) RESUM=${2-}; shift ;;
	--series) SERIES=${2-}; shift ;;
	-h|--help) usage 0 ;;
	*) echo "${0##*/}: unknown argument '$1'" >&2; usage ;;
	esac
	shift
done

# to_bytes SIZE: 64, 4K, 1M -> bytes; empty on a bad size
to_bytes() {
	case $1 in
	*[!0-9KMG]*|''|[KMG]*) return ;;
	*K) echo $((${1%K} * 1024)) ;;
	*M) echo $((${1%M} * 1048576)) ;;
	*G) echo $((${1%G} * 1073741824)) ;;
	*) echo "$1" ;;
	esac
}

# The statistics are the lab's (tools/lab/), not the tracer's.
LAB=$VB_ROOT/build/vsockbatch-lab
command -v jq >/dev/null || die "jq missing (run make deps)"
command -v gnuplot >/dev/null || die "gnuplot missing (run make deps)"
[ -x "$LAB" ] || die "$LAB missing (run make)"

# ---------------------------------------------------------------- plots
# has_data FILE: 1 when FILE has a row with a number beyond its x column
# (a set without traced runs has nsbyte.dat rows of NaN only, and gnuplot
# refuses to plot nothing), else 0
has_data() {
	[ -f "$1" ] && awk '!/^#/ { for (i = 2; i <= NF; i++) if ($i != "NaN") f = 1 } END { exit !f }' "$1" &&
		echo 1 || echo 0
}
plots() { # plots DIR
	local d=$1/plots n i cols rows layout xt np ref clk
	[ -f "$d/tput-fixed.dat" ] || return 1
	n=$(jq '.payloads | length' "$1/manifest.json")
	np=$(jq '.pairs' "$1/manifest.json")
	clk=$(jq -r '.experiment.clock // "wall"' "$1/manifest.json")
	# One labelled tick per payload ("64", "4K"): log2 auto-ticks with
	# "%.0b%B" labels were unreadable.
	xt=$(jq -r '[.payloads[] | "\"\(if . >= 1024 then "\(. / 1024 | floor)K" else tostring end)\" \(.)"] | join(", ")' "$1/manifest.json")
	# The cover letter's values (results/reference/cover-letter.json),
	# drawn over ours: payload change lo hi.
	ref=$VB_ROOT/results/reference/cover-letter.json
	for m in tput_fixed_gbps cycles_per_byte_cpu1; do
		jq -r --arg m "$m" '.comparisons["baseline->patched"][$m][] | "\(.payload) \(.change_pct) \(.ci_low_pct) \(.ci_high_pct)"' \
			"$ref" >"$d/cover-letter-$m.dat" 2>/dev/null || : >"$d/cover-letter-$m.dat"
	done
	cols=$(( n < 4 ? n : 4 ))
	rows=$(( (n + cols - 1) / cols ))
	layout="$rows,$cols"
	for term in "svg size 900,600 dynamic font 'Sans,11'" \
		    "pngcairo size 900,600 font 'Sans,10'"; do
		ext=svg
		[[ "$term" == png* ]] && ext=png
		gnuplot 2>>"$d/gnuplot.log" <<GP || return 1
set terminal $term
set datafile missing "NaN"
set key top left
set grid
set logscale x 2
set xlabel "payload (bytes per send())"
set xtics ($xt)
set xtics font ",9"
st1="${STATES[0]}"; st2="${STATES[1]}"; st3="${STATES[2]}"

set output "$d/tput-fixed.$ext"
set logscale y
set ylabel "RX throughput (Gbit/s$( [ "$clk" = icount ] && echo ', guest time' ))"
set title "RX throughput, 64 KiB recv(), untraced, $clk clock: mean, 95% t-interval and each run (n=$np per state)"
plot for [i=0:2] "$d/tput-fixed.dat" using (\$1*(1+0.06*(i-1))):(column(2+3*i)):(column(3+3*i)):(column(4+3*i)) with yerrorlines title word(st1." ".st2." ".st3, i+1), \
     for [i=0:2] "$d/runs-tput-fixed.dat" using (\$2 == i ? \$1*(1+0.06*(i-1)) : NaN):4 with points pt 1 ps 0.6 lc i+1 notitle

set output "$d/tput-match.$ext"
set title "RX throughput, recv() size = write size: mean and 95% t-interval"
plot for [i=0:2] "$d/tput-match.dat" using (\$1*(1+0.06*(i-1))):(column(2+3*i)):(column(3+3*i)):(column(4+3*i)) with yerrorlines title word(st1." ".st2." ".st3, i+1)

if ($(has_data "$d/nsbyte.dat")) {
	set output "$d/nsbyte.$ext"
	set ylabel "CPU cost per byte (cpu-clock ns/byte, traced run)"
	set title "CPU cost per received byte (no PMU under TCG: cpu-clock ns)"
	plot for [i=0:2] "$d/nsbyte.dat" using (\$1*(1+0.06*(i-1))):(column(2+3*i)):(column(3+3*i)):(column(4+3*i)) with yerrorlines title word(st1." ".st2." ".st3, i+1)
}

if ($(has_data "$d/nsbyte-rx.dat")) {
	set output "$d/nsbyte-rx.$ext"
	set ylabel "CPU cost per byte, RX worker vCPU (cpu-clock ns/byte)"
	set title "CPU cost per received byte on the RX worker's vCPU (cover letter: Guest CPU1)"
	plot for [i=0:2] "$d/nsbyte-rx.dat" using (\$1*(1+0.06*(i-1))):(column(2+3*i)):(column(3+3*i)):(column(4+3*i)) with yerrorlines title word(st1." ".st2." ".st3, i+1)
}

if ($([ -f "$d/insn.dat" ] && echo 1 || echo 0)) {
	set output "$d/insn.$ext"
	set ylabel "guest instructions per received byte"
	set title "Instructions per received byte, all vCPUs, untraced (icount): mean, 95% CI and each run (n=$np)"
	plot for [i=0:2] "$d/insn.dat" using (\$1*(1+0.06*(i-1))):(column(2+3*i)):(column(3+3*i)):(column(4+3*i)) with yerrorlines title word(st1." ".st2." ".st3, i+1), \
	     for [i=0:2] "$d/runs-insn.dat" using (\$2 == i ? \$1*(1+0.06*(i-1)) : NaN):4 with points pt 1 ps 0.6 lc i+1 notitle
}
if ($([ -f "$d/insn-rx.dat" ] && echo 1 || echo 0)) {
	set output "$d/insn-rx.$ext"
	set ylabel "guest instructions per received byte, RX vCPU"
	set title "Instructions per received byte on the RX worker's vCPU (cover letter: Guest CPU1), icount, n=$np"
	plot for [i=0:2] "$d/insn-rx.dat" using (\$1*(1+0.06*(i-1))):(column(2+3*i)):(column(3+3*i)):(column(4+3*i)) with yerrorlines title word(st1." ".st2." ".st3, i+1)
}

set output "$d/change.$ext"
unset logscale y
set ylabel "throughput change (%)"
set title "Paired change of 64 KiB-recv() throughput, untraced, $clk clock, 95% CI, n=$np pairs; x: the cover letter's baseline->patched"
plot 0 notitle lc rgb "gray", \
     for [i=0:2] "$d/change.dat" using (\$1*(1+0.06*(i-1))):(column(2+3*i)):(column(3+3*i)):(column(4+3*i)) with yerrorlines title word("baseline->patched baseline->p1-3 p1-3->patched", i+1), \
     "$d/cover-letter-tput_fixed_gbps.dat" using (\$1*1.1):2:3:4 with yerrorbars pt 2 ps 1.2 lc rgb "black" title "cover letter, baseline->patched"

if ($([ -f "$d/change-insn.dat" ] && echo 1 || echo 0)) {
	set output "$d/change-insn.$ext"
	set ylabel "instructions per byte change (%)"
	set title "Paired change of instructions per byte ($( [ -f "$d/insn-rx.dat" ] && echo 'RX vCPU' || echo 'all vCPUs'), icount), 95% CI, n=$np; x: the cover letter's cycles/byte on CPU1"
	plot 0 notitle lc rgb "gray", \
	     for [i=0:2] "$d/change-insn.dat" using (\$1*(1+0.06*(i-1))):(column(2+3*i)):(column(3+3*i)):(column(4+3*i)) with yerrorlines title word("baseline->patched baseline->p1-3 p1-3->patched", i+1), \
	     "$d/cover-letter-cycles_per_byte_cpu1.dat" using (\$1*1.1):2:3:4 with yerrorbars pt 2 ps 1.2 lc rgb "black" title "cover letter, baseline->patched"
}
GP
		for h in batch hold; do
			gnuplot 2>>"$d/gnuplot.log" <<GP || return 1
set terminal $term
set output "$d/hist-$h.$ext"
set datafile missing "NaN"
set style fill solid 0.6 border -1
set grid y
set yrange [0:1]
set xtics rotate by -45 font ",8"
payloads = "$(jq -r '.payloads | map(tostring) | join(" ")' "$1/manifest.json")"
set multiplot layout $layout title "$( [ $h = batch ] && echo 'Packets per batch (lock window)' || echo 'Lock hold time per batch (ns)'), share of batches, traced runs"
set key top right font ",8" samplen 1
do for [p=0:$((n - 1))] {
	if (p > 0) { unset key }
	set title sprintf("payload %s B", word(payloads, p+1))
	plot "$d/hist-$h.dat" index p using (\$1-0.27):4:(0.27):xticlabels(gprintf("%.0b%B", \$2)) with boxes title "${STATES[0]}", \
	     "" index p using (\$1):5:(0.27) with boxes title "${STATES[1]}", \
	     "" index p using (\$1+0.27):6:(0.27) with boxes title "${STATES[2]}"
}
unset multiplot
GP
		done
	done
	return 0
}

summarize() { # summarize DIR: statistics, report, plots, headline
	local dir=$1 rc=0
	"$LAB" summarize --allow-missing "$dir" >"$dir/summary.txt" 2>"$dir/summarize.err" || {
		echo "${0##*/}: summarize failed: $(cat "$dir/summarize.err")" >&2
		return 1
	}
	if [ -s "$dir/summarize.err" ]; then cat "$dir/summarize.err" >&2; else rm -f "$dir/summarize.err"; fi
	plots "$dir" || { echo "${0##*/}: gnuplot failed: $(tail -n 3 "$dir/plots/gnuplot.log")" >&2; rc=1; }
	cat "$dir/summary.txt"
	return $rc
}

# profile_keep RUN_DIR: the block profile's rows of the transfers' windows
# (marks.tsv: mark id to id + 1), gzipped as profile.tsv.gz: what ran
# between transfers (program start-up, the shell, the tail of the run) is
# three quarters of the rows and no transfer's
# (--resummarize applies it to a run's profile.tsv.gz again: idempotent)
profile_keep() {
	local d=$1 src
	src=$d/profile.tsv
	[ -f "$src" ] || { src=$d/profile.tsv.gz.in; mv "$d/profile.tsv.gz" "$src" || return 1; }
	{ if [ "$src" = "$d/profile.tsv" ]; then cat "$src"; else gzip -dc "$src"; fi; } |
	awk -F'\t' 'FILENAME ~ /marks.tsv$/ { split($0, f, " "); end[f[1] + 1] = 1; next }
		FILENAME ~ /insns.tsv$/ { if (!/^#/ && ($2 in end)) keep[$1] = 1; next }
		/^#/ || ($1 in keep)' "$d/marks.tsv" "$d/insns.tsv" - |
		gzip -9 >"$d/profile.tsv.gz" && rm -f "$src"
}

# icount_samples RUN_DIR: the run's insn_* samples, made again from its
# raw files (insns.tsv, marks.tsv, raw/*.rx.out) by scripts/insns-samples.sh:
# the guest's own samples stay, earlier derived ones are replaced, so a
# set re-summarized after insns-samples.sh changed gets the new metrics.
icount_samples() {
	local d=$1 tmp
	[ -f "$d/marks.tsv" ] && [ -f "$d/samples.jsonl" ] || return 0
	tmp=$(mktemp) || return 1
	grep -v -e '"metric":"insn_' -e '"metric":"icount_' "$d/samples.jsonl" >"$tmp"
	if "$VB_ROOT/scripts/insns-samples.sh" "$d" >>"$tmp"; then
		mv "$tmp" "$d/samples.jsonl"
	else
		rm -f "$tmp"
		return 1
	fi
}

# resummarize DIR: the derived samples made again, then the summary
resummarize() {
	local d
	if [ "$(jq -r '.experiment.clock // "wall"' "$1/manifest.json")" = icount ]; then
		for d in $(jq -r '.runs[] | select(.status == 0) | .dir' "$1/manifest.json"); do
			icount_samples "$1/$d" || echo "${0##*/}: $1/$d: instruction samples failed" >&2
			[ ! -f "$1/$d/profile.tsv.gz" ] || profile_keep "$1/$d" ||
				echo "${0##*/}: $1/$d: block profile failed" >&2
		done
	fi
	summarize "$1"
}

if [ -n "$RESUM" ]; then
	[ -f "$RESUM/manifest.json" ] || { echo "${0##*/}: $RESUM/manifest.json not found" >&2; exit 2; }
	# a packed set's runs back on disk, packed again after
	raw_inplace "$RESUM" resummarize "$RESUM"
	exit $?
fi

# ------------------------------------------------------------- settings
# an unpinned series, or one without kernel-patches/vX.Y: variant_spec's
# one-line reason
if [ -n "$SERIES" ]; then
	variant_spec "patched-$SERIES" || exit 2
fi
case $MODE in
loopback) lsuf= ;;
h2g) lsuf=-h2g
	[ -x "$VB_ROOT/build/vhost-user-vsock" ] || die "build/vhost-user-vsock missing (run make)" ;;
*) echo "${0##*/}: --mode must be loopback or h2g, not '$MODE'" >&2; exit 2 ;;
esac
case $CLOCK in
wall) csuf= ;;
icount) csuf=-icount
	[ -f "$VB_ROOT/build/host/vb-insns.so" ] || die "build/host/vb-insns.so missing (run make)" ;;
*) echo "${0##*/}: --clock must be wall or icount, not '$CLOCK'" >&2; exit 2 ;;
esac
# default: on for host->guest under icount (the guest waits for the
# host), off otherwise
[ -n "$ISLEEP" ] || { [ "$MODE" = h2g ] && [ "$CLOCK" = icount ] && ISLEEP=on || ISLEEP=off; }
case $ISLEEP in
on|off) ;;
*) echo "${0##*/}: --icount-sleep must be on or off, not '$ISLEEP'" >&2; exit 2 ;;
esac
[ "$ISLEEP" = off ] || [ "$CLOCK" = icount ] ||
	{ echo "${0##*/}: --icount-sleep needs --clock icount" >&2; exit 2; }
export VB_ICOUNT_SLEEP=$ISLEEP
if [ "$QUICK" = 1 ]; then
	: "${PAIRS:=1}" "${PAYLOADS:=64 4K}" "${SCALE:=8192}" "${CAP:=2M}"
	: "${RTT_COUNT:=50}" "${LABEL:=quick$lsuf$csuf}"
	RTT_WANT="64" PP_WARMUP=5 RUN_TIMEOUT=300
	# a functional check on whatever host runs it: the rule is recorded,
	# not applied (tests/experiment-quick.sh applies one to a copy)
	: "${MAX_OTHER:=off}" "${MAX_STEAL:=off}"
	[ "$CLOCK" = wall ] && : "${XSECS:=0.1}"
else
	# icount: 8 pairs (its cross-boot spread is ~1 %); wall: the cover
	# letter's 16
	if [ "$CLOCK" = wall ]; then : "${PAIRS:=16}" "${XSECS:=2}"; else : "${PAIRS:=8}"; fi
	: "${PAYLOADS:=64 256 512 1K 4K 8K 16K 64K}"
	: "${SCALE:=65536}" "${CAP:=64M}" "${RTT_COUNT:=300}"
	if [ "$MODE" = h2g ]; then : "${LABEL:=h2g$csuf}"; else : "${LABEL:=default$csuf}"; fi
	RTT_WANT="64 256 4096" PP_WARMUP=30 RUN_TIMEOUT=1200
fi
# The exclusion rule, fixed here before any run and written into the
# manifest: a wall-clock transfer during which the rest of the host (not
# QEMU, not the back-end, not the host sender) kept more than MAX_OTHER
# cores busy, or the hypervisor stole more than MAX_STEAL % of the host's
# time, measured the host, not the kernel.  An icount count over loopback
# is the guest's alone (nothing on its path runs outside QEMU's TCG
# thread): no rule by default.  Host->guest it is not: the host sender and
# the back-end run beside QEMU, and how fast QEMU's TCG thread runs
# against them sets how many packets each RX interrupt finds.  In
# results/2026-12-01-h2g-icount-sleep-8p the rounds a second guest shared
# the host (QEMU 0.63 of a core, not 0.95) counted 2-4 % fewer
# instructions per byte on all three kernels: the rule applies there.
if [ "$CLOCK" = icount ] && [ "$MODE" != h2g ]; then : "${MAX_OTHER:=off}" "${MAX_STEAL:=off}"; fi
: "${MAX_OTHER:=0.5}" "${MAX_STEAL:=5}"
for v in "$MAX_OTHER" "$MAX_STEAL"; do
	[ "$v" = off ] || [[ "$v" =~ ^[0-9]+(\.[0-9]+)?$ ]] ||
		{ echo "${0##*/}: --max-other/--max-steal need a number or 'off', not '$v'" >&2; exit 2; }
done
if [ -n "$XSECS" ]; then
	[ "$CLOCK" = wall ] ||
		{ echo "${0##*/}: --seconds sizes wall-clock transfers; icount ones are sized by --scale/--cap" >&2; exit 2; }
	[[ "$XSECS" =~ ^[0-9]*\.?[0-9]+$ ]] && awk -v t="$XSECS" 'BEGIN { exit !(t > 0 && t <= 600) }' ||
		{ echo "${0##*/}: --seconds needs a duration in (0, 600], not '$XSECS'" >&2; exit 2; }
fi
[ "$CLOCK" = icount ] && TCP=0
[ "$PROFILE" = 0 ] || [ "$CLOCK" = icount ] ||
	{ echo "${0##*/}: --profile needs --clock icount" >&2; exit 2; }
export VB_INSNS_PROFILE=$PROFILE
case $ASLR in on|off) ;; *) echo "${0##*/}: --aslr must be on or off, not '$ASLR'" >&2; exit 2 ;; esac
for w in $GWRITES; do
	[[ "$w" =~ ^/(sys|proc/sys)/[A-Za-z0-9_./:-]+=[A-Za-z0-9_.:-]+$ && "$w" != *..* ]] ||
		{ echo "${0##*/}: --guest-write: '$w' is not /sys/...=VALUE or /proc/sys/...=VALUE" >&2; exit 2; }
done
for f in $SCHEDF; do
	[[ "$f" =~ ^(NO_)?[A-Z][A-Z_]*$ ]] ||
		{ echo "${0##*/}: --sched-features: '$f' is not a feature name (NAME or NO_NAME)" >&2; exit 2; }
done
[[ "$PAIRS" =~ ^[1-9][0-9]*$ ]] || { echo "${0##*/}: --pairs needs a positive number, not '$PAIRS'" >&2; exit 2; }
# traced rounds: 4 AB/BA pairs in a wall-clock set, every round otherwise
if [ -z "$TRACE_ROUNDS" ]; then
	if [ "$CLOCK" = wall ] && [ "$QUICK" = 0 ]; then TRACE_ROUNDS=4; else TRACE_ROUNDS=$PAIRS; fi
fi
[[ "$TRACE_ROUNDS" =~ ^[0-9]+$ ]] || { echo "${0##*/}: --trace-rounds needs a number, not '$TRACE_ROUNDS'" >&2; exit 2; }
case $TRACE_MODE in full|light) ;; *) echo "${0##*/}: --trace-mode is full or light, not '$TRACE_MODE'" >&2; exit 2 ;; esac
case $READER in blocking|epoll-et) ;; *) echo "${0##*/}: --reader is blocking or epoll-et, not '$READER'" >&2; exit 2 ;; esac
case $VCPUS in 1|2) ;; *) echo "${0##*/}: --vcpus is 1 or 2, not '$VCPUS'" >&2; exit 2 ;; esac
case $SOCKET in
stream) ;;
seqpacket)
	[ "$MODE" = loopback ] ||
		{ echo "${0##*/}: --socket seqpacket is for --mode loopback (the lab's back-end carries STREAM only)" >&2; exit 2; }
	TCP=0 RTT_WANT= ;;
*) echo "${0##*/}: --socket is stream or seqpacket, not '$SOCKET'" >&2; exit 2 ;;
esac
case $FLOWS in 1|2|4) ;; *) echo "${0##*/}: --flows is 1, 2 or 4, not '$FLOWS'" >&2; exit 2 ;; esac
[ "$FLOWS" = 1 ] || [ "$MODE" = h2g ] ||
	{ echo "${0##*/}: --flows is for --mode h2g (parallel flows from the host)" >&2; exit 2; }
[ "$TRACE" = 1 ] || TRACE_ROUNDS=0
((TRACE_ROUNDS <= PAIRS)) || TRACE_ROUNDS=$PAIRS
((TRACE_ROUNDS > 0)) || TRACE=0
[[ "$SCALE" =~ ^[1-9][0-9]*$ ]] || { echo "${0##*/}: --scale needs a positive number, not '$SCALE'" >&2; exit 2; }
[[ "$RTT_COUNT" =~ ^[1-9][0-9]*$ ]] || { echo "${0##*/}: --rtt-count needs a positive number, not '$RTT_COUNT'" >&2; exit 2; }
# icount runs every vCPU in one host thread, with a plugin call per
# translated block: allow 3x the time.
[ "$CLOCK" = icount ] && RUN_TIMEOUT=$((RUN_TIMEOUT * 3))
[[ "$LABEL" =~ ^[A-Za-z0-9._-]+$ ]] || { echo "${0##*/}: --label may hold letters, digits, . _ - only" >&2; exit 2; }
CAPB=$(to_bytes "$CAP")
[ -n "$CAPB" ] && [ "$CAPB" -gt 0 ] || { echo "${0##*/}: bad --cap '$CAP'" >&2; exit 2; }
PL=()
for p in ${PAYLOADS//,/ }; do
	b=$(to_bytes "$p")
	[ -n "$b" ] && [ "$b" -gt 0 ] && [ "$b" -le $((1 << 20)) ] ||
		{ echo "${0##*/}: bad payload '$p' (bytes, or with K/M; at most 1M)" >&2; exit 2; }
	for q in "${PL[@]}"; do [ "$q" != "$b" ] || { echo "${0##*/}: payload $p given twice" >&2; exit 2; }; done
	PL+=("$b")
done
[ ${#PL[@]} -gt 0 ] || { echo "${0##*/}: no payloads" >&2; exit 2; }
# RTT sizes: those of 64, 256, 4096 that are payloads too (the summary
# pairs values by payload).
RTT=()
for s in $RTT_WANT; do
	for q in "${PL[@]}"; do [ "$q" = "$s" ] && RTT+=("$s"); done
done

DATE=$(date -u +%Y-%m-%d)
[ -n "$OUT" ] || OUT=$VB_ROOT/results/$DATE-$LABEL
if [ -e "$OUT" ] && [ -n "$(ls -A "$OUT" 2>/dev/null)" ]; then
	echo "${0##*/}: $OUT exists and is not empty (choose --label or --out)" >&2
	exit 2
fi
mkdir -p "$OUT/runs" || exit 1
OUT=$(cd "$OUT" && pwd)

# ----------------------------------------------------------- the kernels
states_json='[]'
declare -A KDIR
for st in "${STATES[@]}"; do
	log "kernel $st"
	var=$st${SERIES:+-$SERIES}
	k=$("$VB_ROOT/scripts/kernel-build.sh" "$var") || die "$var: kernel build failed"
	KDIR[$st]=$k
	variant_spec "$var"
	mapfile -t pp < <(series_patches)
	[ "$VB_NPATCHES" = all ] || pp=("${pp[@]:0:$VB_NPATCHES}")
	names=$(for f in "${pp[@]}"; do basename "$f"; done | jq -R . | jq -s -c .)
	ver=$(file -b "$k/bzImage" | sed -n 's/.*version \([^,]*\).*/\1/p')
	# the exact Debian base, e.g. "linux-source-6.12 6.12.118-1~deb12u1"
	base=$(sed -n 's/^base //p' "$k/info")
	states_json=$(jq -c --arg n "$st" --arg d "$k" --arg h "${k##*-}" \
		--arg v "$ver" --argjson p "$names" --arg b "$base" \
		--arg var "$var" \
		'. + [{name: $n, variant: $var, kernel_dir: $d, kernel_hash: $h, kernel_version: $v, base: $b, patches: $p}]' \
		<<<"$states_json")
done

started=$(date -u +%Y-%m-%dT%H:%M:%SZ)
t0=$(date +%s)
if [ "$MODE" = h2g ]; then
	transport="host->guest: vhost-user-vsock-pci (QEMU 7.2) + build/vhost-user-vsock back-end, guest CID 3"
else
	transport="vsock loopback (CID 1) inside one guest"
fi
[ "$SOCKET" = stream ] || transport+=", SOCK_SEQPACKET"
machine=$(jq -n --arg transport "$transport" --arg cpu "$(sed -n 's/^model name[^:]*: //p' /proc/cpuinfo | head -n 1)" \
	--arg ncpu "$(nproc)" --arg host "$(uname -sr)" --argjson vcpus "$VCPUS" \
	--arg qemu "$(qemu-system-x86_64 --version | head -n 1)" \
	--arg load "$(cut -d' ' -f1-3 /proc/loadavg)" \
	--arg git "$(git -C "$VB_ROOT" rev-parse --short HEAD 2>/dev/null)$(git -C "$VB_ROOT" diff --quiet 2>/dev/null || echo '+dirty')" \
	'{host_cpu: $cpu, host_cpus: ($ncpu|tonumber), host_kernel: $host, qemu: $qemu,
	  accel: "tcg -cpu max (no KVM, no PMU)", guest_vcpus: $vcpus, guest_mem_mb: 1024,
	  transport: $transport,
	  loadavg_start: $load, repo_commit: $git}')
cmd="scripts/experiment.sh"
[ "$QUICK" = 1 ] && cmd+=" --quick"
[ "$MODE" = loopback ] || cmd+=" --mode $MODE"
cmd+=" --pairs $PAIRS --payloads '${PAYLOADS//,/ }' --scale $SCALE --cap $CAP --rtt-count $RTT_COUNT"
if [ "$TRACE" = 1 ]; then cmd+=" --trace-rounds $TRACE_ROUNDS"; else cmd+=" --no-trace"; fi
[ "$TRACE" = 0 ] || [ "$TRACE_MODE" = full ] || cmd+=" --trace-mode $TRACE_MODE"
[ "$READER" = blocking ] || cmd+=" --reader $READER"
[ "$VCPUS" = 2 ] || cmd+=" --vcpus $VCPUS"
[ "$SOCKET" = stream ] || cmd+=" --socket $SOCKET"
[ "$FLOWS" = 1 ] || cmd+=" --flows $FLOWS"
[ "$CLOCK" = wall ] || cmd+=" --clock $CLOCK"
[ "$CLOCK" = wall ] || cmd+=" --icount-sleep $ISLEEP"
[ -z "$XSECS" ] || cmd+=" --seconds $XSECS"
[ "$TCP" = 1 ] || [ "$CLOCK" = icount ] || cmd+=" --no-tcp"
cmd+=" --max-other $MAX_OTHER --max-steal $MAX_STEAL"
[ "$ASLR" = on ] || cmd+=" --aslr off"
[ -z "$SCHEDF" ] || cmd+=" --sched-features '$SCHEDF'"
[ -z "$GWRITES" ] || cmd+=" --guest-write '$GWRITES'"
[ "$PROFILE" = 0 ] || cmd+=" --profile"
cmd+=" --label $LABEL"
experiment=$(jq -n --argjson s "$SCALE" --argjson c "$CAPB" --argjson n "$RTT_COUNT" \
	--argjson w "$PP_WARMUP" --argjson t "$TRACE" --arg mode "$MODE" \
	--arg clock "$CLOCK" --arg xsecs "$XSECS" --argjson tr "$TRACE_ROUNDS" --arg tm "$TRACE_MODE" --arg reader "$READER" --argjson vcpus "$VCPUS" \
	--arg socket "$SOCKET" --argjson flows "$FLOWS" --argjson tcp "$TCP" --arg mo "$MAX_OTHER" --arg ms "$MAX_STEAL" --arg isl "$ISLEEP" \
	--arg aslr "$ASLR" --arg schedf "$SCHEDF" --argjson prof "$PROFILE" --arg gw "$GWRITES" \
	'{mode: $mode, clock: $clock,
	  icount_sleep: (if $clock == "icount" then $isl else null end),
	  clock_note: (if $clock == "icount" and $isl == "on" then
	    "QEMU -icount shift=0,sleep=on: guest time = instructions (1 ns each) while a vCPU runs, the host clock while all idle (no warp: the idle guest'"'"'s timers fire at their real rate); all vCPUs serialised in one host thread; insn_* samples are exact per-vCPU guest instruction counts (vb-insns plugin) from accept() to EOF; measures work, not parallel throughput"
	   elif $clock == "icount" then
	    "QEMU -icount shift=0,sleep=off: guest time = instructions (1 ns each), all vCPUs serialised in one host thread; insn_* samples are exact per-vCPU guest instruction counts (vb-insns plugin) from accept() to EOF; measures work, not parallel throughput"
	   else "TCG wall clock: guest time follows the host; throughput and RTT depend on host load" end),
	  bytes_rule: "payload * scale, at most cap", scale: $s, cap_bytes: $c,
	  socket: (if $socket == "seqpacket" then "SOCK_SEQPACKET (vb-sender/vb-recv --seqpacket: one message per write and per recv()); no TCP, no ping-pong" else "SOCK_STREAM" end),
	  flows: $flows,
	  flows_note: (if $flows > 1 then "fixed, matched and traced transfers: \($flows) parallel flows from the host (flow k > 0 to port P + 10000 k), one vb-recv each on vCPU 0; tput_* = the sum of the rates of the flows, recv_calls_* the sum of their recv() calls; the back-end'"'"'s flow statistics and sender-stall.sh read flow 0" else null end),
	  receiver: (if $reader == "epoll-et" then "vb-recv --epoll-et pinned to vCPU 0 (non-blocking recv() to EAGAIN after each EPOLLET event)" else "vb-recv pinned to vCPU 0 (blocking recv)" end),
	  aslr: (if $aslr == "on" then "on (the kernel default, randomize_va_space = 2)" else "off: randomize_va_space = 0 for the whole of every guest boot (/init, VB_ASLR=off)" end),
	  sched_features: (if $schedf == "" then "the kernel defaults" else "set for the whole of every guest boot (/init, VB_SCHED_FEATURES): \($schedf)" end),
	  guest_writes: (if $gw == "" then null else "written for the whole of every guest boot (/init, VB_GUEST_WRITES) and read back: \($gw)" end),
	  insns_profile: (if $prof == 1 then "kernel instructions per translation block and vCPU at every mark, the rows of the transfers'"'"' windows kept: runs/*/profile.tsv.gz (scripts/insns-profile.sh)" else null end),
	  rtt_count: $n, rtt_warmup: $w, traced_run_per_payload: ($t == 1),
	  traced_rounds: $tr, trace_mode: $tm,
	  order: "round i: baseline, p1-3, patched; round i+1 reversed",
	  transfer_seconds: (if $xsecs == "" then null else ($xsecs | tonumber) end),
	  transfer_sizing: (if $xsecs == "" then "payload * scale, at most cap"
	    else "untraced transfers (fixed, matched, TCP) time-bounded: the sender writes whole writes until transfer_seconds have passed (vb-sender --seconds; h2g: vhost-user-vsock send --seconds); warm-up and traced: payload * scale, at most cap" end),
	  tcp: ($tcp == 1),
	  tcp_note: (if $tcp == 1 and $mode == "h2g" then "tcp.P: the fixed transfer once more over TCP from the host to the same guest through its virtio-net NIC (QEMU 7.2 virtio-net-pci, its own datapath, no vhost-net; tap device with offloads in a private network namespace, MTU 1500): host build/vb-sender --tcp, the same writes, Nagle on, default buffers, time-bounded like the vsock transfers (or the same bytes without --seconds); guest vb-recv --tcp on vCPU 0 with the 64K receiver, the NIC'"'"'s interrupt (so its receive softirq) pinned to vCPU 1 like the vsock device'"'"'s; TCP ping-pong (host vb-pingpong client, host clock) at the RTT sizes. vsock here is the vhost-user-vsock back-end writing into the guest'"'"'s rings; TCP crosses the host'"'"'s TCP stack, the tap and QEMU: what a user would otherwise give a guest"
	    elif $tcp == 1 then "tcp.P: the fixed transfer over TCP on 127.0.0.1 in the same guest (vb-sender/vb-recv --tcp, Nagle on, default buffers), same writes, receiver and pinning, time-bounded (or the same bytes without --seconds); TCP ping-pong at the RTT sizes"
	    else "no TCP column (--no-tcp or icount)" end),
	  host_watch: "scripts/xfer-watch.sh: host /proc/stat, QEMU and back-end CPU at the guest'"'"'s VB-XFER begin/end console lines; host sender CPU from bash time (runs/*/host-xfer.jsonl)",
	  exclusion: {
	    rule: (if $mo == "off" and $ms == "off" then "none (recorded, not applied)"
	      else "exclude a transfer (all its samples) when other_cores > max_other_cores or steal_pct > max_steal_pct during it; other = host busy - QEMU - back-end - host sender; decided before the runs" end),
	    max_other_cores: (if $mo == "off" then null else ($mo | tonumber) end),
	    max_steal_pct: (if $ms == "off" then null else ($ms | tonumber) end)}} +
	 if $mode == "h2g" then
	  {sender: "host: vhost-user-vsock send, one packet per write (packet size = payload)",
	   rtt: "host: vhost-user-vsock pingpong (host clock) <-> guest vb-pingpong server on vCPU 0",
	   pinning: (if $vcpus == 1 then "One vCPU: receiver and the device interrupt (and so the RX worker) on vCPU 0, sender on the host"
	     else "Receiver pinned to vCPU 0, the device interrupt (and so the RX worker) to vCPU 1, sender on the host" end),
	   rx_worker: "virtio_transport_rx_work", rx_cpu: ($vcpus - 1)}
	 else
	  {sender: "vb-sender pinned to vCPU \($vcpus - 1)",
	   rtt: "guest: vb-pingpong client on vCPU \($vcpus - 1) <-> server on vCPU 0"}
	 end')

# write_manifest ROUNDS_DONE: the plan so far (complete rounds only), so
# an interrupted set can still be summarized with --resummarize.
write_manifest() {
	local el=$(($(date +%s) - t0))
	jq -n --arg lbl "$LABEL" --arg date "$DATE" --argjson quick "$QUICK" \
		--argjson pairs "$1" --argjson planned "$PAIRS" --arg cmd "$cmd" \
		--arg series "${SERIES:-$VB_DEFAULT_SERIES}" \
		--argjson states "$states_json" \
		--argjson machine "$machine" --argjson exp "$experiment" \
		--argjson runs "$runs_json" --arg started "$started" \
		--arg finished "$(date -u +%Y-%m-%dT%H:%M:%SZ)" --argjson el "$el" \
		--arg load "$(cut -d' ' -f1-3 /proc/loadavg)" \
		--argjson payloads "$(printf '%s\n' "${PL[@]}" | jq -s -c .)" \
		--argjson rtt "$(printf '%s\n' "${RTT[@]}" | jq -s -c 'map(select(. != null))')" \
		'{"label": $lbl, date: $date, quick: ($quick == 1), pairs: $pairs,
		  pairs_planned: $planned, command: $cmd, series: $series,
		  states: $states, machine: ($machine + {loadavg_end: $load}), experiment: $exp,
		  payloads: $payloads, rtt_sizes: $rtt, started: $started, finished: $finished,
		  elapsed_s: $el, runs: $runs}' >"$OUT/manifest.json.tmp" &&
		mv "$OUT/manifest.json.tmp" "$OUT/manifest.json"
}

# host_xfer RUNDIR: RUNDIR/host-xfer.tsv (scripts/xfer-watch.sh's ticks)
# -> RUNDIR/host-xfer.jsonl, one object per transfer: host seconds, the
# guest's own seconds (vb-recv, first byte to EOF), host busy cores,
# steal %, QEMU cores, back-end and host-sender cores (h2g), and the
# rest: other = busy - QEMU - back-end - sender, the load the exclusion
# rule judges.  Cores are tick ratios: ncpu * d_x / d_total.
host_xfer() {
	local d=$1
	[ -s "$d/host-xfer.tsv" ] || { echo "${0##*/}: $d: no host-xfer.tsv (the host watcher saw no transfer)" >&2; return 1; }
	awk -F'\t' -v d="$d" '
	function guest_s(name,   f, l, v) {
		f = d "/raw/" name ".rx.out"; v = ""
		while ((getline l < f) > 0)
			if (l ~ /^\{"tool":"vb-recv"/ && match(l, /"seconds":[0-9.eE+-]+/))
				v = substr(l, RSTART + 10, RLENGTH - 10)
		close(f)
		return v == "" ? "null" : v
	}
	function sender_cpu(name,   f, l, a, v) {
		f = d "/raw/host." name ".time"; v = 0
		while ((getline l < f) > 0)
			if (split(l, a, " ") == 3 && a[1] ~ /^[0-9.]+$/)
				v = a[1] + a[2]
		close(f)
		return v
	}
	NR == 1 { next }
	$4 > 0 {
		name = $1; p = name; sub(/^[^.]*\./, "", p); kind = name; sub(/\..*$/, "", kind)
		hs = $3 - $2; n = $9
		busy = n * $5 / $4; qemu = n * $7 / $4; be = n * $8 / $4
		snd = hs > 0 ? sender_cpu(name) / hs : 0
		other = busy - qemu - be - snd
		if (other < 0) other = 0
		printf "{\"xfer\":\"%s\",\"kind\":\"%s\",\"payload\":%d,\"host_s\":%.3f,\"guest_s\":%s,\"busy_cores\":%.3f,\"steal_pct\":%.2f,\"qemu_cores\":%.3f,\"backend_cores\":%.3f,\"sender_cores\":%.3f,\"other_cores\":%.3f}\n",
			name, kind, p, hs, guest_s(name), busy, 100 * $6 / $4, qemu, be, snd, other
	}' "$d/host-xfer.tsv" >"$d/host-xfer.jsonl"
}

# ------------------------------------------------------------------ runs
total=$((PAIRS * ${#STATES[@]}))
runs_json='[]'
k=0 failed=0
fmt_t() { printf '%d:%02d' $(($1 / 60)) $(($1 % 60)); }
log "$total guest runs ($PAIRS rounds x ${#STATES[@]} states), payloads ${PL[*]}, into $OUT"
# The host's load, sampled for the whole set.
( while :; do echo "$(date -u +%H:%M:%S) $(cut -d' ' -f1-3 /proc/loadavg)"; sleep 10; done ) >"$OUT/host-load.txt" &
loadpid=$!
trap 'kill $loadpid 2>/dev/null' EXIT
for ((r = 0; r < PAIRS; r++)); do
	if ((r % 2 == 0)); then order=("${STATES[@]}"); else order=(); for ((i = ${#STATES[@]} - 1; i >= 0; i--)); do order+=("${STATES[$i]}"); done; fi
	for ((pos = 0; pos < ${#order[@]}; pos++)); do
		st=${order[$pos]}
		k=$((k + 1))
		now=$(($(date +%s) - t0))
		eta=-
		((k > 1)) && eta=$(fmt_t $((now * (total - k + 1) / (k - 1))))
		echo "[experiment] run $k/$total: round $((r + 1))/$PAIRS, $st (position $((pos + 1))); elapsed $(fmt_t $now), ETA $eta" >&2
		dir=$(printf 'runs/r%02d-%s' "$r" "$st")
		rs=$(date +%s)
		l0=$(cut -d' ' -f1 /proc/loadavg)
		# traced transfers in the first TRACE_ROUNDS rounds only
		traced=0
		((r < TRACE_ROUNDS)) && traced=1
		env=(PAYLOADS="${PL[*]}" SCALE="$SCALE" CAP="$CAPB" RTT_SIZES="${RTT[*]}"
		     PP_COUNT="$RTT_COUNT" PP_WARMUP="$PP_WARMUP" TRACE="$traced"
		     TRACE_MODE="$TRACE_MODE" READER="$READER" VCPUS="$VCPUS"
		     SOCKET="$SOCKET" FLOWS="$FLOWS"
		     CLOCK="$CLOCK" XFER_SECONDS="$XSECS" TCP="$TCP" VB_ASLR="$ASLR"
		     VB_SCHED_FEATURES="$SCHEDF" VB_GUEST_WRITES="$GWRITES")
		devargs=()
		for e in "${env[@]}"; do devargs+=(-e "$e"); done
		# The host's view of each transfer (scripts/xfer-watch.sh; in
		# h2g mode h2g-host.sh starts it).
		if [ "$MODE" = h2g ]; then
			devargs+=(-U -H "$(printf '%q ' env "${env[@]}" "$VB_ROOT/scripts/h2g-host.sh")")
			# TCP: the guest's virtio-net NIC on a tap in a private netns
			[ "$TCP" = 1 ] && devargs+=(-N)
		else
			devargs+=(-H "$(printf '%q' "$VB_ROOT/scripts/xfer-watch.sh")")
		fi
		"$VB_ROOT/scripts/guest-run.sh" -K "${KDIR[$st]}" -s "$VCPUS" -t "$RUN_TIMEOUT" \
			-C "$CLOCK" -o "$OUT/$dir" "${devargs[@]}" -e "STATE=$st" -e "MODE=$MODE" \
			"$VB_ROOT/tests/guest/experiment-run.sh" >/dev/null 2>"$OUT/$dir.err"
		rc=$?
		# icount: the instruction windows join the samples.
		if [ "$CLOCK" = icount ] && [ -f "$OUT/$dir/marks.tsv" ]; then
			icount_samples "$OUT/$dir" 2>>"$OUT/$dir.err" || { [ $rc -ne 0 ] || rc=1; }
		fi
		[ ! -f "$OUT/$dir/profile.tsv" ] || profile_keep "$OUT/$dir" ||
			{ [ $rc -ne 0 ] || rc=1; }
		# h2g: the host's RTT samples join the guest's.
		[ -f "$OUT/$dir/host-samples.jsonl" ] &&
			cat "$OUT/$dir/host-samples.jsonl" >>"$OUT/$dir/samples.jsonl"
		host_xfer "$OUT/$dir" || { [ $rc -ne 0 ] || rc=1; }
		secs=$(($(date +%s) - rs))
		if [ $rc -ne 0 ]; then
			failed=$((failed + 1))
			echo "[experiment]   $st failed (exit $rc, ${secs}s): $(tail -n 1 "$OUT/$dir.err")" >&2
		else
			echo "[experiment]   $st done in ${secs}s ($(wc -l <"$OUT/$dir/samples.jsonl") samples)" >&2
			rm -f "$OUT/$dir.err"
		fi
		runs_json=$(jq -c --argjson r "$r" --argjson p "$pos" --arg s "$st" \
			--arg d "$dir" --argjson c "$rc" --argjson t "$secs" \
			--argjson l0 "$l0" --argjson l1 "$(cut -d' ' -f1 /proc/loadavg)" \
			'. + [{round: $r, pos: $p, state: $s, dir: $d, status: $c, seconds: $t,
			       loadavg1_start: $l0, loadavg1_end: $l1}]' <<<"$runs_json")
	done
	write_manifest $((r + 1)) || die "cannot write the manifest"
done
elapsed=$(($(date +%s) - t0))
log "all runs done in $(fmt_t $elapsed) ($failed failed)"

rc=0
summarize "$OUT" || rc=1
# The runs' raw files into one archive, SET/raw.tar.xz: what a clone
# carries of a set is its plain files and that (scripts/results-raw.sh;
# --resummarize unpacks it again).
"$VB_ROOT/scripts/results-raw.sh" pack "$OUT" || rc=1
echo "results: $OUT (report.md, summary.json, plots/, raw.tar.xz)"
[ $failed -eq 0 ] || rc=1
exit $rc
