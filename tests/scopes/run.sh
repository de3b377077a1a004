#!/bin/sh
# Scoped regions: every exit path of PMCSHIM_SCOPE (C) and pmcshim::scope
# (C++, exceptions included) ends its region. Checked on the merged table
# of a run through the launcher: the calls of each region, and no marker
# errors (a scope left open is an "open-at-exit" error, and the regions
# after it would be nested in it); a region left open on purpose shows
# the check can fail.
B=${B:-build}
. tests/lib.sh
suite_begin scopes
unset PMCSHIM_EVENTS PMCSHIM_QUIET PMCSHIM_OUTPUT
L=$B/pmcshim

# run NAME PROGRAM [ARGS...]: the program through the launcher into
# $tmp/NAME.err (the table), $tmp/NAME.out
run() {
	n=$1
	shift
	"$L" -q -e task-clock -o "$tmp/$n" "$@" >"$tmp/$n.out" 2>"$tmp/$n.err"
	rc=$?
}

# expect NAME REGION=CALLS...: the table of run NAME has each region with
# that many calls and no marker errors
expect() {
	n=$1 why=""
	shift
	for rc_want in "$@"; do
		got=$(calls "${rc_want%=*}" "$tmp/$n.err")
		[ "$got" = "${rc_want#*=}" ] || why="$why ${rc_want%=*}: $got calls, want ${rc_want#*=};"
	done
	grep -q 'marker errors' "$tmp/$n.err" && why="$why marker errors: $(grep -A3 'marker errors' "$tmp/$n.err" | tr '\n' ' ')"
	[ -z "$why" ] && [ $rc = 0 ] && result "$n" ok || result "$n" fail "exit $rc;$why"
}

run c_exit_paths "$B/tests/scopes/scopes"
expect c_exit_paths early=3 early-inner=1 after-early=1 goto=2 goto-second=2 after-goto=1 loop=4

run cxx_exceptions "$B/tests/scopes/scopes_cxx"
expect cxx_exceptions throws=4 macro=4 dynamic-3=1 after=1
[ "$(cat "$tmp/cxx_exceptions.out")" = "scopes_cxx: caught 3" ] || result cxx_output fail "$(cat "$tmp/cxx_exceptions.out")"

run leak_is_seen "$B/tests/scopes/scopes" leak
if grep -q 'open-at-exit.*leaked' "$tmp/leak_is_seen.err"; then
	result leak_is_seen ok
else
	result leak_is_seen fail "a region left open gave no marker error" "$(tail -4 "$tmp/leak_is_seen.err")"
fi

# The stacks of a scope end in the header's inline functions; the reader
# leaves them out, so that a stack's first frame is the line that wrote the
# scope. user_line NAME REGION FUNCTION FILE TEXT: in run NAME, REGION's
# first stack has first FUNCTION at FILE's line holding TEXT.
user_line() {
	want="$3 ([^ ]*$(basename "$4"):$(grep -nF "$5" "$4" | head -1 | cut -d: -f1))"
	got=$("$B/pmcshim-report" --stacks --region "^$2\$" "$tmp/$1"/*.pmc 2>&1 |
		sed -n '/^  #1 /,/^  #2 /p' | grep '^      ' | head -1)
	echo "$got" | grep -q "^      $want\$" && result "$1_$2_line" ok ||
		result "$1_$2_line" fail "first frame: '$got', want '$want'"
}
user_line c_exit_paths early early tests/scopes/scopes.c 'PMCSHIM_SCOPE("early")'
user_line c_exit_paths goto by_goto tests/scopes/scopes.c 'PMCSHIM_SCOPE("goto")'
user_line cxx_exceptions macro macro_form tests/scopes/scopes_cxx.cpp 'PMCSHIM_SCOPE("macro")'
user_line cxx_exceptions throws throws tests/scopes/scopes_cxx.cpp 'pmcshim::scope s("throws")'

out=$("$B/tests/scopes/scopes") && out2=$("$B/tests/scopes/scopes_cxx")
[ "$out" = "scopes: 3" ] && [ "$out2" = "scopes_cxx: caught 3" ] && result without_shim ok ||
	result without_shim fail "'$out' '$out2'"
suite_end
