# shellcheck shell=bash
# Debian packages pinned by version and SHA256, resolved against the
# archive.  Sourced by lib.sh, never run.
#
# The archive moves: a pinned version leaves it some weeks after a newer
# one arrives.  A pin is used while the archive serves it (or while the
# cache holds its verified .deb); otherwise the newest version of the
# same series is taken, with one line on stderr saying so.  A series is
# a glob over package names plus a version prefix: "linux-source-6.12"
# with "6.12.", or "linux-image-6.12.*+deb12-cloud-amd64-unsigned".
#
# Suites: the system's own (bookworm, its -updates and -security) are
# asked through the system's apt configuration; any other (sid) through
# a private sources list and state directory under $VB_CACHE/apt/SUITE,
# on the mirror the system uses.  The system's apt sources are never
# changed and nothing is installed.

# The mirror the system's Debian sources use (deb822 or one-line form).
apt_mirror() {
	local m

	m=$(awk '/^URIs:/ { for (i = 2; i <= NF; i++) if ($i !~ /security/) { print $i; exit } }' \
		/etc/apt/sources.list.d/*.sources 2>/dev/null | head -n 1)
	[ -n "$m" ] || m=$(awk '$1 == "deb" && $2 !~ /security/ { print $2; exit }' \
		/etc/apt/sources.list /etc/apt/sources.list.d/*.list 2>/dev/null | head -n 1)
	echo "${m:-http://deb.debian.org/debian}"
}

# The apt options that point apt at SUITE's private state ("" for the
# system's suites), one per line.
apt_suite_opts() {
	local d=$VB_CACHE/apt/$1

	case "$1" in
	''|system|bookworm|bookworm-*) return 0 ;;
	esac
	printf '%s\n' -o "Dir::Etc::sourcelist=$d/sources.list" \
		-o "Dir::Etc::sourceparts=-" -o "Dir::State::Lists=$d/lists" \
		-o "Dir::Cache=$d/cache" -o "Dir::State::status=$d/status" \
		-o "APT::Get::List-Cleanup=0"
}

# apt_suite_update SUITE [MAX_AGE_S]: a private suite's index, fetched
# when older than MAX_AGE_S (default 6 h).  The system's suites are the
# system's business (deps.sh updates them).
apt_suite_update() {
	local suite=$1 age=${2:-21600} d=$VB_CACHE/apt/$1 opts

	[ -z "$(apt_suite_opts "$suite")" ] && return 0
	if [ -f "$d/updated" ] &&
	    [ $(($(date +%s) - $(stat -c %Y "$d/updated"))) -lt "$age" ]; then
		return 0
	fi
	mkdir -p "$d/lists/partial" "$d/cache/archives/partial"
	: >>"$d/status"
	echo "deb [signed-by=/usr/share/keyrings/debian-archive-keyring.gpg] $(apt_mirror) $suite main" \
		>"$d/sources.list"
	mapfile -t opts < <(apt_suite_opts "$suite")
	if ! apt-get -q "${opts[@]}" update >"$d/update.log" 2>&1; then
		sed 's/^/  | /' "$d/update.log" | tail -n 5 >&2
		echo "cannot fetch the index of Debian $suite from $(apt_mirror)" >&2
		return 1
	fi
	touch "$d/updated"
}

# apt_q SUITE COMMAND ARGS...: apt-cache/apt-get on SUITE's index.
apt_q() {
	local suite=$1 opts
	shift
	mapfile -t opts < <(apt_suite_opts "$suite")
	"$1" "${opts[@]}" "${@:2}"
}

# deb_sha256 SUITE PKG VERSION: the .deb's SHA256 from the signed index,
# or nothing when the archive does not serve PKG=VERSION.
deb_sha256() {
	apt_q "$1" apt-cache show "$2=$3" 2>/dev/null |
		awk '/^SHA256:/ { print $2; exit }'
}

# deb_versions SUITE GLOB PREFIX: "VERSION PKG" of every version of any
# package named by GLOB whose version starts with PREFIX, oldest first.
deb_versions() {
	local suite=$1 glob=$2 prefix=$3 p v re

	# the glob as an anchored regex: * is any run of characters
	re="^$(printf '%s' "$glob" | sed 's/[.+]/\\&/g; s/\*/.*/g')\$"
	apt_q "$suite" apt-cache pkgnames "${glob%%\**}" 2>/dev/null | sort -u |
	while read -r p; do
		[[ "$p" =~ $re ]] || continue
		apt_q "$suite" apt-cache madison "$p" 2>/dev/null |
			awk -F'|' '{ gsub(/ /, "", $2); print $2 }' | sort -u |
		while read -r v; do
			case "$v" in "$prefix"*) echo "$v $p" ;; esac
		done
	done | sort -V
}

# deb_newest SUITE GLOB PREFIX: "PKG VERSION" of the newest of them, by
# dpkg's ordering (sort -V does not know that ~ sorts first).
deb_newest() {
	local v p best_v= best_p=

	while read -r v p; do
		if [ -z "$best_v" ] || dpkg --compare-versions "$v" gt "$best_v"; then
			best_v=$v best_p=$p
		fi
	done < <(deb_versions "$@")
	[ -n "$best_v" ] && echo "$best_p $best_v"
}

# deb_resolve WHAT SUITE GLOB PREFIX PKG VERSION SHA256: sets DEB_PKG,
# DEB_VERSION, DEB_SHA256 and DEB_NOTE (empty when the pin is used).
# The pin wins while the cache holds its verified .deb or the archive
# serves it; otherwise the newest of the series.  Non-zero, with a reason
# on stderr, when neither exists.
deb_resolve() {
	local what=$1 suite=$2 glob=$3 prefix=$4 pkg=$5 ver=$6 sha=$7 served nv

	DEB_PKG=$pkg DEB_VERSION=$ver DEB_SHA256=$sha DEB_NOTE=
	[ -f "$VB_CACHE/debs/$sha.deb" ] && return 0
	apt_suite_update "$suite" || return 1
	served=$(deb_sha256 "$suite" "$pkg" "$ver")
	if [ "$served" = "$sha" ]; then
		return 0
	elif [ -n "$served" ]; then
		echo "$what: the archive's $pkg=$ver has SHA256 $served, pinned $sha: refusing it" >&2
		return 1
	fi
	if ! nv=$(deb_newest "$suite" "$glob" "$prefix"); then
		echo "$what: pinned $pkg=$ver is not served and the archive ($suite) has no $glob of version $prefix*" >&2
		return 1
	fi
	read -r DEB_PKG DEB_VERSION <<<"$nv"
	DEB_SHA256=$(deb_sha256 "$suite" "$DEB_PKG" "$DEB_VERSION")
	DEB_NOTE="$what: pinned $pkg $ver not served; using $DEB_PKG $DEB_VERSION"
}

# deb_fetch WHAT SUITE PKG VERSION SHA256: $VB_CACHE/debs/SHA256.deb,
# downloaded with apt-get download (apt checks it against the signed
# index) and checked against the SHA256.  Prints the path.
deb_fetch() {
	local what=$1 suite=$2 pkg=$3 ver=$4 sha=$5 deb tmp f got

	deb=$VB_CACHE/debs/$sha.deb
	if [ -f "$deb" ] && [ "$(sha256sum <"$deb" | cut -d' ' -f1)" = "$sha" ]; then
		echo "$deb"
		return 0
	fi
	mkdir -p "$VB_CACHE/debs"
	tmp=$(mktemp -d "$VB_CACHE/debs/.tmp.XXXXXX")
	echo "[$what] apt-get download $pkg=$ver" >&2
	if ! (cd "$tmp" && apt_q "$suite" apt-get download -q "$pkg=$ver") \
	    >"$tmp/apt.log" 2>&1; then
		sed 's/^/  | /' "$tmp/apt.log" | tail -n 5 >&2
		rm -rf "$tmp"
		echo "$what: cannot download $pkg=$ver from Debian $suite" >&2
		return 1
	fi
	f=$(find "$tmp" -maxdepth 1 -name '*.deb' | head -n 1)
	got=$([ -n "$f" ] && sha256sum <"$f" | cut -d' ' -f1)
	if [ "$got" != "$sha" ]; then
		rm -rf "$tmp"
		echo "$what: $pkg=$ver has SHA256 ${got:-none}, expected $sha" >&2
		return 1
	fi
	mv "$f" "$deb"
	rm -rf "$tmp"
	echo "$deb"
}
