#!/bin/sh
# Validation (run from the repository root; make test runs it): every
# PMCSHIM_* variable and every option of both commands, each with a bad
# value, listed in the tables below. A variable's bad value gets one line
# naming it and what is used instead, and the program runs on as it would
# without the shim; a bad option of either command is exit status 2 with
# one line naming it, and nothing run. Each table is checked against the
# sources: a variable or option added without a row here fails
# *_all_listed, which names it. Also: a command's death by signal passed
# on without a core of the launcher's, -o's missing parents made 0700,
# and --list-events saying what this machine can count now.
B=${B:-build}
. tests/lib.sh
suite_begin validate
unset PMCSHIM_EVENTS PMCSHIM_QUIET PMCSHIM_OUTPUT PMCSHIM_STACK_DEPTH PMCSHIM_STACK_METHOD \
	PMCSHIM_MAX_NAMES PMCSHIM_SERIALIZE PMCSHIM_DEBUG_ROOT LD_PRELOAD
L=$(realpath "$B/pmcshim")
R=$(realpath "$B/pmcshim-report")
SHIM=$(realpath "$B/libpmcshim.so")
# the application: its output and status are what must not change
APP='echo out; echo err >&2; exit 3'

# The defaults the shim takes here: the PMU's where it counts them, else
# the software ones (config_default_events)
if "$L" --list-events 2>/dev/null | grep -q '^  instructions  *no: '; then
	DEF=task-clock,context-switches,page-faults
else
	DEF=instructions,cycles
fi

# The shim's variables: NAME|BAD VALUE|the line it gets (after "pmcshim: ");
# a misspelt name is a bad name
SHIM_VARS='PMCSHIM_EVENTS||PMCSHIM_EVENTS='"''"' names no event; using '"$DEF"'
PMCSHIM_EVENTS|,|PMCSHIM_EVENTS='"','"' names no event; using '"$DEF"'
PMCSHIM_EVENTS|task-clock,bogus|PMCSHIM_EVENTS: skipped '"'bogus'"': unknown event
PMCSHIM_STACK_DEPTH|65|PMCSHIM_STACK_DEPTH='"'65'"': want 0..64; using 8
PMCSHIM_STACK_METHOD|frames|PMCSHIM_STACK_METHOD='"'frames'"': want auto, tables, fp or unwind; using auto
PMCSHIM_MAX_NAMES|0|PMCSHIM_MAX_NAMES='"'0'"': want 1..268435456; using 1048576
PMCSHIM_OUTPUT||PMCSHIM_OUTPUT is empty; using pmcshim-%e-%p.pmc
PMCSHIM_QUIET|yes|PMCSHIM_QUIET='"'yes'"': want 0 or 1; using 0
PMCSHIM_SERIALIZE|2|PMCSHIM_SERIALIZE='"'2'"': want 0 or 1; using 0
PMCSHIM_MPI|perhaps|PMCSHIM_MPI='"'perhaps'"': want 0 or 1; using 1
PMCSHIM_OPENMP|2|PMCSHIM_OPENMP='"'2'"': want 0 or 1; using 1
PMCSHIM_FUNCTIONS|min=5|PMCSHIM_FUNCTIONS='"'min=5'"': min=5: want a duration such as 500ns, 20us, 5ms, 1s; recording every function
PMCSHIM_FUNCTIONS|sampled,min=5us|PMCSHIM_FUNCTIONS='"'sampled,min=5us'"': min= needs each call timed; sampled times none; recording every function
PMCSHIM_LIKWID|2|PMCSHIM_LIKWID='"'2'"': want 0 or 1; using 1
PMCSHIM_PAPI|x|PMCSHIM_PAPI='"'x'"': want 0 or 1; using 1
PMCSHIM_NVTX|on|PMCSHIM_NVTX='"'on'"': want 0 or 1; using 1
PMCSHIM_SAMPLE|abc|PMCSHIM_SAMPLE='"'abc'"': want 0..100000 samples a second, or EVENT@PERIOD (instructions@10007); not sampling
PMCSHIM_SAMPLE|instructions@5|PMCSHIM_SAMPLE='"'instructions@5'"': want a period of 1000..281474976710656 instructions after the @; not sampling
PMCSHIM_SAMPLE|instructions@|PMCSHIM_SAMPLE='"'instructions@'"': want a period of 1000..281474976710656 instructions after the @; not sampling
PMCSHIM_SAMPLE|bogus@10007|PMCSHIM_SAMPLE='"'bogus@10007'"': '"'bogus'"': unknown event
PMCSHIM_STACKDEPTH|3|PMCSHIM_STACKDEPTH: not a variable pmcshim reads; ignored (PMCSHIM_STACK_DEPTH?)
pmcshim_quiet|1|pmcshim_quiet: not a variable pmcshim reads; ignored (PMCSHIM_QUIET?)'

# The same under the launcher, once for the whole run (a tree of three
# processes): NAME|BAD VALUE|STATUS|the line. The launcher refuses bad
# events before running anything; it sets PMCSHIM_OUTPUT and PMCSHIM_QUIET
# itself.
LAUNCH_VARS='PMCSHIM_EVENTS||2|PMCSHIM_EVENTS '"''"': no event named
PMCSHIM_EVENTS|bogus|2|PMCSHIM_EVENTS: '"'bogus'"': unknown event
PMCSHIM_STACK_DEPTH|-1|3|PMCSHIM_STACK_DEPTH='"'-1'"': want 0..64; using 8
PMCSHIM_STACK_METHOD|frames|3|PMCSHIM_STACK_METHOD='"'frames'"': want auto, tables, fp or unwind; using auto
PMCSHIM_MAX_NAMES|x|3|PMCSHIM_MAX_NAMES='"'x'"': want 1..268435456; using 1048576
PMCSHIM_OUTPUT|x.pmc|3|PMCSHIM_OUTPUT='"'x.pmc'"': not used; the reports go into the run directory
PMCSHIM_QUIET|yes|3|PMCSHIM_QUIET='"'yes'"': not used
PMCSHIM_SERIALIZE|on|3|PMCSHIM_SERIALIZE='"'on'"': want 0 or 1; using 0
PMCSHIM_MPI|2|3|PMCSHIM_MPI='"'2'"': want 0 or 1; using 1
PMCSHIM_OPENMP|on|3|PMCSHIM_OPENMP='"'on'"': want 0 or 1; using 1
PMCSHIM_FUNCTIONS|a b|3|PMCSHIM_FUNCTIONS='"'a b'"': '"'a b'"' is neither a function name nor /REGEX/; recording every function
PMCSHIM_LIKWID|on|3|PMCSHIM_LIKWID='"'on'"': want 0 or 1; using 1
PMCSHIM_PAPI|2|3|PMCSHIM_PAPI='"'2'"': want 0 or 1; using 1
PMCSHIM_NVTX|x|3|PMCSHIM_NVTX='"'x'"': want 0 or 1; using 1
PMCSHIM_SAMPLE|x|3|PMCSHIM_SAMPLE='"'x'"': want 0..100000 samples a second, or EVENT@PERIOD (instructions@10007); not sampling
PMCSHIM_SAMPLE|cycles@-3|3|PMCSHIM_SAMPLE='"'cycles@-3'"': want a period of 1000..281474976710656 cycles after the @; not sampling
PMCSHIM_EVENT|task-clock|3|PMCSHIM_EVENT: not a variable pmcshim reads; ignored (PMCSHIM_EVENTS?)'

# The launcher's options: LONG NAME|ARGUMENTS (word-split; the command
# touches "ran")|the line
LAUNCH_OPTS='events|-e , touch ran|-e '"','"': no event named
events|--events no-such-event touch ran|-e: '"'no-such-event'"': unknown event
depth|-d 65 touch ran|-d '"'65'"': want 0..64
depth|--depth x touch ran|-d '"'x'"': want 0..64
output|-o notempty touch ran|-o notempty: the directory is not empty
output|--output|--output: needs a value
quiet|--quiet=1 touch ran|--quiet=1: unknown option
table|--table|--table: needs a value
table|-O /no/such/dir/t touch ran|--table '"'/no/such/dir/t'"': No such file or directory
list-events|--list-events=all|--list-events=all: unknown option
version|--version=2|--version=2: unknown option
help|--help=1|--help=1: unknown option
metrics|-M nosuch touch ran|-M: '"'nosuch'"': no such metric or group
metrics|--metrics , touch ran|-M: '"','"' names no metric
group|-g NOSUCH touch ran|-M: '"'NOSUCH'"': no such metric or group
metrics-file|--metrics-file /nonexistent.def -M IPC touch ran|/nonexistent.def: No such file or directory
list-metrics|--list-metrics=all|--list-metrics=all: unknown option
sample|--sample=0 touch ran|--sample '"'0'"': want 1..100000 samples a second, or EVENT@PERIOD (instructions@10007)
sample|--sample=instructions@1 touch ran|--sample '"'instructions@1'"': want a period of 1000..281474976710656 instructions after the @
sample|--sample=nosuch@20000 touch ran|--sample '"'nosuch@20000'"': '"'nosuch'"': unknown event
repeat|-r 0 touch ran|-r '"'0'"': want 1..1000 runs
repeat|--repeat x touch ran|-r '"'x'"': want 1..1000 runs
repeat|-r 1001 touch ran|-r '"'1001'"': want 1..1000 runs
check|--check=1 touch ran|--check=1: unknown option
system|--system=1 touch ran|--system=1: unknown option
interval|--system -I 5 touch ran|-I '"'5'"': want 10..3600000 ms
interval|-I 100 touch ran|-I, -C and --duration go with --system
cpus|--system -C 1-0 touch ran|-C '"'1-0'"': want CPU numbers and ranges, as 0,2-3
duration|--system --duration 0 touch ran|--duration '"'0'"': want seconds, more than 0
-|--no-such-option touch ran|--no-such-option: unknown option
-|-x touch ran|-x: unknown option
-||no command given'

# The reader's options: LONG NAME|ARGUMENTS (word-split; @ is a
# report)|the line
READER_OPTS='threads|--threads=1 @|--threads=1: unknown option
children|--children=1 @|--children=1: unknown option
by-process|--by-process=1 @|--by-process=1: unknown option
by-command|--by-command=1 @|--by-command=1: unknown option
stacks|--stacks=1 @|--stacks=1: unknown option
no-symbolize|--no-symbolize=1 @|--no-symbolize=1: unknown option
raw|--raw=1 @|--raw=1: unknown option
ranks|--ranks=1 @|--ranks=1: unknown option
source|--source nope @|--source: unknown value '"'nope'"' (one of: markers functions openmp mpi likwid papi nvtx)
sort|--sort size @|--sort: unknown value '"'size'"'
top|--top 0 @|--top: '"'0'"' is not a positive number
region|--region ( @|--region '"'('"'
event|--event no-such-event @|--event no-such-event: no such event
format|--format xml @|--format: unknown value '"'xml'"'
help|--help=1 @|--help=1: unknown option
watch|--watch=0 @|--watch: '"'0'"' is not a number of seconds
version|--version=1 @|--version=1: unknown option
collapse-unavailable|--collapse-unavailable=yes @|--collapse-unavailable=yes: unknown option
totals|--totals=1 @|--totals=1: unknown option
tree|--tree=1 @|--tree=1: unknown option
min-share|--min-share 200 @|--min-share: '"'200'"' is not a percentage (0 to 100)
min-coverage|--min-coverage 101 @|--min-coverage: '"'101'"' is not a percentage
metrics|-M nosuch @|-M: '"'nosuch'"': no such metric or group
metrics-file|--metrics-file /nonexistent.def -M IPC @|/nonexistent.def: No such file or directory
list-metrics|--list-metrics=all|--list-metrics=all: unknown option
repeat|--repeat @|--repeat: give two runs or more
intervals|--intervals=1 @|--intervals=1: unknown option
functions|--functions=1 @|--functions=1: unknown option
-|--no-such-option @|--no-such-option: unknown option
-|@ --top|--top: needs a value
-||no report file given
diff|diff @|diff: give two reports'

# names NAME TABLE: the first fields of TABLE
names() {
	printf '%s\n' "$1" | cut -d'|' -f1 | sort -u
}

# listed WHAT HAVE WANT: a test that every WANT (one a line) has a row
listed() {
	missing=$(printf '%s\n' "$3" | while read -r w; do
		printf '%s\n' "$2" | grep -qx -- "$w" || printf '%s ' "$w"; done)
	[ -z "$missing" ] && result "$1_all_listed" ok ||
		result "$1_all_listed" fail "no row in tests/validate/run.sh for: $missing"
}

# the variables the shim reads (a string literal naming one: getenv's
# argument or a table row), and each command's long options
read_vars=$(grep -ho '"PMCSHIM_[A-Z][A-Z_]*"' preload/*/*.c | tr -d '"' | sort -u)
long_opts() {
	grep -o '{ "[a-z-]*", [a-z]*_argument' "$1" | sed 's/{ "\([a-z-]*\)".*/\1/' | sort -u
}
listed shim_vars "$(names "$SHIM_VARS")" "$read_vars"
listed launcher_vars "$(names "$LAUNCH_VARS")" "$read_vars"
listed launcher_opts "$(names "$LAUNCH_OPTS")" "$(long_opts tools/launcher/pmcshim.c)"
listed reader_opts "$(names "$READER_OPTS")" "$(long_opts tools/reader/pmcshim-report.c)"

# pmcshim_lines FILE: the lines the shim or the launcher wrote, less the
# machine's events notice (a VM without a PMU gives one: unavailable events,
# or the defaults chosen for it)
pmcshim_lines() {
	grep '^pmcshim: ' "$1" | grep -v '^pmcshim: \(some \)\?events unavailable\|^pmcshim: default events '
}

# one_line FILE WANT: FILE's pmcshim lines are exactly one, containing WANT
one_line() {
	pmcshim_lines "$1" >"$1.p"
	[ "$(wc -l <"$1.p")" = 1 ] && grep -qF -- "$2" "$1.p"
}

# verdict NAME STATUS DETAIL WANT ERRFILE: the result of a row whose
# checks gave STATUS (0: all passed)
verdict() {
	if [ "$2" = 0 ]; then
		result "$1" ok
	else
		result "$1" fail "$3" "want the line: $4" "got: $(cat "$5")"
	fi
}

# refused NAME STATUS DIR WANT: a bad option's run: status 2, one line
# with WANT in DIR/err, nothing in DIR/out, the command ("touch ran") not run
refused() {
	[ "$2" = 2 ] && [ "$(wc -l <"$3/err")" = 1 ] && grep -qF -- "$4" "$3/err" &&
		[ ! -s "$3/out" ] && [ ! -e "$3/ran" ]
	verdict "$1" $? "exit $2 (want 2), ran: $(ls "$3" | grep -c '^ran$')" "$4" "$3/err"
}

# tally FILE: the results a loop in a pipe (a subshell) printed, counted
tally() {
	cat "$1"
	passed=$((passed + $(grep -c '^ok ' "$1")))
	failed=$((failed + $(grep -c '^FAIL ' "$1")))
}

# The shim, preloaded by hand: one line, the default used, and the
# application as it would be alone (its output, its status, a report).
i=0
printf '%s\n' "$SHIM_VARS" | while IFS='|' read -r var bad want; do
	i=$((i + 1))
	d=$tmp/shim$i
	mkdir -p "$d"
	(cd "$d" && env PMCSHIM_QUIET=1 PMCSHIM_OUTPUT="$d/r.pmc" "$var=$bad" \
		LD_PRELOAD="$SHIM" sh -c "$APP" >out 2>err)
	rc=$?
	report=$(ls "$d"/*.pmc 2>/dev/null | head -1)
	name="shim_${var}_$(echo "${bad:-empty}" | tr -c 'a-zA-Z0-9\n' _)"
	one_line "$d/err" "$want" && [ $rc = 3 ] && [ "$(cat "$d/out")" = out ] &&
		grep -qx err "$d/err" && [ -n "$report" ] && "$R" "$report" >/dev/null 2>&1
	verdict "$name" $? "exit $rc (want 3), out '$(cat "$d/out")', report '$report'" \
		"$want" "$d/err"
done >"$tmp/shim.results"
tally "$tmp/shim.results"

# A PMCSHIM_ name far from every variable (another tool's, the tests'
# own) is not taken for a typo.
d=$tmp/farname
mkdir -p "$d"
(cd "$d" && env PMCSHIM_QUIET=1 PMCSHIM_OUTPUT="$d/r.pmc" PMCSHIM_TEST_WHATEVER=1 \
	PMCSHIM_OPENMPI_ROOT=1 LD_PRELOAD="$SHIM" sh -c "$APP" >out 2>err)
rc=$?
[ $rc = 3 ] && [ "$(cat "$d/err")" = err ]
verdict shim_far_name_not_a_typo $? "exit $rc (want 3)" "(none)" "$d/err"

# The launcher: one line for the run, however many processes, and the
# command's status.
TREE3='sh -c true; sh -c true; echo out; exit 3'
printf '%s\n' "$LAUNCH_VARS" | while IFS='|' read -r var bad want_rc want; do
	d=$tmp/launch-$var-${bad:-empty}
	mkdir -p "$d"
	(cd "$d" && env "$var=$bad" "$L" -q -o run sh -c "$TREE3" >out 2>err)
	rc=$?
	made=no
	[ -e "$d/run" ] && made=yes
	name="launcher_${var}_$(echo "${bad:-empty}" | tr -c 'a-zA-Z0-9\n' _)"
	one_line "$d/err" "$want" && [ $rc = "$want_rc" ] &&
		{ { [ $rc = 2 ] && [ $made = no ]; } ||
		  { [ $rc = 3 ] && [ "$(cat "$d/out")" = out ]; }; }
	verdict "$name" $? "exit $rc (want $want_rc), run directory made: $made" "$want" "$d/err"
done >"$tmp/launch.results"
tally "$tmp/launch.results"

# Bad options: status 2, one line, nothing on stdout, the command not run.
i=0
printf '%s\n' "$LAUNCH_OPTS" | while IFS='|' read -r opt args want; do
	i=$((i + 1))
	d=$tmp/lopt$i
	mkdir -p "$d/notempty" && touch "$d/notempty/old"
	# shellcheck disable=SC2086 # the arguments are word-split on purpose
	(cd "$d" && "$L" $args >out 2>err)
	rc=$?
	refused "launcher_opt_${opt}_$(echo "${args%% touch ran}" | tr -c 'a-z0-9\n' _)" $rc "$d" \
		"pmcshim: $want"
done >"$tmp/lopt.results"
tally "$tmp/lopt.results"

# A report for the reader's rows
mkdir -p "$tmp/rep"
(cd "$tmp/rep" && PMCSHIM_QUIET=1 PMCSHIM_OUTPUT=r.pmc LD_PRELOAD="$SHIM" sh -c true)
REP=$tmp/rep/r.pmc
i=0
printf '%s\n' "$READER_OPTS" | while IFS='|' read -r opt args want; do
	i=$((i + 1))
	args=$(echo "$args" | sed "s|@|$REP|g")
	d=$tmp/ropt$i
	mkdir -p "$d"
	# shellcheck disable=SC2086
	"$R" $args >"$d/out" 2>"$d/err"
	refused "reader_opt_${opt}_$(echo "$args" | sed "s|$REP|@|g" | tr -c 'a-z0-9\n' _)" $? "$d" \
		"pmcshim-report: $want"
done >"$tmp/ropt.results"
tally "$tmp/ropt.results"

# The reader's one variable: a bad PMCSHIM_DEBUG_ROOT is said once, and the
# table is printed as without it.
"$R" --stacks "$REP" >"$tmp/plain.out" 2>/dev/null
PMCSHIM_DEBUG_ROOT=$tmp/no-such-dir "$R" --stacks "$REP" >"$tmp/dbg.out" 2>"$tmp/dbg.err"
rc=$?
if [ $rc = 0 ] && [ "$(wc -l <"$tmp/dbg.err")" = 1 ] &&
   grep -qF "pmcshim-report: PMCSHIM_DEBUG_ROOT='$tmp/no-such-dir': No such file or directory; using the default debug paths only" "$tmp/dbg.err" &&
   cmp -s "$tmp/plain.out" "$tmp/dbg.out"; then
	result reader_PMCSHIM_DEBUG_ROOT ok
else
	result reader_PMCSHIM_DEBUG_ROOT fail "exit $rc" "$(cat "$tmp/dbg.err")"
fi

# -e "" and -o "" (a script's unset variable): refused, not a run that
# counts nothing or writes somewhere else
d=$tmp/empty-e
mkdir -p "$d"
(cd "$d" && "$L" -e "" touch ran >out 2>err)
refused launcher_opt_events_empty $? "$d" \
	"pmcshim: -e '': no event named (none: no counters; --list-events lists them)"
d=$tmp/empty-o
mkdir -p "$d"
(cd "$d" && "$L" -o "" touch ran >out 2>err)
rc=$?
[ "$(ls "$d")" = "err
out" ] || rc="$rc, and left $(ls "$d" | tr '\n' ' ')"
refused launcher_opt_output_empty "$rc" "$d" "pmcshim: -o '': no directory named"

# -e none: no counters, and the run goes on
d=$tmp/none
mkdir -p "$d"
(cd "$d" && "$L" -e none -o run sh -c 'exit 4' >out 2>err)
rc=$?
if [ $rc = 4 ] && [ -z "$(pmcshim_lines "$d/err" | grep -v 'report in')" ] &&
   grep -q '^#   events: none' "$d/err"; then
	result launcher_events_none ok
else
	result launcher_events_none fail "exit $rc (want 4)" "$(cat "$d/err")"
fi

# -o a/b/c: the missing parents made, mode 0700 (umask 022 would give 0755)
d=$tmp/parents
mkdir -p "$d"
# and the run directory itself as before (here 755), a trailing / or not
(cd "$d" && umask 022 && "$L" -q -o a/b/c sh -c 'exit 0' >out 2>err &&
	"$L" -q -o x/y/ sh -c 'exit 0' >>out 2>>err)
rc=$?
modes=$(cd "$d" && stat -c %a a a/b a/b/c x x/y 2>/dev/null | tr '\n' ' ')
if [ $rc = 0 ] && [ "$modes" = "700 700 755 700 755 " ] &&
   [ "$(ls "$d/a/b/c" | wc -l)" = 1 ] && [ "$(ls "$d/x/y" | wc -l)" = 1 ]; then
	result output_parents_0700 ok
else
	result output_parents_0700 fail "exit $rc, modes of a a/b a/b/c x x/y: '$modes'" \
		"(want 700 700 755 700 755)" "$(cat "$d/err")"
fi

# A command killed by SIGSEGV: the launcher dies of it too, so the caller's
# shell sees 139 and says "Segmentation fault", without "(core dumped)"
# and without a core file of the launcher's. The command itself dumps its
# own core (in sub/), as it would alone: that control shows a core would
# be seen here.
d=$tmp/segv
mkdir -p "$d/sub" "$d/alone/sub"
(cd "$d/alone" && ulimit -c unlimited && sh -c 'sh -c "cd sub && kill -SEGV \$\$"' 2>err)
(cd "$d" && ulimit -c unlimited &&
	sh -c '"$1" -q -o run sh -c "cd sub && kill -SEGV \$\$"' sh "$L" >out 2>err)
rc=$?
cores=$(ls "$d" | grep -c '^core')
if [ $rc = 139 ] && [ "$cores" = 0 ] && grep -q 'Segmentation fault' "$d/err" &&
   ! grep -q 'core dumped' "$d/err" && grep -q '^pmcshim: sh: Segmentation fault$' "$d/err"; then
	if grep -q 'core dumped' "$d/alone/err"; then
		result signal_segv_passed_on_no_core ok
	else
		result signal_segv_passed_on_no_core "skip:this machine dumps no core even for a command alone (ulimit -c or core_pattern): status 139 and the message checked, the core not"
	fi
else
	result signal_segv_passed_on_no_core fail "exit $rc (want 139), $cores core files in the cwd" \
		"$(cat "$d/err")"
fi

# --list-events: each name marked; what the launcher's notice says cannot
# count is marked no, with the same reason; task-clock is marked yes.
"$L" --list-events >"$tmp/list" 2>"$tmp/list.err"
rc=$?
(cd "$tmp" && "$L" -e instructions -o irun true >/dev/null 2>"$tmp/inotice")
why=$(sed -n 's/^pmcshim: events unavailable: instructions (\(.*\)); measuring.*/\1/p' "$tmp/inotice")
if [ -n "$why" ]; then
	want_instr="no: $why"
else
	want_instr=yes
fi
got_instr=$(sed -n 's/^  instructions  *//p' "$tmp/list")
# the names above the raw and native kinds (those have no fixed list here)
unmarked=$(sed '/^Raw hardware event/,$d' "$tmp/list" | grep '^  [a-zA-Z]' |
	grep -vc '  \(yes\|no: .*\)$')
if [ $rc = 0 ] && [ ! -s "$tmp/list.err" ] && grep -q '^  task-clock  *yes$' "$tmp/list" &&
   [ "$got_instr" = "$want_instr" ] && [ "$unmarked" = 0 ]; then
	result list_events_marks_countable ok
else
	result list_events_marks_countable fail "instructions: '$got_instr', want '$want_instr'; $unmarked unmarked" \
		"$(head -8 "$tmp/list")"
fi
if [ -n "$why" ] && grep -q '^  cycles  *no: ENOENT' "$tmp/list"; then
	result list_events_no_pmu_says_why ok
elif [ -n "$why" ]; then
	result list_events_no_pmu_says_why fail "$(grep '^  cycles' "$tmp/list")"
else
	result list_events_no_pmu_says_why "skip:this machine counts instructions: no unavailable event to mark"
fi

suite_end
