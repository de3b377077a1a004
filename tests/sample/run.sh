#!/bin/sh
# Sampling (PMCSHIM_SAMPLE, pmcshim --sample), with tests/sample/sampled.c:
#   the reader on gen_report --samples: the functions' CSV, --region, the
#     line of samples not taken, a table that does not fit refused in one
#     line;
#   shares: one() and three(), the same loop run 1:3, sampled 4000 times a
#     second of CPU (>= 2,000 samples): 25% and 75% within 5 points;
#   the same on two threads at once (each its own event and signal); after
#     an exec that failed, sampling goes on;
#   the program's output and exit status as without the shim; no functions
#     section without PMCSHIM_SAMPLE; a bad PMCSHIM_SAMPLE: one line, no
#     sampling; the launcher's --sample;
#   region: three() inside the marked region "solve": its functions are
#     three() (>= 95%), "(no region)" holds one(), the two add up to all the
#     samples, and solve holds 75% of them within 5 points; the folded
#     stacks hold the same counts, main;three under [solve];
#   hostile: the program sets a handler for every real-time signal while
#     sampled (its handler runs for its own raise() alone, one line says
#     sampling stopped, output and status unchanged); a thread that blocks
#     every signal (no crash, no hang, none of its samples); setitimer
#     (ITIMER_PROF) with the program's SIGPROF handler (it ticks); fork then
#     exec (each process's file holds its own functions only);
#   perf record -F 999 -e cpu-clock on the same program agrees within 5
#     points (where perf can record);
#   the shares and fork/exec again with the ASan+UBSan shim; the blocked
#     thread and the two functions (no race; TSan holds signals back, so
#     no shares) with the TSan shim and a TSan build (where built).
B=${B:-build}
. tests/lib.sh
suite_begin sample
unset PMCSHIM_EVENTS PMCSHIM_QUIET PMCSHIM_OUTPUT PMCSHIM_SAMPLE
P=$B/tests/sample/sampled
R=$B/pmcshim-report
SHIM=$PWD/$B/libpmcshim.so
HZ=4000

# shim NAME ARGS...: the program under the shim, sampled (env: the
# caller's), its reports in $tmp/NAME/, stdout and stderr in
# $tmp/NAME.out and .err, exit status in $rc; at most 120 s (a hang fails)
shim() {
	n=$1
	shift
	mkdir -p "$tmp/$n"
	timeout 120 env PMCSHIM_QUIET=1 PMCSHIM_EVENTS=task-clock PMCSHIM_OUTPUT="$tmp/$n/" \
		PMCSHIM_SAMPLE=${SAMPLE-$HZ} LD_PRELOAD="${PRELOAD:-$SHIM}" \
		${PROG:-$P} "$@" >"$tmp/$n.out" 2>"$tmp/$n.err"
	rc=$?
}

# fns NAME [OPTIONS...]: the functions of run NAME as CSV lines
# "function,module,samples,share,..." (header left out)
fns() {
	n=$1
	shift
	"$R" --functions --format csv "$@" "$tmp/$n"/*.pmc 2>"$tmp/$n.rerr" | tail -n +2
}

# col CSV FUNCTION N: column N of FUNCTION's line (empty when absent)
col() {
	printf '%s\n' "$1" | awk -F, -v f="$2" -v c="$3" '$1 == f { print $c; exit }'
}

# total CSV: the samples of all its lines
total() {
	printf '%s\n' "$1" | awk -F, '{ s += $3 } END { print s + 0 }'
}

# near PCT WANT: PCT (a share, 0..1) within 5 points of WANT percent
near() {
	awk -v p="$1" -v w="$2" 'BEGIN { exit !(p != "" && p * 100 >= w - 5 && p * 100 <= w + 5) }'
}

# shares RUN TEST: the test that one() and three() took 25% and 75% of
# run RUN
shares() {
	c=$(fns "$1")
	t=$(total "$c")
	s1=$(col "$c" one 4) s3=$(col "$c" three 4)
	if [ "$rc" = 0 ] && [ "$t" -ge 2000 ] && near "$s1" 25 && near "$s3" 75; then
		result "$2" ok
	else
		result "$2" fail "exit $rc, $t samples, one $s1, three $s3" \
			"$(head -3 "$tmp/$1.err" "$tmp/$1.rerr")"
	fi
}

# --- the reader on a synthetic table (tests/reader/gen_report --samples) ---------------
G=$B/tests/reader/gen_report
"$G" --samples "$tmp/gen.pmc"
want='[app+0x1234],app,300,0.7500,300000000
[libwork.so+0x40],libwork.so,100,0.2500,100000000'
got=$("$R" --functions --format csv --no-symbolize "$tmp/gen.pmc" 2>&1 | tail -n +2)
[ "$got" = "$want" ] && result reader_functions_csv ok || result reader_functions_csv fail "$got"
got=$("$R" --functions --format csv --no-symbolize --region '^solve$' "$tmp/gen.pmc" | tail -n +2)
[ "$got" = '[app+0x1234],app,300,1.0000,300000000' ] && result reader_region_filter ok ||
	result reader_region_filter fail "$got"
"$R" --functions --no-symbolize "$tmp/gen.pmc" >"$tmp/gen.table" 2>&1
grep -q '^not taken: 3 samples (2 with the table full, 1 inside a marker)$' "$tmp/gen.table" &&
	grep -q '^    300  75.0%       300 ms  \[app+0x1234\]       app$' "$tmp/gen.table" &&
	result reader_drops_said ok || result reader_drops_said fail "$(cat "$tmp/gen.table")"
"$G" --samples --corrupt samples-slots "$tmp/bad.pmc"
got=$("$R" "$tmp/bad.pmc" 2>&1)
rc=$?
[ $rc = 2 ] && [ "$(printf '%s\n' "$got" | wc -l)" = 1 ] &&
	printf '%s\n' "$got" | grep -qE "^pmcshim-report: $tmp/bad.pmc: corrupt samples record at offset [0-9]+: 5 slots of 48 bytes do not fit\$" &&
	result reader_corrupt_samples ok || result reader_corrupt_samples fail "exit $rc: $got"

# counter values per slot: each event's sum and IPC (CSV and table)
"$G" --samples --sample-values "$tmp/genv.pmc"
want='function,module,samples,share,task-clock,instructions,cycles,ipc
[app+0x1234],app,300,0.7500,300000000,3000000,1500000,2.0000
[libwork.so+0x40],libwork.so,100,0.2500,100000000,400000,800000,0.5000'
got=$("$R" --functions --format csv --no-symbolize "$tmp/genv.pmc" 2>&1)
[ "$got" = "$want" ] && result reader_sample_values_csv ok || result reader_sample_values_csv fail "$got"
"$R" --functions --no-symbolize "$tmp/genv.pmc" >"$tmp/genv.table" 2>&1
grep -q '^samples  share  time (est.)  instructions  cycles   IPC  function  ' "$tmp/genv.table" &&
	grep -q '^    300  75.0%       300 ms        3.00 M  1.50 M  2.00  \[app+0x1234\]  ' "$tmp/genv.table" &&
	result reader_sample_values_table ok || result reader_sample_values_table fail "$(cat "$tmp/genv.table")"
# a file without values (the first part's) shows no event columns
got=$("$R" --functions --format csv --no-symbolize "$tmp/gen.pmc" | head -1)
[ "$got" = 'function,module,samples,share,task-clock' ] && result reader_no_values_no_columns ok ||
	result reader_no_values_no_columns fail "$got"
# --children: the caller's frame holds the samples of its callee, itself none
got=$("$R" --functions --children --format csv --no-symbolize "$tmp/gen.pmc" | cut -d, -f1,3-5)
want='function,samples,share,children
[app+0x1234],300,0.7500,0.7500
[app+0x2000],0,0.0000,0.7500
[libwork.so+0x40],100,0.2500,0.2500'
[ "$got" = "$want" ] && result reader_children ok || result reader_children fail "$got"
# --stacks: the sampled stacks under the functions; folded-stacks: the
# sampled stacks without --functions too, where the report holds them
"$R" --stacks --no-symbolize "$tmp/gen.pmc" >"$tmp/gen.stacks" 2>&1
grep -q '^       300  75.0%  \[solve\];\[app+0x2000\];\[app+0x1234\]$' "$tmp/gen.stacks" &&
	result reader_sampled_stacks ok || result reader_sampled_stacks fail "$(tail -4 "$tmp/gen.stacks")"
got=$("$R" --format folded-stacks --no-symbolize "$tmp/gen.pmc" 2>&1)
[ "$got" = '[solve];[app+0x2000];[app+0x1234] 300
[libwork.so+0x40] 100' ] && result reader_folded_sampled ok || result reader_folded_sampled fail "$got"

# --- shares, output, settings --------------------------------------------------------
shim ratio ratio
shares ratio shares_1_to_3
plain=$($P ratio 2>&1; echo "rc=$?")
[ "$(cat "$tmp/ratio.out" "$tmp/ratio.err"; echo "rc=$rc")" = "$plain" ] &&
	result output_unchanged ok ||
	result output_unchanged fail "$(cat "$tmp/ratio.out" "$tmp/ratio.err")"

"$R" "$tmp/ratio"/*.pmc >"$tmp/table" 2>&1
grep -q '^## functions, sampled (task-clock every 250 us' "$tmp/table" &&
grep -q ' three  *sampled$' "$tmp/table" && result table_has_functions ok ||
	result table_has_functions fail "$(tail -8 "$tmp/table")"

SAMPLE= shim unsampled ratio
"$R" "$tmp/unsampled"/*.pmc >"$tmp/table2" 2>&1
[ "$rc" = 0 ] && ! grep -q 'functions' "$tmp/table2" && result off_by_default ok ||
	result off_by_default fail "$(grep functions "$tmp/table2")"

SAMPLE=often shim badvalue ratio
lines=$(grep -c "PMCSHIM_SAMPLE='often': want 0..100000 samples a second, or EVENT@PERIOD (instructions@10007); not sampling" "$tmp/badvalue.err")
[ "$rc" = 0 ] && [ "$lines" = 1 ] && [ -z "$(fns badvalue)" ] && result bad_value_one_line ok ||
	result bad_value_one_line fail "exit $rc; $(cat "$tmp/badvalue.err")"

$B/pmcshim -q --sample=$HZ -e task-clock -o "$tmp/launched" $P ratio >"$tmp/launched.out" 2>&1
rc=$?
[ "$rc" = 0 ] && grep -q '^## functions, sampled' "$tmp/launched.out" &&
grep -q ' three  *sampled$' "$tmp/launched.out" && result launcher_sample ok ||
	result launcher_sample fail "exit $rc" "$(tail -5 "$tmp/launched.out")"

# each thread its own event, its signal to itself: the two threads' shares
shim threads threads
shares threads threads_1_to_3

# an exec that fails: sampling goes on after it
shim execfail execfail
c=$(fns execfail)
[ "$rc" = 0 ] && [ "$(cat "$tmp/execfail.out")" = "exec failed" ] &&
	[ "$(col "$c" three 3)" -gt 100 ] && result exec_that_fails ok ||
	result exec_that_fails fail "exit $rc, $(cat "$tmp/execfail.out")" "$c"

# --- regions ---------------------------------------------------------------------------
shim region ratio region
all=$(total "$(fns region)")
in=$(fns region --region '^solve$')
out=$(fns region --region '^\(no region\)$')
tin=$(total "$in") tout=$(total "$out")
share_in=$(awk -v a="$tin" -v t="$all" 'BEGIN { if (t) print a / t }')
if [ "$rc" = 0 ] && [ "$all" -ge 2000 ] && [ $((tin + tout)) = "$all" ] &&
   awk -v s="$(col "$in" three 4)" 'BEGIN { exit !(s >= 0.95) }' &&
   awk -v s="$(col "$out" one 4)" 'BEGIN { exit !(s >= 0.95) }' && near "$share_in" 75; then
	result region_functions ok
else
	result region_functions fail "exit $rc; all $all, solve $tin, none $tout" "$in" "$out"
fi

# folded: each stack outermost first, the region as its root
"$R" --functions --format folded-stacks "$tmp/region"/*.pmc >"$tmp/folded" 2>&1
f3=$(awk '/^\[solve\];.*;main;three [0-9]+$/ { s += $NF } END { print s + 0 }' "$tmp/folded")
f1=$(awk '/^[^[].*;main;one [0-9]+$/ { s += $NF } END { print s + 0 }' "$tmp/folded")
[ "$f3" = "$(col "$in" three 3)" ] && [ "$f1" = "$(col "$out" one 3)" ] && [ "$f3" -gt 0 ] &&
	result folded_stacks ok || result folded_stacks fail "three $f3, one $f1" "$(head -5 "$tmp/folded")"

# speedscope: a valid file whose sampled profile holds the same stacks,
# three's under [solve] (where node can check it)
if command -v node >/dev/null 2>&1; then
	"$R" --format speedscope "$tmp/region"/*.pmc >"$tmp/ss.json" 2>&1
	node tests/reader/speedscope_check.js "$tmp/ss.json" --stacks samples >"$tmp/ss.out" 2>&1
	s3=$(awk '/^\[solve\];.*;main;three [0-9]+$/ { s += $NF } END { print s + 0 }' "$tmp/ss.out")
	[ "$(head -1 "$tmp/ss.out")" = ok ] && [ "$s3" = "$f3" ] &&
		result speedscope_samples ok || result speedscope_samples fail "three $s3, want $f3" \
		"$(head -5 "$tmp/ss.out")"
else
	result speedscope_samples "skip:no node to read the speedscope file"
fi

# --- hostile -----------------------------------------------------------------------------
shim takesig takesig
said=$(grep -c 'sampling stopped in process' "$tmp/takesig.err")
plain=$($P takesig; echo "rc=$?")
if [ "$(cat "$tmp/takesig.out"; echo "rc=$rc")" = "$plain" ] && [ "$said" = 1 ] &&
   [ "$(wc -l <"$tmp/takesig.err")" = 1 ] &&
   "$R" --functions "$tmp/takesig"/*.pmc | grep -q '^sampling stopped in 1 thread'; then
	result app_takes_the_signal ok
else
	result app_takes_the_signal fail "$(cat "$tmp/takesig.out") rc=$rc; plain: $plain" \
		"$(cat "$tmp/takesig.err")"
fi

shim blocked blocked
c=$(fns blocked)
n=$(col "$c" blocked_work 3)
[ "$rc" = 0 ] && [ "$(cat "$tmp/blocked.out")" = "blocked done" ] && [ "${n:-0}" -le 1 ] &&
	[ "$(col "$c" one 3)" -gt 100 ] && result thread_blocks_signals ok ||
	result thread_blocks_signals fail "exit $rc, blocked_work $n" "$c"

shim prof prof
c=$(fns prof)
[ "$rc" = 0 ] && [ "$(cat "$tmp/prof.out")" = "prof ticked" ] && [ "$(col "$c" three 3)" -gt 500 ] &&
	result itimer_prof_kept ok || result itimer_prof_kept fail "exit $rc, $(cat "$tmp/prof.out")" "$c"

shim forks forks
ok=0
for f in "$tmp/forks"/*.pmc; do
	c=$("$R" --functions --format csv "$f" | tail -n +2)
	has() { [ -n "$(col "$c" "$1" 3)" ]; }
	if has parent_work && ! has child_work && ! has execd_work; then
		ok=$((ok + 1))
	elif has child_work && ! has parent_work && ! has execd_work; then
		ok=$((ok + 10))
	elif has execd_work && ! has parent_work && ! has child_work; then
		ok=$((ok + 100))
	fi
done
[ "$rc" = 0 ] && [ "$(cat "$tmp/forks.out")" = "child 7" ] && [ $ok = 111 ] &&
	result fork_and_exec ok ||
	result fork_and_exec fail "exit $rc, $(cat "$tmp/forks.out"), files $ok (want 111)" \
		"$(head -3 "$tmp/forks.err")"

# the shim's handler hidden: the program asks every real-time signal's
# action and sees the default; sampling goes on; setting one (takesig
# above) is told the default was there
shim hidden hidden
c=$(fns hidden)
[ "$rc" = 0 ] && [ "$(cat "$tmp/hidden.out")" = "hidden" ] && [ "$(col "$c" one 3)" -gt 100 ] &&
	[ ! -s "$tmp/hidden.err" ] && result handler_hidden ok ||
	result handler_hidden fail "exit $rc, $(cat "$tmp/hidden.out" "$tmp/hidden.err")" "$c"

# samples inside the program's own signal handler
shim inhandler inhandler
c=$(fns inhandler)
[ "$rc" = 0 ] && [ "$(cat "$tmp/inhandler.out")" = "handled 8" ] &&
	[ "$(col "$c" handler_work 3)" -gt 100 ] && result sample_in_handler ok ||
	result sample_in_handler fail "exit $rc, $(cat "$tmp/inhandler.out")" "$c"

# --children with recursion: rec() six deep counts each sample once
shim recurse recurse
c=$(fns recurse --children)
[ "$rc" = 0 ] && awk -v s="$(col "$c" rec 5)" 'BEGIN { exit !(s >= 0.95 && s <= 1) }' &&
	awk -v s="$(col "$c" main 5)" 'BEGIN { exit !(s >= 0.95 && s <= 1) }' &&
	result children_recursion_once ok || result children_recursion_once fail "exit $rc" "$c"

# samples while the program forks (200 times), execs and unloads
# libraries, on another thread that runs one() meanwhile; and in code
# with no unwind tables whose frame pointer leads nowhere
hostile() {	# NAME MODE WANT-OUTPUT WANT-STATUS
	shim "$1" "$2"
	t=$(total "$(fns "$1")")
	if [ "$rc" = "$4" ] && [ "$(cat "$tmp/$1.out")" = "$3" ] && [ ! -s "$tmp/$1.err" ] &&
	   [ "$t" -gt 100 ]; then
		result "$1" ok
	else
		result "$1" fail "exit $rc (want $4), $t samples, $(cat "$tmp/$1.out")" \
			"$(head -5 "$tmp/$1.err" "$tmp/$1.rerr")"
	fi
}
hostile sample_during_fork forkloop "forked 200" 0
hostile sample_during_exec execthreads "" 7
hostile sample_during_dlclose dlclose "unloaded 800" 0
hostile sample_in_jit_code jit "jit ran" 0

# --- perf, the same program --------------------------------------------------------------
if command -v perf >/dev/null 2>&1 &&
   perf record -q -F 999 -e cpu-clock -o "$tmp/perf.data" $P ratio >/dev/null 2>"$tmp/perf.err"; then
	pc=$(perf report -i "$tmp/perf.data" --stdio -F overhead,sym 2>/dev/null |
		awk '$3 == "one" || $3 == "three" { sub("%", "", $1); print $3 "," $1 }')
	p1=$(col "$pc" one 2) p3=$(col "$pc" three 2)
	c=$(fns ratio)
	s1=$(col "$c" one 4) s3=$(col "$c" three 4)
	if [ -n "$p1" ] && [ -n "$p3" ] &&
	   awk -v a="$s1" -v b="$p1" -v c="$s3" -v d="$p3" 'BEGIN {
		x = a * 100 - b; y = c * 100 - d
		exit !(x <= 5 && x >= -5 && y <= 5 && y >= -5) }'; then
		result agrees_with_perf ok
	else
		result agrees_with_perf fail "perf: one $p1% three $p3%; shim: one $s1 three $s3"
	fi
else
	result agrees_with_perf "skip:perf record cannot run here ($(head -1 "$tmp/perf.err" 2>/dev/null))"
fi

# --- sanitizers --------------------------------------------------------------------------
asan_rt=$(${CC:-cc} -print-file-name=libasan.so)
if [ -f "$B/asan/libpmcshim.so" ] && [ -f "$asan_rt" ]; then
	ASAN_OPTIONS=detect_leaks=1:exitcode=86 UBSAN_OPTIONS=halt_on_error=1:exitcode=87 \
		PRELOAD="$asan_rt $PWD/$B/asan/libpmcshim.so" shim asan_ratio ratio
	shares asan_ratio asan_shares
	# (each against the output of the run above without the sanitizer)
	for p in forkloop:sample_during_fork dlclose:sample_during_dlclose jit:sample_in_jit_code \
		 inhandler:inhandler hidden:hidden; do
		m=${p%%:*}
		ASAN_OPTIONS=detect_leaks=1:exitcode=86 UBSAN_OPTIONS=halt_on_error=1:exitcode=87 \
			PRELOAD="$asan_rt $PWD/$B/asan/libpmcshim.so" shim asan_$m $m
		[ "$rc" = 0 ] && [ "$(cat "$tmp/asan_$m.out")" = "$(cat "$tmp/${p#*:}.out")" ] &&
			result asan_$m ok || result asan_$m fail "exit $rc" "$(head -5 "$tmp/asan_$m.err")"
	done
	ASAN_OPTIONS=detect_leaks=1:exitcode=86 UBSAN_OPTIONS=halt_on_error=1:exitcode=87 \
		PRELOAD="$asan_rt $PWD/$B/asan/libpmcshim.so" shim asan_forks forks
	[ "$rc" = 0 ] && [ "$(cat "$tmp/asan_forks.out")" = "child 7" ] &&
		result asan_fork_and_exec ok ||
		result asan_fork_and_exec fail "exit $rc" "$(head -5 "$tmp/asan_forks.err")"
else
	result asan_shares "skip:no ASan shim or no libasan"
	result asan_hostile "skip:no ASan shim or no libasan"
	result asan_fork_and_exec "skip:no ASan shim or no libasan"
fi
if [ -f "$B/tsan/libpmcshim.so" ] && [ -x "$B/tsan/sample/sampled" ]; then
	TSAN_OPTIONS=halt_on_error=1:exitcode=66 PMCSHIM_STACK_METHOD=fp PROG=$B/tsan/sample/sampled \
		PRELOAD="$PWD/$B/tsan/libpmcshim.so" shim tsan_blocked blocked
	[ "$rc" = 0 ] && [ "$(cat "$tmp/tsan_blocked.out")" = "blocked done" ] &&
		result tsan_thread_blocks_signals ok ||
		result tsan_thread_blocks_signals fail "exit $rc" "$(head -20 "$tmp/tsan_blocked.err")"
	TSAN_OPTIONS=halt_on_error=1:exitcode=66 PMCSHIM_STACK_METHOD=fp PROG=$B/tsan/sample/sampled \
		PRELOAD="$PWD/$B/tsan/libpmcshim.so" shim tsan_ratio ratio
	# (TSan holds a signal back until the thread next calls into it: a
	# busy loop gets few samples, so no shares here, only no race)
	t=$(total "$(fns tsan_ratio)")
	[ "$rc" = 0 ] && [ "$(cat "$tmp/tsan_ratio.out")" = "ratio done" ] && [ "$t" -ge 1 ] &&
		result tsan_ratio ok ||
		result tsan_ratio fail "exit $rc, $t samples" "$(head -20 "$tmp/tsan_ratio.err")"

	for p in forkloop:sample_during_fork dlclose:sample_during_dlclose inhandler:inhandler; do
		m=${p%%:*}
		TSAN_OPTIONS=halt_on_error=1:exitcode=66 PMCSHIM_STACK_METHOD=fp \
			PROG=$B/tsan/sample/sampled PRELOAD="$PWD/$B/tsan/libpmcshim.so" shim tsan_$m $m
		[ "$rc" = 0 ] && [ "$(cat "$tmp/tsan_$m.out")" = "$(cat "$tmp/${p#*:}.out")" ] &&
			result tsan_$m ok || result tsan_$m fail "exit $rc" "$(head -20 "$tmp/tsan_$m.err")"
	done
else
	result tsan_thread_blocks_signals "skip:no TSan shim or TSan build of the program"
	result tsan_hostile "skip:no TSan shim or TSan build of the program"
	result tsan_ratio "skip:no TSan shim or TSan build of the program"
fi

suite_end
