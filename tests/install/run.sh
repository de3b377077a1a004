#!/bin/sh
# make install from a clean copy of the checkout (its tracked and
# unignored files, no build outputs) into a temporary prefix, then only
# what was installed: an app compiled with pkg-config, run through the
# installed launcher, its run read by the installed reader, each man page
# rendered; make uninstall leaves no file; DESTDIR stages under a root.
. tests/lib.sh
suite_begin install
unset PMCSHIM_EVENTS PMCSHIM_QUIET PMCSHIM_OUTPUT LD_PRELOAD
src=$tmp/src
P=$tmp/prefix
want=$(sed -n 's/^#define PMCSHIM_VERSION "\(.*\)"$/\1/p' include/pmcshim.h)
mkdir -p "$src"
git ls-files -co --exclude-standard -z | tar --null -T - -cf - | tar -xf - -C "$src"
if ! make -C "$src" -j4 install PREFIX="$P" >"$tmp/make.log" 2>&1; then
	result make_install fail "$(tail -5 "$tmp/make.log")"
	suite_end
	exit 1
fi
rm -rf "$src/build"	# from here on, only the installed files
result make_install ok

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

# uninstall needs the sources (the makefile), not the build
make -C "$src" uninstall PREFIX="$P" >"$tmp/make.log" 2>&1
left=$(find "$P" ! -type d)
[ -z "$left" ] && result uninstall_leaves_no_file ok ||
	result uninstall_leaves_no_file fail $left

S=$tmp/stage
make -C "$src" -j4 install DESTDIR="$S" PREFIX=/opt/pmc >"$tmp/make.log" 2>&1
if [ -x "$S/opt/pmc/bin/pmcshim" ] && [ -f "$S/opt/pmc/lib/pmcshim/libpmcshim.so" ] &&
   grep -qx 'prefix=/opt/pmc' "$S/opt/pmc/lib/pkgconfig/pmcshim.pc" &&
   "$S/opt/pmc/bin/pmcshim" -q -o "$tmp/staged-run" "$tmp/app" >/dev/null 2>"$tmp/err"; then
	make -C "$src" uninstall DESTDIR="$S" PREFIX=/opt/pmc >>"$tmp/make.log" 2>&1
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
