#!/bin/sh
# Names as the source wrote them (tests/names/probe.cpp, names.mk): C++
# names demangled in the region table, the stacks, the folded stacks and
# the JSON export; a
# marker's stack beginning at the user's line, not in pmcshim.h; two long
# names that differ deep inside their template arguments on two rows that
# read differently; no "no line info" note for a binary whose lines were
# found; a Clang binary's lines; a binary rebuilt after the run named
# module+offset with a warning, not by bare addresses.
B=${B:-build}
. tests/lib.sh
suite_begin names
unset PMCSHIM_EVENTS PMCSHIM_QUIET PMCSHIM_OUTPUT DEBUGINFOD_URLS
N=$B/tests/names
R=$B/pmcshim-report
solve_line=$(grep -n 'pmcshim::scope s("solve")' tests/names/probe.cpp | cut -d: -f1)

# the demangler itself
if "$N/test_demangle" >"$tmp/demangle" 2>&1; then
	result demangler ok
else
	result demangler fail "$(cat "$tmp/demangle")"
fi

# run NAME PROGRAM: the program through the launcher, its table in $tmp/NAME.err
run() {
	"$B/pmcshim" -q -e task-clock -o "$tmp/$1" "$2" >"$tmp/$1.out" 2>"$tmp/$1.err"
}

# names COLUMN-TEXT: the region column of the merged table in $1
names() {
	sed -n '/^## regions, all/,/^$/p' "$1" | awk -F'  +' 'NR > 3 { print $1 }'
}

run gcc "$N/probe"
names "$tmp/gcc.err" >"$tmp/gcc.names"
if grep -qx 'app::Solver<double>::step(int)' "$tmp/gcc.names" &&
	grep -qx 'app::Solver<double>::step(int) \[clone ._omp_fn.0\]' "$tmp/gcc.names" &&
	! grep -q '_Z' "$tmp/gcc.names"; then
	result regions_demangled ok
else
	result regions_demangled fail "$(cat "$tmp/gcc.names")"
fi

# Table<std::string, int|long>::count and the std::map::count each calls:
# four rows, two per instantiation, no two alike
count_rows=$(grep -c '::count(' "$tmp/gcc.names")
same=$(sort "$tmp/gcc.names" | uniq -d)
if [ "$count_rows" = 4 ] && [ -z "$same" ] && [ "$(grep '::count(' "$tmp/gcc.names" | grep -c 'int')" = 2 ] &&
	[ "$(grep '::count(' "$tmp/gcc.names" | grep -c 'long')" = 2 ]; then
	result long_names_apart ok
else
	result long_names_apart fail "rows alike: '$same'" "$(grep '::count(' "$tmp/gcc.names")"
fi

"$R" --stacks --region '^solve$' "$tmp/gcc"/*.pmc >"$tmp/gcc.stacks" 2>&1
first=$(sed -n '/^  #1 /{n;p;q}' "$tmp/gcc.stacks")
want="      app::Solver<double>::step(int) (tests/names/probe.cpp:$solve_line)"
[ "$first" = "$want" ] && result stack_begins_at_marker ok ||
	result stack_begins_at_marker fail "first frame '$first'" "want '$want'"

"$R" --stacks "$tmp/gcc"/*.pmc >"$tmp/gcc.all" 2>&1
if grep -q 'no line info' "$tmp/gcc.all"; then
	result no_line_note_with_lines fail "$(sed -n '/notes on symbols/,$p' "$tmp/gcc.all")"
elif grep -q '_Z' "$tmp/gcc.all"; then
	result no_line_note_with_lines fail "a mangled name:" "$(grep '_Z' "$tmp/gcc.all" | head -3)"
else
	result no_line_note_with_lines ok
fi

"$R" --format folded-stacks "$tmp/gcc"/*.pmc >"$tmp/gcc.folded" 2>&1
grep -q "app::Solver<double>::step(int) (tests/names/probe.cpp:$solve_line);solve " "$tmp/gcc.folded" &&
	! grep -q '_Z' "$tmp/gcc.folded" && result folded_demangled ok ||
	result folded_demangled fail "$(grep -m3 'solve\|_Z' "$tmp/gcc.folded")"

"$R" --format json "$tmp/gcc"/*.pmc >"$tmp/gcc.json" 2>&1
grep -q '"symbol": "app::Solver<double>::step(int)+0x' "$tmp/gcc.json" && ! grep -q '_Z' "$tmp/gcc.json" &&
	result json_demangled ok || result json_demangled fail "$(grep -m3 '_Z' "$tmp/gcc.json")"

# Clang: lines of units found by their ranges (no .debug_aranges)
if [ ! -x "$N/probe-clang" ]; then
	result clang_lines "skip:no clang++ here (a test dependency)"
else
	run clang "$N/probe-clang"
	"$R" --stacks --region '^solve$' "$tmp/clang"/*.pmc >"$tmp/clang.stacks" 2>&1
	first=$(sed -n '/^  #1 /{n;p;q}' "$tmp/clang.stacks")
	[ "$first" = "$want" ] && ! grep -q 'no line info' "$tmp/clang.stacks" &&
		result clang_lines ok || result clang_lines fail "first frame '$first'" "want '$want'" \
		"$(sed -n '/notes on symbols/,$p' "$tmp/clang.stacks")"
fi

# Rebuilt after the run: another build-id at the same path
mkdir -p "$tmp/bin"
cp "$N/probe" "$tmp/bin/probe"
run rebuilt "$tmp/bin/probe"
cp "$N/probe-rebuilt" "$tmp/bin/probe"
"$R" "$tmp/rebuilt"/*.pmc >"$tmp/rebuilt.table" 2>"$tmp/rebuilt.warn"
names "$tmp/rebuilt.table" >"$tmp/rebuilt.names"
if grep -q '^probe+0x[0-9a-f]*$' "$tmp/rebuilt.names" && ! grep -q '^0x' "$tmp/rebuilt.names" &&
	grep -q "bin/probe: build-id mismatch.*rebuilt" "$tmp/rebuilt.warn"; then
	result rebuilt_binary_said ok
else
	result rebuilt_binary_said fail "$(cat "$tmp/rebuilt.warn")" "$(head -5 "$tmp/rebuilt.names")"
fi
suite_end
