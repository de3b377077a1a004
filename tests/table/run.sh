#!/bin/sh
# The region table with names a program may pass: control characters come
# out escaped (no raw ESC, CR, DEL or C1 byte reaches the terminal), a
# 200-character name is shortened to 60 columns, its middle left out;
# three long names that differ at their end read differently; UTF-8 text
# stays as it is.
B=${B:-build}
. tests/lib.sh
suite_begin table
unset PMCSHIM_EVENTS PMCSHIM_QUIET PMCSHIM_OUTPUT
"$B/pmcshim" -q -e task-clock -o "$tmp/run" "$B/tests/table/names" 2>"$tmp/err"
rc=$?
table=$(sed -n '/^## regions, all/,$p' "$tmp/err")
esc=$(printf '\033') cr=$(printf '\r') del=$(printf '\177') csi=$(printf '\302\233')

case $table in
*"$esc"* | *"$cr"* | *"$del"* | *"$csi"*) result no_raw_controls fail "a raw control byte in:" "$table" ;;
*) [ $rc = 0 ] && result no_raw_controls ok || result no_raw_controls fail "exit $rc" ;;
esac

printf '%s\n' "$table" | grep -qF '\e[2Jclear\r\n' &&
	printf '%s\n' "$table" | grep -qF 'tab\there\x7f\u009b' &&
	result controls_escaped ok || result controls_escaped fail "$table"

long=$(printf '%s\n' "$table" | awk '$1 ~ /^long-/ { print $1 }')
want="long-$(printf '%14s' '' | tr ' ' a)…$(printf '%40s' '' | tr ' ' a)"
[ "$long" = "$want" ] && ! grep -q 'aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa' "$tmp/err" &&
	result long_name_shortened ok || result long_name_shortened fail "got '$long'" "want '$want'"

steps=$(printf '%s\n' "$table" | awk '$1 ~ /^phase\// { print $1 }' | sort)
[ "$(printf '%s\n' "$steps" | sort -u | wc -l)" = 3 ] &&
	[ "$(printf '%s\n' "$steps" | sed 's/.*\///' | tr '\n' ' ')" = "step-1 step-2 step-3 " ] &&
	result long_names_apart ok || result long_names_apart fail "$steps"

printf '%s\n' "$table" | grep -q '^grüße ' && result utf8_kept ok || result utf8_kept fail "$table"
# The launcher's table on a machine whose PMU cannot count the events
# named (the PMU's defaults; without a PMU the defaults are software events,
# which count): no columns of n/a, one note naming them.
"$B/pmcshim" -e instructions,cycles -o "$tmp/collapse" "$B/tests/table/names" 2>"$tmp/err2"
if ! grep -q '^pmcshim: events unavailable' "$tmp/err2"; then
	result unavailable_columns_collapsed "skip:instructions and cycles count here (a PMU)"
elif grep -q '^not counted here, so left out: instructions, cycles ' "$tmp/err2" &&
     ! grep -q 'n/a' "$tmp/err2" && ! grep -q '  instructions  ' "$tmp/err2"; then
	result unavailable_columns_collapsed ok
else
	result unavailable_columns_collapsed fail "$(sed -n '/^## regions/,$p' "$tmp/err2")"
fi

# The same for the thread tables, and one events line for a run of several
# processes with the same events.
"$B/pmcshim-report" --collapse-unavailable --threads "$tmp"/collapse/* >"$tmp/threads" 2>&1
"$B/pmcshim" -e instructions,cycles -o "$tmp/multi" sh -c "$B/tests/table/names; $B/tests/table/names" 2>"$tmp/err3"
files=$(ls "$tmp/multi" | wc -l)
if ! grep -q '^pmcshim: events unavailable' "$tmp/err2"; then
	result collapsed_threads_and_events_line "skip:instructions and cycles count here (a PMU)"
elif grep -q '^## threads of names' "$tmp/threads" && ! grep -q 'n/a' "$tmp/threads" &&
     [ "$files" -ge 2 ] && [ "$(grep -c '^# events of every file: instructions' "$tmp/err3")" = 1 ] &&
     ! grep -q '^#   events:' "$tmp/err3"; then
	result collapsed_threads_and_events_line ok
else
	result collapsed_threads_and_events_line fail "$files files" "$(cat "$tmp/threads")" "$(head -5 "$tmp/err3")"
fi
suite_end
