#!/bin/sh
# docs/reading.md's examples, produced by running their commands.
#
# Each example block in the page is preceded by a line
# "<!-- example: NAME -->"; ex_NAME below prints the block: each command
# after "$ ", then what it printed, run in a scratch directory with the
# build's commands first on PATH.
#   B=build sh tests/docs/examples.sh            compare: one test per block
#   B=build sh tests/docs/examples.sh --update   write the blocks afresh
#
# A block made from synthetic input (gen_report) must match exactly. A block
# made from real runs holds times, pids and counts that move from run to
# run, so it is compared by shape: numbers masked, spaces collapsed, the
# set of lines compared (so rows may come in another order, and a table may
# have more or fewer rows of the same kind). The few lines a run prints only
# sometimes are listed in "sometimes" below, each with the condition.
. tests/lib.sh
. tools/build/blocks.sh
suite_begin docs-examples
B=${B:-build}
B=$(cd "$B" && pwd)
DOC=docs/reading.md
update=false
[ "${1:-}" = --update ] && update=true
PATH=$B:$B/tests/reader:$B/tests/sample:$PATH
export PATH
unset PMCSHIM_EVENTS PMCSHIM_OUTPUT PMCSHIM_SAMPLE PMCSHIM_DEPTH

# run CMD: the command as the page shows it, then its output (the scratch
# directory's path taken out); a command that fails stops the example (an
# example the reader refuses is a stale one)
run() {
	printf '$ %s\n' "$1"
	sh -c "$1" >out.tmp 2>&1 || { echo "example command failed ($?): $1" >&2; return 1; }
	sed "s|$(pwd)/||g" out.tmp
}

# the bundled example, twice, with the launcher: the run directories r1, r2
# (made by ex_demo, or here for an example run alone)
demo_runs() {
	[ -d r1 ] && return 0
	pmcshim -q -e task-clock,page-faults -O r1.table -o r1 demo >/dev/null 2>&1 &&
		pmcshim -q -e task-clock,page-faults -O r2.table -o r2 demo >/dev/null 2>&1
}

ex_demo() {
	run 'pmcshim -q -e task-clock,page-faults -O r1.table -o r1 demo' &&
	run 'pmcshim -q -e task-clock,page-faults -O r2.table -o r2 demo' &&
	run 'pmcshim-report r1' &&
	run 'pmcshim-report --threads --top 2 r1' &&
	run "pmcshim-report --stacks --top 2 --region '^(solve|io)\$' r1" &&
	run 'pmcshim-report --by-process --top 3 r1 r2' &&
	run 'pmcshim-report diff r1 r2'
}

ex_coverage() {
	gen_report --calibrated --region-coverage coverage.pmc >/dev/null || return 1
	run 'pmcshim-report --sort coverage --min-coverage 10 coverage.pmc' &&
	run "pmcshim-report --sort coverage --top 1 coverage.pmc | sed -n '/^## regions/,/^n\\/a\\*/p'"
}

ex_formats() {
	demo_runs || return 1
	head -c 100 "$(ls r1/*.pmc | head -1)" >truncated.pmc
	run 'pmcshim-report --format csv r1 | head -3' &&
	run "pmcshim-report --format json r1 | jq -c '.files[0].threads[0].regions[0] | {region, calls, wall_ns}'" &&
	run "pmcshim-report --format folded --region '^(factor|io)\$' r1" &&
	run 'pmcshim-report r1 truncated.pmc; echo $?'
}

ex_sampled() {
	[ -x "$B/tests/sample/sampled" ] || { echo "no $B/tests/sample/sampled: make build-tests" >&2; return 1; }
	run 'pmcshim -q --sample=4000 -e task-clock -O rd.table -o rd sampled ratio region' &&
	run "pmcshim-report rd | sed -n '/^## regions/,/^\$/p'" &&
	run 'pmcshim-report --functions --top 2 rd' &&
	run "pmcshim-report --functions --top 1 --region '^solve\$' rd" &&
	run 'pmcshim-report --functions --top 2 --format csv rd'
}

# shape: the frames of a stack left out, and those of a folded line but its
# region (libc's are named from its debug info where that is installed), a
# frame's file and line or offset left out, the host name and numbers
# masked (and
# a diff's "-", no ratio where before was 0: a
# count such as a region's page faults is 0 in one run, 1 in the next),
# spaces collapsed, lines that runs print only sometimes dropped, the set
# of lines
#   "rows below the markers' own cost": only when some row is (timing)
#   "above task-clock": only when CPU passes task-clock by over 1%
#   "not taken:", "cut short": only when a sample was not taken, or its
#   stack walk stopped early
sometimes="rows? below the markers' own cost|above task-clock|^not taken:|cut short"
shape() {
	grep -Ev "$sometimes" "$1" |
		sed -E -e '/^      [^ ]/d' -e '/^[^#].*;/s/^.*;/...;/' \
		-e 's/\+0x[0-9a-f]+//g' -e 's/ \([^()]*:[0-9]+\)//g' -e 's/host [^,)]+/host H/' \
		-e 's/[-+]?[0-9]+([.,][0-9]+)*/#/g' -e 's/[[:space:]]+/ /g' -e 's/ $//' \
		-e 's/# ?(k|K|M|G|ns|us|ms|s|KiB|MiB|x|%)([^A-Za-z0-9]|$)/#\2/g' \
		-e 's/(^| )-( |$)/\1#\2/g' -e 's/(^| )-( |$)/\1#\2/g' | sort -u
}

# block NAME: the page's block after its marker (without the fences)
block() { marked_block "$DOC" "<!-- example: $1 -->"; }

# replace NAME FILE: the page with NAME's block made of FILE
replace() { block_replace "$DOC" "<!-- example: $1 -->" "$2"; }

exact="coverage"
names=$(sed -n 's/^<!-- example: \([a-z]*\) -->$/\1/p' "$DOC")
[ -n "$names" ] || result examples_found fail "no <!-- example: NAME --> marker in $DOC"
here=$(pwd)
mkdir -p "$tmp/work"
for n in $names; do
	out=$tmp/$n.out
	if ! (cd "$tmp/work" && "ex_$n") >"$out" 2>"$tmp/$n.err"; then
		result "example_$n" fail "its commands failed:" "$(cat "$tmp/$n.err")"
		continue
	fi
	if $update; then
		(cd "$here" && replace "$n" "$out")
		result "example_$n" ok
		continue
	fi
	block "$n" >"$tmp/$n.doc"
	case " $exact " in
	*" $n "*) diff -u "$tmp/$n.doc" "$out" >"$tmp/$n.diff" ;;
	*) shape "$tmp/$n.doc" >"$tmp/$n.d"; shape "$out" >"$tmp/$n.o"
	   diff -u "$tmp/$n.d" "$tmp/$n.o" >"$tmp/$n.diff" ;;
	esac
	if [ $? = 0 ]; then
		result "example_$n" ok
	else
		result "example_$n" fail "$DOC's block '$n' is not what the commands print now" \
			"(B=build sh tests/docs/examples.sh --update rewrites it):" "$(head -40 "$tmp/$n.diff")"
	fi
done

# the page's --format row names every format the reader takes
formats=$(sed -n '/static const char \*const formats\[\]/,/;/p' tools/reader/pmcshim-report.c |
	grep -o '"[a-z-]*"' | tr -d '"')
row=$(grep '^| `--format F`' "$DOC")
missing=""
for f in $formats; do
	printf '%s' "$row" | grep -q "\`$f\`" || missing="$missing $f"
done
if [ -z "$formats" ]; then
	result formats_in_reading fail "found no format table in tools/reader/pmcshim-report.c"
elif [ -n "$missing" ]; then
	result formats_in_reading fail "$DOC's --format row does not name:$missing"
else
	result formats_in_reading ok
fi
suite_end
