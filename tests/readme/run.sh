#!/bin/sh
# The README's two commands in the order a new user runs them, on a copy of
# the checkout: `make demo` on a machine without libpfm4's headers (the
# build's one optional package), then the build again once `make test` has
# installed them. The object with native event names must follow the
# headers, whichever order the commands ran in. The headers are moved aside
# for the first build (standing for a machine without libpfm4-dev) and put
# back before the second, and at any exit of this suite.
. tests/lib.sh
suite_begin readme
hdr=/usr/include/perfmon
hidden=$hdr.pmcshim-test-hidden
src=$tmp/src

restore() { [ -d "$hidden" ] && mv "$hidden" "$hdr"; rm -rf "$tmp"; }

if [ "$(id -u)" != 0 ]; then
	result native_names_follow_headers "skip:not root: libpfm4's headers cannot be moved aside"
elif [ ! -d "$hdr" ] || [ -e "$hidden" ]; then
	result native_names_follow_headers "skip:libpfm4's headers are not in $hdr"
else
	trap restore EXIT INT TERM
	mkdir -p "$src"
	git ls-files -co --exclude-standard -z | tar --null -T - -cf - | tar -xf - -C "$src"
	mv "$hdr" "$hidden"
	make -C "$src" demo >"$tmp/demo.log" 2>&1; rc1=$?
	mv "$hidden" "$hdr"
	make -C "$src" all >"$tmp/again.log" 2>&1; rc2=$?
	if [ $rc1 = 0 ] && grep -q 'nopfm/pfm\.c -o build/shim/counters/pfm\.o' "$tmp/demo.log"; then
		result demo_without_headers ok
	else
		result demo_without_headers fail "make demo: exit $rc1, stand-in not built" \
			"$(tail -n 5 "$tmp/demo.log")"
	fi
	if [ $rc2 = 0 ] && grep -q ' preload/counters/pfm\.c -o build/shim/counters/pfm\.o' "$tmp/again.log"; then
		result native_names_follow_headers ok
	else
		result native_names_follow_headers fail \
			"make after the headers appeared: exit $rc2, pfm.o not rebuilt with them" \
			"$(grep 'pfm' "$tmp/again.log" | head -n 3)"
	fi
	make -C "$src" all >"$tmp/third.log" 2>&1
	if ! grep -q 'pfm\.o' "$tmp/third.log"; then
		result unchanged_headers_rebuild_nothing ok
	else
		result unchanged_headers_rebuild_nothing fail "$(grep 'pfm' "$tmp/third.log" | head -n 3)"
	fi
fi
suite_end
