#!/bin/sh
# installed.sh - the tools as a user installs them, inside a lab guest:
# the image carries a `make install DESTDIR=` tree (/usr/local) and the
# Debian package installed with dpkg --root (/usr) over it
# (tests/install-guest.sh).  Each installed file is the one the host
# installed (sha256, /vb-install/expect), each vsockbatch says its
# version and runs `probe` on this kernel, vsockbatch-top is the same
# program under its own name, the benchmarks answer --help, and the man
# pages, completions and dpkg's record are in place.
out=${RESULTS:?}/installed
mkdir -p "$out" || exit 1
fails=0
fail() {
	echo "FAIL: $*"
	fails=$((fails + 1))
}

[ -r /vb-install/expect ] || { echo "FAIL: /vb-install/expect missing"; exit 1; }
n=0
while read -r sum path; do
	got=$(sha256sum "$path" 2>/dev/null | cut -d' ' -f1)
	[ "$got" = "$sum" ] || fail "$path: sha256 ${got:-missing}, installed $sum"
	n=$((n + 1))
done </vb-install/expect
echo "checked $n installed files"
[ "$n" -gt 0 ] || fail "no installed file listed"
version=$(cat /vb-install/version)

for dir in /usr/local/bin /usr/bin; do
	v=$dir/vsockbatch
	tag=$(echo "${dir%/bin}" | tr / _)	# _usr_local, _usr
	"$v" --version >"$out/version$tag.txt" 2>&1 ||
		fail "$v --version: exit $?"
	head -n 1 "$out/version$tag.txt" | grep -qx "vsockbatch $version" ||
		fail "$v --version: '$(head -n 1 "$out/version$tag.txt")', not 'vsockbatch $version'"
	grep -q '^bpf object: [0-9a-f]\{16\} ' "$out/version$tag.txt" ||
		fail "$v --version: no BPF build id"
	"$dir/vsockbatch-top" --version 2>&1 | head -n 1 |
		grep -qx "vsockbatch-top $version" || fail "$dir/vsockbatch-top --version"
	"$v" probe >"$out/probe$tag.txt" 2>&1
	rc=$?
	cat "$out/probe$tag.txt"
	[ $rc -eq 0 ] || fail "$v probe: exit $rc"
	grep -q '^kernel [^:]*: \(baseline\|batched\) ' "$out/probe$tag.txt" ||
		fail "$v probe: no kernel mode line"
	for b in vb-sender vb-recv vb-pingpong vb-mark; do
		"$dir/$b" --help >/dev/null 2>&1 || fail "$dir/$b --help: exit $?"
	done
done

for f in /usr/local/share/man/man8/vsockbatch.8 /usr/local/share/man/man1/vb-recv.1 \
	/usr/share/man/man8/vsockbatch.8.gz /usr/share/man/man8/vsockbatch-top.8.gz \
	/usr/local/share/bash-completion/completions/vsockbatch \
	/usr/share/bash-completion/completions/vsockbatch-top; do
	[ -e "$f" ] || fail "$f not installed"
done
awk '/^Package: vsockbatch$/ { p = 1 } p && /^Status: install ok installed$/ { ok = 1 }
     /^$/ { p = 0 } END { exit !ok }' /var/lib/dpkg/status ||
	fail "dpkg's status does not list vsockbatch as installed"

echo "installed: $fails failures"
[ $fails -eq 0 ]
