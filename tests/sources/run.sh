#!/bin/sh
# Regions with no source change, checked through pmcshim-report's CSV:
#   -finstrument-functions: exact calls of each function of a recursive
#   program (fib(15): 1973 calls), PMCSHIM_FUNCTIONS by names and by
#   /regex/ (exact too), a bad list (one line, every function), min=
#   (short calls folded into their callers), functions left by exit()
#   (measured, no error), no call's max above its function's incl, 4
#   threads meeting the same functions at once,
#   the program without the shim (glibc's no-op hooks: same output),
#   functions of known costs (1:2:3 exclusive shares, exclusive times that
#   add up to the CPU time), the same with PMCSHIM_FUNCTIONS=sampled
#   (exact calls, shares from samples) and its hooks single-stepped
#   (no tick read), a function whose cost is cache misses (its time its
#   own, as the program measured it), a
#   plugin dlclose'd and another loaded at its address (each counted
#   under its own names, its markers' stacks named after it);
#   OpenMP, the same program built with gcc (libgomp, interposed) and
#   with clang (libomp, OMPT): a parallel region run 100 times on 4
#   threads reads 100 calls in each thread, threads named omp-0.N, and in
#   each thread the exclusive wall times of all its regions add up to the
#   inclusive times of its parallel regions (the barriers, critical
#   sections and their waits nest in them); libgomp only in a library
#   loaded with RTLD_LOCAL; PMCSHIM_OPENMP=0, an unknown
#   PMCSHIM_OPENMP value (one line, the default), OMP_TOOL=disabled (one
#   line, the program as without the shim); nested regions, both builds:
#   an outer region of 2 threads run 10 times calls a function with its
#   own (serialized) parallel region, a loop, sections and a single: per
#   thread 10 calls of each region and of its implicit barrier, the
#   workshare barriers under their libgomp names ("omp loop barrier",
#   "omp sections barrier", "omp barrier" after a single), the same for
#   both runtimes; in the tree the outer region is the only root, the
#   inner one and the workshare barriers directly under it, the inner
#   barrier under the inner region, the outer inclusive time at least the
#   inner's; a region nested in itself 20 times (libgomp: all 20; libomp:
#   16, and one line for the 4 below).
# With the ASan+UBSan shim where it is built: the functions and libgomp runs
# again, and the nested libomp one; with the TSan shim, the 4 threads'
# functions.
B=${B:-build}
. tests/lib.sh
suite_begin sources
unset PMCSHIM_EVENTS PMCSHIM_QUIET PMCSHIM_OUTPUT PMCSHIM_FUNCTIONS PMCSHIM_OPENMP OMP_TOOL
S=$B/tests/sources
R=$B/pmcshim-report
SHIM=$PWD/$B/libpmcshim.so
export OMP_NUM_THREADS=4

# csv NAME [OPTIONS...]: the report of run NAME as CSV (--raw: values as
# measured, so sums are exact in ticks) into $tmp/NAME.csv
csv() {
	n=$1
	shift
	"$R" --raw --format csv "$@" "$tmp/$n"/*.pmc >"$tmp/$n.csv" 2>"$tmp/$n.rerr"
}

# calls_of NAME: "region=calls" per row of $tmp/NAME.csv (the merged
# table), in name order, on one line
calls_of() {
	awk -F, 'NR == 1 { for (i = 1; i <= NF; i++) h[$i] = i; next }
		{ print $h["region"] "=" $h["calls"] }' "$tmp/$1.csv" | sort | tr '\n' ' '
}

# --- -finstrument-functions ---------------------------------------------------

shim funcs "$S/funcs"
csv funcs
fwant="fib=1973 leaf=200 main=1 twice=100 "
got=$(calls_of funcs)
if [ $rc = 0 ] && [ "$got" = "$fwant" ] && [ ! -s "$tmp/funcs.err" ]; then
	result functions_exact_calls ok
else
	result functions_exact_calls fail "exit $rc, calls: $got (want $fwant)" "$(head -3 "$tmp/funcs.err")"
fi

# No call is longer than all calls of its function together: calibrated,
# each row's max is at most its incl (and its min at most its mean). The
# first call of twice, which met leaf and made its region, took
# microseconds; the average cost taken out of it left its max at 6.9 us
# above an incl of 88 ns for all 100 calls.
"$R" --format csv "$tmp/funcs"/*.pmc >"$tmp/funcs-cal.csv" 2>>"$tmp/funcs.err"
bad=$(awk -F, 'NR == 1 { for (i = 1; i <= NF; i++) h[$i] = i; next }
	$h["wall_max_ns"] + 0 > $h["wall_incl_ns"] + 0 || $h["wall_min_ns"] + 0 > $h["wall_mean_ns"] + 0 {
		print $h["region"] ": incl " $h["wall_incl_ns"] ", mean " $h["wall_mean_ns"] ", min " \
			$h["wall_min_ns"] ", max " $h["wall_max_ns"] }' "$tmp/funcs-cal.csv")
if [ -z "$bad" ] && [ "$(wc -l <"$tmp/funcs-cal.csv")" -gt 1 ]; then
	result functions_max_within_incl ok
else
	result functions_max_within_incl fail "$bad"
fi

src=$(awk -F, 'NR == 1 { for (i = 1; i <= NF; i++) if ($i == "source") c = i; next }
	{ print $c }' "$tmp/funcs.csv" | sort -u | tr '\n' ' ')
"$R" --source markers --format csv "$tmp/funcs"/*.pmc >"$tmp/markers.csv"
if [ "$src" = "functions " ] && [ "$(wc -l <"$tmp/markers.csv")" = 1 ]; then
	result functions_source ok
else
	result functions_source fail "sources: $src; --source markers: $(wc -l <"$tmp/markers.csv") lines"
fi

PMCSHIM_FUNCTIONS=fib,leaf shim names "$S/funcs"
csv names
got=$(calls_of names)
[ "$got" = "fib=1973 leaf=200 " ] && result functions_by_name ok ||
	result functions_by_name fail "calls: $got"

PMCSHIM_FUNCTIONS='/^t.*e$/' shim regex "$S/funcs"
csv regex
got=$(calls_of regex)
[ "$got" = "twice=100 " ] && result functions_by_regex ok ||
	result functions_by_regex fail "calls: $got"

PMCSHIM_FUNCTIONS='fib,/[/' shim badlist "$S/funcs"
csv badlist
got=$(calls_of badlist)
if [ "$got" = "$fwant" ] && [ "$(wc -l <"$tmp/badlist.err")" = 1 ] &&
   grep -q "PMCSHIM_FUNCTIONS='fib,/\[/': /\[/: .*; recording every function" "$tmp/badlist.err"; then
	result functions_bad_list ok
else
	result functions_bad_list fail "calls: $got" "$(cat "$tmp/badlist.err")"
fi

# min=: calls shorter than 50 ms are folded into their callers (the
# others last far less than that, slow() 60 ms), and the exclusive times
# still add up to main's inclusive time (one ns per row: rounding). At
# depth 0: at depth 8 each of fib's new stacks is walked by libunwind
# (the program has no frame pointers), and fib(15) can take 50 ms then.
PMCSHIM_STACK_DEPTH=0 PMCSHIM_FUNCTIONS=min=50ms shim fold "$S/funcs" slow
csv fold
got=$(calls_of fold)
sum=$(awk -F, 'NR == 1 { for (i = 1; i <= NF; i++) h[$i] = i; next }
	{ n++; ex += $h["wall_excl_ns"]; if ($h["region"] == "main") inc = $h["wall_incl_ns"] }
	END { d = ex - inc; if (d < 0) d = -d; print (d <= n && inc > 180000000) ? "ok" : ex " vs " inc }' "$tmp/fold.csv")
[ $rc = 0 ] && [ "$got" = "main=1 slow=3 " ] && [ "$sum" = ok ] && result functions_min_time ok ||
	result functions_min_time fail "exit $rc; calls: $got; sums: $sum" "$(head -3 "$tmp/fold.err")"

# exit() from inside main and leave(): both end there, measured, and no
# marker error
shim exit "$S/funcs" exit
csv exit
got=$(calls_of exit)
"$R" "$tmp/exit"/*.pmc >"$tmp/exit.table" 2>&1
if [ $rc = 0 ] && [ "$got" = "fib=1973 leaf=200 leave=1 main=1 twice=100 " ] &&
   ! grep -q 'marker errors' "$tmp/exit.table"; then
	result functions_left_by_exit ok
else
	result functions_left_by_exit fail "exit $rc; calls: $got" "$(grep -A3 'marker errors' "$tmp/exit.table")"
fi

# threads: 4 threads meet fib at once (per thread: fib=465, worker=1)
# per_thread_calls NAME: "NxREGION=CALLS,...": how many threads other
# than the main one have those calls
per_thread_calls() {
	awk -F, 'NR == 1 { for (i = 1; i <= NF; i++) h[$i] = i; next }
		$h["tid"] != $h["pid"] { print $h["tid"] " " $h["region"] "=" $h["calls"] }' \
		"$tmp/$1.csv" | sort | awk '{ c[$1] = c[$1] $2 "," }
		END { for (t in c) print c[t] }' | sort | uniq -c | awk '{ print $1 "x" $2 }'
}

shim threads "$S/funcs" threads
csv threads --threads
got=$(per_thread_calls threads)
[ $rc = 0 ] && [ "$got" = "4xfib=465,worker=1," ] && result functions_threads ok ||
	result functions_threads fail "exit $rc; $got" "$(head -3 "$tmp/threads.err")"

plain=$("$S/funcs"); prc=$?
if [ $prc = 0 ] && [ "$plain" = "$(cat "$tmp/funcs.out")" ] && [ "$plain" = "fib(15) = 610, sink 10000" ]; then
	result functions_without_shim ok
else
	result functions_without_shim fail "exit $prc: $plain; under the shim: $(cat "$tmp/funcs.out")"
fi

# Functions whose real costs are known (costs.c: busy loops of 1, 2 and 3
# units, each calling an empty function 3 times, 12 frames down): with
# the hooks' own cost taken out, their exclusive shares are 1:2:3 within
# 5 points, and all exclusive times add up to the program's CPU time
# without the shim (the same binary: glibc's empty hooks) within 10%.
# Wall time, so the run is taken at a real-time priority where the
# machine allows it (chrt, as root), and what the thread waited is taken
# out of the sum (its wall time less its CPU time). The best of 3 runs; a
# run whose thread waited more than 10% of its time is spoiled (where it
# waited is where it was when preempted, not what it cost): 5 spoiled
# runs and no other make a skip that says so. Before the hooks were
# calibrated through their own path: work1 24%, work3 40%, the sum 2x.
costs_once() {
	plain=$("$S/costs" | awk '{ print $2 }')
	rt=; chrt -f 1 true 2>/dev/null && rt="chrt -f 1"
	mkdir -p "$tmp/costs"
	rm -f "$tmp/costs"/*.pmc
	PMCSHIM_QUIET=1 PMCSHIM_EVENTS=none PMCSHIM_OUTPUT="$tmp/costs/" \
		LD_PRELOAD="$SHIM" $rt "$S/costs" >"$tmp/costs.out" 2>"$tmp/costs.err"
	rc=$?
	"$R" --format csv "$tmp/costs"/*.pmc >"$tmp/costs.csv" 2>>"$tmp/costs.err"
	thr=$("$R" --format json "$tmp/costs"/*.pmc |
		grep -o '"wall_ns": [0-9]*, "cpu_ns": [0-9]*' | head -1)
	awk -F, -v plain="$plain" -v thr="$thr" '
		NR == 1 { for (i = 1; i <= NF; i++) h[$i] = i; next }
		{ ex[$h["region"]] += $h["wall_excl_ns"]; tot += $h["wall_excl_ns"] }
		END {
			split(thr, a, /[ ,]+/); sum = tot - (a[2] - a[4])
			if (!tot || !plain) { print "no values"; exit }
			s1 = 100 * ex["work1"] / tot; s2 = 100 * ex["work2"] / tot
			s3 = 100 * ex["work3"] / tot; r = sum / plain
			ok = s1 > 100/6 - 5 && s1 < 100/6 + 5 && s2 > 100/3 - 5 && s2 < 100/3 + 5 &&
			     s3 > 45 && s3 < 55 && r > 0.9 && r < 1.1
			q = a[2] ? a[4] / a[2] : 0
			printf "%s shares %.1f%% %.1f%% %.1f%%, sum %.0f ms against %.0f ms " \
				"(%.3f), CPU %.2f of wall\n", ok ? "ok" : q < 0.9 ? "spoiled" : "off",
				s1, s2, s3, sum / 1e6, plain / 1e6, r, q
		}' "$tmp/costs.csv"
}
costs_said= tries=0 spoiled=0
while [ $tries -lt 3 ] && [ $spoiled -lt 5 ]; do
	got=$(costs_once)
	costs_said="$costs_said${costs_said:+; }$got"
	case $got in
	ok*) break ;;
	spoiled*) spoiled=$((spoiled + 1)) ;;
	*) tries=$((tries + 1)) ;;
	esac
done
case $got in
ok*) result functions_known_costs ok ;;
spoiled*) if [ $tries = 0 ]; then
		result functions_known_costs "skip:the machine too loaded to time wall: $got"
	else
		result functions_known_costs fail "$costs_said"
	fi ;;
*) result functions_known_costs fail "$costs_said" "$(head -3 "$tmp/costs.err")" ;;
esac

# A function whose cost is loads in flight (chase.c: 8 dependent cache
# misses a call, 40,000 calls from drive, which does next to nothing):
# its exclusive time and drive's inclusive time are within 15% of what
# the program measured around drive (CLOCK_MONOTONIC; wall against wall,
# so a preemption lands in both). The exit hook waits for the function's
# work before its tick read (0.97-0.98 of the program's time in 5 runs);
# without that wait the misses finished inside the hooks, the timed ones
# took them for their own cost, and the calibration took them out: 0.08
# to 0.72 in 9 runs.
rm -rf "$tmp/chase" && mkdir -p "$tmp/chase"
PMCSHIM_QUIET=1 PMCSHIM_EVENTS=none PMCSHIM_OUTPUT="$tmp/chase/" \
	LD_PRELOAD="$SHIM" "$S/chase" >"$tmp/chase.out" 2>"$tmp/chase.err"
"$R" --format csv "$tmp/chase"/*.pmc >"$tmp/chase.csv" 2>>"$tmp/chase.err"
got=$(awk -F, -v own="$(awk '{ print $2 }' "$tmp/chase.out")" '
	NR == 1 { for (i = 1; i <= NF; i++) h[$i] = i; next }
	$h["region"] == "chase" { c = $h["wall_excl_ns"] }
	$h["region"] == "drive" { d = $h["wall_incl_ns"] }
	END {
		if (!own) { print "no time printed"; exit }
		ok = c > 0.85 * own && c < 1.15 * own && d > 0.85 * own && d < 1.15 * own
		printf "%s chase excl %.1f ms, drive incl %.1f ms, measured by the program %.1f ms\n",
			ok ? "ok" : "off", c / 1e6, d / 1e6, own / 1e6
	}' "$tmp/chase.csv")
case $got in
ok*) result functions_loads_in_flight ok ;;
*) result functions_loads_in_flight fail "$got" "$(head -3 "$tmp/chase.err")" ;;
esac

# The same functions with PMCSHIM_FUNCTIONS=sampled (calls counted, time
# from task-clock samples): calls exact (300,000 of each work, 2,700,000
# of nothing), no min or max (no call is timed), the 1:2:3 exclusive shares
# within 5 points, and the estimates adding up to the CPU time of the same
# binary without the shim: asserted within 35% (timing every call once
# gave 2x), the goal within 10% printed as GOAL NOT MET where no try meets
# it (the hooks' own time is left out, but what they cost the functions
# around them, in caches and predictors, is not: 1.03-1.13 on a quiet
# machine here, 1.13-1.25 at a load of 19 on 2 cores). CPU time both
# sides, so no real-time priority; a loaded machine moves the plain run's
# CPU time too: 3 tries, each with its own plain run. Before: the keyword
# was refused (every function timed, no samples).
sampled_once() {
	plain=$("$S/costs" | awk '{ print $2 }')
	mkdir -p "$tmp/scosts"
	rm -f "$tmp/scosts"/*.pmc
	PMCSHIM_QUIET=1 PMCSHIM_EVENTS=none PMCSHIM_FUNCTIONS=sampled PMCSHIM_OUTPUT="$tmp/scosts/" \
		LD_PRELOAD="$SHIM" "$S/costs" >"$tmp/scosts.out" 2>"$tmp/scosts.err"
	"$R" --format csv "$tmp/scosts"/*.pmc >"$tmp/scosts.csv" 2>>"$tmp/scosts.err"
	awk -F, -v plain="$plain" '
		NR == 1 { for (i = 1; i <= NF; i++) h[$i] = i; next }
		{ ex[$h["region"]] += $h["wall_excl_ns"]; tot += $h["wall_excl_ns"]
		  n[$h["region"]] = $h["calls"]; mm += $h["wall_min_ns"] != "" }
		END {
			if (!tot || !plain) { print "no values"; exit }
			s1 = 100 * ex["work1"] / tot; s2 = 100 * ex["work2"] / tot
			s3 = 100 * ex["work3"] / tot; r = tot / plain
			calls = n["work1"] == 300000 && n["work2"] == 300000 && n["work3"] == 300000 &&
				n["nothing"] == 2700000 && n["drive"] == 1 && n["down"] == 13
			ok = calls && !mm && s1 > 100/6 - 5 && s1 < 100/6 + 5 &&
			     s2 > 100/3 - 5 && s2 < 100/3 + 5 && s3 > 45 && s3 < 55 && r > 0.9 && r < 1.35
			printf "%s shares %.1f%% %.1f%% %.1f%%, sum %.0f ms against %.0f ms " \
				"(%.3f), %d rows with a min, calls %s\n", !ok ? "off" : r < 1.1 ? "ok" : "near", s1, s2, s3,
				tot / 1e6, plain / 1e6, r, mm, calls ? "exact" : "WRONG"
		}' "$tmp/scosts.csv"
}
sampled_said= tries=0 near=
while [ $tries -lt 3 ]; do
	got=$(sampled_once)
	sampled_said="$sampled_said${sampled_said:+; }$got"
	case $got in ok*) break ;; near*) near=$got ;; esac
	tries=$((tries + 1))
done
case $got in off*) [ -n "$near" ] && got=$near ;; esac
case $got in
ok*) result functions_sampled_known_costs ok ;;
near*) result functions_sampled_known_costs ok
	echo "    GOAL NOT MET: sampled sums within 10% of the CPU time: $sampled_said" ;;
*) result functions_sampled_known_costs fail "$sampled_said" "$(head -3 "$tmp/scosts.err")" ;;
esac
# ... and no view gives their rows a min or max (JSON and the HTML page's
# data too: before, 18446744073709551615 and 0).
json_mm=$("$R" --format json "$tmp/scosts"/*.pmc 2>/dev/null | grep -c '"min": [0-9]\|"max": [0-9]')
html_mm=$("$R" --format html "$tmp/scosts"/*.pmc 2>/dev/null | grep -c '18446744073709551615')
# A table that merges a sampled file with a timed one says that a
# function's row adds CPU time to wall time.
"$R" "$tmp/scosts"/*.pmc "$tmp/costs"/*.pmc 2>&1 | grep -q '^# functions: counted in [0-9]* of these [0-9]* files' &&
	result functions_sampled_merged_said ok ||
	result functions_sampled_merged_said fail "no line saying the two kinds of function rows merge"
[ "$json_mm" = 0 ] && [ "$html_mm" = 0 ] && result functions_sampled_no_min_max ok ||
	result functions_sampled_no_min_max fail "JSON rows with a min or max: $json_mm; HTML UINT64_MAX: $html_mm"

# The sampled hooks read no clock: tickstep single-steps 100 rounds of
# notick's functions (300 calls, hooks included) once every function was
# met, and counts the rdtsc/rdtscp executed: 0 in sampled mode, and the
# same window in timed mode reads at least 2 per call (the check that the
# count sees them). The sampler at 1 Hz: a signal per 250 us of a
# single-stepped CPU would never end. x86-64 only (77: skipped).
tick_reads() {
	PMCSHIM_SAMPLE=1 PMCSHIM_QUIET=1 PMCSHIM_EVENTS=none PMCSHIM_FUNCTIONS=$1 \
		PMCSHIM_OUTPUT="$tmp/notick/" TICKSTEP_PRELOAD="$SHIM" \
		"$S/tickstep" "$S/notick" 100 traced 2>>"$tmp/notick.err" | awk '$1 == "steps" { print $4 }'
}
mkdir -p "$tmp/notick"
"$S/tickstep" "$S/notick" 1 traced >/dev/null 2>&1
if [ $? = 77 ]; then
	result functions_sampled_no_tick_read "skip:x86-64 only (tickstep counts rdtsc opcodes)"
else
	sampled_ticks=$(tick_reads sampled) timed_ticks=$(tick_reads "")
	if [ "$sampled_ticks" = 0 ] && [ "${timed_ticks:-0}" -ge 600 ]; then
		result functions_sampled_no_tick_read ok
	else
		result functions_sampled_no_tick_read fail \
			"tick reads in 300 calls: sampled '$sampled_ticks', timed '$timed_ticks'" \
			"$(head -3 "$tmp/notick.err")"
	fi
fi

# Sampled hooks count calls in their own table and publish them into the
# report file every few samples: killed.c calls work() 100,000 times, then
# spins 300 ms of CPU outside instrumented code (300 samples at the
# default rate) and kills itself with SIGKILL. All its calls are in the
# file. Before the publishing (a count kept only in the table), none were.
mkdir -p "$tmp/killed"
PMCSHIM_QUIET=1 PMCSHIM_EVENTS=none PMCSHIM_FUNCTIONS=sampled PMCSHIM_OUTPUT="$tmp/killed/" \
	LD_PRELOAD="$SHIM" "$S/killed" 2>"$tmp/killed.err"
rc=$?
csv killed
got=$(calls_of killed)
[ $rc = 137 ] && [ "$got" = "main=1 work=100000 " ] && result functions_sampled_sigkill ok ||
	result functions_sampled_sigkill fail "exit $rc; $got" "$(head -3 "$tmp/killed.err" "$tmp/killed.rerr")"

# A plugin unloaded and another loaded at its very address (alpha_* in
# A, beta_* in B, the same code): each function counted under its own
# name, and the marker in leaf, with its stack, named after the plugin
# it ran in. 77: the loader put B elsewhere (the case is not there).
PMCSHIM_STACK_DEPTH=4 shim reload "$S/reload" "$S/libreload-alpha.so" "$S/libreload-beta.so"
csv reload
got=$(calls_of reload)
want="alpha_leaf=70 alpha_work=7 beta_leaf=50 beta_work=5 step=120 "
"$R" --stacks --format csv "$tmp/reload"/*.pmc >"$tmp/reload.stacks" 2>>"$tmp/reload.rerr"
# each step row: "calls:plugin" by the names its stack holds
stacks=$(awk -F, 'NR == 1 { for (i = 1; i <= NF; i++) h[$i] = i; next }
	$h["region"] == "step" { s = $h["stack"]; p = ""
		if (s ~ /alpha_work.*alpha_leaf/ && s !~ /beta_/) p = "alpha"
		if (s ~ /beta_work.*beta_leaf/ && s !~ /alpha_/) p = "beta"
		print $h["calls"] ":" (p ? p : "mixed") }' "$tmp/reload.stacks" | sort | tr '\n' ' ')
if [ $rc = 77 ]; then
	result functions_reload_same_address "skip:$(cat "$tmp/reload.out")"
elif [ $rc = 0 ] && [ "$got" = "$want" ] && [ "$stacks" = "50:beta 70:alpha " ]; then
	result functions_reload_same_address ok
else
	result functions_reload_same_address fail "exit $rc; calls: $got (want $want); step stacks: $stacks (want 50:beta 70:alpha)" \
		"$(head -3 "$tmp/reload.err")"
fi
# The same with PMCSHIM_FUNCTIONS=sampled, whose nodes are keyed by the
# function's address: an unload makes every thread forget them. Before:
# alpha_leaf=120 alpha_work=12, beta's calls counted as alpha's.
PMCSHIM_FUNCTIONS=sampled shim sreload "$S/reload" "$S/libreload-alpha.so" "$S/libreload-beta.so"
csv sreload
got=$(calls_of sreload)
if [ $rc = 77 ]; then
	result functions_sampled_reload "skip:$(cat "$tmp/sreload.out")"
elif [ $rc = 0 ] && [ "$got" = "$want" ]; then
	result functions_sampled_reload ok
else
	result functions_sampled_reload fail "exit $rc; calls: $got (want $want)" "$(head -3 "$tmp/sreload.err")"
fi

# Sampled functions' time is CPU time, the kernel's in system calls too
# where the user may sample it (root here): sys() of 300,000 getppid()
# calls gets 70-130% of the CPU time the program measured in it (with the
# kernel left out: ~40%). Where not (an unprivileged user under
# perf_event_paranoid 2: run as nobody), the header says the time is the
# user's alone (task-clock:u).
PMCSHIM_FUNCTIONS=sampled PMCSHIM_EVENTS=none shim sysfn "$S/sysfn"
csv sysfn
got=$(awk -F, -v own="$(awk '{ print $2 }' "$tmp/sysfn.out")" '
	NR == 1 { for (i = 1; i <= NF; i++) h[$i] = i; next }
	$h["region"] == "sys" { s = $h["wall_excl_ns"] }
	END { printf "%s sys %.0f ms, the program measured %.0f ms\n",
		(s > 0.7 * own && s < 1.3 * own) ? "ok" : "off", s / 1e6, own / 1e6 }' "$tmp/sysfn.csv")
case $got in
ok*) result functions_sampled_system_calls ok ;;
*) result functions_sampled_system_calls fail "exit $rc; $got" "$(head -3 "$tmp/sysfn.err")" ;;
esac
if [ "$(id -u)" = 0 ] && command -v setpriv >/dev/null && [ "$(cat /proc/sys/kernel/perf_event_paranoid)" -ge 2 ]; then
	# (a directory of its own that nobody may write: $tmp is root's alone)
	nob=$(mktemp -d /tmp/pmcshim-nobody.XXXXXX) && chmod 777 "$nob" &&
	setpriv --reuid=nobody --regid=nogroup --clear-groups env PMCSHIM_QUIET=1 \
		PMCSHIM_EVENTS=none PMCSHIM_FUNCTIONS=sampled PMCSHIM_OUTPUT="$nob/" \
		LD_PRELOAD="$SHIM" "$PWD/$S/sysfn" >/dev/null 2>"$tmp/sysfn_nobody.err"
	said=$("$R" "$nob"/*.pmc 2>&1 | grep 'counted, not')
	rm -rf "$nob"
	case $said in
	*"user-space CPU time (system calls' left out) from task-clock:u samples"*)
		result functions_sampled_user_time_said ok ;;
	*) result functions_sampled_user_time_said fail "$said" "$(head -3 "$tmp/sysfn_nobody.err")" ;;
	esac
else
	result functions_sampled_user_time_said "skip:needs root, setpriv and perf_event_paranoid 2 to run as an unprivileged user"
fi

# Sampled nodes are forgotten at an unload only where their function's
# code went with it: foo() called 1,000 times, an unrelated plugin loaded
# and closed, foo() 10 times more from the same place: 1,010 (before: the
# thread forgot every node, the path's second node's 10 were written over
# the first's 1,000).
PMCSHIM_FUNCTIONS=sampled shim sunload "$S/unload" "$PWD/$S/libreload-alpha.so"
csv sunload
got=$(calls_of sunload)
[ $rc = 0 ] && [ "$got" = "alpha_leaf=7 alpha_work=1 foo=1010 main=1 plugin=1 step=7 " ] &&
	result functions_sampled_unrelated_unload ok ||
	result functions_sampled_unrelated_unload fail "exit $rc; $got" "$(head -3 "$tmp/sunload.err")"

# Functions left by longjmp, sampled: a function that returns after a
# longjmp into it is not closed by resync itself (200 calls closed, in g
# and h, as the timed hooks count them; before: 300 in 3), and a dive
# deeper than the calls kept, left by longjmp, leaves no call after it
# uncounted (before: other() had none, its calls taken for the dive's).
PMCSHIM_FUNCTIONS=sampled shim sleft "$S/jumps" deeper
csv sleft
got="$(calls_of sleft)| $("$R" "$tmp/sleft"/*.pmc 2>>"$tmp/sleft.rerr" | grep -o '^#   [0-9]* calls closed by resync in [0-9]* regions')"
case $got in
"deeper=1 dive=16381 f=100 g=100 h=100 main=1 other=1000 | #   "*" calls closed by resync in 3 regions")
	result functions_sampled_left_by_longjmp ok ;;
*) result functions_sampled_left_by_longjmp fail "exit $rc; $got" "$(head -3 "$tmp/sleft.err")" ;;
esac

# Functions left by longjmp, never returning: each call counted once and
# on its own (other() directly under run(), in nothing a longjmp left
# open), the calls closed counted and noted. jumps_check NAME WANT: $got
# is "calls | paths of other | note lines".
jwant="dive=5001 inner=2100 jump_out=2100 main=1 other=3100 run=1 "
jumps_check() {
	csv "$1"
	got="$(calls_of "$1")| $("$R" --raw --format folded "$tmp/$1"/*.pmc 2>>"$tmp/$1.rerr" |
		awk '$1 ~ /other/ { print $1 }' | sort -u | tr '\n' ' ')| $("$R" "$tmp/$1"/*.pmc 2>>"$tmp/$1.rerr" |
		grep -c '^#   9201 calls closed by resync in 3 regions: ')"
	[ $rc = 0 ] && [ "$got" = "$jwant| main;run;other | 1" ]
}
shim jumps "$S/jumps"
if jumps_check jumps; then
	result functions_longjmp_resync ok
else
	result functions_longjmp_resync fail "exit $rc; got $got" "$(head -3 "$tmp/jumps.err")"
fi
# The same for C++ exceptions unwound without the exit hooks (clang++)
if [ -x "$S/exceptions" ]; then
	shim exceptions "$S/exceptions"
	csv exceptions
	got="$(calls_of exceptions)| $("$R" --raw --format folded \
		"$tmp/exceptions"/*.pmc 2>>"$tmp/exceptions.rerr" | awk '$1 ~ /other/ { print $1 }')"
	ewant="main=1 middle(int)=2100 other(int)=3100 run()=1 thrower(int)=2100 | main;run();other(int)"
	[ $rc = 0 ] && [ "$got" = "$ewant" ] && result functions_exceptions_resync ok ||
		result functions_exceptions_resync fail "exit $rc; got $got" "want $ewant"
else
	result functions_exceptions_resync "skip:no clang++ (test dependency clang)"
fi
# ... and none where functions inlined into each other run their hooks
# in one machine frame. (The stacks' shape is what counts: folded --raw,
# since a function's calibrated wall time can be 0, and folded leaves a
# stack of 0 out; task-clock, which the function hooks count per thread
# only, gives no weight per function.)
shim inlined "$S/inlined"
csv inlined
got="$(calls_of inlined)| $("$R" --raw --format folded "$tmp/inlined"/*.pmc 2>>"$tmp/inlined.rerr" |
	awk '$1 !~ /rec/ { print $1 }' | sort | tr '\n' ' ')| $("$R" --raw --format folded \
	"$tmp/inlined"/*.pmc 2>>"$tmp/inlined.rerr" | awk '$1 ~ /rec/ { n = split($1, a, ";");
	if (n > m) m = n } END { print m }')| $("$R" "$tmp/inlined"/*.pmc 2>>"$tmp/inlined.rerr" |
	grep -c 'resync')"
iwant="big=1000 main=1 mid=3000 outer=2000 rec=465 tiny=8000 | main main;big main;big;mid \
main;big;mid;tiny main;big;outer main;big;outer;mid main;big;outer;mid;tiny main;big;outer;tiny \
main;outer main;outer;mid main;outer;mid;tiny main;outer;tiny | 13| 0"
[ $rc = 0 ] && [ "$got" = "$iwant" ] && result functions_inlined_no_resync ok ||
	result functions_inlined_no_resync fail "exit $rc; got $got" "want $iwant"
# The same with PMCSHIM_FUNCTIONS=sampled: an inlined function's hooks run
# at its caller's stack pointer, which is not a sign that the caller was
# left (taken as one, Lua 5.4 had 2 M calls closed by resync): exact calls,
# no resync.
PMCSHIM_FUNCTIONS=sampled shim sinlined "$S/inlined"
csv sinlined
got="$(calls_of sinlined)| $("$R" "$tmp/sinlined"/*.pmc 2>>"$tmp/sinlined.rerr" | grep -c 'resync')"
swant="big=1000 main=1 mid=3000 outer=2000 rec=465 tiny=8000 | 0"
[ $rc = 0 ] && [ "$got" = "$swant" ] && result functions_sampled_inlined ok ||
	result functions_sampled_inlined fail "exit $rc; got $got" "want $swant"

# --- OpenMP -------------------------------------------------------------------

# per_thread NAME REGEX: per thread of $tmp/NAME.csv (--threads), its
# name and the calls of the regions matching REGEX, sorted, as
# "thread:calls,calls" words sorted by thread name
per_thread() {
	awk -F, -v re="$2" 'NR == 1 { for (i = 1; i <= NF; i++) h[$i] = i; next }
		$h["region"] ~ re { c[$h["thread"]] = c[$h["thread"]] " " $h["calls"] }
		END { for (t in c) print t ":" c[t] }' "$tmp/$1.csv" |
	while IFS=: read -r t c; do
		printf '%s:%s\n' "$t" "$(printf '%s\n' $c | sort -n | tr '\n' ',')"
	done | sort | tr '\n' ' '
}

# sums NAME PARALLEL: per thread, the sum of every region's exclusive wall
# time against the sum of the inclusive times of the regions matching
# PARALLEL (the outermost ones): prints the threads where they differ by
# more than one ns per row summed (each value is converted from ticks to
# ns and rounded down on its own, so n values can lose up to n ns
# together; in ticks the sums are equal), or nothing
sums() {
	awk -F, -v re="$2" 'NR == 1 { for (i = 1; i <= NF; i++) h[$i] = i; next }
		{ t = $h["thread"]; n[t]++; ex[t] += $h["wall_excl_ns"]
		  if ($h["region"] ~ re) inc[t] += $h["wall_incl_ns"] }
		END { for (t in n) { d = ex[t] - inc[t]; if (d < 0) d = -d
			if (d > n[t] || inc[t] == 0) print t ": excl " ex[t] " incl " inc[t] } }' "$tmp/$1.csv"
}

# team CALLS PROGRAM: what per_thread says when each of the 4 threads (the
# main one named after the program, the others omp-0.1 to omp-0.3) has CALLS
team() {
	printf '%s\n' "$2" omp-0.1 omp-0.2 omp-0.3 | sort | sed "s/\$/:$1/" | tr -d '\n'
}

# omp LABEL PROGRAM PARALLEL CALLS TOP: the OpenMP checks for one build;
# PARALLEL matches the region run 100 times (CALLS: what per_thread says
# of it in each thread), TOP the outermost regions
omp() {
	label=$1 prog=$2 par=$3 calls=$4 top=$5
	shim "$label" "$prog"
	csv "$label" --threads --source openmp
	want=$(team "$calls" "${prog##*/}")
	got=$(per_thread "$label" "$par" | tr -d ' ')
	main=$(awk -F, 'NR > 1 { print $4; exit }' "$tmp/$label.csv")
	if [ $rc = 0 ] && [ "$got" = "$want" ] && [ "$main" = "${prog##*/}" ] &&
	   [ "$(cat "$tmp/$label.out")" = "threads 4 solve 1000 loop 49995000" ] &&
	   [ ! -s "$tmp/$label.err" ]; then
		result "${label}_100_calls_per_thread" ok
	else
		result "${label}_100_calls_per_thread" fail "exit $rc; per thread: $got (want $want); first thread $main" \
			"$(head -3 "$tmp/$label.err")"
	fi
	bad=$(sums "$label" "$top")
	if [ -z "$bad" ] && [ -s "$tmp/$label.csv" ]; then
		result "${label}_excl_and_waits_add_up" ok
	else
		result "${label}_excl_and_waits_add_up" fail "$bad"
	fi
}

omp omp_gcc "$S/omp-gcc" '^solve\._omp_fn\.0$' 100, '^(solve|loop)\._omp_fn\.0$'
# barriers: the implicit one of the 100 regions, in each thread
got=$(per_thread omp_gcc '^omp implicit barrier solve\._omp_fn\.0$' | tr -d ' ')
[ "$got" = "$(team 100, omp-gcc)" ] &&
	result omp_gcc_implicit_barrier ok || result omp_gcc_implicit_barrier fail "$got"

# libgomp only in a library loaded with RTLD_LOCAL: not found after the
# shim in the global scope, found in libgomp itself
shim omp_local "$S/ompload" "$PWD/$S/libomplib.so"
csv omp_local --threads
got=$(per_thread omp_local '^omplib_team\._omp_fn\.0$' | tr -d ' ')
[ $rc = 0 ] && [ "$(cat "$tmp/omp_local.out")" = "team 4" ] && [ "$got" = "$(team 1, ompload)" ] &&
	result omp_gcc_rtld_local ok ||
	result omp_gcc_rtld_local fail "exit $rc: $(cat "$tmp/omp_local.out"); $got" "$(head -3 "$tmp/omp_local.err")"

# Past the functions' limit (32,768 per process) the rest are counted in
# the report (dropped.functions) and said under the table, not only on
# stderr: 40,000 distinct functions leave 7,232 unrecorded.
PRELOAD="$SHIM" shim many_funcs "$S/manyfuncs"
"$R" --format json "$tmp/many_funcs"/*.pmc >"$tmp/many_funcs.json" 2>&1
"$R" "$tmp/many_funcs"/*.pmc >"$tmp/many_funcs.table" 2>&1
[ $rc = 0 ] && [ "$(cat "$tmp/many_funcs.out")" = done ] &&
   grep -q '"functions": 7232}' "$tmp/many_funcs.json" &&
   grep -q 'not recorded: 7232 instrumented functions past the limit of 32768' "$tmp/many_funcs.table" &&
	result functions_past_limit_counted ok ||
	result functions_past_limit_counted fail "exit $rc; $(grep -o '"dropped": {[^}]*}' "$tmp/many_funcs.json")" \
		"$(grep 'not recorded' "$tmp/many_funcs.table")"
# The same with PMCSHIM_FUNCTIONS=sampled: the 32,768 recorded functions'
# paths fit in the thread's nodes (rows: main and 32,767), and the 7,232
# others are counted once each, not again per call as paths with no room
# (before: 14,464).
PMCSHIM_FUNCTIONS=sampled PRELOAD="$SHIM" shim smany_funcs "$S/manyfuncs"
"$R" "$tmp/smany_funcs"/*.pmc >"$tmp/smany_funcs.table" 2>&1
csv smany_funcs
[ $rc = 0 ] && [ "$(($(wc -l <"$tmp/smany_funcs.csv") - 1))" = 32768 ] &&
   grep -q 'not recorded: 7232 instrumented functions past the limit of 32768, and calls of call paths' \
	"$tmp/smany_funcs.table" && result functions_sampled_past_limit ok ||
	result functions_sampled_past_limit fail "exit $rc; $(($(wc -l <"$tmp/smany_funcs.csv") - 1)) rows" \
		"$(grep 'not recorded' "$tmp/smany_funcs.table")"

# cancel parallel (libgomp, OMP_CANCELLATION=true): the program ends, with
# its output, and each thread of each region is a call (both threads run
# the outlined function, whichever way they leave it). Bounded in time:
# a hang is the failure.
OMP_CANCELLATION=true PRELOAD="$SHIM" shim omp_cancel timeout 60 "$S/omp-cancel"
csv omp_cancel --source openmp
got=$(calls_of omp_cancel)
[ $rc = 0 ] && [ "$(cat "$tmp/omp_cancel.out")" = "100 rounds, cancellation on" ] &&
   [ "$got" = "main._omp_fn.0=200 omp implicit barrier main._omp_fn.0=200 " ] &&
	result omp_gcc_cancel_parallel ok ||
	result omp_gcc_cancel_parallel fail "exit $rc (124: hung); $(cat "$tmp/omp_cancel.out"); $got" \
		"$(head -3 "$tmp/omp_cancel.err")"

PMCSHIM_OPENMP=0 shim omp_off "$S/omp-gcc"
csv omp_off
[ $rc = 0 ] && [ "$(wc -l <"$tmp/omp_off.csv")" = 1 ] && [ ! -s "$tmp/omp_off.err" ] &&
	result omp_off ok || result omp_off fail "exit $rc; $(wc -l <"$tmp/omp_off.csv") lines"

PMCSHIM_OPENMP=yes shim omp_bad "$S/omp-gcc"
csv omp_bad --threads
got=$(per_thread omp_bad '^solve\._omp_fn\.0$' | tr -d ' ')
if [ $rc = 0 ] && [ "$(wc -l <"$tmp/omp_bad.err")" = 1 ] &&
   grep -q "^pmcshim: PMCSHIM_OPENMP='yes': want 0 or 1; using 1$" "$tmp/omp_bad.err" &&
   [ "$(printf '%s' "$got" | grep -o ':100,' | wc -l)" = 4 ]; then
	result omp_unknown_value ok
else
	result omp_unknown_value fail "exit $rc; $got" "$(cat "$tmp/omp_bad.err")"
fi

if [ -x "$S/omp-clang" ]; then
	# (its two parallel regions are both named after main, where clang
	# inlined solve: 100 calls and 1)
	omp omp_clang "$S/omp-clang" '^omp parallel ' 1,100, '^omp parallel '
	OMP_TOOL=disabled shim omp_refused "$S/omp-clang"
	csv omp_refused
	if [ $rc = 0 ] && [ "$(wc -l <"$tmp/omp_refused.csv")" = 1 ] &&
	   [ "$(cat "$tmp/omp_refused.out")" = "threads 4 solve 1000 loop 49995000" ] &&
	   [ "$(wc -l <"$tmp/omp_refused.err")" = 1 ] &&
	   grep -q 'did not start the shim.s OMPT tool (OMP_TOOL=disabled)' "$tmp/omp_refused.err"; then
		result omp_clang_tool_refused ok
	else
		result omp_clang_tool_refused fail "exit $rc" "$(cat "$tmp/omp_refused.err")"
	fi
else
	for t in omp_clang_100_calls_per_thread omp_clang_excl_and_waits_add_up omp_clang_tool_refused; do
		result $t "skip:no clang -fopenmp with libomp (test dependencies clang, libomp-dev)"
	done
fi

# --- OpenMP, nested regions ------------------------------------------------------

# ompnest: an outer parallel region of 2 threads, run 10 times, whose body
# calls a function with its own parallel region (serialized: a team of
# one in each thread), a dynamic loop, sections and a single.

# nest_shape NAME OUTER INNER: per thread of $tmp/NAME.csv (--threads),
# "outer=CALLS,outer-barrier=CALLS,inner=...,loop-barrier=...,": the
# parallel regions (OUTER, INNER: regexes of their names), their implicit
# barriers, the workshare barriers and any other region but the work
# constructs that only OMPT reports; then "Nx" and the words of each
# shape N threads have. The same words for both runtimes.
nest_shape() {
	awk -F, -v o="$2" -v i="$3" 'NR == 1 { for (k = 1; k <= NF; k++) h[$k] = k; next }
		function is(re, r) { return r ~ re || ("omp parallel " r) ~ re }
		{ r = $h["region"]; w = r; b = r; sub(/^omp implicit barrier /, "", b) }
		b != r && is(o, b) { w = "outer-barrier" }
		b != r && is(i, b) { w = "inner-barrier" }
		b == r && r ~ o { w = "outer" }
		b == r && r ~ i { w = "inner" }
		r == "omp loop barrier" { w = "loop-barrier" }
		r == "omp sections barrier" { w = "sections-barrier" }
		r == "omp barrier" { w = "barrier" }
		r == "omp loop" || r == "omp sections" || r == "omp single" { next }
		{ gsub(/ /, "_", w); print $h["tid"] "\t" w "=" $h["calls"] }' "$tmp/$1.csv" |
	sort | awk -F'\t' '{ s[$1] = s[$1] $2 "," } END { for (t in s) print s[t] }' |
	sort | uniq -c | awk '{ printf "%dx%s ", $1, $2 }'
}

# nest_tree NAME OUTER INNER: the stacks of $tmp/NAME (--format folded)
# that are not as nested as the program: a root that is not OUTER, INNER
# not directly under it, INNER's implicit barrier not directly under
# INNER, a workshare barrier not directly under OUTER; or a line saying
# INNER is under OUTER nowhere; nothing when all is well
nest_tree() {
	"$R" --raw --format folded --threads --source openmp "$tmp/$1"/*.pmc |
	awk -v o="$2" -v i="$3" '{ s = $0; sub(/ [0-9]+$/, "", s); n = split(s, f, ";") }
		f[2] !~ o { print; next }
		n >= 3 && f[3] ~ i { seen = 1 }
		{ for (k = 3; k <= n; k++) {
			if ((f[k] ~ i && k != 3) || (f[k] ~ /^omp implicit barrier / &&
			     k > 3 && ("omp parallel " substr(f[k], 22)) !~ i && substr(f[k], 22) !~ i) ||
			    (f[k] ~ /^omp (loop |sections )?barrier$/ && k != 3)) { print; next } } }
		END { if (!seen) print "the inner region is under the outer one nowhere" }'
}

# nest_times NAME OUTER INNER: the threads of $tmp/NAME.csv where OUTER's
# inclusive wall time is below INNER's (it holds it), or nothing
nest_times() {
	awk -F, -v o="$2" -v i="$3" 'NR == 1 { for (k = 1; k <= NF; k++) h[$k] = k; next }
		$h["region"] ~ o { out[$h["tid"]] += $h["wall_incl_ns"] }
		$h["region"] ~ i { in_[$h["tid"]] += $h["wall_incl_ns"] }
		END { for (t in in_) if (out[t] < in_[t] || in_[t] == 0)
			print t ": outer " out[t] " ns, inner " in_[t] " ns" }' "$tmp/$1.csv"
}

nest_want="2xbarrier=10,inner-barrier=10,inner=10,loop-barrier=10,outer-barrier=10,outer=10,sections-barrier=10, "

# ompnest LABEL PROGRAM OUTER INNER: the checks for one build; OUTER and
# INNER match the names of the two regions and nothing else
ompnest() {
	label=$1 prog=$2 outer=$3 inner=$4
	shim "$label" "$prog"
	csv "$label" --threads --source openmp
	got=$(nest_shape "$label" "$outer" "$inner")
	eval "${label}_shape=\$got"
	if [ $rc = 0 ] && [ "$(cat "$tmp/$label.out")" = "nested 4995000 sections 20 singles 10" ] &&
	   [ ! -s "$tmp/$label.err" ] && [ "$got" = "$nest_want" ]; then
		result "${label}_calls_and_barriers" ok
	else
		result "${label}_calls_and_barriers" fail "exit $rc; per thread: $got" "want: $nest_want" \
			"$(head -3 "$tmp/$label.err")"
	fi
	bad="$(nest_tree "$label" "$outer" "$inner")$(nest_times "$label" "$outer" "$inner")$(sums "$label" "$outer")"
	[ -z "$bad" ] && [ -s "$tmp/$label.csv" ] && result "${label}_inner_under_outer" ok ||
		result "${label}_inner_under_outer" fail "$bad"
}

# deep LABEL PROGRAM CALLS ERR: "PROGRAM deep" (a region nested in itself
# 20 times, each a team of one): CALLS of the parallel regions and of
# their implicit barriers in all, stderr ERR lines
deep() {
	shim "$1" "$2" deep
	csv "$1" --source openmp
	got=$(awk -F, 'NR == 1 { for (k = 1; k <= NF; k++) h[$k] = k; next }
		{ c[$h["region"] ~ /^omp implicit barrier / ? "barriers" : "regions"] += $h["calls"] }
		END { print "regions=" c["regions"] ",barriers=" c["barriers"] }' "$tmp/$1.csv")
	"$R" "$tmp/$1"/*.pmc >"$tmp/$1.table" 2>&1
	if [ $rc = 0 ] && [ "$(cat "$tmp/$1.out")" = "levels 20" ] && [ "$got" = "regions=$3,barriers=$3" ] &&
	   [ "$(wc -l <"$tmp/$1.err")" = "$4" ] && ! grep -q 'marker errors' "$tmp/$1.table"; then
		result "$1" ok
	else
		result "$1" fail "exit $rc; $got (want $3 each); $(wc -l <"$tmp/$1.err") lines on stderr" \
			"$(head -3 "$tmp/$1.err")" "$(grep -A3 'marker errors' "$tmp/$1.table")"
	fi
}

ompnest omp_nest_gcc "$S/ompnest-gcc" '^main\._omp_fn\.0$' '^inner\._omp_fn\.0$'
deep omp_nest_gcc_deep "$S/ompnest-gcc" 20 0

if [ -x "$S/ompnest-clang" ]; then
	# (libomp: a region is named after where it was started)
	ompnest omp_nest_clang "$S/ompnest-clang" '^omp parallel main [(]' '^omp parallel inner [(]'
	[ "$omp_nest_gcc_shape" = "$omp_nest_clang_shape" ] && result omp_nest_runtimes_agree ok ||
		result omp_nest_runtimes_agree fail "gcc: $omp_nest_gcc_shape" "clang: $omp_nest_clang_shape"
	# 16 levels recorded, the 4 below them said in one line
	deep omp_nest_clang_deep "$S/ompnest-clang" 16 1
	grep -q 'OpenMP: 4 parallel regions nested deeper than 16 in their thread were not recorded' \
		"$tmp/omp_nest_clang_deep.err" && result omp_nest_clang_deep_said ok ||
		result omp_nest_clang_deep_said fail "$(cat "$tmp/omp_nest_clang_deep.err")"
else
	for t in omp_nest_clang_calls_and_barriers omp_nest_clang_inner_under_outer \
		 omp_nest_runtimes_agree omp_nest_clang_deep omp_nest_clang_deep_said; do
		result $t "skip:no clang -fopenmp with libomp (test dependencies clang, libomp-dev)"
	done
fi

# --- the same under the sanitizers ---------------------------------------------

if [ -f "$B/tsan/libpmcshim.so" ] && [ -x "$B/tsan/sources/funcs" ]; then
	# (frame-pointer stacks, as tests/run.sh's TSan suite: libunwind's
	# thread-exit destructor is not TSan-safe)
	PMCSHIM_STACK_METHOD=fp TSAN_OPTIONS=halt_on_error=1:exitcode=66 \
		PRELOAD="$PWD/$B/tsan/libpmcshim.so" shim tsan_threads "$B/tsan/sources/funcs" threads
	csv tsan_threads --threads
	got=$(per_thread_calls tsan_threads)
	[ $rc = 0 ] && [ "$got" = "4xfib=465,worker=1," ] && result tsan_functions_threads ok ||
		result tsan_functions_threads fail "exit $rc; $got" "$(head -20 "$tmp/tsan_threads.err")"
	# sampled: the counted frames, and the handler that adds to their sites
	PMCSHIM_FUNCTIONS=sampled PMCSHIM_SAMPLE=20000 PMCSHIM_STACK_METHOD=fp \
		TSAN_OPTIONS=halt_on_error=1:exitcode=66 \
		PRELOAD="$PWD/$B/tsan/libpmcshim.so" shim tsan_sampled "$B/tsan/sources/funcs" threads
	csv tsan_sampled --threads
	got=$(per_thread_calls tsan_sampled)
	[ $rc = 0 ] && [ "$got" = "4xfib=465,worker=1," ] && result tsan_functions_sampled ok ||
		result tsan_functions_sampled fail "exit $rc; $got" "$(head -20 "$tmp/tsan_sampled.err")"
else
	result tsan_functions_threads "skip:no TSan shim or TSan build of the program"
	result tsan_functions_sampled "skip:no TSan shim or TSan build of the program"
fi
if [ -f "$B/tsan/libpmcshim.so" ] && [ -x "$B/tsan/sources/jumps" ]; then
	PMCSHIM_STACK_METHOD=fp TSAN_OPTIONS=halt_on_error=1:exitcode=66 \
		PRELOAD="$PWD/$B/tsan/libpmcshim.so" shim tsan_jumps "$B/tsan/sources/jumps"
	jumps_check tsan_jumps && result tsan_functions_longjmp ok ||
		result tsan_functions_longjmp fail "exit $rc; $got" "$(head -20 "$tmp/tsan_jumps.err")"
else
	result tsan_functions_longjmp "skip:no TSan shim or TSan build of the program"
fi

CC=${CC:-cc}
asan_rt=$($CC -print-file-name=libasan.so)
if [ -f "$B/asan/libpmcshim.so" ] && [ -f "$asan_rt" ]; then
	export ASAN_OPTIONS=detect_leaks=1:exitcode=86 UBSAN_OPTIONS=halt_on_error=1:exitcode=87
	PRELOAD="$asan_rt $PWD/$B/asan/libpmcshim.so" shim asan_jumps "$S/jumps"
	jumps_check asan_jumps && result asan_functions_longjmp ok ||
		result asan_functions_longjmp fail "exit $rc; $got" "$(head -5 "$tmp/asan_jumps.err")"
	PRELOAD="$asan_rt $PWD/$B/asan/libpmcshim.so" shim asan_funcs "$S/funcs"
	csv asan_funcs
	got=$(calls_of asan_funcs)
	[ $rc = 0 ] && [ "$got" = "$fwant" ] && result asan_functions ok ||
		result asan_functions fail "exit $rc; $got" "$(head -5 "$tmp/asan_funcs.err")"
	# sampled: exact calls, and longjmp's frames closed the counted way
	# (no folded check: a path without samples has no weight there)
	PMCSHIM_FUNCTIONS=sampled PRELOAD="$asan_rt $PWD/$B/asan/libpmcshim.so" \
		shim asan_sfuncs "$S/funcs"
	csv asan_sfuncs
	got=$(calls_of asan_sfuncs)
	PMCSHIM_FUNCTIONS=sampled PRELOAD="$asan_rt $PWD/$B/asan/libpmcshim.so" \
		shim asan_sjumps "$S/jumps"
	csv asan_sjumps
	[ $rc = 0 ] && [ "$(calls_of asan_sjumps)" = "$jwant" ] && [ "$got" = "$fwant" ] &&
	   "$R" "$tmp/asan_sjumps"/*.pmc 2>&1 | grep -q '^#   9201 calls closed by resync in 3 regions: ' &&
		result asan_functions_sampled ok ||
		result asan_functions_sampled fail "exit $rc; $got" "$(head -5 "$tmp/asan_sfuncs.err" \
			"$tmp/asan_sjumps.err")"
	# (frame-pointer stacks: at depth 8 libgomp's frames send the walk to
	# libunwind, whose dynamic TLS in libgomp's threads crashes
	# LeakSanitizer's tracer at exit: "Tracer caught signal 11")
	PMCSHIM_STACK_METHOD=fp PRELOAD="$asan_rt $PWD/$B/asan/libpmcshim.so" \
		shim asan_omp "$S/omp-gcc"
	csv asan_omp --threads
	got=$(per_thread asan_omp '^solve\._omp_fn\.0$' | tr -d ' ')
	[ $rc = 0 ] && [ "$(printf '%s' "$got" | grep -o ':100,' | wc -l)" = 4 ] &&
		result asan_omp_gcc ok || result asan_omp_gcc fail "exit $rc; $got" "$(head -5 "$tmp/asan_omp.err")"
	# libomp's callbacks into the nesting of ompt.c (its stack of tasks)
	if [ -x "$S/ompnest-clang" ]; then
		PMCSHIM_STACK_METHOD=fp PRELOAD="$asan_rt $PWD/$B/asan/libpmcshim.so" \
			shim asan_omp_nest "$S/ompnest-clang"
		csv asan_omp_nest --threads --source openmp
		got=$(nest_shape asan_omp_nest '^omp parallel main [(]' '^omp parallel inner [(]')
		[ $rc = 0 ] && [ "$got" = "$nest_want" ] && result asan_omp_nest_clang ok ||
			result asan_omp_nest_clang fail "exit $rc; $got" "$(head -5 "$tmp/asan_omp_nest.err")"
	else
		result asan_omp_nest_clang "skip:no clang -fopenmp with libomp (test dependencies clang, libomp-dev)"
	fi
else
	result asan_functions "skip:no ASan shim ($B/asan/libpmcshim.so) or libasan"
	result asan_functions_sampled "skip:no ASan shim ($B/asan/libpmcshim.so) or libasan"
	result asan_functions_longjmp "skip:no ASan shim ($B/asan/libpmcshim.so) or libasan"
	result asan_omp_gcc "skip:no ASan shim ($B/asan/libpmcshim.so) or libasan"
	result asan_omp_nest_clang "skip:no ASan shim ($B/asan/libpmcshim.so) or libasan"
fi

suite_end
