#!/bin/sh
# duty-toggle.sh SECONDS DUTY: the guest half of scripts/duty-toggle-cost.sh.
# Two idle recordings of SECONDS each, no traffic: full mode, then full
# --duty DUTY, each between two marks (1-2, 3-4), so the host can take
# their instruction counts and block profiles apart: what the second
# adds is its slices' toggles (attach and detach of the window hooks)
# and its own wake-ups.  $RESULTS: full.log, duty.log (record's lines,
# the slices it began), kallsyms-modules.txt, kallsyms-kernel.txt.
out=${RESULTS:?}
secs=${1:?SECONDS}
duty=${2:?DUTY}
vb-mark 1
vsockbatch record -m full -d "$secs" -o "$out/full.json" >"$out/full.log" 2>&1 || exit 1
vb-mark 2
vb-mark 3
vsockbatch record -m full --duty "$duty" -d "$secs" -o "$out/duty.json" >"$out/duty.log" 2>&1 || exit 1
vb-mark 4
grep '\[' /proc/kallsyms >"$out/kallsyms-modules.txt"
grep -v '\[' /proc/kallsyms >"$out/kallsyms-kernel.txt"
tail -n 1 "$out/duty.log"
