#!/bin/sh
# export-read-cost.sh ROUNDS: guest half of scripts/export-read-cost.sh.
# The exporter's fixed cost: guest instructions (all vCPUs, QEMU icount +
# the vb-insns plugin) over 5 s of an idle guest, without an exporter
# (marks 4r+1 / 4r+2) and with `vsockbatch export -m light -i 0.1`
# serving but unscraped (marks 4r+3 / 4r+4), ROUNDS times.  The map reads
# inside each traced window are counted from the page
# (vsockbatch_collections_total just before and after it) into
# $RESULTS/reads.tsv: round, reads.
. /vb/guest/export-lib.sh
out=${RESULTS:?}
rounds=${1:?ROUNDS}
url=http://127.0.0.1:9477/metrics
collections() {
	wget -q -O - "$url" | sed -n 's/^vsockbatch_collections_total //p'
}
: >"$out/reads.tsv"
r=0 fails=0
while [ $r -lt "$rounds" ]; do
	m=$((4 * r))
	vb-mark $((m + 1)); sleep 5; vb-mark $((m + 2))
	vsockbatch export -m light -i 0.1 2>"$out/export-$r.err" &
	epid=$!
	export_wait $epid "$out/export-$r.err" || exit 1
	c0=$(collections)
	vb-mark $((m + 3)); sleep 5; vb-mark $((m + 4))
	c1=$(collections)
	printf '%d\t%d\n' "$r" $((c1 - c0)) >>"$out/reads.tsv"
	kill -TERM $epid
	wait $epid || fails=$((fails + 1))
	r=$((r + 1))
done
echo "export-read-cost: $rounds rounds, $fails exporter failures"
[ $fails -eq 0 ]
