#!/bin/sh
# What the build (and, apart, the tests) need from Debian, checked by package:
#   sh tools/build/deps.sh [--install] [--arm64] PACKAGE...
# Prints nothing and exits 0 when every package is installed. Otherwise,
# with --install and as root: says what it installs and installs it (with
# --arm64, first enables the arm64 architecture the guest suite downloads
# packages of); else prints the one apt-get line to run and exits 1.
# Without dpkg (not Debian), it trusts the compiler to say what is missing.
#
# PMCSHIM_DEPS_ABSENT="PACKAGE..." makes the check take those packages as
# not installed (tests/install proves with it that the build does not ask
# for what only the tests need).
install=0 arm64=0
while :; do
	case ${1-} in
	--install) install=1; shift ;;
	--arm64) arm64=1; shift ;;
	*) break ;;
	esac
done
command -v dpkg-query >/dev/null 2>&1 || exit 0

absent() {
	case " ${PMCSHIM_DEPS_ABSENT-} " in
	*" $1 "*) return 0 ;;
	esac
	! dpkg-query -W -f='${Status}' "$1" 2>/dev/null | grep -q 'ok installed'
}

missing=""
for p in "$@"; do
	absent "$p" && missing="$missing $p"
done
need_arch=0
[ $arm64 = 1 ] && ! { dpkg --print-architecture; dpkg --print-foreign-architectures; } |
	grep -qx arm64 && need_arch=1
[ -z "$missing" ] && [ $need_arch = 0 ] && exit 0

# One installer at a time: make -j runs the build's and the tests' checks
# side by side, and two apt-get runs fail on each other's lock. The make
# rules order them; the lock also covers two makes (two worktrees), and
# apt waits for any other apt that holds its own locks.
install_missing() {
	[ $need_arch = 1 ] && echo "deps: enabling the arm64 architecture (dpkg --add-architecture arm64)" &&
		dpkg --add-architecture arm64
	echo "deps: installing missing Debian packages:${missing:- (none; refreshing the package lists)}"
	export DEBIAN_FRONTEND=noninteractive
	wait_lock="-o DPkg::Lock::Timeout=300"
	apt-get update -qq $wait_lock && { [ -z "$missing" ] ||
		apt-get install -y -qq --no-install-recommends $wait_lock $missing; } ||
		{ echo "deps: apt-get failed"; return 1; }
}

if [ $install = 1 ] && [ "$(id -u)" = 0 ] && [ -z "${PMCSHIM_DEPS_ABSENT-}" ]; then
	if command -v flock >/dev/null 2>&1; then
		dir=/run/lock
		[ -d $dir ] && [ -w $dir ] || dir=/tmp
		exec 9>$dir/pmcshim-deps.lock
		flock 9
	fi
	install_missing
	exit
fi
[ $need_arch = 1 ] && echo "deps: the arm64 guest suite needs (as root): dpkg --add-architecture arm64 && apt-get update"
[ -n "$missing" ] && echo "deps: missing Debian packages; run (as root): apt-get install$missing"
exit 1
