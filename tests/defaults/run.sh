#!/bin/sh
# Default events for the machine at hand, and events read only through
# read() kept out of the regions' path:
#   - without PMCSHIM_EVENTS, a machine without a hardware PMU counts
#     task-clock, context-switches and page-faults (a machine with one:
#     instructions and cycles); the reader's totals have them all, no
#     "<not supported>" row, and one line (shim, and launcher) says which
#     defaults and why; the launcher's run shows no "unavailable" notice;
#   - with those defaults, 2,000 marker pairs make no read() system call
#     (/proc/self/io's syscr, the kernel's count of the process's read
#     calls, before and after: only the reads of that file), the regions
#     have calls and wall time, no value of a per-thread event (empty
#     cells, a note), and the threads have their totals;
#   - -e task-clock named on markers: counted per region (values in the
#     rows), 2 read() calls a pair, said once before the run;
#   - -e task-clock on a program built with -finstrument-functions: no
#     read() per call (2,000 calls), the task-clock total per thread, no
#     per-function value, and one line says so.
B=${B:-build}
. tests/lib.sh
suite_begin defaults
unset PMCSHIM_EVENTS PMCSHIM_QUIET PMCSHIM_OUTPUT PMCSHIM_FUNCTIONS
D=$B/tests/defaults
R=$B/pmcshim-report
L=$B/pmcshim
SHIM=$PWD/$B/libpmcshim.so

# run NAME PROGRAM [EVENTS]: the program under the shim (not quiet), its
# report in $tmp/NAME/, stdout and stderr in $tmp/NAME.out, .err
run() {
	n=$1 prog=$2
	mkdir -p "$tmp/$n"
	if [ $# -ge 3 ]; then
		PMCSHIM_EVENTS=$3 PMCSHIM_OUTPUT="$tmp/$n/" LD_PRELOAD="$SHIM" "$prog" \
			>"$tmp/$n.out" 2>"$tmp/$n.err"
	else
		PMCSHIM_OUTPUT="$tmp/$n/" LD_PRELOAD="$SHIM" "$prog" >"$tmp/$n.out" 2>"$tmp/$n.err"
	fi
	rc=$?
}

# reads NAME: the read() calls the program counted around its pairs
reads() {
	sed -n 's/^reads \([0-9]*\) pairs 2000$/\1/p' "$tmp/$1.out"
}

# column NAME REGION COL: the CSV cell of REGION's row in column COL
column() {
	"$R" --format csv "$tmp/$1"/*.pmc 2>/dev/null | awk -F, -v r="$2" -v c="$3" '
		NR == 1 { for (i = 1; i <= NF; i++) h[$i] = i; next }
		$1 == r { print (c in h) ? $h[c] : "no-column" }'
}

if [ ! -r /proc/self/io ]; then
	result defaults_suite "skip:no /proc/self/io (the kernel's read count) here"
	suite_end
	exit $?
fi

# The machine: does the PMU count instructions (the launcher's own look,
# as the shim opens them)?
if "$L" --list-events 2>/dev/null | grep -q '^  instructions  *no: '; then
	pmu=0 want="task-clock context-switches page-faults"
else
	pmu=1 want="instructions cycles"
fi

# --- the defaults on this machine ------------------------------------------
run markers "$D/reads"
"$R" --threads "$tmp/markers"/*.pmc >"$tmp/markers.table" 2>&1
got=$(sed -n 's/^#   events: //p' "$tmp/markers.table" | sed 's/ \[[^]]*\]//g; s/,//g')
if [ $rc = 0 ] && [ "$got" = "$want" ] && ! grep -q 'not supported' "$tmp/markers.table"; then
	result default_events_for_the_machine ok
else
	result default_events_for_the_machine fail "exit $rc, events: $got (want $want)" \
		"$(grep -n 'not supported' "$tmp/markers.table")"
fi

if [ $pmu = 0 ]; then
	lines=$(grep -c '^pmcshim: default events task-clock, context-switches, page-faults, counted per thread (.*no hardware PMU' "$tmp/markers.err")
	others=$(grep -vc '^pmcshim: default events' "$tmp/markers.err")
	if [ "$lines" = 1 ] && [ "$others" = 0 ]; then
		result default_events_said_once ok
	else
		result default_events_said_once fail "$lines default lines, $others others" \
			"$(cat "$tmp/markers.err")"
	fi
	# every total counted, none missing
	missing=0
	for e in task-clock context-switches page-faults; do
		grep -q "^ *[0-9][0-9.,]* *\(msec \)\{0,1\}$e " "$tmp/markers.table" || missing="$missing $e"
	done
	if [ "$missing" = 0 ]; then
		result default_events_totals ok
	else
		result default_events_totals fail "no total of$missing" "$(sed -n '/## totals/,/^$/p' "$tmp/markers.table")"
	fi
else
	result default_events_said_once "skip:the PMU counts here: the defaults are its own, nothing to say"
	result default_events_totals "skip:the PMU counts here (instructions, cycles per region)"
fi

# --- the defaults make no read() at the markers ---------------------------------
n=$(reads markers)
tc=$(column markers pair task-clock_incl)
calls=$(column markers pair calls)
if [ $pmu = 1 ]; then
	result default_markers_make_no_read "skip:the PMU counts here: defaults read in user space"
elif [ -n "$n" ] && [ "$n" -lt 20 ] && [ "$calls" = 2000 ] && [ -z "$tc" ] &&
     grep -q '^counted per thread, not per region: task-clock, context-switches, page-faults ' "$tmp/markers.table" &&
     grep -q '^ *[0-9]* *reads (main) .* [0-9.]* [mu]s ' "$tmp/markers.table"; then
	result default_markers_make_no_read ok
else
	result default_markers_make_no_read fail "reads $n (want < 20), calls $calls, task-clock cell '$tc' (want empty)" \
		"$(sed -n '/## threads/,$p' "$tmp/markers.table" | head -12)"
fi

# --- -e task-clock named: per region, at two reads a pair, said before ----------
run named "$D/reads" task-clock
n=$(reads named)
tc=$(column named pair task-clock_incl)
said=$(grep -c '^pmcshim: task-clock counts only through read(): each marker pair makes two system calls' "$tmp/named.err")
if [ $rc = 0 ] && [ -n "$n" ] && [ "$n" -ge 4000 ] && [ "${tc:-0}" -gt 0 ] && [ "$said" = 1 ]; then
	result named_read_only_event_per_region ok
else
	result named_read_only_event_per_region fail "exit $rc, reads $n (want >= 4000), task-clock '$tc' (want > 0), said $said times" \
		"$(cat "$tmp/named.err")"
fi

# --- function hooks: per thread, always -----------------------------------
run fn "$D/reads-fn" task-clock
n=$(reads fn)
"$R" --threads "$tmp/fn"/*.pmc >"$tmp/fn.table" 2>&1
tc=$(column fn work task-clock_incl)
calls=$(column fn work calls)
said=$(grep -c '^pmcshim: -finstrument-functions: task-clock counted per thread, not per call' "$tmp/fn.err")
if [ $rc = 0 ] && [ -n "$n" ] && [ "$n" -lt 20 ] && [ "$calls" = 2001 ] && [ -z "$tc" ] &&
   [ "$said" = 1 ] && grep -q '^ *[0-9]* *reads-fn (main) .* [0-9.]* [mu]s *$' "$tmp/fn.table"; then
	result functions_read_only_event_per_thread ok
else
	result functions_read_only_event_per_thread fail "exit $rc, reads $n (want < 20), calls $calls, task-clock cell '$tc' (want empty), said $said" \
		"$(cat "$tmp/fn.err")" "$(sed -n '/## threads/,/^$/p' "$tmp/fn.table")"
fi

# --- the launcher: the defaults, said once, no unavailable events -----------
(cd "$tmp" && "$OLDPWD/$L" -o run "$OLDPWD/$D/reads" >launch.out 2>launch.err)
rc=$?
if [ $pmu = 1 ]; then
	ok=$(grep -c 'default events' "$tmp/launch.err")
	[ $rc = 0 ] && [ "$ok" = 0 ] && result launcher_default_events ok ||
		result launcher_default_events fail "exit $rc, $ok lines on defaults (the PMU's: none)"
elif [ $rc = 0 ] && [ "$(grep -c '^pmcshim: default events task-clock,context-switches,page-faults, counted per thread' "$tmp/launch.err")" = 1 ] &&
     ! grep -q 'unavailable\|not supported\|n/a' "$tmp/launch.err" &&
     grep -q '^counted per thread, not per region: task-clock' "$tmp/launch.err"; then
	result launcher_default_events ok
else
	result launcher_default_events fail "exit $rc" "$(head -30 "$tmp/launch.err")"
fi

suite_end
