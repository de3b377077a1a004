# Nothing hangs, nothing dies, nothing goes dark (issue 26; sourced by
# run.sh): memory in proportion to the files, a named pipe refused before
# it is opened, CSV cells a spreadsheet would run as formulas made text,
# and a broken region tree shown as far as it holds.

# ---- memory in proportion to the data ----------------------------------------
# 1,000 rank files of about 80 KiB (an MPI job's) in 300 MB of address space:
# a copy per file rounded up to a 2 MiB huge page took 2 GB.
B=$B sh "$T/gen_ranks.sh" "$tmp/ranks1000" 1000 --rows 320 --threads 4 --regions 25 --stacks 5 ||
	fail "gen_ranks.sh 1000"
for args in "" "--format csv"; do
	# shellcheck disable=SC2086
	(ulimit -v 300000 && "$R" $args "$tmp/ranks1000"/*.pmc) >"$tmp/out" 2>"$tmp/err"
	rc=$?
	if [ $rc = 0 ] && [ ! -s "$tmp/err" ] && [ -s "$tmp/out" ]; then ok "memory-1000-files: ${args:-table}"
	else fail "memory-1000-files: ${args:-table}" "exit $rc under ulimit -v 300000" "$(head -3 "$tmp/err")"; fi
done
rm -rf "$tmp/ranks1000"

# ---- a named pipe: refused before it is opened (opening it waits for a writer)
mkfifo "$IN/pipe.pmc"
(cd "$IN" && timeout 10 "$R" pipe.pmc) >"$tmp/out" 2>"$tmp/err"
expect fifo-refused "$? $(cat "$tmp/err")" \
	"2 pmcshim-report: pipe.pmc: not a regular file (a named pipe)"
# among other files, too: the first bad one is named, nothing printed
(cd "$IN" && timeout 10 "$R" "$S" pipe.pmc) >"$tmp/out" 2>"$tmp/err"
expect fifo-among-files "$? $(wc -c <"$tmp/out") $(grep -c 'pipe.pmc: not a regular file' "$tmp/err")" "2 0 1"
rm -f "$IN/pipe.pmc"

# ---- CSV: text a spreadsheet would run as a formula -----------------------------
# A region name starting with = + - @ or a tab is quoted and led by a '
# (OWASP); numbers, negative ones too, stay numbers.
for name in '=HYPERLINK("x")' '+1+1' '-2+3' '@SUM(A1)' "$(printf '\tx')"; do
	gen formula.pmc --first-name "$name"
	want=$(printf '%s' "$name" | sed 's/"/""/g')
	(cd "$IN" && "$R" --format csv formula.pmc) >"$tmp/out"
	expect "csv-formula-neutralised: $name" "$(grep -c "^\"'$want\",172," "$tmp/out")" 1
done
(cd "$IN" && "$R" diff --format csv after.pmc before.pmc) >"$tmp/out"
expect csv-negative-stays-number "$(field "$tmp/out" setup calls_change)" -298
# (the table is not a spreadsheet's: names there as they are)
gen formula.pmc --first-name '=HYPERLINK("x")'
expect table-keeps-name "$(cd "$IN" && "$R" formula.pmc | grep -c '^=HYPERLINK("x")  ')" 1

# ---- a broken region tree: what holds is shown, with one warning ------------------
# A site whose parent is its own child (parent-cycle) or no site at all
# (parent-dangling) becomes outermost; every view works, exit 0.
for c in parent-cycle parent-dangling; do
	gen "$c.pmc" --rows 24 --threads 2 --tree 2 --corrupt "$c"
	for args in "--tree" "" "--tree --threads" "--format csv" "--format json" \
		    "--format folded" "--format speedscope" "--format html"; do
		# shellcheck disable=SC2086
		(cd "$IN" && "$R" $args "$c.pmc") >"$tmp/out" 2>"$tmp/err"
		rc=$?
		if [ $rc = 0 ] && [ -s "$tmp/out" ] && [ "$(wc -l <"$tmp/err")" = 1 ] &&
		   grep -q "^pmcshim-report: $c.pmc: warning: 1 site with a broken parent (.*), shown as outermost: the tree is partial\$" "$tmp/err"
		then ok "broken-tree: $c ${args:-table}"
		else fail "broken-tree: $c ${args:-table}" "exit $rc" "$(head -3 "$tmp/err")"; fi
	done
done
# the regions are all there: the same rows as the intact tree's (tree.sh)
(cd "$IN" && "$R" --format csv tree.pmc) >"$tmp/whole.csv"
for c in parent-cycle parent-dangling; do
	(cd "$IN" && "$R" --format csv $c.pmc) >"$tmp/out" 2>/dev/null
	expect "broken-tree-all-rows: $c" "$(cut -d, -f1,2 "$tmp/out" | sort | tr '\n' ' ')" \
		"$(cut -d, -f1,2 "$tmp/whole.csv" | sort | tr '\n' ' ')"
done
# the cyclic site is thread 0's first, outermost anyway: the whole tree;
# the dangling one (thread 1's last, io: 33 calls) one more outermost
# region, in thread 1's tree and in the merged one
(cd "$IN" && "$R" --tree --threads tree.pmc) >"$tmp/whole.tree"
(cd "$IN" && "$R" --tree --threads parent-cycle.pmc) >"$tmp/out" 2>/dev/null
if cmp -s "$tmp/whole.tree" "$tmp/out"; then ok broken-tree-cycle-shown-whole
else fail broken-tree-cycle-shown-whole "$(diff "$tmp/whole.tree" "$tmp/out" | head -10)"; fi
outermost() { grep -c '^[a-z]*  *[0-9]' "$1"; }
(cd "$IN" && "$R" --tree --threads parent-dangling.pmc) >"$tmp/out" 2>/dev/null
expect broken-tree-dangling-outermost "$(outermost "$tmp/out") $(grep -c '^io  *33 ' "$tmp/out")" \
	"$(($(outermost "$tmp/whole.tree") + 2)) 2"
