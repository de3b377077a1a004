#!/bin/sh
# The reader's tests (run from the repository root; make test runs it):
#   golden outputs of every mode and format on the committed, normalized
#   sample report (sample.json) and on crafted reports with numbers that can
#   be checked by hand (rank0/rank1: merge; before/after: diff), those numbers
#   asserted again one by one, malformed inputs (bad/, one clear line and
#   exit 2 each), bad usage, and --stacks on a program built here with -g.
#
#   sh tests/reader/run.sh            run
#   sh tests/reader/run.sh --update   rewrite golden/ from this build (review
#                                     the diff before committing it)
B=${B:-build}
LC_ALL=C
export LC_ALL
R=$B/pmcshim-report
T=tests/reader
G=$T/golden
update=0
[ "$1" = "--update" ] && update=1
passed=0
failed=0
skipped=0
tmp=$(mktemp -d "${TMPDIR:-/tmp}/reader-test.XXXXXX") || exit 1
trap 'rm -rf "$tmp"' EXIT INT TERM

ok() {
	echo "ok   $1"
	passed=$((passed + 1))
}

# fail NAME [DETAIL...]
fail() {
	echo "FAIL $1"
	shift
	for l in "$@"; do printf '    %s\n' "$l"; done
	failed=$((failed + 1))
}

skip() {
	echo "SKIP $1 ($2)"
	skipped=$((skipped + 1))
}

# golden NAME ARGS...: the reader's stdout matches golden/NAME; exit 0 and
# nothing on stderr.
golden() {
	name=$1
	shift
	"$R" "$@" >"$tmp/out" 2>"$tmp/err"
	rc=$?
	[ $update = 1 ] && [ $rc = 0 ] && cp "$tmp/out" "$G/$name"
	if [ $rc != 0 ] || [ -s "$tmp/err" ]; then
		fail "$name" "exit $rc" "$(head -3 "$tmp/err")"
	elif ! diff -u "$G/$name" "$tmp/out" >"$tmp/diff" 2>&1; then
		fail "$name" "output differs from $G/$name:" "$(head -30 "$tmp/diff")"
	else
		ok "$name"
	fi
}

# field CSV ROW-KEY COLUMN: the value of COLUMN in the row whose first
# field is ROW-KEY (crafted inputs: no quoted commas).
field() {
	awk -F, -v key="$2" -v col="$3" '
		NR == 1 { for (i = 1; i <= NF; i++) if ($i == col) c = i; next }
		$1 == key && c { print $c; exit }' "$1"
}

# expect NAME ACTUAL WANTED
expect() {
	if [ "$2" = "$3" ]; then ok "$1"; else fail "$1" "got '$2', want '$3'"; fi
}

if [ ! -x "$R" ]; then
	echo "FAIL build ($R missing: make $R)"
	echo "reader: 0 passed, 1 failed, 0 skipped"
	exit 1
fi

# ---- every mode and format on the sample ----------------------------------
S=$T/sample.json
golden table "$S"
golden table-threads --threads "$S"
golden table-stacks --stacks "$S"
golden table-no-symbolize --stacks --no-symbolize --top 1 "$S"
golden table-sort-calls-top2 --sort calls --top 2 "$S"
golden table-region --region '^(fib|io)$' "$S"
golden table-event-excl --event page-faults --sort excl "$S"
golden table-wall-name --event wall --sort name "$S"
golden csv --format csv "$S"
golden csv-threads --format csv --threads "$S"
golden csv-stacks --format csv --stacks "$S"
golden json --format json "$S"
golden json-threads-stacks --format json --threads --stacks --top 2 "$S"
golden folded --format folded "$S"
golden folded-threads --format folded --threads "$S"

# ---- merge: two ranks of one job ------------------------------------------
M0=$T/rank0.json
M1=$T/rank1.json
golden merge "$M0" "$M1"
golden merge-by-process --by-process --threads --stacks "$M0" "$M1"
golden merge-csv --format csv "$M0" "$M1"
golden merge-csv-by-process --format csv --by-process "$M0" "$M1"
golden merge-json --format json --by-process "$M0" "$M1"
golden merge-folded --format folded --by-process "$M0" "$M1"

# The merged numbers, by hand: solve = 10 + 10 calls in rank 0, 10 + 5 in
# rank 1; instructions 3000 + 3300 + 6000 (rank 1's io-thread could not
# count); share = excl 1800 + 2100 + 4500 over all excl 8800; IPC =
# 12300 / 7200.
"$R" --format csv "$M0" "$M1" >"$tmp/m.csv"
expect merge-calls "$(field "$tmp/m.csv" solve calls)" 35
expect merge-wall-incl "$(field "$tmp/m.csv" solve wall_incl_ns)" 4400
expect merge-instructions-incl "$(field "$tmp/m.csv" solve instructions_incl)" 12300
expect merge-instructions-min-max \
	"$(field "$tmp/m.csv" solve instructions_min)-$(field "$tmp/m.csv" solve instructions_max)" 250-700
expect merge-share "$(field "$tmp/m.csv" solve share)" 0.954545
expect merge-ipc "$(field "$tmp/m.csv" solve ipc)" 1.7083
expect merge-unavailable-is-empty "$(field "$tmp/m.csv" io instructions_incl)" ""
expect merge-unavailable-event "$(field "$tmp/m.csv" solve branch-misses_incl)" ""

# ---- diff ------------------------------------------------------------------
D0=$T/before.json
D1=$T/after.json
golden diff diff "$D0" "$D1"
golden diff-csv diff --format csv "$D0" "$D1"
golden diff-json diff --format json "$D0" "$D1"
golden diff-name-top3 diff --sort name --top 3 "$D0" "$D1"

# By hand: solve 4000 -> 3000 instructions (-1000, x0.75), setup 1000 ->
# 1500 (+500), old only before, new only after; largest change first.
"$R" diff --format csv "$D0" "$D1" >"$tmp/d.csv"
expect diff-change "$(field "$tmp/d.csv" solve instructions_incl_change)" -1000
expect diff-ratio "$(field "$tmp/d.csv" solve instructions_incl_ratio)" 0.750000
expect diff-grow "$(field "$tmp/d.csv" setup instructions_incl_change)" 500
expect diff-only-before "$(field "$tmp/d.csv" old status)" "before only"
expect diff-only-after "$(field "$tmp/d.csv" new status)" "after only"
expect diff-order "$(cut -d, -f1 "$tmp/d.csv" | tr '\n' ' ')" "region solve setup old new "

# ---- consistency -----------------------------------------------------------
# Folded weights are the regions' exclusive weight, split by stack: they
# add up to the CSV's column.
"$R" --format folded "$S" | awk '{ s += $NF } END { print s }' >"$tmp/f"
"$R" --format csv "$S" | awk -F, 'NR == 1 { for (i = 1; i <= NF; i++) if ($i == "task-clock_excl") c = i }
	NR > 1 { s += $c } END { print s }' >"$tmp/c"
expect folded-sums-to-excl "$(cat "$tmp/f")" "$(cat "$tmp/c")"

if command -v jq >/dev/null 2>&1; then
	for args in "--format json $S" "--format json --threads --by-process --stacks $S" \
		    "--format json --by-process $M0 $M1" "diff --format json $D0 $D1"; do
		# shellcheck disable=SC2086
		if "$R" $args | jq -e . >/dev/null 2>&1; then ok "json-valid: $args"
		else fail "json-valid: $args"; fi
	done
	expect json-null-not-zero \
		"$("$R" --format json "$M0" "$M1" | jq -c '.regions[] | select(.region == "io") | .events.instructions')" null
else
	skip json-valid "no jq"
fi

# ---- malformed input: one line naming the file, exit 2, no output ----------
: >"$tmp/errors"
for f in "$T"/bad/* "$T/bad/nonexistent.json" "$T/bad"; do
	"$R" "$f" >"$tmp/out" 2>"$tmp/err"
	rc=$?
	cat "$tmp/err" >>"$tmp/errors"
	n=$(wc -l <"$tmp/err")
	if [ $rc = 2 ] && [ "$n" = 1 ] && [ ! -s "$tmp/out" ] && grep -qF "$f: " "$tmp/err"; then
		ok "bad: ${f#"$T"/}"
	else
		fail "bad: ${f#"$T"/}" "exit $rc, $n line(s) on stderr:" "$(head -3 "$tmp/err")"
	fi
done
[ $update = 1 ] && cp "$tmp/errors" "$G/errors"
if diff -u "$G/errors" "$tmp/errors" >"$tmp/diff"; then ok bad-messages
else fail bad-messages "$(head -30 "$tmp/diff")"; fi

# The first bad file of several is named; nothing is printed.
"$R" "$S" "$T/bad/version2.json" "$T/bad/empty.json" >"$tmp/out" 2>"$tmp/err"
rc=$?
if [ $rc = 2 ] && [ ! -s "$tmp/out" ] && grep -q "bad/version2.json: report version 2 is newer" "$tmp/err"
then ok bad-among-several; else fail bad-among-several "exit $rc" "$(cat "$tmp/err")"; fi

# ---- bad usage: a message and exit 2 -----------------------------------------
usage() {
	name=$1
	shift
	"$R" "$@" >"$tmp/out" 2>"$tmp/err"
	rc=$?
	if [ $rc = 2 ] && [ -s "$tmp/err" ] && [ ! -s "$tmp/out" ]; then ok "usage: $name"
	else fail "usage: $name" "exit $rc" "$(head -3 "$tmp/err")"; fi
}
usage no-files
usage unknown-option --bogus "$S"
usage sort-field --sort bogus "$S"
usage top-zero --top 0 "$S"
usage top-not-number --top 3x "$S"
usage unknown-event --event nosuch "$S"
usage bad-regex --region '(' "$S"
usage unknown-format --format xml "$S"
usage diff-one-file diff "$D0"
usage diff-folded diff --format folded "$D0" "$D1"
usage diff-threads diff --threads "$D0" "$D1"
if "$R" --help | grep -q "^usage: "; then ok help; else fail help; fi

# ---- --stacks on a real run: symbols from the test program's debug info ------
SHIM=$B/libpmcshim.so
case $SHIM in /*) ;; *) SHIM=$PWD/$SHIM ;; esac
APP=$B/tests/reader/stackapp
NODBG=$B/tests/reader/stackapp-nodbg
line() { grep -n "LINE-$1" "$T/stackapp.c" | cut -d: -f1; }
if [ ! -x "$APP" ] || [ ! -x "$NODBG" ] || [ ! -f "$SHIM" ]; then
	fail stacks-symbolized "build $APP, $NODBG and $SHIM first"
else
	for app in "$APP" "$NODBG"; do
		PMCSHIM_OUTPUT="$tmp/$(basename "$app").json" PMCSHIM_STACK_DEPTH=2 \
		PMCSHIM_EVENTS=task-clock PMCSHIM_QUIET=1 LD_PRELOAD="$SHIM" "$app"
	done
	want="main ([^)]*stackapp.c:$(line MAIN));middle ([^)]*stackapp.c:$(line MIDDLE));leaf ([^)]*stackapp.c:$(line LEAF));leaf [0-9][0-9]*\$"
	"$R" --format folded "$tmp/stackapp.json" >"$tmp/out" 2>&1
	if grep -q "^$want" "$tmp/out"; then ok stacks-function-and-line
	else fail stacks-function-and-line "want: $want" "got: $(cat "$tmp/out")"; fi

	"$R" --stacks "$tmp/stackapp.json" >"$tmp/out" 2>&1
	if grep -q "^      leaf ([^)]*stackapp.c:$(line LEAF))\$" "$tmp/out" &&
	   ! grep -q "notes on symbols" "$tmp/out"; then ok stacks-table
	else fail stacks-table "$(cat "$tmp/out")"; fi

	# A rebuilt binary: the report's build-id no longer matches the file.
	sed 's/"build_id": "[0-9a-f]*"/"build_id": "00"/' "$tmp/stackapp.json" >"$tmp/changed.json"
	"$R" --stacks "$tmp/changed.json" >"$tmp/out" 2>&1
	if grep -q "stackapp: build-id mismatch" "$tmp/out" &&
	   grep -q "^      stackapp+0x[0-9a-f]*\$" "$tmp/out"; then ok stacks-build-id-mismatch
	else fail stacks-build-id-mismatch "$(cat "$tmp/out")"; fi

	# Built without -g: function+offset, and a note saying why.
	"$R" --stacks "$tmp/stackapp-nodbg.json" >"$tmp/out" 2>&1
	if grep -q "stackapp-nodbg: no debug info" "$tmp/out" &&
	   grep -q "^      leaf+0x[0-9a-f]*\$" "$tmp/out"; then ok stacks-no-debug-info
	else fail stacks-no-debug-info "$(cat "$tmp/out")"; fi
fi

echo "reader: $passed passed, $failed failed, $skipped skipped"
[ $failed = 0 ]
