#!/bin/sh
# Totals that survive every ending and count from exec (issue 27, items 1
# and 2), against what the program counted itself and against perf stat:
#   - a launcher killed by SIGTERM, and a process under a hand-set
#     LD_PRELOAD killed by SIGKILL, keep their totals: task-clock within 5%
#     of the program's own CPU clock, page faults within 2% of its own
#     getrusage (tests/totals/work.c writes both, then waits to be killed;
#     the test kills it only once they are written: no timing window);
#   - a short program's page faults agree with perf stat's within 2%;
#   - a one-thread program never shows more than 1.0 CPUs utilized.
# Run from the repository root: B=build sh tests/totals/run.sh
B=${B:-build}
. tests/lib.sh
suite_begin totals
unset PMCSHIM_EVENTS PMCSHIM_QUIET PMCSHIM_OUTPUT
L=$(realpath "$B/pmcshim")
R=$(realpath "$B/pmcshim-report")
W=$(realpath "$B/tests/totals/work")
# PMCSHIM_TEST_SHIM (an ASan or TSan build) and PMCSHIM_TEST_PRELOAD_FIRST
# (its runtime), as tests/run.sh passes them to the other suites
SHIM=$(realpath "${PMCSHIM_TEST_SHIM:-$B/libpmcshim.so}")
[ -n "${PMCSHIM_TEST_PRELOAD_FIRST:-}" ] && SHIM=$PMCSHIM_TEST_PRELOAD_FIRST:$SHIM
EV=task-clock,page-faults

# wait_ready FILE PID: until the program wrote FILE (or died: 1)
wait_ready() {
	while [ ! -s "$1" ]; do
		kill -0 "$2" 2>/dev/null || return 1
		sleep 0.05
	done
}

# run_value CSV COLUMN: the run row's COLUMN of `--totals --format csv`
run_value() {
	awk -F, -v c="$2" 'NR == 1 { for (i = 1; i <= NF; i++) if ($i == c) k = i; next }
		$1 == "run" { print $k; exit }' "$1"
}

# within A B PCT: |A - B| <= PCT% of B
within() {
	awk -v a="$1" -v b="$2" -v p="$3" 'BEGIN { d = a - b; if (d < 0) d = -d;
		exit !(a != "" && b > 0 && d <= b * p / 100) }'
}

# check NAME CSV READY: task-clock and page-faults of the run against the
# program's own CPU time and page faults
check() {
	set -- "$1" "$2" $(cat "$3")
	tc=$(run_value "$2" task-clock) pf=$(run_value "$2" page-faults)
	if within "$tc" "$3" 5 && within "$pf" "$4" 2; then
		result "$1" ok
	else
		result "$1" fail "task-clock '$tc' ns against its CPU clock $3 ns (5%)" \
			"page-faults '$pf' against its getrusage $4 (2%)" "$(cat "$2")"
	fi
}

# --- a launcher killed by SIGTERM ------------------------------------------
d=$tmp/term
mkdir -p "$d"
"$L" -e $EV -o "$d/run" "$W" plain "$d/ready" 2>"$d/err" &
pid=$!
if wait_ready "$d/ready" $pid; then
	kill -TERM $pid
	wait $pid 2>/dev/null
	"$R" --totals --format csv "$d/run/.totals."* "$d/run/"*.pmc >"$d/csv" 2>&1
	check launcher_sigterm_keeps_totals "$d/csv" "$d/ready"
	if grep -q '<n/a>' "$d/err" || ! grep -q 'from exec, by the launcher: task-clock, page-faults' "$d/err"; then
		result launcher_sigterm_table_says_from_exec fail "$(grep -A12 '^## totals' "$d/err")"
	else
		result launcher_sigterm_table_says_from_exec ok
	fi
else
	result launcher_sigterm_keeps_totals fail "the program ended before it was ready" "$(cat "$d/err")"
fi

# a launcher's totals file cut short: one line naming it, exit status 2
t=$(ls "$d/run/.totals."* 2>/dev/null | head -1)
if [ -n "$t" ]; then
	head -c 100 "$t" >"$d/cut"
	"$R" --totals "$d/cut" "$d/run/"*.pmc >"$d/cutout" 2>&1
	crc=$?
	if [ $crc = 2 ] && grep -q "cut: a launcher's totals file, but damaged" "$d/cutout"; then
		result damaged_totals_file_refused ok
	else
		result damaged_totals_file_refused fail "exit $crc" "$(head -3 "$d/cutout")"
	fi
fi

# --- a process under a hand-set LD_PRELOAD killed by SIGKILL ----------------
d=$tmp/kill
mkdir -p "$d/run"
LD_PRELOAD=$SHIM PMCSHIM_OUTPUT=$d/run/ PMCSHIM_EVENTS=$EV PMCSHIM_QUIET=1 \
	"$W" marked "$d/ready" 2>"$d/err" &
pid=$!
if wait_ready "$d/ready" $pid; then
	kill -KILL $pid
	wait $pid 2>/dev/null
	"$R" --totals --format csv "$d/run/"*.pmc >"$d/csv" 2>&1
	check preload_sigkill_keeps_totals "$d/csv" "$d/ready"
else
	result preload_sigkill_keeps_totals fail "the program ended before it was ready" "$(cat "$d/err")"
fi

# --- page faults against perf stat's, counted from exec ---------------------
# perf stat counts the command from its exec, the loader and the shim
# included; the shim counts from its setup and adds what getrusage says
# came before (since the fork: perf's child adds its few faults before
# its exec, well inside 2% of 4,000 pages).
d=$tmp/perf
mkdir -p "$d/run"
if ! command -v perf >/dev/null 2>&1; then
	result pages_agree_with_perf_stat "skip:perf is not installed (linux-perf)"
elif [ -n "${PMCSHIM_TEST_PRELOAD_FIRST:-}" ]; then
	result pages_agree_with_perf_stat "skip:a sanitizer's runtime faults after the shim ended (its leak check at exit)"
elif ! perf stat -x, -e page-faults -o "$d/perf" -- env LD_PRELOAD="$SHIM" \
	PMCSHIM_OUTPUT="$d/run/" PMCSHIM_EVENTS=page-faults PMCSHIM_QUIET=1 "$W" pages 4000 \
	>/dev/null 2>"$d/err"; then
	result pages_agree_with_perf_stat "skip:perf stat cannot count here: $(head -2 "$d/err")"
else
	want=$(awk -F, '$3 == "page-faults" || $3 ~ /^page-faults/ { print $1; exit }' "$d/perf")
	"$R" --totals --format csv "$d/run/"*.pmc >"$d/csv" 2>&1
	got=$(run_value "$d/csv" page-faults)
	if within "$got" "$want" 2; then
		result pages_agree_with_perf_stat ok
	else
		result pages_agree_with_perf_stat fail "page-faults '$got', perf stat '$want' (2%)" \
			"$(cat "$d/perf" "$d/csv")"
	fi
fi

# --- one thread: at most 1.0 CPUs utilized ----------------------------------
# Its CPU time counts from exec, so its wall time must too.
d=$tmp/true
mkdir -p "$d/run"
for i in 1 2 3 4 5; do
	LD_PRELOAD=$SHIM PMCSHIM_OUTPUT=$d/run/ PMCSHIM_EVENTS=task-clock PMCSHIM_QUIET=1 /bin/true
done
"$R" --totals --by-process "$d/run/"*.pmc >"$d/out" 2>&1
over=0
for f in "$d/run/"*.pmc; do
	"$R" --totals "$f" >"$d/one" 2>&1
	worst=$(awk '/CPUs utilized/ { for (i = 1; i < NF; i++) if ($(i + 1) == "CPUs") print $i }' "$d/one" |
		sort -g | tail -1)
	if [ -z "$worst" ] || awk -v w="$worst" 'BEGIN { exit !(w > 1.0) }'; then
		over=1
		cat "$d/one" >>"$d/over"
	fi
done
if [ $over = 0 ]; then
	result one_thread_at_most_one_cpu ok
else
	result one_thread_at_most_one_cpu fail "$(cat "$d/over")"
fi

suite_end
