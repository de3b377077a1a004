#!/bin/sh
# What the build (and the tests) need from Debian, checked by package:
#   sh tools/deps.sh [--install] [--arm64] PACKAGE...
# Prints nothing and exits 0 when every package is installed. Otherwise,
# with --install and as root: says what it installs and installs it (with
# --arm64, first enables the arm64 architecture the guest suite downloads
# packages of); else prints the one apt-get line to run and exits 1.
# Without dpkg (not Debian), it trusts the compiler to say what is missing.
install=0 arm64=0
while :; do
	case ${1-} in
	--install) install=1; shift ;;
	--arm64) arm64=1; shift ;;
	*) break ;;
	esac
done
command -v dpkg-query >/dev/null 2>&1 || exit 0

missing=""
for p in "$@"; do
	dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'ok installed' ||
		missing="$missing $p"
done
need_arch=0
[ $arm64 = 1 ] && ! { dpkg --print-architecture; dpkg --print-foreign-architectures; } |
	grep -qx arm64 && need_arch=1
[ -z "$missing" ] && [ $need_arch = 0 ] && exit 0

if [ $install = 1 ] && [ "$(id -u)" = 0 ]; then
	[ $need_arch = 1 ] && echo "deps: enabling the arm64 architecture (dpkg --add-architecture arm64)" &&
		dpkg --add-architecture arm64
	echo "deps: installing missing Debian packages:${missing:- (none; refreshing the package lists)}"
	export DEBIAN_FRONTEND=noninteractive
	apt-get update -qq && { [ -z "$missing" ] || apt-get install -y -qq --no-install-recommends $missing; } ||
		{ echo "deps: apt-get failed"; exit 1; }
	exit 0
fi
[ $need_arch = 1 ] && echo "deps: the arm64 guest suite needs (as root): dpkg --add-architecture arm64 && apt-get update"
[ -n "$missing" ] && echo "deps: missing Debian packages; run (as root): apt-get install$missing"
exit 1
