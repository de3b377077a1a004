#!/bin/sh
# make install from a clean copy of the checkout (its tracked and
# unignored files, no build outputs) into a temporary prefix, built as an
# unprivileged user (nobody, when the suite runs as root) whose dependency
# check is told that every package only the tests need is missing and
# whose PATH answers every test-only tool with a failure: the build needs
# only the build's packages. Then only what was installed: an app compiled
# with pkg-config, run through the installed launcher, its run read by the
# installed reader, each man page rendered; make uninstall leaves no file;
# DESTDIR stages under a root.
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

# uninstall needs the sources (the makefile), not the build
user_make "$test_only" uninstall PREFIX="$P" >"$tmp/make.log"
left=$(find "$P" ! -type d)
[ -z "$left" ] && result uninstall_leaves_no_file ok ||
	result uninstall_leaves_no_file fail $left

S=$tmp/stage
mkdir -p "$S" && [ -n "$as_user" ] && chown nobody "$S"
user_make "$test_only" install DESTDIR="$S" PREFIX=/opt/pmc >"$tmp/make.log"
if [ -x "$S/opt/pmc/bin/pmcshim" ] && [ -f "$S/opt/pmc/lib/pmcshim/libpmcshim.so" ] &&
   grep -qx 'prefix=/opt/pmc' "$S/opt/pmc/lib/pkgconfig/pmcshim.pc" &&
   "$S/opt/pmc/bin/pmcshim" -q -o "$tmp/staged-run" "$tmp/app" >/dev/null 2>"$tmp/err"; then
	user_make "$test_only" uninstall DESTDIR="$S" PREFIX=/opt/pmc >>"$tmp/make.log"
	left=$(find "$S" ! -type d)
	[ -z "$left" ] && result destdir_install_uninstall ok ||
		result destdir_install_uninstall fail "left after uninstall:" $left
else
	result destdir_install_uninstall fail "$(tail -3 "$tmp/make.log")" "$(cat "$tmp/err")"
fi

# tools/deps.sh: silent for what is installed; for a missing package, the
# one apt-get line (no --install here: the test must not install anything).
out=$(sh tools/deps.sh make 2>&1) && out2=$(sh tools/deps.sh make no-such-package-pmcshim 2>&1)
rc=$?
if ! command -v dpkg-query >/dev/null 2>&1; then
	result deps_check "skip:no dpkg (not Debian)"
elif [ -z "$out" ] && [ $rc = 1 ] &&
     [ "$out2" = "deps: missing Debian packages; run (as root): apt-get install no-such-package-pmcshim" ]; then
	result deps_check ok
else
	result deps_check fail "installed: '$out'; missing: exit $rc '$out2'"
fi
suite_end
