#!/bin/sh
# Derived metrics and repeated runs (run from the repository root; make
# test runs it):
#   metrics on synthetic reports whose values are known exactly (gen_report
#   --event-names: event e has incl (e + 2) 100 k and excl (e + 2) 75 k, so
#   instructions/cycles is 2/3 in every row), a golden of the table, '*' from
#   a multiplexed event, n/a with its reason said once, precedence and unary
#   minus in a metrics file of the test's own; bad input (a syntax error: one
#   line FILE:LINE and exit 2; an unknown metric; a metric naming an event
#   the shim does not know); the launcher's -M on a run of the shim and its
#   --list-metrics; --repeat on reports (the spread computed by hand) and
#   pmcshim -r on a deterministic program (calls +-0.00%).
#
#   sh tests/metrics/run.sh            run
#   sh tests/metrics/run.sh --update   rewrite golden/ from this build
B=${B:-build}
. tests/lib.sh
suite_begin metrics
unset PMCSHIM_EVENTS PMCSHIM_QUIET PMCSHIM_OUTPUT LD_PRELOAD
G=$PWD/tests/metrics/golden
R=$(realpath "$B/pmcshim-report")
L=$(realpath "$B/pmcshim")
GEN=$(realpath "$B/tests/reader/gen_report")
TREE=$(realpath "$B/tests/launcher/tree")
update=0
[ "$1" = "--update" ] && update=1
EV=instructions,cycles,branch-misses,branches,cache-misses

# golden NAME ARGS...: the reader's stdout (run in $tmp) matches golden/NAME
golden() {
	name=$1
	shift
	(cd "$tmp" && "$R" "$@") >"$tmp/out" 2>"$tmp/err"
	rc=$?
	[ $update = 1 ] && [ $rc = 0 ] && cp "$tmp/out" "$G/$name"
	if [ $rc != 0 ] || [ -s "$tmp/err" ]; then
		result "$name" fail "exit $rc" "$(head -3 "$tmp/err")"
	elif ! diff -u "$G/$name" "$tmp/out" >"$tmp/diff" 2>&1; then
		result "$name" fail "output differs from $G/$name:" "$(head -30 "$tmp/diff")"
	else
		result "$name" ok
	fi
}

# bad NAME WANT ARGS...: exit 2, stdout empty, stderr one line equal to WANT
bad() {
	name=$1 want=$2
	shift 2
	(cd "$tmp" && "$@") >"$tmp/out" 2>"$tmp/err"
	rc=$?
	if [ $rc = 2 ] && [ ! -s "$tmp/out" ] && [ "$(wc -l <"$tmp/err")" = 1 ] &&
	   [ "$(cat "$tmp/err")" = "$want" ]; then
		result "$name" ok
	else
		result "$name" fail "exit $rc, want 2" "stderr: $(head -3 "$tmp/err")" "want: $want"
	fi
}

# cell FILE REGION K: the K-th field from the end of REGION's row in the
# first region table of FILE (the metric columns come last; values with a
# unit hold a blank)
cell() {
	awk -v r="$2" -v k="$3" '/^## regions/ { on++ }
		on == 1 && $1 == r { print $(NF - k + 1); exit }' "$1"
}

(cd "$tmp" && "$GEN" --threads 2 --rows 8 --event-names $EV m.pmc &&
 "$GEN" --threads 2 --rows 8 --multiplexed --event-names instructions,cycles,x mux.pmc) ||
	result gen_report fail

# ---- exact values ---------------------------------------------------------------
golden table-metrics -M IPC,CPI,branch-miss-rate,branch-mpki,cache-miss-ratio,L1d-miss-ratio \
	--threads m.pmc
(cd "$tmp" && "$R" -M IPC,CPI,branch-miss-rate,branch-mpki m.pmc) >"$tmp/t" 2>&1
# the last 8 fields: IPC, CPI, branch-miss-rate, branch-mpki, incl and excl
got=$(cell "$tmp/t" parse 8)/$(cell "$tmp/t" parse 7)/$(cell "$tmp/t" parse 6)
got=$got/$(cell "$tmp/t" solve 4)/$(cell "$tmp/t" solve 2)
[ "$got" = "0.67/0.67/1.50/80.0/2000.0" ] && result exact_values ok ||
	result exact_values fail "IPC incl/excl, CPI, miss rate, MPKI: $got"
grep -q "^IPC " "$tmp/t" && result ipc_column_once fail "the old IPC column beside the metric" ||
	result ipc_column_once ok

# a multiplexed event: the metric carries '*', and the legend is there
(cd "$tmp" && "$R" -M IPC mux.pmc) >"$tmp/t" 2>&1
if [ "$(cell "$tmp/t" parse 2)" = "0.67*" ] && [ "$(cell "$tmp/t" parse 1)" = "0.67*" ] && grep -q '^\* estimated' "$tmp/t"; then
	result multiplexed_mark ok
else
	result multiplexed_mark fail "$(sed -n 5,8p "$tmp/t")"
fi

# n/a, why said once: an unavailable event, an event not in the report
(cd "$tmp" && "$R" -M cache-miss-ratio,dTLB-miss-ratio --threads m.pmc) >"$tmp/t" 2>&1
n1=$(grep -c "^metric cache-miss-ratio: n/a: cache-misses could not count (ENOENT" "$tmp/t")
n2=$(grep -c "^metric dTLB-miss-ratio: n/a: dTLB-load-misses was not counted" "$tmp/t")
[ "$n1/$n2" = 1/1 ] && result why_not_once ok || result why_not_once fail "$n1/$n2" "$(tail -3 "$tmp/t")"
# --collapse-unavailable: no columns for them
(cd "$tmp" && "$R" --collapse-unavailable -M IPC,cache-miss-ratio m.pmc) >"$tmp/t" 2>&1
if grep -q "IPC" "$tmp/t" && ! grep -q "^ .*cache-miss-ratio" "$tmp/t" &&
   grep -q "^metric cache-miss-ratio: n/a" "$tmp/t"; then
	result collapse_unavailable ok
else
	result collapse_unavailable fail "$(sed -n 5,7p "$tmp/t")"
fi

# a file of the test's own: precedence, unary minus, a name with '-' and a
# group; 1 + 2 i/c - (c - i)/c = 1 + 4/3 - 1/3 = 2, -i/-c = 2/3
cat >"$tmp/my.def" <<'DEF'
# the test's metrics
prec = 1 + 2 * instructions / cycles - (cycles - instructions) / cycles ; ; precedence
neg = -instructions / -cycles
misses-per-branch = branch-misses / branches
group MINE = prec, neg, misses-per-branch ; the test's
DEF
(cd "$tmp" && "$R" --metrics-file my.def -M MINE m.pmc) >"$tmp/t" 2>&1
got=$(cell "$tmp/t" io 6)/$(cell "$tmp/t" io 4)/$(cell "$tmp/t" io 2)
[ "$got" = "2.00/0.67/0.80" ] && result own_file_group ok || result own_file_group fail "$got" "$(cat "$tmp/t")"

# the processes table (thread totals added), CSV and json-table
(cd "$tmp" && "$GEN" --threads 2 --rows 8 --id 1 --event-names $EV m2.pmc &&
 "$R" -M IPC,CPI --by-process m.pmc m2.pmc) >"$tmp/t" 2>&1
got=$(awk '/^## processes/ { on = 1 } on && $1 == "m2.pmc" { print $(NF - 1) "/" $NF; exit }' "$tmp/t")
[ "$got" = "0.67*/1.50*" ] && result process_totals ok || result process_totals fail "$got" "$(cat "$tmp/t")"
(cd "$tmp" && "$R" -M IPC,cache-miss-ratio --format csv m.pmc) >"$tmp/t" 2>&1
if head -1 "$tmp/t" | grep -q ',ipc,IPC_incl,IPC_excl,cache-miss-ratio_incl,cache-miss-ratio_excl$' &&
   grep -q '^solve,.*,0.6667,0.6666666667,0.6666666667,,$' "$tmp/t"; then
	result csv_columns ok
else
	result csv_columns fail "$(head -2 "$tmp/t")"
fi
(cd "$tmp" && "$R" -M CPI --format json-table mux.pmc) >"$tmp/t" 2>&1
grep -q '"metrics": {"CPI": {"incl": 1.5, "excl": 1.5, "estimated": true}}' "$tmp/t" &&
	result json_table_member ok || result json_table_member fail "$(grep -m1 '"region"' "$tmp/t")"

# ---- bad input ------------------------------------------------------------------
printf 'IPC = instructions / cycles\nbroken = (instructions + cycles\n' >"$tmp/syntax.def"
bad syntax_error "pmcshim-report: syntax.def:2: ')' expected at ''" \
	"$R" --metrics-file syntax.def -M IPC m.pmc
bad syntax_error_launcher "pmcshim: syntax.def:2: ')' expected at ''" \
	"$L" --metrics-file syntax.def --list-metrics
printf 'x = instructions / / cycles\n' >"$tmp/op.def"
bad syntax_operator "pmcshim-report: op.def:1: an event name, a number or '(' expected at '/ cycles'" \
	"$R" --metrics-file op.def -M x m.pmc
printf 'x instructions\n' >"$tmp/eq.def"
bad syntax_no_equals "pmcshim-report: eq.def:1: '=' expected (NAME = EXPRESSION, or group NAME = METRIC, ...)" \
	"$R" --metrics-file eq.def -M x m.pmc
# the parser recurses: its depth is bounded, not the stack's
awk 'BEGIN { s = "deep = "; for (i = 0; i < 100000; i++) s = s "("; print s "x" }' >"$tmp/deep.def"
bad syntax_deep "pmcshim-report: deep.def:1: parentheses nested deeper than 32" \
	"$R" --metrics-file deep.def -M deep m.pmc
bad unknown_metric "pmcshim-report: -M: 'nosuch': no such metric or group (--list-metrics lists them)" \
	"$R" -M IPC,nosuch m.pmc
bad missing_file "pmcshim-report: nofile.def: No such file or directory" \
	"$R" --metrics-file nofile.def -M IPC m.pmc
printf 'typo = instructons / cycles\n' >"$tmp/ev.def"
(cd "$tmp" && "$L" --metrics-file ev.def -M typo true) >"$tmp/out" 2>"$tmp/err"
rc=$?
if [ $rc = 2 ] && [ "$(wc -l <"$tmp/err")" = 1 ] &&
   grep -q "^pmcshim: -M: metric typo (ev.def:1): 'instructons': unknown event" "$tmp/err"; then
	result unknown_event_launcher ok
else
	result unknown_event_launcher fail "exit $rc" "$(cat "$tmp/err")"
fi
(cd "$tmp" && "$R" --metrics-file ev.def -M typo m.pmc) >"$tmp/t" 2>&1
grep -q "^metric typo: n/a: instructons was not counted" "$tmp/t" && result unknown_event_reader ok ||
	result unknown_event_reader fail "$(tail -2 "$tmp/t")"

# ---- the launcher ---------------------------------------------------------------
(cd "$tmp" && "$L" -o run -M page-faults-per-ms -g IPC "$TREE") >"$tmp/out" 2>"$tmp/err"
rc=$?
if [ $rc = 0 ] && grep -q "page-faults-per-ms /ms" "$tmp/err" &&
   grep -q "page-faults \[read[],]" "$tmp/err" && grep -q "task-clock \[read[],]" "$tmp/err"; then
	result launcher_metrics ok
else
	result launcher_metrics fail "exit $rc" "$(head -12 "$tmp/err")"
fi
"$L" --list-metrics >"$tmp/lm" 2>&1
if grep -q "^  page-faults-per-ms  *yes$" "$tmp/lm" && grep -q "^  group BRANCH " "$tmp/lm" &&
   grep -q "^# $PWD/metrics/generic.def$" "$tmp/lm"; then
	result list_metrics ok
else
	result list_metrics fail "$(head -8 "$tmp/lm")"
fi

# the metrics of the CPU's maker only: topdown and L2_RQSTS are Intel's
vendor=$(sed -n 's/^vendor_id[[:space:]]*: *//p' /proc/cpuinfo | head -1)
case "$vendor" in
GenuineIntel) mine=intel other=amd ;;
AuthenticAMD|HygonGenuine) mine=amd other=intel ;;
*) mine= other= ;;
esac
if [ -z "$mine" ]; then
	result metrics_by_vendor "skip:CPU vendor '$vendor' is neither Intel nor AMD"
elif grep -q "^# .*x86_64-$other.def$" "$tmp/lm" ||
     { [ -f "metrics/x86_64-$mine.def" ] && ! grep -q "^# .*x86_64-$mine.def$" "$tmp/lm"; } ||
     { [ $mine = amd ] && grep -q "topdown\|L2_RQSTS" "$tmp/lm"; }; then
	result metrics_by_vendor fail "$vendor: $(grep '^#' "$tmp/lm")"
else
	result metrics_by_vendor ok
fi

# ---- repeated runs ------------------------------------------------------------------
# three reports, the second with every value doubled (--id 1): calls of
# parse 33, 66, 33: mean 44, standard deviation sqrt(363) = 43.30% of it
(cd "$tmp" && "$GEN" --threads 2 --rows 8 --event-names $EV r1.pmc &&
 "$GEN" --threads 2 --rows 8 --id 1 --event-names $EV r2.pmc &&
 "$GEN" --threads 2 --rows 8 --event-names $EV r3.pmc) || result gen_report_repeat fail
golden repeat --repeat r1.pmc r2.pmc r3.pmc
(cd "$tmp" && "$R" --repeat r1.pmc r3.pmc) >"$tmp/t" 2>&1
[ "$(awk '$1 == "parse" { print $4 }' "$tmp/t")" = "+-0.00%" ] && result repeat_same_zero ok ||
	result repeat_same_zero fail "$(cat "$tmp/t")"
# metrics over the runs: IPC 2/3 in every run of every region, so +-0.00%
(cd "$tmp" && "$R" --repeat -M IPC r1.pmc r2.pmc r3.pmc) >"$tmp/t" 2>&1
got=$(awk '$1 == "parse" || $1 == "(total)" { print $(NF - 3) $(NF - 2) }' "$tmp/t" | sort -u)
[ "$got" = "0.667+-0.00%" ] && result repeat_metric ok || result repeat_metric fail "$got" "$(cat "$tmp/t")"
bad repeat_one "pmcshim-report: --repeat: give two runs or more (report files, or one directory per run)" \
	"$R" --repeat r1.pmc

# pmcshim -r 3 on the tree: every run makes the same calls
(cd "$tmp" && "$L" -q -o rep -r 3 "$TREE") >"$tmp/out" 2>"$tmp/err"
rc=$?
awk '$1 == "leaf" || $1 == "(total)"' "$tmp/err" >"$tmp/rows"
if [ $rc = 0 ] && [ -d "$tmp/rep/1" ] && [ -d "$tmp/rep/3" ] && [ ! -d "$tmp/rep/4" ] &&
   [ "$(awk '{ print $2 "," $4 }' "$tmp/rows" | sort -u | tr '\n' ' ')" = "3/3,+-0.00% " ]; then
	result repeat_launcher_calls_exact ok
else
	result repeat_launcher_calls_exact fail "exit $rc" "$(cat "$tmp/err")"
fi
(cd "$tmp" && "$L" -q -o rep2 -r 2 "$TREE" 3) >/dev/null 2>&1
rc=$?
[ $rc = 3 ] && result repeat_exit_status ok || result repeat_exit_status fail "exit $rc, want 3"
suite_end
