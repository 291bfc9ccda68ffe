#!/bin/bash
# results-raw.sh: a results set's raw per-run data as one archive,
# SET/raw.tar.xz, beside the set's plain files (issue 32: 56,551 raw files
# made every clone carry 310 MB).
#
#   scripts/results-raw.sh pack SET...       raw files -> SET/raw.tar.xz
#   scripts/results-raw.sh unpack SET DEST   plain files + archive -> DEST
#   scripts/results-raw.sh extract SET       archive -> SET, archive removed
#   scripts/results-raw.sh cat SET MEMBER    one member on stdout
#   scripts/results-raw.sh list SET          the archive's member names
#   scripts/results-raw.sh plain RELPATH     exit 0 when RELPATH stays plain
#
# Plain (read in a clone, quoted by the docs): at the set's top the *.md,
# *.json, *.txt and *.tsv files and plots/; below it (nested sets such as
# results/2026-12-01-advise/icount-credit/) *.md, manifest.json,
# summary.json, summary.txt and abstat.{json,txt}, and a nested set's own
# raw.tar.xz (the scripts pack what they write).  Everything else -
# runs/, per-transfer JSON, samples.jsonl, consoles, profiles, build logs
# - is raw.
#
# pack: deterministic (names sorted, mtime 0, owner 0:0, modes 644/755,
# GNU format, single-threaded xz -6), so packing the same files again
# gives the same bytes.  It adds the raw files beside an existing archive
# (a re-summarized set packs again), checks the archive lists every file
# it should and only then deletes the packed files.
# unpack: into DEST (made if missing, must be empty): the set's plain
# files copied, the archive's members extracted; a reader works on DEST
# as on an unpacked set.
# extract: the archive's members back into SET (experiment.sh
# --resummarize rewrites them, then packs again).
# Exit: 0 done; 1 a failure (archive unreadable, tar/xz failed); 2 usage.
set -euo pipefail

ARCHIVE=raw.tar.xz
me=${0##*/}

usage() {
	sed -n '2,/^set -euo/p' "$0" | sed '$d; s/^# \{0,1\}//' >&2
	exit 2
}

# is_plain RELPATH: the layout rule above
is_plain() {
	local p=$1 base=${1##*/}
	# a nested set's own archive (advise-ab.sh --out SET/RULE) stays its
	case /$p in */"$ARCHIVE") return 0 ;; esac
	case $p in plots/*) return 0 ;; esac
	if [ "$base" = "$p" ]; then
		case $base in *.md|*.json|*.txt|*.tsv) return 0 ;; esac
		return 1
	fi
	case /$p/ in */runs/*) return 1 ;; esac
	case $base in
	*.md|manifest.json|summary.json|summary.txt|abstat.json|abstat.txt) return 0 ;;
	esac
	return 1
}

# raw_files SET: the set's raw files, relative, NUL-separated, sorted
raw_files() {
	local p
	(cd "$1" && find . -type f -printf '%P\0' | LC_ALL=C sort -z) |
	while IFS= read -r -d '' p; do
		is_plain "$p" || printf '%s\0' "$p"
	done
}

pack() {
	local set=$1 tmp list old
	[ -d "$set" ] || { echo "$me: $set: not a directory" >&2; return 2; }
	tmp=$(mktemp -d) || return 1
	# shellcheck disable=SC2064 # expand now: tmp is local
	trap "rm -rf '$tmp'" RETURN
	raw_files "$set" >"$tmp/new"
	if [ ! -s "$tmp/new" ]; then
		echo "$me: $set: no raw files to pack" >&2
		return 0
	fi
	# A set packed before: its members join the new files (a file
	# written again replaces its member).
	mkdir "$tmp/tree"
	if [ -f "$set/$ARCHIVE" ]; then
		xz -dc "$set/$ARCHIVE" | tar -xf - -C "$tmp/tree" ||
			{ echo "$me: $set/$ARCHIVE: cannot unpack" >&2; return 1; }
	fi
	(cd "$set" && tar --null -T "$tmp/new" -cf - | tar -xf - -C "$tmp/tree") ||
		{ echo "$me: $set: cannot copy the raw files" >&2; return 1; }
	list=$tmp/list
	(cd "$tmp/tree" && find . -type f -printf '%P\0' | LC_ALL=C sort -z) >"$list"
	(cd "$tmp/tree" && tar --null --no-recursion -T "$list" --format=gnu \
		--mtime=@0 --owner=0 --group=0 --numeric-owner \
		--mode='u+rw,go+r,go-w' -cf -) | xz -6 -T1 -c >"$tmp/$ARCHIVE" ||
		{ echo "$me: $set: tar/xz failed" >&2; return 1; }
	# Delete nothing the archive does not hold.
	old=$(xz -dc "$tmp/$ARCHIVE" | tar -tf - | LC_ALL=C sort | tr '\n' '\0' | cmp - "$list" 2>&1) ||
		{ echo "$me: $set: the new archive does not list what was packed: $old" >&2; return 1; }
	mv "$tmp/$ARCHIVE" "$set/$ARCHIVE"
	(cd "$set" && xargs -0 rm -f <"$tmp/new")
	find "$set" -mindepth 1 -type d -empty -delete
	echo "$me: $set: $(tr -cd '\0' <"$list" | wc -c) files in $ARCHIVE ($(du -k "$set/$ARCHIVE" | cut -f1) KiB)" >&2
}

unpack() {
	local set=$1 dest=$2
	[ -d "$set" ] || { echo "$me: $set: not a directory" >&2; return 2; }
	mkdir -p "$dest"
	[ -z "$(ls -A "$dest")" ] || { echo "$me: $dest: not empty" >&2; return 2; }
	# the plain files (and raw ones of a set not packed yet)
	(cd "$set" && tar --exclude="./$ARCHIVE" -cf - .) | tar -xf - -C "$dest" ||
		{ echo "$me: $set: cannot copy to $dest" >&2; return 1; }
	[ -f "$set/$ARCHIVE" ] || return 0
	xz -dc "$set/$ARCHIVE" | tar -xf - -C "$dest" ||
		{ echo "$me: $set/$ARCHIVE: cannot unpack" >&2; return 1; }
}

extract() {
	local set=$1
	[ -f "$set/$ARCHIVE" ] || { echo "$me: $set/$ARCHIVE: no such archive" >&2; return 1; }
	xz -dc "$set/$ARCHIVE" | tar -xf - -C "$set" ||
		{ echo "$me: $set/$ARCHIVE: cannot unpack" >&2; return 1; }
	rm -f "$set/$ARCHIVE"
}

[ $# -ge 1 ] || usage
cmd=$1
shift
case $cmd in
pack)
	[ $# -ge 1 ] || usage
	for s in "$@"; do pack "$s"; done ;;
unpack)
	[ $# -eq 2 ] || usage
	unpack "$1" "$2" ;;
extract)
	[ $# -eq 1 ] || usage
	extract "$1" ;;
cat)
	[ $# -eq 2 ] || usage
	[ -f "$1/$ARCHIVE" ] || { echo "$me: $1/$ARCHIVE: no such archive" >&2; exit 1; }
	xz -dc "$1/$ARCHIVE" | tar -xOf - "$2" 2>/dev/null ||
		{ echo "$me: $1/$ARCHIVE: unreadable, or no member $2" >&2; exit 1; } ;;
list)
	[ $# -eq 1 ] || usage
	[ -f "$1/$ARCHIVE" ] || { echo "$me: $1/$ARCHIVE: no such archive" >&2; exit 1; }
	xz -dc "$1/$ARCHIVE" | tar -tf - ;;
plain)
	[ $# -eq 1 ] || usage
	is_plain "$1" ;;
-h|--help) usage ;;
*) echo "$me: unknown command '$cmd'" >&2; usage ;;
esac
