#!/bin/bash
# insns-delta.sh: guest instructions executed between two marks of a
# vb-insns file (scripts/guest-run.sh -C icount writes OUTDIR/insns.tsv;
# the guest sets marks with vb-mark ID or vb_insn_mark()).
#
#   scripts/insns-delta.sh INSNS_TSV A B
#
# Takes the first mark A, then the first mark B after it (B may be "exit":
# QEMU's end).  Prints one JSON object:
#   {"from":A,"to":B,"from_seq":S,"to_seq":S2,
#    "vcpus":[{"vcpu":0,"user":U,"kernel":K},...],
#    "user":U,"kernel":K,"total":T}
# (from_seq/to_seq: the two marks' row numbers, which the block profile's
# rows of the window share: scripts/insns-profile.sh)
# Exit: 0; 1 when a mark is missing; 2 bad usage or a malformed file.
set -uo pipefail
me=${0##*/}
[ $# -eq 3 ] || { echo "usage: $me INSNS_TSV A B" >&2; exit 2; }
f=$1 a=$2 b=$3
[ -f "$f" ] || { echo "$me: $f: no such file" >&2; exit 2; }
for id in "$a" "$b"; do
	[[ "$id" =~ ^([1-9][0-9]*|exit)$ ]] ||
		{ echo "$me: mark '$id' is neither a positive number nor 'exit'" >&2; exit 2; }
done
awk -v A="$a" -v B="$b" -v me="$me" -F'\t' '
/^#/ { next }
NF != 5 || $1 !~ /^[0-9]+$/ || $3 !~ /^[0-9]+$/ || $4 !~ /^[0-9]+$/ || $5 !~ /^[0-9]+$/ {
	printf "%s: line %d is not \"seq id vcpu user kernel\"\n", me, NR > "/dev/stderr"; bad = 1; exit 2
}
# the first seq with id A, then the first later seq with id B
sa == "" && $2 == A { sa = $1 }
sa != "" && sb == "" && $1 != sa && $2 == B { sb = $1 }
$1 == sa { u0[$3] = $4; k0[$3] = $5; n = ($3 + 1 > n) ? $3 + 1 : n }
$1 == sb { u1[$3] = $4; k1[$3] = $5 }
END {
	if (bad) exit 2
	if (sa == "" || sb == "") {
		printf "%s: mark %s%s not found\n", me, (sa == "" ? A : B),
			(sa == "" ? "" : " after mark " A) > "/dev/stderr"
		exit 1
	}
	printf "{\"from\":\"%s\",\"to\":\"%s\",\"from_seq\":%s,\"to_seq\":%s,\"vcpus\":[", A, B, sa, sb
	for (i = 0; i < n; i++) {
		if (!(i in u1)) { printf "\n%s: vCPU %d missing at mark %s\n", me, i, B > "/dev/stderr"; exit 2 }
		du = u1[i] - u0[i]; dk = k1[i] - k0[i]
		if (du < 0 || dk < 0) { printf "\n%s: counts go backwards on vCPU %d\n", me, i > "/dev/stderr"; exit 2 }
		printf "%s{\"vcpu\":%d,\"user\":%.0f,\"kernel\":%.0f}", (i ? "," : ""), i, du, dk
		tu += du; tk += dk
	}
	printf "],\"user\":%.0f,\"kernel\":%.0f,\"total\":%.0f}\n", tu, tk, tu + tk
}' "$f"
