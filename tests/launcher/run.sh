#!/bin/sh
# The launcher's tests (run from the repository root; make test runs it):
# a fork / exec / `sh -c` tree gives one run directory, one notice and the
# merged table; exit statuses 0, 7, 127 and a death by signal pass
# through; bad options are refused; the launcher finds the shim relative to
# itself only.
B=${B:-build}
. tests/lib.sh
suite_begin launcher
unset PMCSHIM_EVENTS PMCSHIM_QUIET PMCSHIM_OUTPUT
L=$(realpath "$B/pmcshim")
TREE=$(realpath "$B/tests/launcher/tree")
SHIM=$(realpath "$B/libpmcshim.so")

# launch DIR ARGS...: run the launcher in a fresh working directory DIR;
# sets rc, and leaves DIR/out and DIR/err
launch() {
	d=$1
	shift
	mkdir -p "$d"
	# in a shell of its own, whose "Killed" lines go nowhere
	sh -c 'cd "$1" && shift && exec "$@" >out 2>err' sh "$d" "$L" "$@" 2>/dev/null
	rc=$?
}

# pmcshim-* entries in a directory, not counting out and err
entries() {
	ls -A "$1" | grep -cv '^\(out\|err\)$'
}

t=$tmp/tree
launch "$t" -o run "$TREE"
n=$(ls "$t/run" | wc -l)
if [ $rc = 0 ] && [ "$(calls root "$t/err")" = 1 ] && [ "$(calls forked "$t/err")" = 3 ] &&
   [ "$(calls leaf "$t/err")" = 4 ] && [ "$n" -ge 4 ] && [ "$(entries "$t")" = 1 ] &&
   [ ! -s "$t/out" ]; then
	result tree_one_run_dir_merged_table ok
else
	result tree_one_run_dir_merged_table fail "exit $rc, $n files in run/, $(entries "$t") entries in cwd" \
		"root $(calls root "$t/err") forked $(calls forked "$t/err") leaf $(calls leaf "$t/err") (want 1 3 4)" \
		"$(tail -8 "$t/err")"
fi

# The machine's events notice: events unavailable, or (no PMU) the
# defaults chosen for it
NOTICE='^pmcshim: .*unavailable:\|^pmcshim: default events '
notices=$(grep -c "$NOTICE" "$t/err")
if [ "$notices" = 0 ]; then
	result tree_one_notice "skip:a PMU is present: no events notice to count"
elif [ "$notices" = 1 ] && [ "$(grep -c '^pmcshim: events unavailable\|^pmcshim: default events' "$t/err")" = 1 ]; then
	result tree_one_notice ok
else
	result tree_one_notice fail "$notices notices for $n processes" "$(grep "$NOTICE" "$t/err")"
fi

# The same tree with the shim preloaded by hand: one notice per process,
# the problem the launcher solves (so the count above can fail).
mkdir -p "$tmp/byhand"
(cd "$tmp/byhand" && LD_PRELOAD=$SHIM "$TREE" 2>err)
m=$(grep -c "$NOTICE" "$tmp/byhand/err")
if [ "$notices" = 0 ] || [ "$m" -ge 4 ]; then
	result byhand_notice_per_process ok
else
	result byhand_notice_per_process fail "$m notices by hand, want one per process"
fi

t=$tmp/default
launch "$t" -q "$TREE" 7
dir=$(ls -d "$t"/pmcshim-tree-* 2>/dev/null)
if [ $rc = 7 ] && [ "$(entries "$t")" = 1 ] && [ -n "$dir" ] && [ "$(ls "$dir" | wc -l)" -ge 4 ] &&
   [ "$(calls leaf "$t/err")" = 4 ] && ! grep -q '^pmcshim: ' "$t/err"; then
	result exit_7_default_dir_quiet ok
else
	result exit_7_default_dir_quiet fail "exit $rc (want 7), dir '$dir'" "$(cat "$t/err")"
fi

t=$tmp/zero
launch "$t" -q -- sh -c 'echo out; echo err >&2; exit 0'
if [ $rc = 0 ] && [ "$(cat "$t/out")" = out ] && [ "$(head -1 "$t/err")" = err ]; then
	result exit_0_output_untouched ok
else
	result exit_0_output_untouched fail "exit $rc, out '$(cat "$t/out")'" "$(cat "$t/err")"
fi

t=$tmp/notfound
launch "$t" no-such-command-here a b
if [ $rc = 127 ] && grep -q '^pmcshim: no-such-command-here: command not found$' "$t/err" &&
   [ "$(entries "$t")" = 0 ]; then
	result exit_127_not_found ok
else
	result exit_127_not_found fail "exit $rc, $(entries "$t") entries left" "$(cat "$t/err")"
fi

t=$tmp/noexec
mkdir -p "$t" && printf 'x\n' >"$t/plain" && chmod 644 "$t/plain"
launch "$t" ./plain
[ $rc = 126 ] && result exit_126_not_executable ok ||
	result exit_126_not_executable fail "exit $rc" "$(cat "$t/err")"

# signal S NAME WORD: the tree dies of signal S; the launcher dies of it too
# (the caller's shell sees 128+S) after the table of the children.
signal() {
	t=$tmp/sig$1
	launch "$t" -q "$TREE" 0 "$1"
	if [ $rc = $((128 + $1)) ] && grep -q "^pmcshim: .*tree: $3\$" "$t/err" &&
	   [ "$(calls forked "$t/err")" = 3 ]; then
		result "signal_$2" ok
	else
		result "signal_$2" fail "exit $rc (want $((128 + $1)))" "$(cat "$t/err")"
	fi
}
signal 9 kill Killed
signal 15 term Terminated

# SIGTERM to the launcher goes to the command (here a shell that exits 3
# on it); the launcher lives on and passes the status through.
t=$tmp/forward
mkdir -p "$t"
(cd "$t" && exec "$L" -q -o run sh -c 'trap "exit 3" TERM; sleep 5 & wait' >out 2>err) &
lpid=$!
# once the shell has its trap (its sleep is running), not before
for i in $(seq 100); do
	sh_pid=$(pgrep -P $lpid) && pgrep -P "$sh_pid" sleep >/dev/null && break
	sleep 0.1
done
kill -TERM $lpid
wait $lpid
rc=$?
[ $rc = 3 ] && result sigterm_forwarded ok || result sigterm_forwarded fail "exit $rc (want 3)" "$(cat "$t/err")"

t=$tmp/notempty
mkdir -p "$t/run" && touch "$t/run/old"
launch "$t" -o run true
[ $rc = 2 ] && grep -q 'not empty' "$t/err" && result output_dir_not_empty_refused ok ||
	result output_dir_not_empty_refused fail "exit $rc" "$(cat "$t/err")"

t=$tmp/badopts
launch "$t" -d 65 true
r1=$rc
launch "$t"
r3=$rc
launch "$t" -e no-such-event true
r2=$rc
if [ $r1 = 2 ] && [ $r2 = 2 ] && [ $r3 = 2 ] && grep -q "'no-such-event': unknown event" "$t/err"; then
	result bad_options_exit_2 ok
else
	result bad_options_exit_2 fail "-d 65: $r1, -e no-such-event: $r2, no command: $r3 (want 2)"
fi

want="pmcshim $(sed -n 's/^#define PMCSHIM_VERSION "\(.*\)"$/\1/p' include/pmcshim.h)"
got=$("$L" --version)
[ "$got" = "$want" ] && result version ok || result version fail "'$got', want '$want'"

"$L" --list-events >"$tmp/list"
if grep -q '^  instructions  *\(yes\|no: \)' "$tmp/list" &&
   grep -q '^  task-clock  *yes$' "$tmp/list"; then
	result list_events ok
else
	result list_events fail "$(head -5 "$tmp/list")"
fi

# A wide run: 20 leaves, each forked and exec'd (21 processes, 41 reports:
# a forked child's and the program it exec'd). stderr is the
# table (no heading per process: one line of states) and at most two lines
# more (the unavailable-events notice, where the reports are); -q leaves the
# table alone; --table puts it in a file and stderr gets one line.
R=$(realpath "$B/pmcshim-report")
t=$tmp/fan
launch "$t" -o run "$TREE" fan 20
"$R" --collapse-unavailable "$t"/run/.totals.* "$t"/run/* >"$t/table" 2>&1
tl=$(wc -l <"$t/table") el=$(wc -l <"$t/err")
if [ $rc = 0 ] && [ "$(ls "$t/run" | wc -l)" = 41 ] && [ "$el" -le $((tl + 2)) ] &&
   grep -q "^# 41 reports in .*: 21 exited, 20 exec'd$" "$t/err" &&
   grep -q "^## totals: 21 processes (41 reports: 21 exited, 20 exec'd), 21 threads$" "$t/err" &&
   ! grep -q '^# .*\.pmc: ' "$t/err" && [ "$(calls leaf "$t/err")" = 40 ] &&
   grep -q "^pmcshim: 41 reports in $t/run$" "$t/err"; then
	result fan20_table_plus_two_lines ok
else
	result fan20_table_plus_two_lines fail "exit $rc, $el lines on stderr for a table of $tl" \
		"$(head -5 "$t/err")" "$(tail -3 "$t/err")"
fi

t=$tmp/fanq
launch "$t" -q -o run "$TREE" fan 20
"$R" --collapse-unavailable "$t"/run/.totals.* "$t"/run/* >"$t/table" 2>&1
if [ $rc = 0 ] && cmp -s "$t/table" "$t/err"; then
	result fan20_quiet_table_alone ok
else
	result fan20_quiet_table_alone fail "exit $rc" "$(diff "$t/table" "$t/err" | head -5)"
fi

t=$tmp/fanO
launch "$t" --table tab -o run "$TREE" fan 20
"$R" --collapse-unavailable "$t"/run/.totals.* "$t"/run/* >"$t/table" 2>&1
if [ $rc = 0 ] && cmp -s "$t/table" "$t/tab" && [ "$(wc -l <"$t/err")" = 1 ] &&
   grep -q "^pmcshim: table in tab; 41 reports in $t/run$" "$t/err"; then
	result table_file_one_line ok
else
	result table_file_one_line fail "exit $rc" "$(cat "$t/err")" "$(diff "$t/table" "$t/tab" | head -5)"
fi
"$L" -q -O "$tmp/no/such/dir/tab" true 2>"$tmp/Oerr"
rc=$?
[ $rc = 2 ] && grep -q "^pmcshim: --table '$tmp/no/such/dir/tab': No such file" "$tmp/Oerr" &&
	result table_file_unwritable_refused ok ||
	result table_file_unwritable_refused fail "exit $rc" "$(cat "$tmp/Oerr")"

# json_total KEY FILE: the run total's integer KEY in a json-table export
json_total() {
	sed -n 's/^  "totals": {.*"'"$1"'": \([0-9]*\).*/\1/p' "$2"
}
# json_event EVENT FILE: the run total's value of EVENT
json_event() {
	sed -n 's/^  "totals": .*"'"$1"'": {"value": \([0-9]*\).*/\1/p' "$2"
}

"$R" --format json-table "$tmp/fan"/run/* >"$tmp/fan.json"
if grep -q "^  \"totals\": {\"processes\": 21, \"reports\": 41, \"states\": {\"exited\": 21, \"exec'd\": 20}, \"threads\": 21, " "$tmp/fan.json" &&
   [ "$(grep -c '^     "totals": {"processes": 1, "reports": 1, "threads": 1, ' "$tmp/fan.json")" = 41 ]; then
	result fan20_json_totals ok
else
	result fan20_json_totals fail "$(grep '"totals"' "$tmp/fan.json" | head -3)"
fi

# A program without markers (sleep) gets its totals: task-clock and, as it
# sleeps, context switches, counted in the kernel (they happen there).
t=$tmp/nomarkers
launch "$t" -e task-clock,context-switches -o run sleep 0.02
tc=$(sed -n 's/^ *\([0-9,.]*\) msec task-clock .*/\1/p' "$t/err" | tr -d ,.)
cs=$(sed -n 's/^ *\([0-9,]*\)      context-switches.*/\1/p' "$t/err" | tr -d ,)
if [ $rc = 0 ] && grep -q '^## totals: sleep (pid [0-9]*, exited), 1 thread$' "$t/err" &&
   [ "${tc:-0}" -gt 0 ] && [ "${cs:-0}" -gt 0 ] &&
   grep -q 'context-switches \[read, user+kernel\]' "$t/err" &&
   grep -q '^(no regions: no marker ran; the totals above are the whole run)$' "$t/err" &&
   ! grep -q '(no regions)' "$t/err"; then
	result no_markers_totals_table ok
else
	result no_markers_totals_table fail "exit $rc, task-clock '$tc', context-switches '$cs'" \
		"$(cat "$t/err")"
fi
"$R" --format json-table "$t"/run/* >"$t/json"
if grep -q '^  "totals": {"processes": 1, "reports": 1, "states": {"exited": 1}, "threads": 1, ' "$t/json" &&
   [ "$(json_event task-clock "$t/json")" -gt 0 ] 2>/dev/null &&
   [ "$(json_event context-switches "$t/json")" -gt 0 ] 2>/dev/null &&
   [ "$(json_total cpu_ns "$t/json")" -gt 0 ] 2>/dev/null; then
	result no_markers_json_totals ok
else
	result no_markers_json_totals fail "$(grep '"totals"' "$t/json")"
fi

# Where the kernel refuses kernel mode (an unprivileged user under
# perf_event_paranoid 2), a software event counts in user space and the
# table says so, with why: never a silent 0.
paranoid=$(cat /proc/sys/kernel/perf_event_paranoid 2>/dev/null)
if [ "$(id -u)" != 0 ] || ! command -v setpriv >/dev/null || [ "${paranoid:-0}" -lt 2 ]; then
	result kernel_refused_says_so "skip:needs root (to drop to nobody), setpriv and perf_event_paranoid >= 2 (have uid $(id -u), paranoid '$paranoid')"
else
	u=$(mktemp -d "${TMPDIR:-/tmp}/launcher-nobody.XXXXXX") && chmod 777 "$u"
	# copies nobody can reach wherever the tree lies (a clone inside a
	# mktemp -d directory, mode 700, is out of its reach)
	cp "$L" "$(dirname "$L")/libpmcshim.so" "$(dirname "$L")/pmcshim-report" "$u/"
	(cd "$u" && setpriv --reuid=65534 --regid=65534 --clear-groups \
		"$u/pmcshim" -e context-switches -o run sleep 0.01 >out 2>err)
	rc=$?
	if [ $rc = 0 ] && grep -q '^pmcshim: context-switches counts in user space only: the kernel refused kernel mode (EACCES' "$u/err" &&
	   grep -q 'context-switches \[read, user: kernel refused: EACCES' "$u/err"; then
		result kernel_refused_says_so ok
	else
		result kernel_refused_says_so fail "exit $rc" "$(cat "$u/err")"
	fi
	# an empty -o directory nobody cannot write in: refused before the
	# command runs, with the cause (not "no report")
	mkdir -p "$u/ro" && chmod 555 "$u/ro"
	(cd "$u" && setpriv --reuid=65534 --regid=65534 --clear-groups \
		"$u/pmcshim" -q -o ro sh -c 'echo ran' >out 2>err)
	rc=$?
	[ $rc = 2 ] && [ ! -s "$u/out" ] && grep -q '^pmcshim: -o ro: cannot be written in (Permission denied)$' "$u/err" &&
		result unwritable_dir_refused ok ||
		result unwritable_dir_refused fail "exit $rc; $(cat "$u/out")" "$(cat "$u/err")"
	rm -rf "$u"
fi

# A program nothing can be preloaded into: the launcher says which kind,
# not "no report" alone.
if printf 'int main(void) { return 3; }\n' | ${CC:-cc} -static -x c - -o "$tmp/static" 2>/dev/null; then
	"$L" -q -o "$tmp/static-run" "$tmp/static" >/dev/null 2>"$tmp/static.err"
	rc=$?
	[ $rc = 3 ] && grep -q ': a statically linked program: nothing can be preloaded into it$' "$tmp/static.err" &&
		result static_program_named ok ||
		result static_program_named fail "exit $rc" "$(cat "$tmp/static.err")"
else
	result static_program_named "skip:no static libc to link a static program with"
fi

# A handler that marks, on a 20 us timer running before the first marker:
# the shim's calibration (at the first name) is neither seen nor broken by
# it, so each of 5 runs gives a table with both regions (before, most runs
# left a region tree the reader refused).
bad=""
for i in 1 2 3 4 5; do
	launch "$tmp/alarm$i" -q -e task-clock "$(realpath "$B/tests/launcher/alarm")"
	grep -q '^work  *[0-9.]*%  *50 ' "$tmp/alarm$i/err" && grep -q '^handler ' "$tmp/alarm$i/err" &&
		[ $rc = 0 ] && [ "$(cat "$tmp/alarm$i/out")" = done ] || bad="$bad run $i: exit $rc, $(head -c 300 "$tmp/alarm$i/err")"
done
[ -z "$bad" ] && result marking_handler_during_calibration ok ||
	result marking_handler_during_calibration fail "$bad"

# A program called by a 245-byte name (a file name's limit is 255): its
# report is written, named after the first 100 bytes, and the table names
# the whole program.
long=$(printf '%0245d' 0 | tr 0 a)
cp /bin/true "$tmp/$long"
launch "$tmp/longname" -q -o run "$tmp/$long"
f=$(ls "$tmp/longname/run" 2>/dev/null)
[ $rc = 0 ] && [ "$f" = "pmcshim-$(printf '%0100d' 0 | tr 0 a)-$(echo "$f" | sed 's/.*-\([0-9]*\)\.pmc$/\1/').pmc" ] &&
   grep -q "$long" "$tmp/longname/err" &&
	result long_program_name_shortened ok ||
	result long_program_name_shortened fail "exit $rc; files: $f" "$(head -c 400 "$tmp/longname/err")"

# A launcher copied away from the shim says so: it never falls back on a
# path fixed at build time.
mkdir -p "$tmp/alone" && cp "$L" "$tmp/alone/pmcshim"
"$tmp/alone/pmcshim" true 2>"$tmp/alone/err"
rc=$?
[ $rc = 2 ] && grep -q 'libpmcshim.so is neither in' "$tmp/alone/err" &&
	result shim_found_relative_only ok ||
	result shim_found_relative_only fail "exit $rc" "$(cat "$tmp/alone/err")"

. tests/launcher/runs.sh

suite_end
