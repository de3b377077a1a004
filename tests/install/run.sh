#!/bin/sh
# make install from a clean copy of the checkout (its tracked and
# unignored files, no build outputs) into a temporary prefix, built as an
# unprivileged user (nobody, when the suite runs as root) whose dependency
# check is told that every package only the tests need is missing and
# whose PATH answers every test-only tool with a failure: the build needs
# only the build's packages. Then only what was installed: an app compiled
# with pkg-config, run through the installed launcher, its run read by the
# installed reader, the same for the Python and Fortran markers (found
# through pkg-config), each man page rendered; make uninstall leaves no
# file; DESTDIR stages /usr/local under a root, the Python module where
# the system's python3 finds it.
. tests/lib.sh
suite_begin install
unset PMCSHIM_EVENTS PMCSHIM_QUIET PMCSHIM_OUTPUT LD_PRELOAD PMCSHIM_DEPS_ABSENT
chmod 755 "$tmp"
src=$tmp/src
P=$tmp/prefix
want=$(sed -n 's/^#define PMCSHIM_VERSION "\(.*\)"$/\1/p' include/pmcshim.h)
mkdir -p "$src" "$P"
git ls-files -co --exclude-standard -z | tar --null -T - -cf - | tar -xf - -C "$src"

# The user: nobody when root (setpriv), else whoever runs the suite.
as_user=""
if [ "$(id -u)" = 0 ]; then
	if command -v setpriv >/dev/null 2>&1 && id nobody >/dev/null 2>&1; then
		chown -R nobody "$src" "$P"
		as_user="setpriv --reuid=$(id -u nobody) --regid=$(id -g nobody) --clear-groups"
	fi
fi
# The test-only tools, each a stand-in that notes its use and fails.
fake=$tmp/test-only-tools
mkdir -p "$fake"
for t in clang clang-14 g++ c++ gfortran python3 pkg-config man qemu-system-aarch64 \
	 aarch64-linux-gnu-gcc mpicc mpirun chromium; do
	printf '#!/bin/sh\necho "%s $*" >>%s/used\nexit 1\n' "$t" "$tmp" >"$fake/$t"
	chmod 755 "$fake/$t"
done
test_only=$(make -s print-test-deps | tr '\n' ' ')
# user_make ABSENT MAKE-ARGS...: make in the copy, as the user, with the
# stand-ins first on PATH and the ABSENT packages taken as missing
user_make() {
	absent=$1
	shift
	env -i PATH="$fake:/usr/bin:/bin" HOME="$tmp" TMPDIR=/tmp PMCSHIM_DEPS_ABSENT="$absent" \
		$as_user make -C "$src" -j2 "$@" 2>&1
}

# The hook works (a build package said missing stops the build, with the
# line to run), so the runs below prove something.
out=$(user_make libdw-dev all)
case $out in
*"apt-get install libdw-dev"*) result deps_hook_stops_build ok ;;
*) if command -v dpkg-query >/dev/null 2>&1; then
	result deps_hook_stops_build fail "$(printf '%s\n' "$out" | tail -3)"
   else
	result deps_hook_stops_build "skip:no dpkg (not Debian)"
   fi ;;
esac

if [ -z "$as_user" ] && [ "$(id -u)" = 0 ]; then
	result unprivileged_build "skip:root without setpriv or a nobody user: built as root"
fi
if ! user_make "$test_only" install PREFIX="$P" >"$tmp/make.log"; then
	result make_install fail "$(tail -5 "$tmp/make.log")"
	suite_end
	exit 1
fi
result make_install ok
cp "$tmp/make.log" "$tmp/make-install.log"
if user_make "$test_only" demo >"$tmp/demo.log" && grep -q 'solve' "$tmp/demo.log"; then
	result make_demo ok
else
	result make_demo fail "$(tail -5 "$tmp/demo.log")"
fi
if [ ! -s "$tmp/used" ] && ! grep -q 'jansson' "$tmp/make.log" "$tmp/demo.log"; then
	result build_uses_no_test_tool ok
else
	result build_uses_no_test_tool fail "used: $(cat "$tmp/used" 2>/dev/null)" \
		"$(grep -h jansson "$tmp/make.log" "$tmp/demo.log" | head -2)"
fi
[ -n "$as_user" ] && [ -z "$(find "$src" "$P" -user root | head -1)" ] &&
	result unprivileged_build ok
# libpfm4-dev is optional: a compiler that cannot include its header (one
# that errors, first on the include path) builds a launcher and shim that
# say native names are missing, and why.
mkdir -p "$tmp/nopfm/perfmon"
echo '#error libpfm4-dev hidden by the install test' >"$tmp/nopfm/perfmon/pfmlib_perf_event.h"
if user_make "$test_only" B=build-nopfm CC="cc -I$tmp/nopfm" build-nopfm/pmcshim \
	build-nopfm/libpmcshim.so >"$tmp/nopfm.log" &&
   "$src/build-nopfm/pmcshim" --list-events 2>&1 | grep -q "built without libpfm4's headers"; then
	result build_without_libpfm4 ok
else
	result build_without_libpfm4 fail "$(tail -3 "$tmp/nopfm.log")"
fi
rm -rf "$src/build-nopfm"
rm -rf "$src/build"	# from here on, only the installed files

export PKG_CONFIG_PATH=$P/lib/pkgconfig
cflags=$(pkg-config --cflags pmcshim | sed 's/ *$//') libs=$(pkg-config --libs pmcshim)
if ${CC:-cc} -std=c11 -Wall -Wextra -Werror $cflags -o "$tmp/app" tests/install/app.c $libs \
	2>"$tmp/cc.err" && [ "$cflags" = "-I$P/include" ]; then
	result pkg_config_compile ok
else
	result pkg_config_compile fail "cflags '$cflags' libs '$libs'" "$(cat "$tmp/cc.err")"
fi

(cd "$tmp" && PATH=$P/bin:/usr/bin:/bin pmcshim -o run ./app >out 2>err)
rc=$?
calls=$(awk '$1 == "installed" { print $3 }' "$tmp/err")
if [ $rc = 0 ] && [ "$(cat "$tmp/out")" = "app: under pmcshim" ] && [ "$calls" = 5 ]; then
	result installed_launcher ok
else
	result installed_launcher fail "exit $rc, out '$(cat "$tmp/out")', calls '$calls'" "$(tail -5 "$tmp/err")"
fi

"$P/bin/pmcshim-report" --format csv "$tmp"/run/* >"$tmp/csv" 2>&1
grep -q '^installed,5,' "$tmp/csv" && result installed_reader ok ||
	result installed_reader fail "$(head -3 "$tmp/csv")"

# Python and Fortran markers, as installed: the module found through
# pkg-config's pythondir, the Fortran module's source through its
# fortran_module, each run through the installed launcher and read.
# installed_run TEST NAME WANT-OUT COMMAND...: COMMAND under the installed
# launcher prints WANT-OUT and its region NAME counts 5 calls
installed_run() {
	t=$1 name=$2 want_out=$3
	shift 3
	rm -rf "$tmp/run-$name"
	PATH=$P/bin:/usr/bin:/bin pmcshim -q -o "$tmp/run-$name" "$@" >"$tmp/out" 2>"$tmp/err"
	rc=$?
	n=$("$P/bin/pmcshim-report" --format csv "$tmp/run-$name"/* 2>&1 |
		awk -F, -v r="$name" '$1 == r { print $2 }')
	if [ $rc = 0 ] && [ "$(cat "$tmp/out")" = "$want_out" ] && [ "$n" = 5 ]; then
		result "$t" ok
	else
		result "$t" fail "exit $rc, out '$(cat "$tmp/out")', calls '$n'" \
			"$(tail -3 "$tmp/err")"
	fi
}
pydir=$(pkg-config --variable=pythondir pmcshim)
# a PREFIX python3 does not search: make install named what to set
py3=$(command -v python3)
if [ -z "$py3" ] || "$py3" -c "import sys; sys.exit('$pydir' not in sys.path)"; then
	result install_says_pythonpath "skip:python3 missing, or it searches $pydir"
elif grep -q "set PYTHONPATH=$pydir\$" "$tmp/make-install.log"; then
	result install_says_pythonpath ok
else
	result install_says_pythonpath fail "make install said: $(grep -i python "$tmp/make-install.log")"
fi
py=$(command -v python3) && py=$("$py" -c 'import sys; print(sys.executable)')
if [ -z "$py" ]; then
	result installed_python "skip:no python3"
elif [ ! -f "$pydir/pmcshim.py" ]; then
	result installed_python fail "pythondir '$pydir' has no pmcshim.py"
else
	PYTHONDONTWRITEBYTECODE=1 PYTHONPATH=$pydir installed_run installed_python installed_py "app.py: under pmcshim" "$py" tests/install/app.py
fi
fmod=$(pkg-config --variable=fortran_module pmcshim)
if ! command -v gfortran >/dev/null 2>&1; then
	result installed_fortran "skip:no gfortran"
elif (cd "$tmp" && gfortran -o app-f "$fmod" "$OLDPWD/tests/install/app.f90" $libs \
	>"$tmp/fc.err" 2>&1); then
	installed_run installed_fortran installed_f "app.f90: under pmcshim" "$tmp/app-f"
else
	result installed_fortran fail "module '$fmod'" "$(head -5 "$tmp/fc.err")"
fi
# the metrics files found in PREFIX/share/pmcshim/metrics (the build tree is gone)
"$P/bin/pmcshim-report" --list-metrics >"$tmp/lm" 2>&1 &&
	"$P/bin/pmcshim-report" -M IPC "$tmp"/run/* >"$tmp/m" 2>&1
if grep -qx "# $P/share/pmcshim/metrics/generic.def" "$tmp/lm" && grep -q '^IPC ' "$tmp/lm" &&
   grep -q '^metric IPC: n/a' "$tmp/m"; then
	result installed_metrics ok
else
	result installed_metrics fail "$(head -2 "$tmp/lm")" "$(tail -2 "$tmp/m")"
fi

v1=$("$P/bin/pmcshim" --version) v2=$("$P/bin/pmcshim-report" --version)
[ "$v1" = "pmcshim $want" ] && [ "$v2" = "pmcshim-report $want" ] && result versions ok ||
	result versions fail "'$v1' '$v2', want $want"

for page in man1/pmcshim.1 man1/pmcshim-report.1 man3/pmcshim.3; do
	f=$P/share/man/$page
	MANWIDTH=80 man --warnings -l "$f" >"$tmp/page" 2>"$tmp/warn"
	if [ -s "$tmp/page" ] && [ ! -s "$tmp/warn" ] && grep -q '^NAME' "$tmp/page" &&
	   grep -q "pmcshim $want" "$tmp/page"; then
		result "man_$(basename "$page")" ok
	else
		result "man_$(basename "$page")" fail "$(head -3 "$tmp/warn")"
	fi
done

# uninstall needs the sources (the makefile), not the build; it also
# takes the module's byte code, which an import by the user left
[ -x /usr/bin/python3 ] && env -u PYTHONDONTWRITEBYTECODE PYTHONPATH="$pydir" \
	$as_user /usr/bin/python3 -c 'import pmcshim' 2>/dev/null
user_make "$test_only" uninstall PREFIX="$P" >"$tmp/make.log"
left=$(find "$P" ! -type d)
[ -z "$left" ] && result uninstall_leaves_no_file ok ||
	result uninstall_leaves_no_file fail $left

# A staged /usr/local: every file under the root, the .pc's prefix, and
# the Python module where the system's python3 looks without PYTHONPATH.
S=$tmp/stage
mkdir -p "$S" && [ -n "$as_user" ] && chown nobody "$S"
user_make "$test_only" install DESTDIR="$S" PREFIX=/usr/local >"$tmp/make.log"
pc=$S/usr/local/lib/pkgconfig/pmcshim.pc
if [ -x "$S/usr/local/bin/pmcshim" ] && [ -f "$S/usr/local/lib/pmcshim/libpmcshim.so" ] &&
   grep -qx 'prefix=/usr/local' "$pc" &&
   "$S/usr/local/bin/pmcshim" -q -o "$tmp/staged-run" "$tmp/app" >/dev/null 2>"$tmp/err"; then
	pydir=$(sed -n 's/^pythondir=//p' "$pc")
	if [ ! -x /usr/bin/python3 ]; then
		result python_module_on_path "skip:no /usr/bin/python3"
	elif [ -f "$S$pydir/pmcshim.py" ] &&
	     env -u PYTHONPATH /usr/bin/python3 -c 'import sys; sys.exit(sys.argv[1] not in sys.path)' "$pydir"
	then
		result python_module_on_path ok
	else
		result python_module_on_path fail "pythondir '$pydir' (not searched by /usr/bin/python3?)"
	fi
	user_make "$test_only" uninstall DESTDIR="$S" PREFIX=/usr/local >>"$tmp/make.log"
	left=$(find "$S" ! -type d)
	[ -z "$left" ] && result destdir_install_uninstall ok ||
		result destdir_install_uninstall fail "left after uninstall:" $left
else
	result destdir_install_uninstall fail "$(tail -3 "$tmp/make.log")" "$(cat "$tmp/err")"
fi

# tools/build/deps.sh: silent for what is installed; for a missing package, the
# one apt-get line (no --install here: the test must not install anything).
out=$(sh tools/build/deps.sh make 2>&1) && out2=$(sh tools/build/deps.sh make no-such-package-pmcshim 2>&1)
rc=$?
if ! command -v dpkg-query >/dev/null 2>&1; then
	result deps_check "skip:no dpkg (not Debian)"
elif [ -z "$out" ] && [ $rc = 1 ] &&
     [ "$out2" = "deps: missing Debian packages; run (as root): apt-get install no-such-package-pmcshim" ]; then
	result deps_check ok
else
	result deps_check fail "installed: '$out'; missing: exit $rc '$out2'"
fi

# make -j2 on a fresh machine runs the build's and the tests' checks; as
# root they install, and two apt-get runs at once fail on apt's lock.
# With stand-ins for dpkg (every package missing), apt-get (logs its
# start and end) and id (root), the two stamps made at once must run
# apt-get one after the other.
fk=$tmp/fake-apt
mkdir -p "$fk"
printf '#!/bin/sh\nexit 1\n' >"$fk/dpkg-query"
printf '#!/bin/sh\ncase $1 in --print-architecture) echo amd64 ;; --print-foreign-architectures) echo arm64 ;; esac\n' \
	>"$fk/dpkg"
printf '#!/bin/sh\necho 0\n' >"$fk/id"
printf '#!/bin/sh\necho "start $$" >>%s/apt.log\nsleep 0.3\necho "end $$" >>%s/apt.log\n' \
	"$tmp" "$tmp" >"$fk/apt-get"
chmod 755 "$fk"/*
PATH=$fk:$PATH make -s -j2 B="$tmp/fresh" DEPS_INSTALL=--install \
	"$tmp/fresh/.deps-ok" "$tmp/fresh/.test-deps-ok" >"$tmp/apt.out" 2>&1
overlap=$(awk '$1 == "start" && open { print "two apt-get runs at once" } { open = $1 == "start" }' \
	"$tmp/apt.log" 2>/dev/null)
runs=$(grep -c '^start' "$tmp/apt.log" 2>/dev/null)
if [ -z "$overlap" ] && [ "$runs" = 4 ] && [ -f "$tmp/fresh/.test-deps-ok" ]; then
	result deps_install_one_at_a_time ok
else
	result deps_install_one_at_a_time fail "${overlap:-$runs apt-get runs, want 4}" \
		"$(cat "$tmp/apt.log" 2>/dev/null)" "$(tail -3 "$tmp/apt.out")"
fi
suite_end
