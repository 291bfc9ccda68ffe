#!/bin/bash
# insns-profile.sh: where the kernel's instructions of one transfer went,
# per kernel function, from the vb-insns plugin's block profile.
#
#   scripts/insns-profile.sh [-c VCPU] [-n TOP] [-m SYSTEM_MAP] [-l FUNCTION]
#                            [-x XFER_B] XFER RUN_DIR... [-- RUN_DIR...]
#
# RUN_DIR: an icount run made with a profile (scripts/experiment.sh
# --profile, or guest-run.sh -C icount with VB_INSNS_PROFILE=1): its
# profile.tsv[.gz], insns.tsv and marks.tsv.  XFER names the transfer
# (fixed.64, match.4096, ...; marks.tsv), whose window is its two marks.
# Each block's address resolves to the kernel function holding it through
# System.map: -m, else the run's kernel from the set's manifest.json
# (states[].kernel_dir, checked against the run's env.txt `uname -v`);
# a module's function ("name [module]": vsock is built as modules)
# through the run's own kallsyms-modules.txt (the guest's /proc/kallsyms
# module lines, written at the start of every icount run).  A block past
# the image's _end that no listed module holds (a BPF program, say) is
# counted in one row of its own.
#
# Prints, per function, kernel instructions per write (the window's
# instructions * payload / bytes: per packet, when every write is one
# packet) on vCPU VCPU (default: all vCPUs), the mean over the runs of
# group A; with "-- RUN_DIR..." also group B's mean and B - A.  Sorted by
# |B - A| (one group: by A), the TOP (default 25) first, then the rest
# as "(other)" and the window's kernel total.  Every run's functions sum
# exactly to its window's kernel instructions in insns.tsv, or the run is
# refused (exit 1): the profile and the counts come from one counter.
# -x XFER_B: group B's transfer is XFER_B (default XFER), so two
# transfers of the same runs compare, e.g. untraced and traced in one boot
# (scripts/tracer-profile.sh).
# -l FUNCTION: inside one function instead, per translation block (by its
# start address): executions per write, the same means and difference,
# and the block's source lines (addr2line on the vmlinux beside System.map;
# inlined callers after the first; "-" for a module's).  Which branch a
# state takes: the conditions and calls that run more often.
# A RUN_DIR of a committed set lives in its SET/raw.tar.xz: give it as
# SET/runs/rNN-STATE or SET/raw.tar.xz:runs/rNN-STATE; it is read from a
# temporary unpacked copy of the set.
# Exit: 0; 1 a run lacks the window or its sums disagree; 2 bad usage or
# input.
set -uo pipefail
. "$(dirname "$0")/lib.sh"
me=${0##*/}
usage() {
	echo "usage: $me [-c VCPU] [-n TOP] [-m SYSTEM_MAP] [-l FUNCTION] [-x XFER_B] XFER RUN_DIR... [-- RUN_DIR...]" >&2
	exit 2
}
die() { echo "$me: $1" >&2; exit "${2:-2}"; }
VCPU=all TOP=25 MAP= FUNC= XFER_B=
while getopts c:n:m:l:x:h o; do
	case $o in
	x) XFER_B=$OPTARG ;;
	l) FUNC=$OPTARG ;;
	c) VCPU=$OPTARG ;;
	n) TOP=$OPTARG ;;
	m) MAP=$OPTARG ;;
	*) usage ;;
	esac
done
shift $((OPTIND - 1))
[ $# -ge 2 ] || usage
XFER=$1
shift
[[ "$VCPU" =~ ^(all|[0-9]+)$ ]] || die "-c needs a vCPU number or 'all', not '$VCPU'"
[[ "$TOP" =~ ^[1-9][0-9]*$ ]] || die "-n needs a positive number, not '$TOP'"
[[ "$XFER" =~ ^[a-z][a-z0-9]*\.[0-9]+$ ]] || die "'$XFER' is not a transfer name (fixed.64, match.4096, ...)"
[ -n "$XFER_B" ] || XFER_B=$XFER
[[ "$XFER_B" =~ ^[a-z][a-z0-9]*\.[0-9]+$ ]] || die "-x: '$XFER_B' is not a transfer name (fixed.64, match.4096, ...)"
[ -z "$MAP" ] || [ -f "$MAP" ] || die "$MAP: no such file"
[[ -z "$FUNC" || "$FUNC" =~ ^[A-Za-z0-9_.]+( \[[A-Za-z0-9_]+\])?$ ]] ||
	die "-l needs a function name as this script prints it, not '$FUNC'"
A=() B=() grp=A
rows=$(mktemp) || exit 1
cache=$(mktemp -d) || exit 1
trap 'rm -rf "$rows" "$cache"' EXIT
for d in "$@"; do
	if [ "$d" = -- ]; then
		[ $grp = A ] || die "'--' given twice"
		grp=B
		continue
	fi
	d=$(raw_open "$d" "$cache") || die "cannot read the run's set archive"
	[ -d "$d" ] || die "$d: not a directory"
	if [ $grp = A ]; then A+=("$d"); else B+=("$d"); fi
done
[ ${#A[@]} -gt 0 ] || die "no run in group A"
[ $grp = A ] || [ ${#B[@]} -gt 0 ] || die "no run after '--'"

# map_of RUN_DIR: the System.map of the run's kernel
map_of() {
	local d=$1 st m kv uv
	if [ -n "$MAP" ]; then echo "$MAP"; return; fi
	m=$d/../../manifest.json
	[ -f "$m" ] && [ -f "$d/env.txt" ] ||
		die "$d: no set manifest.json or env.txt to find its kernel; give -m SYSTEM_MAP"
	st=$(sed -n 's/^state: //p' "$d/env.txt")
	kd=$(jq -r --arg s "$st" '.states[] | select(.name == $s) | .kernel_dir' "$m")
	[ -n "$kd" ] && [ -f "$kd/System.map" ] ||
		die "$d: kernel of state '$st' ($kd) has no System.map here; give -m SYSTEM_MAP"
	kv=$(jq -r --arg s "$st" '.states[] | select(.name == $s) | .kernel_version' "$m")
	uv=$(sed -n 's/^kernel: [^ ]* //p' "$d/env.txt")
	[[ "$kv" == *"$uv" ]] ||
		die "$d: ran '$uv', the manifest's $st kernel is '$kv'; give -m SYSTEM_MAP"
	echo "$kd/System.map"
}

# profile_of RUN_DIR: "function<TAB>instructions per write" of XFER
profile_of() {
	local d=$1 map p f line id bytes seqs sa sb
	for f in insns.tsv marks.tsv; do
		[ -f "$d/$f" ] || die "$d/$f not found (not an icount run?)"
	done
	if [ -f "$d/profile.tsv.gz" ]; then
		p=(gzip -dc "$d/profile.tsv.gz")
	elif [ -f "$d/profile.tsv" ]; then
		p=(cat "$d/profile.tsv")
	else
		die "$d: no profile.tsv (run with scripts/experiment.sh --profile)"
	fi
	line=$(awk -v x="$XFER" '$2 == x' "$d/marks.tsv")
	[ -n "$line" ] || die "$d: no transfer $XFER in marks.tsv" 1
	read -r id _ payload bytes <<<"$line"
	[[ "$id" =~ ^[1-9][0-9]*$ && "$payload" =~ ^[1-9][0-9]*$ && "$bytes" =~ ^[1-9][0-9]*$ ]] ||
		die "$d/marks.tsv: bad line '$line'"
	# the window: marks id and id + 1 (their rows' seq numbers and the
	# kernel instructions between them on the vCPU(s) asked for)
	seqs=$("$(dirname "$0")/insns-delta.sh" "$d/insns.tsv" "$id" $((id + 1)) |
		jq -r --arg c "$VCPU" '"\(.from_seq) \(.to_seq) \(if $c == "all" then .kernel
			else (.vcpus[] | select(.vcpu == ($c | tonumber)) | .kernel) end)"')
	read -r sa sb kern <<<"$seqs"
	[ -n "${kern:-}" ] || die "$d: no window for $XFER (marks $id, $((id + 1))) on vCPU $VCPU" 1
	map=$(map_of "$d") || exit
	# the window's blocks, summed per address
	win=$(mktemp) || exit 1
	"${p[@]}" | awk -F'\t' -v sa="$sa" -v sb="$sb" -v c="$VCPU" -v me="$me" -v f="$d" '
		/^#/ { next }
		NF != 6 || $1 !~ /^[0-9]+$/ || $4 !~ /^[0-9a-f]+$/ || length($4) != 16 || $5 !~ /^[1-9][0-9]*$/ || $6 !~ /^[0-9]+$/ {
			printf "%s: %s: profile line %d is malformed\n", me, f, NR > "/dev/stderr"; bad = 1; exit 2 }
		$1 + 0 > sa + 0 && $1 + 0 <= sb + 0 && (c == "all" || $3 == c) { n[$4] += $6; e[$4] += $6 / $5 }
		END { if (!bad) for (a in n) printf "%s\tB\t%.0f\t%.0f\n", a, n[a], e[a] }' >"$win" ||
		{ rm -f "$win"; exit 2; }
	# merged with the map's text symbols in address order (fixed-width
	# hex sorts as text)
	{
		cat "$win"
		rm -f "$win"
		# (_etext and _end close the image's text and the image: a
		# block past _end that no module claims is a module's the run
		# did not list, or a BPF program's)
		awk '$3 == "_etext" { printf "%s\tS\t[kernel text past _etext]\n", $1; next }
		     $3 == "_end" { printf "%s\tS\t[past the kernel image: unlisted module or BPF]\n", $1; next }
		     $2 ~ /^[tTwW]$/ { printf "%s\tS\t%s\n", $1, $3 }' "$map"
		# the modules' functions, where this boot loaded them
		[ ! -f "$d/kallsyms-modules.txt" ] ||
			awk '$2 ~ /^[tT]$/ && $4 ~ /^\[.*\]$/ { printf "%s\tS\t%s %s\n", $1, $3, $4 }' "$d/kallsyms-modules.txt"
	} | LC_ALL=C sort -t$'\t' -k1,1 -k2,2r |
	awk -F'\t' -v k="$kern" -v pay="$payload" -v by="$bytes" -v me="$me" -v f="$d" -v L="$FUNC" '
		$2 == "S" { sym = $3; next }
		{ s = (sym == "" ? "[below the kernel text]" : sym); n[s] += $3; tot += $3 }
		L != "" && s == L { blk[$1] += $4; lt += $3 }
		END {
			if (tot != k) {
				printf "%s: %s: the profile sums to %d instructions, insns.tsv to %d\n",
					me, f, tot, k > "/dev/stderr"
				exit 1
			}
			# a randomized kernel base puts the running text
			# elsewhere than System.map says (boot with nokaslr)
			if (n["[below the kernel text]"] > tot / 10) {
				printf "%s: %s: %d of %d instructions below the kernel text of System.map: not where the running kernel has them (KASLR? boot with nokaslr)\n",
					me, f, n["[below the kernel text]"], tot > "/dev/stderr"
				exit 1
			}
			if (L != "") {
				# executions per write of each block; the total:
				# the function'"'"'s instructions per write
				for (a in blk) printf "%s\t%.6f\n", a, blk[a] * pay / by
				printf "[total]\t%.6f\n", lt * pay / by
				exit 0
			}
			for (s in n) printf "%s\t%.6f\n", s, n[s] * pay / by
			printf "[total]\t%.6f\n", tot * pay / by
		}'
}

# group GROUP_LETTER RUN_DIR...: "G function mean" rows (group B's
# transfer: XFER_B)
group() {
	local g=$1 d t XFER=$XFER
	shift
	[ "$g" = A ] || XFER=$XFER_B
	t=$(mktemp) || exit 1
	for d in "$@"; do
		(profile_of "$d") >>"$t" || { rc=$?; rm -f "$t"; return $rc; }
	done
	awk -F'\t' -v g="$g" -v n=$# '{ s[$1] += $2 } END { for (f in s) printf "%s\t%s\t%.6f\n", g, f, s[f] / n }' "$t"
	rm -f "$t"
}

group A "${A[@]}" >"$rows" || exit
[ ${#B[@]} -eq 0 ] || group B "${B[@]}" >>"$rows" || exit
# -l: the blocks' source lines from the kernel's vmlinux, if it is there
vml=
if [ -n "$FUNC" ] && [[ "$FUNC" != *\[* ]] && command -v addr2line >/dev/null; then
	vml=$(dirname "$(map_of "${A[0]}")")/vmlinux
	[ -f "$vml" ] || vml=
fi
awk -F'\t' -v two=$((${#B[@]} > 0)) -v top="$TOP" -v x="$XFER$([ "$XFER_B" = "$XFER" ] || echo " (A) vs $XFER_B (B)")" -v c="$VCPU" \
	-v na=${#A[@]} -v nb=${#B[@]} -v L="$FUNC" -v vml="$vml" '
	# src ADDR: "file:line < inlined into file:line ...", paths from the
	# kernel tree down
	function src(a,   cmd, l, o) {
		if (L == "" ) return ""
		if (vml == "" || a !~ /^[0-9a-f]+$/) return "  -"
		cmd = "addr2line -i -e \"" vml "\" 0x" a
		while ((cmd | getline l) > 0) { sub(/.*\/linux-[^\/]*\//, "", l); sub(/ \(discriminator [0-9]+\)/, "", l); o = o (o == "" ? "" : " < ") l }
		close(cmd)
		return "  " o
	}
	{ v[$1, $2] = $3; f[$2] = 1 }
	END {
		if (L != "")
			printf "# %s: %s, executions per write of each of its blocks (by start address), vCPU %s; [total]: its instructions per write; mean of A (n = %d)%s\n",
				x, L, c, na, two ? sprintf(", B (n = %d), B - A", nb) : ""
		else
			printf "# %s: kernel instructions per write, vCPU %s; mean of A (n = %d)%s\n",
				x, c, na, two ? sprintf(", B (n = %d), B - A", nb) : ""
		for (s in f) if (s != "[total]") {
			key[++m] = s
			d[s] = two ? v["B", s] - v["A", s] : v["A", s]
		}
		# by |B - A| (or A), largest first
		for (i = 2; i <= m; i++) {
			s = key[i]; j = i - 1
			while (j > 0 && (d[key[j]] < 0 ? -d[key[j]] : d[key[j]]) < (d[s] < 0 ? -d[s] : d[s])) {
				key[j + 1] = key[j]; j--
			}
			key[j + 1] = s
		}
		fmt = L == "" ? "%.2f" : "%.4f"
		printf two ? "%-56s %12s %12s %10s\n" : "%-56s %12s\n", L == "" ? "function" : "block", "A", "B", "B-A"
		for (i = 1; i <= m; i++) {
			s = key[i]
			if (i > top) { oa += v["A", s]; ob += v["B", s]; continue }
			if (two) printf "%-56s %12s %12s %10s%s\n", s, sprintf(fmt, v["A", s]), sprintf(fmt, v["B", s]), sprintf("%+" substr(fmt, 2), d[s]), src(s)
			else printf "%-56s %12s%s\n", s, sprintf(fmt, v["A", s]), src(s)
		}
		if (m > top) {
			if (two) printf "%-56s %12.2f %12.2f %+10.2f\n", "(other)", oa, ob, ob - oa
			else printf "%-56s %12.2f\n", "(other)", oa
		}
		s = "[total]"
		if (two) printf "%-56s %12.2f %12.2f %+10.2f\n", s, v["A", s], v["B", s], v["B", s] - v["A", s]
		else printf "%-56s %12.2f\n", s, v["A", s]
	}' "$rows"
