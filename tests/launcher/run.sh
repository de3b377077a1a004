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

notices=$(grep -c '^pmcshim: .*unavailable:' "$t/err")
if [ "$notices" = 0 ]; then
	result tree_one_notice "skip:a PMU is present: no unavailable-events notice to count"
elif [ "$notices" = 1 ] && [ "$(grep -c '^pmcshim: events unavailable' "$t/err")" = 1 ]; then
	result tree_one_notice ok
else
	result tree_one_notice fail "$notices notices for $n processes" "$(grep unavailable "$t/err")"
fi

# The same tree with the shim preloaded by hand: one notice per process,
# the problem the launcher solves (so the count above can fail).
mkdir -p "$tmp/byhand"
(cd "$tmp/byhand" && LD_PRELOAD=$SHIM "$TREE" 2>err)
m=$(grep -c '^pmcshim: .*unavailable:' "$tmp/byhand/err")
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

# A launcher copied away from the shim says so: it never falls back on a
# path fixed at build time.
mkdir -p "$tmp/alone" && cp "$L" "$tmp/alone/pmcshim"
"$tmp/alone/pmcshim" true 2>"$tmp/alone/err"
rc=$?
[ $rc = 2 ] && grep -q 'libpmcshim.so is neither in' "$tmp/alone/err" &&
	result shim_found_relative_only ok ||
	result shim_found_relative_only fail "exit $rc" "$(cat "$tmp/alone/err")"

suite_end
