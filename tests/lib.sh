# Shared by the shell test suites (tests/launcher, tests/install): counts,
# a temporary directory removed at exit, one result line per test and the
# summary line tests/run.sh adds up.
#   . tests/lib.sh; suite_begin NAME; result ...; suite_end
LC_ALL=C
export LC_ALL

suite_begin() {
	suite=$1
	passed=0 failed=0 skipped=0
	tmp=$(mktemp -d "${TMPDIR:-/tmp}/$suite-test.XXXXXX") || exit 1
	trap 'rm -rf "$tmp"' EXIT INT TERM
}

# result NAME STATUS [DETAIL...]: STATUS "ok", "skip:why" or anything else
# (a failure; DETAIL lines say why)
result() {
	name=$1 st=$2
	shift 2
	case $st in
	ok) echo "ok   $name"; passed=$((passed + 1)) ;;
	skip:*) echo "SKIP $name (${st#skip:})"; skipped=$((skipped + 1)) ;;
	*) echo "FAIL $name"; for l in "$@"; do printf '    %s\n' "$l"; done
	   failed=$((failed + 1)) ;;
	esac
}

# calls REGION FILE: the calls column of REGION in the merged table that
# pmcshim (the launcher) printed into FILE
calls() {
	awk -v r="$1" '/^## regions, all/ { on = 1; col = 3; next } /^##/ { on = 0 }
		on && $1 == "region" { for (i = 1; i <= NF; i++) if ($i == "calls") col = i }
		on && $1 == r { print $col; exit }' "$2" | tr -d ,
}

# balanced FILE...: the reports hold no marker error and dropped nothing
# (every end closed its begin); the test is named "balanced"
balanced() {
	"$B/pmcshim-report" --format json "$@" >"$tmp/json" 2>&1
	if grep -q '"errors": \[\]' "$tmp/json" &&
	   grep -q '"dropped": {"full": 0,' "$tmp/json" &&
	   ! grep -o '"dropped": {[^}]*}' "$tmp/json" | grep -q ': [1-9]'; then
		result balanced ok
	else
		result balanced fail "$(grep -o '"errors": .\{0,160\}\|"dropped": {[^}]*}' "$tmp/json" | head -3)"
	fi
}

# shim NAME PROGRAM [ARGS...]: run it under the shim $SHIM (or $PRELOAD;
# env: the caller's), its report in $tmp/NAME/, stdout in $tmp/NAME.out,
# stderr in $tmp/NAME.err, its exit status in rc (a suite may define its own)
shim() {
	n=$1
	shift
	mkdir -p "$tmp/$n"
	PMCSHIM_QUIET=1 PMCSHIM_EVENTS=task-clock PMCSHIM_OUTPUT="$tmp/$n/" \
		LD_PRELOAD="${PRELOAD:-$SHIM}" "$@" >"$tmp/$n.out" 2>"$tmp/$n.err"
	rc=$?
}

suite_end() {
	echo "$suite: $passed passed, $failed failed, $skipped skipped"
	[ $failed = 0 ]
}

# marked_block FILE MARKER: the lines of the fenced (```) block that
# follows the line MARKER in FILE, without its fences (docs' examples and
# figures: tests/docs)
marked_block() {
	awk -v m="$2" '
		$0 == m { on = 1; next }
		on == 1 && /^```/ { on = 2; next }
		on == 2 && /^```/ { exit }
		on == 2 { print }' "$1"
}
