#!/bin/sh
# Install every Debian package vsockbatch needs (build, lab, tests, plots).
# Idempotent: packages already installed are skipped, so a warm run costs
# one dpkg query.
set -eu

PKGS="
build-essential make git clang llvm lld libbpf-dev bpftool
libelf-dev zlib1g-dev libzstd-dev libjansson-dev libncurses-dev
libcmocka-dev pkg-config libclang-rt-14-dev libglib2.0-dev
flex bison bc libssl-dev dwarves cpio xz-utils kmod
rsync ccache
qemu-system-x86 busybox-static
gnuplot-nox tmux jq file
scdoc debhelper bash-completion
libmicrohttpd-dev prometheus socat
"

missing=""
for p in $PKGS; do
	if ! dpkg-query -W -f='${Status}\n' "$p" 2>/dev/null |
	    grep -q '^install ok installed$'; then
		missing="$missing $p"
	fi
done

if [ -z "$missing" ]; then
	echo "deps: all packages present"
	exit 0
fi

if [ "$(id -u)" -ne 0 ]; then
	echo "deps: need root to install:$missing" >&2
	exit 1
fi

echo "deps: installing:$missing"
export DEBIAN_FRONTEND=noninteractive
apt-get update -qq
# shellcheck disable=SC2086
apt-get install -y -qq --no-install-recommends $missing
