#!/bin/sh
# The reader's tests (run from the repository root; make test runs it).
# Every input is written here by gen_report (tests/reader/gen_report.c), so
# no binary is committed:
#   golden outputs of every mode and format on a sample file whose numbers
#   can be checked by hand (then some asserted one by one, and the
#   aggregates checked against the raw rows of the JSON export), each
#   process state, files with a record not done or a site mid-update, merge
#   of two processes, diff, malformed files (one clear line and exit 2
#   each), bad usage, a live file and --watch on it (calibrated and scaled
#   as the table is, and --raw), and --stacks on a program built here with
#   -g.
#
#   sh tests/reader/run.sh            run
#   sh tests/reader/run.sh --update   rewrite golden/ from this build (review
#                                     the diff before committing it)
B=${B:-build}
LC_ALL=C
export LC_ALL
T=tests/reader
G=$PWD/$T/golden
case $B in /*) ;; *) B=$PWD/$B ;; esac
R=$B/pmcshim-report
GEN=$B/tests/reader/gen_report
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
	(cd "$IN" && "$R" "$@") >"$tmp/out" 2>"$tmp/err"
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

# regions_of TABLE: the region column of the first region table, in order
# (its rows are those whose third field, calls, is a number).
regions_of() {
	awk '/^region / { on = 1; next } on && $3 !~ /^[0-9,]+$/ { exit } on { printf "%s ", $1 }' "$1"
}

# expect NAME ACTUAL WANTED
expect() {
	if [ "$2" = "$3" ]; then ok "$1"; else fail "$1" "got '$2', want '$3'"; fi
}

if [ ! -x "$R" ] || [ ! -x "$GEN" ]; then
	echo "FAIL build ($R or $GEN missing: make $R $GEN)"
	echo "reader: 0 passed, 1 failed, 0 skipped"
	exit 1
fi

# gen NAME ARGS...: writes $IN/NAME with gen_report
IN=$tmp/in
mkdir "$IN"
gen() {
	out=$1
	shift
	"$GEN" "$@" "$IN/$out" || fail "gen_report $* $out"
}

# ---- every mode and format on the sample ----------------------------------
# 4 threads, 40 rows (row j: thread j % 4, calls 10 + j, wall 1000 (j + 1)
# ns, event e incl (e + 2) 100 (j + 1)); the last thread cannot count
# instructions, task-clock is unavailable to all (tests/reader/gen_report.c).
gen sample.pmc
S=sample.pmc
golden table "$S"
golden table-threads --threads "$S"
golden table-stacks --stacks "$S"
golden table-no-symbolize --stacks --no-symbolize --top 1 "$S"
golden table-sort-calls-top2 --sort calls --top 2 "$S"
golden table-region --region '^(solve|io)$' "$S"
golden table-event-excl --event cycles --sort excl "$S"
golden table-wall-name --event wall --sort name "$S"
golden csv --format csv "$S"
golden csv-threads --format csv --threads "$S"
golden csv-stacks --format csv --stacks "$S"
golden json --format json "$S"
golden json-table --format json-table "$S"
golden json-table-threads-stacks --format json-table --threads --stacks --top 2 "$S"
golden folded --format folded-stacks "$S"
golden folded-threads --format folded-stacks --threads "$S"

# ---- calibration and coverage ---------------------------------------------
# The same rows, with the markers' own cost (2 per call and 1 per child call
# for each event, 5 ns wall per call) taken out by default and left in with
# --raw; row 1's children push its excl below zero (shown as 0, one note);
# each event counted half of its regions' time (coverage 0.5, scaled x2).
gen calibrated.pmc --calibrated --multiplexed
golden table-calibrated calibrated.pmc
# Calibration values carry their units: a time event's in time, a count's
# as that many of its event (the text note, the export's "unit").
gen calib-time.pmc --calibrated --event-names task-clock,page-faults,cycles
expect calibration-units "$(cd "$IN" && "$R" calib-time.pmc | grep -c '^#   calibrated: .* per call wall 5 ns, task-clock 2 ns, 2 page-faults (')" 1
expect calibration-units-json "$(cd "$IN" && "$R" --format json calib-time.pmc | grep -c '"events": \[{"per_call": 2, "per_child": 1, "unit": "ns"}, {"per_call": 2, "per_child": 1, "unit": "count"}, null\]')" 3
golden table-calibrated-raw --raw calibrated.pmc
golden json-calibrated --format json calibrated.pmc

# By hand: solve is rows 0-3 and 20-23; calls 8 x 10 + 92; wall (1 + 2 + 3
# + 4 + 21 + 22 + 23 + 24) x 1000 ns (ticks / 2); instructions 200 x (1 + 2 +
# 3 + 21 + 22 + 23) (rows 3 and 23 are the thread that could not count).
(cd "$IN" && "$R" --format csv "$S") >"$tmp/s.csv"
expect sample-calls "$(field "$tmp/s.csv" solve calls)" 172
expect sample-wall-incl "$(field "$tmp/s.csv" solve wall_incl_ns)" 100000
expect sample-instructions-incl "$(field "$tmp/s.csv" solve instructions_incl)" 14400
expect sample-instructions-min "$(field "$tmp/s.csv" solve instructions_min)" 2
expect sample-unavailable-is-empty "$(field "$tmp/s.csv" solve task-clock_incl)" ""

# ---- per-region coverage ----------------------------------------------------
# The calibrated rows, each region counted its own part of its time
# (instructions / cycles): solve 100 / 100, io 80 / 40, setup 50 / 50,
# parse 25 / 100, render 0 / 0 (gen_report --region-coverage).
gen coverage.pmc --calibrated --region-coverage
gen calibrated-only.pmc --calibrated
C=coverage.pmc
golden table-coverage "$C"
golden table-coverage-raw --raw "$C"
golden table-coverage-stacks --stacks --top 2 "$C"
golden table-coverage-threads --threads --raw "$C"
golden table-coverage-sort --sort coverage --top 3 "$C"
golden table-coverage-min --min-coverage 50 --threads "$C"
golden csv-coverage --format csv "$C"
golden json-table-coverage --format json-table "$C"
golden json-coverage --format json "$C"
golden diff-coverage diff calibrated-only.pmc "$C"

# By hand: setup is rows 8-10 and 28-30 (11 and 31: the thread without
# instructions), counted half the time; each row's estimate is its measured
# 200 (j + 1) scaled to 400 (j + 1), less 2 per call (10 + j calls): 400 x
# 120 - 2 x 174. (Calibrating first would give 2 x (24000 - 348) = 47304.)
(cd "$IN" && "$R" --format csv "$C") >"$tmp/c.csv"
(cd "$IN" && "$R" --format csv --raw "$C") >"$tmp/c-raw.csv"
(cd "$IN" && "$R" --format csv calibrated-only.pmc) >"$tmp/k.csv"
expect coverage-scale-then-calibrate "$(field "$tmp/c.csv" setup instructions_incl)" 47652
expect coverage-raw-is-measured "$(field "$tmp/c-raw.csv" setup instructions_incl)" 24000
expect coverage-least-event "$(field "$tmp/c.csv" io coverage)" 0.4000
expect coverage-never-counted "$(field "$tmp/c.csv" render instructions_incl),$(field "$tmp/c.csv" render coverage)" ",0.0000"
expect coverage-full-unchanged "$(field "$tmp/c.csv" solve instructions_incl) $(field "$tmp/c.csv" solve cycles_max)" \
	"$(field "$tmp/k.csv" solve instructions_incl) $(field "$tmp/k.csv" solve cycles_max)"
expect coverage-none-no-column "$(head -1 "$tmp/k.csv" | grep -c coverage)" 0
# the table: render never counted (n/a*, 0.0%), lowest coverage first
(cd "$IN" && "$R" "$C") >"$tmp/c.table"
# (columns: region share calls coverage, then two fields a number: wall
# incl and excl, instructions incl ...)
expect coverage-never-cell "$(awk '$1 == "render" { print $4, $9, $10 }' "$tmp/c.table")" "0.0% n/a* n/a*"
expect coverage-estimate-marked "$(awk '$1 == "setup" { print $4, $9 $10 }' "$tmp/c.table")" "50.0% 47.7k*+"
expect coverage-full-unmarked "$(awk '$1 == "solve" { print $4, $9 $10 }' "$tmp/c.table")" "100% 14.1k+"
(cd "$IN" && "$R" --sort coverage "$C") >"$tmp/c.sorted"
expect coverage-sort-lowest-first "$(regions_of "$tmp/c.sorted")" \
	"render parse io setup solve "
(cd "$IN" && "$R" --min-coverage 50 "$C") >"$tmp/c.min"
expect coverage-min-hides "$(regions_of "$tmp/c.min")" \
	"setup solve "
expect coverage-min-footer "$(grep -c '^3 regions below 50% coverage hidden (--min-coverage)$' "$tmp/c.min")" 1
expect coverage-min-100 "$(cd "$IN" && "$R" --min-coverage 100% --format csv "$C" | cut -d, -f1 | tr '\n' ' ')" "region solve "
if command -v jq >/dev/null 2>&1; then
	# One definition: the export's per-row scaled_incl adds up to the
	# table's estimate, region by region.
	(cd "$IN" && "$R" --format json "$C") >"$tmp/c.json"
	for region in io setup parse; do
		expect "coverage-export-matches: $region" \
			"$(jq --arg r "$region" '[.files[0].threads[].regions[] | select(.region == $r) | .events[1].scaled_incl] | add' "$tmp/c.json")" \
			"$(field "$tmp/c.csv" "$region" cycles_incl)"
	done
	expect coverage-export-never "$(jq -c '[.files[0].threads[0].regions[] | select(.region == "render") | .events[0] | has("scaled_incl")] | unique' "$tmp/c.json")" '[false]'
fi

# ---- process states and damaged files ---------------------------------------
gen running.pmc --state running
gen exec.pmc --state exec
gen quick.pmc --state _exit
gen undone.pmc --undone 5
gen partial.pmc --partial
gen dropped.pmc --dropped
gen tail-beyond.pmc --corrupt tail-beyond
golden state-ended-without-exit --threads running.pmc
golden state-ended-without-exit-json --format json running.pmc
golden state-exec exec.pmc
golden state-quick-exit quick.pmc
golden undone --threads undone.pmc
golden partial partial.pmc
golden dropped dropped.pmc
# A row or error naming an id no name record has: "(unknown id N)" and a
# note, the rest of the file as ever.
gen unknown-name.pmc --corrupt unknown-name
golden unknown-name unknown-name.pmc
golden unknown-name-json --format json unknown-name.pmc
expect undone-rows "$(cd "$IN" && "$R" --format json undone.pmc | jq '[.files[0].threads[].regions[]] | length')" 39
expect partial-json "$(cd "$IN" && "$R" --format json partial.pmc | jq -c '[.files[0].threads[].regions[] | select(.partial)] | map(.region)')" '["solve"]'
# A tail past the end of a file whose records are whole: a file cut short
# on disk at a record's end. Read like the sample, with a note and a
# warning naming the bytes of records missing.
(cd "$IN" && "$R" tail-beyond.pmc 2>"$tmp/tb-err" | sed "1d; s/tail-beyond.pmc/$S/") >"$tmp/tb"
(cd "$IN" && "$R" "$S" | sed 1d) >"$tmp/sb"
if grep -q "^#   cut short: [0-9]* bytes of records missing (the file ends before its records do)$" \
	"$tmp/tb" && grep -v "cut short" "$tmp/tb" | cmp -s - "$tmp/sb" &&
   grep -q "tail-beyond.pmc: warning: cut short: [0-9]* bytes of records missing$" "$tmp/tb-err"
then ok tail-beyond-file; else fail tail-beyond-file "$(cat "$tmp/tb-err")"; fi

# A file cut short inside a record, and one cut to its header: what is
# there is read, exit 0, with the bytes of records missing said.
gen cut-record.pmc --truncate 6000
gen cut-header.pmc --truncate 4096
for f in cut-record cut-header; do
	(cd "$IN" && "$R" --format csv --threads $f.pmc) >"$tmp/out" 2>"$tmp/err"
	rc=$?
	missing=$(sed -n "s/.*$f.pmc: warning: cut short: \([0-9]*\) bytes of records missing$/\1/p" "$tmp/err")
	if [ $rc = 0 ] && [ "$(wc -l <"$tmp/err")" = 1 ] && [ -n "$missing" ] && [ "$missing" -gt 0 ]
	then ok "cut-short: $f ($missing bytes missing)"
	else fail "cut-short: $f" "exit $rc" "$(cat "$tmp/err")"; fi
done
expect cut-short-to-header-bytes "$(cd "$IN" && "$R" cut-header.pmc 2>&1 >/dev/null | sed 's/.*: \([0-9]*\) bytes.*/\1/')" \
	"$(( $(stat -c %s "$IN/$S") - 4096 ))"

# The totals of a process that exec'd: exec.pmc (its first program) and
# the sample (the program it exec'd: same pid and tids). One process, two
# reports, four threads; the CPU before setup is exec.pmc's (2 ms + 1, 2, 3
# us) and the sample's other threads' (1, 2, 3 us): its main thread began
# after exec.pmc's ended (begin_cpu_ns 2 ms < 2.3 ms + 1.5 s), so nothing.
golden totals-exec-chain --totals exec.pmc "$S"
golden totals-exec-chain-csv --totals --format csv exec.pmc "$S"
(cd "$IN" && "$R" --totals --format csv exec.pmc "$S") >"$tmp/t.csv"
expect totals-exec-chain-counts "$(field "$tmp/t.csv" run processes),$(field "$tmp/t.csv" run reports),$(field "$tmp/t.csv" run threads)" 1,2,4
expect totals-exec-chain-before "$(field "$tmp/t.csv" run before_setup_ns)" 2012000
expect totals-exec-chain-instructions "$(field "$tmp/t.csv" run instructions)" 32000000

# Without a boot id a reader cannot tell a running process from a dead one.
gen unsure.pmc --state running --no-boot-id
expect state-unsure "$(cd "$IN" && "$R" unsure.pmc | head -1)" \
	"# unsure.pmc: app (pid 4242, host testhost, 4 threads, wall n/a), running, or ended without exit (the file has no boot id to tell)"

# Every unsigned 64-bit value is accepted; sums saturate, never wrap.
gen huge.pmc --huge
for args in "" "--threads --stacks" "--format csv --threads" "--format json" \
	    "--format json-table --threads" "--format folded" "--format folded-stacks" \
	    "--format speedscope" "--tree --threads --min-share 50"; do
	# shellcheck disable=SC2086
	(cd "$IN" && "$R" $args huge.pmc) >"$tmp/out" 2>"$tmp/err"
	rc=$?
	if [ $rc = 0 ] && [ ! -s "$tmp/err" ]; then ok "huge-values: $args"
	else fail "huge-values: $args" "exit $rc" "$(head -3 "$tmp/err")"; fi
done
(cd "$IN" && "$R" --format csv huge.pmc) >"$tmp/h.csv"
expect huge-calls-saturate "$(field "$tmp/h.csv" solve calls)" 18446744073709551615
expect huge-incl-saturates "$(field "$tmp/h.csv" solve instructions_incl)" 18446744073709551615

# Names are any bytes: JSON stays UTF-8 (U+FFFD for a byte that is not),
# CSV quotes, folded keeps its separators.
gen odd.pmc --odd-names
golden odd-names-json --format json odd.pmc
golden odd-names-csv --format csv odd.pmc
golden odd-names-folded --format folded-stacks --no-symbolize odd.pmc
for args in "--format json" "--format json-table --stacks --threads"; do
	# shellcheck disable=SC2086
	if (cd "$IN" && "$R" $args odd.pmc) | iconv -f UTF-8 -t UTF-8 >/dev/null 2>&1 &&
	   { ! command -v jq >/dev/null 2>&1 || (cd "$IN" && "$R" $args odd.pmc) | jq -e . >/dev/null 2>&1; }
	then ok "odd-names-valid: $args"; else fail "odd-names-valid: $args"; fi
done

# ---- the aggregates against the raw rows -----------------------------------
if command -v jq >/dev/null 2>&1; then
	(cd "$IN" && "$R" --format json "$S") >"$tmp/s.json"
	for region in solve io setup parse render; do
		want=$(jq -r --arg r "$region" '[.files[0].threads[].regions[] | select(.region == $r)] |
			"\(map(.calls) | add) \(map(.wall_ns.incl) | add) \(map(.events[0] | select(. != null) | .incl) | add) \(map(.events[1].excl) | add)"' "$tmp/s.json")
		got="$(field "$tmp/s.csv" "$region" calls) $(field "$tmp/s.csv" "$region" wall_incl_ns) $(field "$tmp/s.csv" "$region" instructions_incl) $(field "$tmp/s.csv" "$region" cycles_excl)"
		expect "sums-match-rows: $region" "$got" "$want"
	done
	expect json-ticks-to-ns "$(jq '.files[0].threads[0].regions[0].wall_ns.incl' "$tmp/s.json")" 1000
	expect json-null-not-zero "$(jq -c '.files[0].threads[3].regions[0].events' "$tmp/s.json")" \
		'[null,{"incl":1200,"excl":900,"min":12,"max":240},null]'
	expect json-totals "$(jq -c '[.files[0].threads[].totals[1].status]' "$tmp/s.json")" \
		'["counted","multiplexed","not counted","lost"]'
	expect json-ended "$(cd "$IN" && "$R" --format json running.pmc | jq -c '.files[0] | [.process.state, .process.live, .process.end_ns, .threads[0].totals[0].status]')" \
		'["ended without exit",false,null,"none"]'
	expect json-exec "$(cd "$IN" && "$R" --format json exec.pmc | jq -c '.files[0] | [.process.state, .process.exec_target]')" '["exec","/usr/bin/next"]'
	expect json-two-files "$(cd "$IN" && "$R" --format json "$S" exec.pmc | jq -c '.files | map(.process.state)')" '["exited","exec"]'
	# one shape for one file and for several (an object, then an array, before)
	expect json-one-shape "$(cd "$IN" && "$R" --format json "$S" | jq -c '[.format, .version, (.files | length)]');$(cd "$IN" && "$R" --format json "$S" exec.pmc | jq -c '[.format, .version, (.files | length)]')" \
		'["pmcshim-report",3,1];["pmcshim-report",3,2]'
else
	skip json-checks "no jq"
fi

# ---- merge: two processes of one job ----------------------------------------
# rank1 is rank0 with every count and time doubled (gen_report --id 1).
gen rank0.pmc
gen rank1.pmc --id 1 --threads 2 --rows 20
M0=rank0.pmc
M1=rank1.pmc
golden merge "$M0" "$M1"
golden merge-by-process --by-process --threads --stacks "$M0" "$M1"
golden merge-csv --format csv "$M0" "$M1"
golden merge-csv-by-process --format csv --by-process "$M0" "$M1"
golden merge-json-table --format json-table --by-process "$M0" "$M1"
golden merge-folded --format folded-stacks --by-process "$M0" "$M1"

# By hand: rank1's solve is rows 0, 1, 10, 11 of 2 threads: calls 2 x (10 +
# 11 + 20 + 21), instructions 2 x 200 x (1 + 2 + 11 + 12); with rank0's.
(cd "$IN" && "$R" --format csv "$M0" "$M1") >"$tmp/m.csv"
expect merge-calls "$(field "$tmp/m.csv" solve calls)" $((172 + 124))
expect merge-instructions-incl "$(field "$tmp/m.csv" solve instructions_incl)" $((14400 + 10400))
expect merge-instructions-max "$(field "$tmp/m.csv" solve instructions_max)" 960

# ---- MPI ranks: the per-rank view and the spread -----------------------------
# Three ranks (gen_report --rank): each file's heading says which; the
# section comes without --ranks, sorted by rank; solve of rank r is r + 1
# times rank 0's (5.20 k): min 5.20 k, mean 10.4 k, max 15.6 k at rank 2.
gen mpi2.pmc --id 2 --rank 2 --size 3 --rows 20 --threads 2
gen mpi0.pmc --id 0 --rank 0 --size 3 --rows 20 --threads 2
gen mpi1.pmc --id 1 --rank 1 --size 3 --rows 20 --threads 2
golden ranks mpi2.pmc mpi0.pmc mpi1.pmc
(cd "$IN" && "$R" mpi0.pmc mpi1.pmc mpi2.pmc) >"$tmp/ranks"
solve=$(awk '/^## spread across 3 ranks/ { on = 1 } on && $1 == "solve" { print $5, $6, $7, $8, $9, $10, $11, $12; exit }' "$tmp/ranks")
expect ranks-solve-spread "$solve" "5.20 k 10.4 k 15.6 k 2 1.50"
expect ranks-heading "$(grep -c '^# mpi[012].pmc: app (pid [0-9]*, rank [012] of 3,' "$tmp/ranks")" 3
# One rule in every view: a rank's inclusive value is the table's (derived
# from the tree, a recursive re-entry counted once), not the shim's own
# incl summed over nested rows. In these trees solve, parse and render
# recur; rank 2 holds each max, so the spread's max is rank 2's table incl.
for r in 0 1 2; do gen mt$r.pmc --id $r --rank $r --size 3 --rows 20 --threads 2 --tree 2; done
incl_of() { awk '/^## regions, all/ { on = 1; next } /^##/ { on = 0 } on && $3 ~ /^[0-9,]+$/ { print $1, $8, $9 }' "$1"; }
(cd "$IN" && "$R" mt0.pmc mt1.pmc mt2.pmc) >"$tmp/mt-ranks"
(cd "$IN" && "$R" mt2.pmc) >"$tmp/mt2"
expect ranks-incl-is-the-tables "$(awk '/^## spread across/ { on = 1; next } on && $2 == 3 { print $1, $9, $10 }' "$tmp/mt-ranks" | sort | tr '\n' ' ')" \
	"$(incl_of "$tmp/mt2" | sort | tr '\n' ' ')"
(cd "$IN" && "$R" --ranks "$S") >"$tmp/ranks"
expect ranks-none "$(grep -c '^## ranks: none (no file is of a process that called MPI_Init)$' "$tmp/ranks")" 1
(cd "$IN" && "$R" mpi0.pmc) >"$tmp/ranks"
expect ranks-one-not-shown "$(grep -c '^## ranks' "$tmp/ranks")" 0

# ---- diff ------------------------------------------------------------------
# before: solve io setup parse; after: io setup parse render, doubled.
gen before.pmc --regions 4 --stacks 3 --rows 24
gen after.pmc --first-region 1 --regions 4 --stacks 3 --rows 24 --id 1
D0=before.pmc
D1=after.pmc
golden diff diff "$D0" "$D1"
golden diff-csv diff --format csv "$D0" "$D1"
golden diff-json diff --format json "$D0" "$D1"
golden diff-name-top3 diff --sort name --top 3 "$D0" "$D1"

(cd "$IN" && "$R" diff --format csv "$D0" "$D1") >"$tmp/d.csv"
expect diff-only-before "$(field "$tmp/d.csv" solve status)" "before only"
expect diff-only-after "$(field "$tmp/d.csv" render status)" "after only"

# ---- run directories: wherever a file goes, a run's directory goes -----------
# two runs of two processes each (copies: every sum doubles); a file that is
# not a report (*.pmc) in a run directory is not read
mkdir "$IN/runA" "$IN/runB" "$IN/empty"
cp "$IN/$D0" "$IN/runA/a-1.pmc" && cp "$IN/$D0" "$IN/runA/a-2.pmc"
cp "$IN/$D1" "$IN/runB/b-1.pmc" && cp "$IN/$D1" "$IN/runB/b-2.pmc"
echo "not a report" >"$IN/runA/notes.txt"
(cd "$IN" && "$R" runA) >"$tmp/dir.out" 2>&1
(cd "$IN" && "$R" runA/a-1.pmc runA/a-2.pmc) >"$tmp/files.out" 2>&1
if cmp -s "$tmp/dir.out" "$tmp/files.out"; then ok run-dir-table
else fail run-dir-table "$(diff "$tmp/files.out" "$tmp/dir.out" | head -8)"; fi
golden diff-runs diff runA runB
(cd "$IN" && "$R" diff --format csv runA runB) >"$tmp/dd.csv"
expect diff-runs-calls-before "$(field "$tmp/dd.csv" io calls_before)" \
	"$(($(field "$tmp/d.csv" io calls_before) * 2))"
expect diff-runs-calls-after "$(field "$tmp/dd.csv" io calls_after)" \
	"$(($(field "$tmp/d.csv" io calls_after) * 2))"
expect diff-runs-ratio "$(field "$tmp/dd.csv" io calls_ratio)" "$(field "$tmp/d.csv" io calls_ratio)"
(cd "$IN" && "$R" diff runA/a-1.pmc runB) >"$tmp/mixed" 2>&1
expect diff-file-and-run "$(grep -c '^# after : runB: 2 processes' "$tmp/mixed")" 1

# ---- consistency -----------------------------------------------------------
# Folded weights are the regions' exclusive weight, split by stack: they
# add up to the CSV's column.
(cd "$IN" && "$R" --format folded "$S") | awk '{ s += $NF } END { print s }' >"$tmp/f"
awk -F, 'NR == 1 { for (i = 1; i <= NF; i++) if ($i == "instructions_excl") c = i }
	NR > 1 { s += $c } END { print s }' "$tmp/s.csv" >"$tmp/c"
expect folded-sums-to-excl "$(cat "$tmp/f")" "$(cat "$tmp/c")"

if command -v jq >/dev/null 2>&1; then
	for args in "--format json $S" "--format json-table --threads --by-process --stacks $S" \
		    "--format json $M0 $M1" "--format json-table --by-process $M0 $M1" \
		    "diff --format json $D0 $D1" "--format json running.pmc partial.pmc"; do
		# shellcheck disable=SC2086
		if (cd "$IN" && "$R" $args) | jq -e . >/dev/null 2>&1; then ok "json-valid: $args"
		else fail "json-valid: $args"; fi
	done
else
	skip json-valid "no jq"
fi

# ---- malformed input: one line naming the file, exit 2, no output ----------
mkdir "$IN/bad"
for c in bad-magic version3 header-size tail-unaligned state size0 size-overflow \
	 unknown-thread unknown-stack nvalues thread-mask name-unterminated \
	 stack-frames event-index; do
	gen "bad/$c.pmc" --corrupt "$c"
done
gen bad/truncated-header.pmc --truncate 100
: >"$IN/bad/empty.pmc"
printf '{"format": "pmcshim-report", "version": 1, "process": {}}\n' >"$IN/bad/version1.json"
mkdir "$IN/bad/directory.pmc"
: >"$tmp/errors"
for f in $(cd "$IN" && ls -d bad/*.pmc) bad/version1.json bad/nonexistent.pmc /dev/null; do
	(cd "$IN" && "$R" "$f") >"$tmp/out" 2>"$tmp/err"
	rc=$?
	cat "$tmp/err" >>"$tmp/errors"
	n=$(wc -l <"$tmp/err")
	if [ $rc = 2 ] && [ "$n" = 1 ] && [ ! -s "$tmp/out" ] && grep -qF "$f: " "$tmp/err"; then
		ok "bad: $f"
	else
		fail "bad: $f" "exit $rc, $n line(s) on stderr:" "$(head -3 "$tmp/err")"
	fi
done
[ $update = 1 ] && cp "$tmp/errors" "$G/errors"
if diff -u "$G/errors" "$tmp/errors" >"$tmp/diff"; then ok bad-messages
else fail bad-messages "$(head -30 "$tmp/diff")"; fi

# The first bad file of several is named; nothing is printed.
(cd "$IN" && "$R" "$S" bad/version3.pmc bad/empty.pmc) >"$tmp/out" 2>"$tmp/err"
rc=$?
if [ $rc = 2 ] && [ ! -s "$tmp/out" ] && grep -q "bad/version3.pmc: format version 3" "$tmp/err"
then ok bad-among-several; else fail bad-among-several "exit $rc" "$(cat "$tmp/err")"; fi

# ---- bad usage: a message and exit 2 -----------------------------------------
usage() {
	name=$1
	shift
	(cd "$IN" && "$R" "$@") >"$tmp/out" 2>"$tmp/err"
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
usage run-dir-empty empty
usage diff-run-empty diff runA empty
usage watch-run-of-two --watch 1 runA
usage diff-folded diff --format folded "$D0" "$D1"
usage diff-speedscope diff --format speedscope "$D0" "$D1"
usage diff-tree diff --tree "$D0" "$D1"
usage min-share-range --min-share 200 "$S"
usage tree-with-csv --tree --format csv "$S"
usage diff-threads diff --threads "$D0" "$D1"
usage min-coverage-range --min-coverage 101 "$S"
usage min-coverage-not-number --min-coverage 5x "$S"
usage diff-min-coverage diff --min-coverage 50 "$D0" "$D1"
usage diff-sort-coverage diff --sort coverage "$D0" "$D1"
usage watch-interval --watch=0 "$S"
usage watch-two-files --watch "$S" "$S"
if "$R" --help | grep -q "^usage: "; then ok help; else fail help; fi

# ---- a live file, and --watch on it -----------------------------------------
# The file says it belongs to a sleep started here (its pid, start time and
# this boot): a reader sees it running until the sleep is killed and reaped.
# Synchronised through the watch's output, with generous bounds.

# wait_for FILE PATTERN: until a line of FILE matches (at most 30 s)
wait_for() {
	n=0
	while ! grep -q "$2" "$1" 2>/dev/null && [ $n -lt 300 ]; do
		sleep 0.1
		n=$((n + 1))
	done
	grep -q "$2" "$1" 2>/dev/null
}

# watch_bg OUT ARGS...: pmcshim-report --watch=0.1 ARGS in the background,
# its output then "exit STATUS" in $tmp/OUT; its pid in W.
watch_bg() {
	out=$1
	shift
	: >"$tmp/$out" # (not an earlier watch's output, seen before this one starts)
	(cd "$IN" && "$R" --watch=0.1 "$@" >"$tmp/$out" 2>&1; echo "exit $?" >>"$tmp/$out") &
	W=$!
}

# watch_line OUT REGION: REGION's interval line in $tmp/OUT, without its
# time.
watch_line() {
	awk -v r="$2" '$2 == r { $1 = ""; print substr($0, 2) }' "$tmp/$1"
}

sleep 600 &
P=$!
gen live.pmc --pid $P
(cd "$IN" && "$R" live.pmc) >"$tmp/out" 2>&1
if grep -q "^# live.pmc: app (pid $P, .*), running (live: a snapshot as of now)\$" "$tmp/out"
then ok live-table; else fail live-table "$(head -3 "$tmp/out")"; fi
if command -v jq >/dev/null 2>&1; then
	expect live-json "$(cd "$IN" && "$R" --format json live.pmc | jq -c '.files[0] | [.process.state, .process.live, .threads[0].state]')" \
		'["running",true,"running"]'
fi
watch_bg watch live.pmc
if wait_for "$tmp/watch" "^# per interval"; then
	"$GEN" --append "$IN/live.pmc"
	wait_for "$tmp/watch" "^ *[0-9.]*  late "
	kill $P
	wait $P 2>/dev/null
	wait_for "$tmp/watch" "^exit "
fi
kill $P $W 2>/dev/null
wait $W 2>/dev/null
num='[0-9][0-9]*\.[0-9][0-9][0-9]'
if grep -q "^ *$num  solve *+10 *+[0-9.]* [nu]s *+1,000 *+1,000 *n/a\$" "$tmp/watch" &&
   grep -q "^ *$num  late *+5 *+0 ns *+500 *+500 *n/a\$" "$tmp/watch" &&
   [ "$(grep "^ *$num  " "$tmp/watch" | grep -vc '\[total\]')" = 2 ] &&
   grep -q "^# live.pmc: app (pid $P), ended without exit (killed or crashed)\$" "$tmp/watch" &&
   [ "$(tail -1 "$tmp/watch")" = "exit 0" ]
then ok watch-deltas-until-the-end; else fail watch-deltas-until-the-end "$(cat "$tmp/watch")"; fi

# The same, ended by an exit the shim saw: the watch stops on the state.
sleep 600 &
P=$!
gen live2.pmc --pid $P
watch_bg watch2 live2.pmc
if wait_for "$tmp/watch2" "^# per interval"; then
	"$GEN" --append "$IN/live2.pmc"
	wait_for "$tmp/watch2" "^ *[0-9.]*  late "
	"$GEN" --exit "$IN/live2.pmc"
	wait_for "$tmp/watch2" "^exit "
fi
kill $P $W 2>/dev/null
wait $P $W 2>/dev/null
if grep -q "^ *$num  late *+5 " "$tmp/watch2" &&
   grep -q "^# live2.pmc: app (pid $P), exited\$" "$tmp/watch2" &&
   [ "$(tail -1 "$tmp/watch2")" = "exit 0" ]
then ok watch-until-exit; else fail watch-until-exit "$(cat "$tmp/watch2")"; fi

# --watch shows values as the table does, of what the interval added. A
# live file with the markers' own cost (2 per call and 1 per child call
# for each event, 5 ns wall per call) in multiplexed threads (so far each
# event counted half its regions' time); the append's 10 calls of solve
# were counted a quarter of theirs. By default solve's 1000 of each event
# is scaled by the interval's own enabled / running (x4; the whole file's
# x2 would give 1980), then 2 per call comes out: +3980, marked '*'; late
# (5 calls, counted in full) 500 less 10: +490; late has no wall time,
# below its calls' cost: +0, and one note. --raw: as measured, still
# marked, no note; its wall time keeps the 10 calls' 100 ticks.
sleep 600 &
P=$!
gen live3.pmc --pid $P --calibrated --multiplexed
watch_bg watch3 live3.pmc
W3=$W
watch_bg watch3-raw --raw live3.pmc
if wait_for "$tmp/watch3" "^# per interval" && wait_for "$tmp/watch3-raw" "^# per interval"; then
	"$GEN" --append "$IN/live3.pmc"
	wait_for "$tmp/watch3" "^ *[0-9.]*  late "
	wait_for "$tmp/watch3-raw" "^ *[0-9.]*  late "
	kill $P
	wait $P 2>/dev/null
	wait_for "$tmp/watch3" "^exit "
	wait_for "$tmp/watch3-raw" "^exit "
fi
kill $P $W3 $W 2>/dev/null
wait $W3 $W 2>/dev/null
expect watch-calibrated-estimate "$(watch_line watch3 solve | awk '{ print $2, $5, $6, $7 }')" \
	"+10 +3,980* +3,980* n/a"
expect watch-calibrated-floor "$(watch_line watch3 late)" "late +5 +0 ns +490 +490 n/a"
expect watch-calibrated-notes "$(grep -c "^#   1 row below the markers' own cost (shorter than their noise): shown as 0\$" "$tmp/watch3") $(grep -c '^# \* estimated: ' "$tmp/watch3") $(grep -c '^#   calibrated: .*, 2 instructions, 2 cycles ' "$tmp/watch3")" \
	"1 1 1"
expect watch-raw-measured "$(watch_line watch3-raw solve | awk '{ print $2, $5, $6, $7 }')" \
	"+10 +1,000* +1,000* n/a"
expect watch-raw-late "$(watch_line watch3-raw late)" "late +5 +0 ns +500 +500 n/a"
expect watch-raw-notes "$(grep -c 'below the markers' "$tmp/watch3-raw") $(grep -c '^# \* multiplexed: ' "$tmp/watch3-raw") $(grep -c '^#   raw: values as measured' "$tmp/watch3-raw")" \
	"0 1 1"
expect watch-ends "$(tail -1 "$tmp/watch3") $(tail -1 "$tmp/watch3-raw")" "exit 0 exit 0"
# solve's wall time: 2000 ticks measured, 1900 calibrated (each watch has
# its own estimate of the tick rate, alike to far better than 1%)
expect watch-calibrated-wall "$(printf '%s %s\n' "$(watch_line watch3 solve | awk '{ print $3 * ($4 == "us" ? 1000 : 1) }')" \
	"$(watch_line watch3-raw solve | awk '{ print $3 * ($4 == "us" ? 1000 : 1) }')" |
	awk '{ r = $1 / $2; print (r > 0.93 && r < 0.97) ? "0.95" : r }')" 0.95

# One rule: without multiplexing, what the watch says an interval added
# is what the table's calibrated totals grew by (1000 less 2 per call).
sleep 600 &
P=$!
gen live4.pmc --pid $P --calibrated
(cd "$IN" && "$R" --format csv live4.pmc) >"$tmp/l4-before.csv"
watch_bg watch4 live4.pmc
if wait_for "$tmp/watch4" "^# per interval"; then
	"$GEN" --append "$IN/live4.pmc"
	wait_for "$tmp/watch4" "^ *[0-9.]*  late "
	(cd "$IN" && "$R" --format csv live4.pmc) >"$tmp/l4-after.csv"
	kill $P
	wait $P 2>/dev/null
	wait_for "$tmp/watch4" "^exit "
fi
kill $P $W 2>/dev/null
wait $W 2>/dev/null
col=5 # (the line's fields: region calls wall unit instructions cycles ...)
for ev in instructions cycles; do
	expect "watch-is-the-table-change: $ev" "$(watch_line watch4 solve | awk -v c=$col '{ print $c }' | tr -d ,)" \
		"+$(($(field "$tmp/l4-after.csv" solve "${ev}_incl") - $(field "$tmp/l4-before.csv" solve "${ev}_incl")))"
	col=$((col + 1))
done
expect watch-is-the-table-change-value "$(watch_line watch4 solve | awk '{ print $5 }')" "+980"

# --watch as perf stat -I: times on the process's own clock (it ran 100 s
# before the shim began, so every line is past 100 s, whenever the watch
# began), and per interval each event's total: its count in the interval
# and the running total (thread 1 ended with 4,000,000 instructions
# counted half its time: 8,000,000 estimated; the append has running
# thread 0 publish 1,000 more). In a tree the inclusive values follow the
# one rule: late (500) ran inside solve, still open, which grows by its
# own 1,000 and late's 500, as the table's incl does.
sleep 600 &
P=$!
gen live5.pmc --pid $P --tree 2 --before-wall 100000
(cd "$IN" && "$R" --format csv live5.pmc) >"$tmp/l5-before.csv"
watch_bg watch5 live5.pmc
if wait_for "$tmp/watch5" "^# per interval"; then
	"$GEN" --append "$IN/live5.pmc"
	wait_for "$tmp/watch5" "^ *[0-9.]*  late "
	wait_for "$tmp/watch5" "8,001,000"
	(cd "$IN" && "$R" --format csv live5.pmc) >"$tmp/l5-after.csv"
	kill $P
	wait $P 2>/dev/null
	wait_for "$tmp/watch5" "^exit "
fi
kill $P $W 2>/dev/null
wait $W 2>/dev/null
expect watch-process-clock "$(awk '$1 ~ /^[0-9.]+$/ && $1 < 100 { n++ } $1 ~ /^[0-9.]+$/ { all++ } END { print (all > 0), n + 0 }' "$tmp/watch5")" "1 0"
expect watch-totals "$(grep -c '^ *[0-9.]*  \[total\] *instructions  *+1,000\*  *8,001,000\*$' "$tmp/watch5")" 1
# (summed over lines: a read in the middle of the append sees part of it)
solve5=$(watch_line watch5 solve | tr -d ,+ | awk '{ s += $5 } END { print s }')
expect watch-tree-incl "$solve5" \
	"$(($(field "$tmp/l5-after.csv" solve instructions_incl) - $(field "$tmp/l5-before.csv" solve instructions_incl)))"
expect watch-tree-incl-value "$solve5" 1500

# A file that shrinks while it is read (tests/reader/shrinker.so cuts it at
# a known point): a live one snapshotted from its mapping (which faults),
# a finished one read, and one under --watch. What is there is read, and
# said; the reader never dies of SIGBUS.
SHRINK=$B/tests/reader/shrinker.so
sleep 2 &
alive=$!
gen shrink-live.pmc --state running --pid $alive
cp "$IN/$S" "$IN/shrink-done.pmc"
for f in shrink-live shrink-done; do
	(cd "$IN" && SHRINK_FILE=$f.pmc SHRINK_TO=6000 LD_PRELOAD=$SHRINK "$R" $f.pmc) \
		>"$tmp/out" 2>"$tmp/err"
	rc=$?
	if [ $rc = 0 ] && grep -q "^#   cut short: [0-9]* bytes of records missing (the file shrank while being read)$" "$tmp/out" &&
	   grep -q "$f.pmc: warning: it shrank while being read: [0-9]* bytes of records missing$" "$tmp/err"
	then ok "shrinks-while-read: $f"
	else fail "shrinks-while-read: $f" "exit $rc" "$(cat "$tmp/err")" "$(head -5 "$tmp/out")"; fi
done
wait $alive
sleep 3 &
alive=$!
gen shrink-watch.pmc --state running --pid $alive
(cd "$IN" && SHRINK_FILE=shrink-watch.pmc SHRINK_TO=6000 SHRINK_AT=2 LD_PRELOAD=$SHRINK \
	"$R" --watch=0.2 shrink-watch.pmc) >"$tmp/out" 2>"$tmp/err"
rc=$?
if [ $rc = 0 ] && [ "$(grep -c "shrank while being read" "$tmp/out")" = 1 ] &&
   grep -q "ended without exit" "$tmp/out"
then ok shrinks-while-watched
else fail shrinks-while-watched "exit $rc" "$(cat "$tmp/err")" "$(cat "$tmp/out")"; fi
wait $alive

# The snapshot of a file being written: every copy loads, no site is torn.
if [ -x "$B/tests/reader/test_snapshot" ]; then
	"$B/tests/reader/test_snapshot" >"$tmp/out" 2>&1
	if [ $? = 0 ]; then ok "$(sed -n 's/^ok   //p' "$tmp/out")"
	else fail snapshot-consistent "$(cat "$tmp/out")"; fi
else
	fail snapshot-consistent "build $B/tests/reader/test_snapshot first"
fi

# ---- --stacks on a real run: symbols from the test program's debug info ------
# Needs a shim that writes version-2 files; until then it is skipped, visibly.
SHIM=$B/libpmcshim.so
APP=$B/tests/reader/stackapp
NODBG=$B/tests/reader/stackapp-nodbg
line() { grep -n "LINE-$1" "$T/stackapp.c" | cut -d: -f1; }
if [ ! -x "$APP" ] || [ ! -x "$NODBG" ] || [ ! -f "$SHIM" ]; then
	fail stacks-symbolized "build $APP, $NODBG and $SHIM first"
else
	for app in "$APP" "$NODBG"; do
		PMCSHIM_OUTPUT="$tmp/$(basename "$app").pmc" PMCSHIM_STACK_DEPTH=2 \
		PMCSHIM_EVENTS=task-clock PMCSHIM_QUIET=1 LD_PRELOAD="$SHIM" "$app"
	done
fi
if [ -x "$APP" ] && [ "$(head -c 7 "$tmp/stackapp.pmc" 2>/dev/null)" != PMCSHIM ]; then
	skip stacks-symbolized "the shim in this tree does not write version-2 files yet"
elif [ -x "$APP" ]; then
	want="main ([^)]*stackapp.c:$(line MAIN));middle ([^)]*stackapp.c:$(line MIDDLE));leaf ([^)]*stackapp.c:$(line LEAF));leaf [0-9][0-9]*\$"
	"$R" --format folded-stacks "$tmp/stackapp.pmc" >"$tmp/out" 2>&1
	if grep -q "^$want" "$tmp/out"; then ok stacks-function-and-line
	else fail stacks-function-and-line "want: $want" "got: $(cat "$tmp/out")"; fi

	# Cut at the recorded depth (1: the call site and one caller), the
	# stack would start at a false root: it starts at [truncated]. At
	# depth 2 it reaches main, whole, and has none.
	PMCSHIM_OUTPUT="$tmp/stackapp-cut.pmc" PMCSHIM_STACK_DEPTH=1 \
	PMCSHIM_EVENTS=task-clock PMCSHIM_QUIET=1 LD_PRELOAD="$SHIM" "$APP"
	want="\[truncated\];middle ([^)]*stackapp.c:$(line MIDDLE));leaf ([^)]*stackapp.c:$(line LEAF));leaf [0-9][0-9]*\$"
	"$R" --format folded-stacks "$tmp/stackapp-cut.pmc" >"$tmp/out" 2>&1
	if grep -q "^$want" "$tmp/out" && ! "$R" --format folded-stacks "$tmp/stackapp.pmc" | grep -q truncated
	then ok stacks-cut-marked; else fail stacks-cut-marked "want: $want" "got: $(cat "$tmp/out")"; fi

	"$R" --stacks "$tmp/stackapp.pmc" >"$tmp/out" 2>&1
	if grep -q "^      leaf ([^)]*stackapp.c:$(line LEAF))\$" "$tmp/out" &&
	   ! grep -q "notes on symbols" "$tmp/out"; then ok stacks-table
	else fail stacks-table "$(cat "$tmp/out")"; fi

	"$R" --format json "$tmp/stackapp.pmc" >"$tmp/out" 2>&1
	if grep -q '"symbol": "leaf+0x' "$tmp/out"; then ok stacks-json-symbol
	else fail stacks-json-symbol "$(head -40 "$tmp/out")"; fi

	# A rebuilt binary: the report's build-id no longer matches the file.
	cp "$tmp/stackapp.pmc" "$tmp/changed.pmc"
	"$GEN" --zero-build-ids "$tmp/changed.pmc"
	"$R" --stacks "$tmp/changed.pmc" >"$tmp/out" 2>&1
	if grep -q "stackapp: build-id mismatch" "$tmp/out" &&
	   grep -q "^      stackapp+0x[0-9a-f]*\$" "$tmp/out"; then ok stacks-build-id-mismatch
	else fail stacks-build-id-mismatch "$(cat "$tmp/out")"; fi

	# Built without -g: function+offset, and a note saying why.
	"$R" --stacks "$tmp/stackapp-nodbg.pmc" >"$tmp/out" 2>&1
	if grep -q "stackapp-nodbg: no debug info" "$tmp/out" &&
	   grep -q "^      leaf+0x[0-9a-f]*\$" "$tmp/out"; then ok stacks-no-debug-info
	else fail stacks-no-debug-info "$(cat "$tmp/out")"; fi
fi

. "$T/tree.sh"
. "$T/views.sh"
. "$T/processes.sh"
. "$T/robust.sh"

echo "reader: $passed passed, $failed failed, $skipped skipped"
[ $failed = 0 ]
