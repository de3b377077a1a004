# Numbers that add up and options that hold in every view (issue 27 items
# 4 to 6; sourced by run.sh after tree.sh, which made $IN/tree.pmc).

# ---- trees and stacks add up, recursion included -----------------------------
# adds_up NAME FILE ARGS...: in `--tree ARGS FILE`, no node's incl is below
# its excl or above its parent's (values print to 3 digits: 0.5% slack).
adds_up() {
	name=$1 file=$2
	shift 2
	"$R" --tree "$@" "$file" >"$tmp/addsup" 2>"$tmp/err"
	bad=$(awk '
		function ns(v, u) {
			if (u == "s" || u == "G") return v * 1e9
			if (u == "ms" || u == "M") return v * 1e6
			if (u == "us" || u == "k") return v * 1e3
			return v
		}
		/^region tree/ { on = 1; getline; next }
		on && NF >= 5 {
			match($0, /^ */); d = RLENGTH / 2; n = 0
			for (i = 3; i < NF; i++) {
				if ($i == "-") { val[++n] = -1; continue }
				u = $(i + 1) ~ /^[a-zA-Z]+$/ ? $(i + 1) : ""
				val[++n] = ns($i, u)
				if (u != "") i++
			}
			incl = val[1]; excl = val[2]
			if (excl > incl * 1.005 + 1) print "incl < excl: " $0
			if (d > 0 && incl > up[d - 1] * 1.005 + 1) print "above its parent: " $0
			up[d] = incl
		}' "$tmp/addsup" 2>&1)
	if [ -s "$tmp/err" ] || [ -n "$bad" ] || ! grep -q "^region tree" "$tmp/addsup"; then
		fail "$name" "$bad" "$(cat "$tmp/err")" "$(head -20 "$tmp/addsup")"
	else
		ok "$name"
	fi
}

# stacks_add_up NAME FILE: every call-site stack row of the CSV export has
# incl >= excl for each value.
stacks_add_up() {
	"$R" --format csv --stacks "$2" >"$tmp/stacks.csv" 2>"$tmp/err"
	bad=$(awk -F, '
		NR == 1 { for (i = 1; i <= NF; i++) if ($i ~ /_incl(_ns)?$/) incl[i] = 1; next }
		{ for (i in incl) if ($i != "" && $(i + 1) + 0 > $i + 0)
			print $1 " " $i " < " $(i + 1) }' "$tmp/stacks.csv" 2>&1)
	if [ -s "$tmp/err" ] || [ -n "$bad" ]; then fail "$1" "$bad" "$(cat "$tmp/err")"
	else ok "$1"; fi
}

# mean_between NAME FILE ARGS...: every row of `--format csv ARGS FILE` has,
# for each value, min <= mean <= max (min and max corrected as the mean is).
mean_between() {
	name=$1 file=$2
	shift 2
	"$R" --format csv "$@" "$file" >"$tmp/mm.csv" 2>"$tmp/err"
	bad=$(awk -F, '
		NR == 1 { for (i = 1; i <= NF; i++) if ($i ~ /_mean(_ns)?$/) mean[i] = 1; next }
		{ for (i in mean) if ($i != "" && ($(i + 1) + 0 > $i + 0 || $(i + 2) + 0 < $i + 0))
			print $1 ": mean " $i ", min " $(i + 1) ", max " $(i + 2) }' "$tmp/mm.csv" 2>&1)
	if [ -s "$tmp/err" ] || [ -n "$bad" ] || [ "$(wc -l <"$tmp/mm.csv")" -lt 2 ]; then
		fail "$name" "$bad" "$(cat "$tmp/err")"
	else
		ok "$name"
	fi
}

JAPP=$B/tests/reader/jumpapp
if [ ! -x "$JAPP" ] || [ ! -x "$TAPP" ] || [ ! -f "$SHIM" ]; then
	fail views-shim "build $JAPP, $TAPP and $SHIM first"
else
	# rec in itself three deep (treeapp), and rec left by longjmp (jumpapp)
	PMCSHIM_OUTPUT="$tmp/jumpapp.pmc" PMCSHIM_EVENTS=task-clock PMCSHIM_QUIET=1 \
		LD_PRELOAD="$SHIM" "$JAPP"
	for f in treeapp jumpapp; do
		adds_up "tree-adds-up-$f" "$tmp/$f.pmc" --event wall
		adds_up "tree-adds-up-$f-task-clock" "$tmp/$f.pmc" --event task-clock
		stacks_add_up "stacks-incl-not-below-excl-$f" "$tmp/$f.pmc"
		mean_between "min-mean-max-$f" "$tmp/$f.pmc"
		mean_between "min-mean-max-$f-threads-stacks" "$tmp/$f.pmc" --threads --stacks
	done
	# The table's rec: its inner levels add to calls and excl, not to incl.
	"$R" --format csv --event wall "$tmp/treeapp.pmc" >"$tmp/t.csv"
	expect tree-recursive-table "$(field "$tmp/t.csv" rec calls)" 3
	[ "$(field "$tmp/t.csv" rec wall_incl_ns)" -ge "$(field "$tmp/t.csv" rec wall_excl_ns)" ] &&
		ok tree-recursive-table-incl || fail tree-recursive-table-incl "$(cat "$tmp/t.csv")"
fi
# A generated tree, calibrated: a node's incl is its excl and its children's.
gen treecal.pmc --rows 24 --threads 2 --tree 2 --calibrated
golden tree-calibrated --tree treecal.pmc
adds_up tree-adds-up-calibrated "$IN/treecal.pmc"
# A main of one call around many (its children's markers in its measured
# min and max): min and max corrected as its mean is, so all three agree.
gen onecall.pmc --rows 8 --regions 8 --stacks 1 --threads 1 --tree 2 --calibrated --one-call-roots
golden csv-one-call-root --format csv onecall.pmc
mean_between min-mean-max-one-call-root "$IN/onecall.pmc" --threads
mean_between min-mean-max-one-call-root-raw "$IN/onecall.pmc" --raw

# ---- every view honours --region, or refuses an option with the reason --------
golden tree-region --tree --region '^render$' tree.pmc
golden tree-folded-region --format folded --region '^render$' tree.pmc
golden tree-speedscope-region --format speedscope --region '^render$' tree.pmc
# The page under --region draws what folded paths under it add up to: the
# three paths through render in golden/tree-folded-region, 15150.
if command -v node >/dev/null 2>&1; then
	(cd "$IN" && "$R" --format html --region '^render$' tree.pmc) >"$tmp/page.html"
	page=$(node -e '
		const html = require("fs").readFileSync(process.argv[1], "utf8");
		const m = html.match(/<script id="pmcshim-data" type="application\/json">([^<]*)</);
		const D = JSON.parse(m[1]), NV = D.values.length, S = 3 + 2 * NV + 2 * D.minmax.length, w = D.weight;
		let sum = 0;
		for (const f of D.files) for (const t of f.threads)
			for (let o = 0; o < t.rows.length; o += S) sum += t.rows[o + 4 + 2 * w] || 0;
		console.log(sum);' "$tmp/page.html")
	expect html-region "$page $(cd "$IN" && "$R" --format folded --region '^render$' tree.pmc |
				    awk '{ s += $NF } END { print s }')" "15150 15150"
else
	skip html-region "no node to read the page's data"
fi

# refused NAME WHY ARGS...: exit 2, and the reason on stderr.
refused() {
	name=$1 why=$2
	shift 2
	(cd "$IN" && "$R" "$@") >"$tmp/out" 2>"$tmp/err"
	rc=$?
	if [ $rc = 2 ] && grep -q -- "$why" "$tmp/err" && [ ! -s "$tmp/out" ]; then ok "$name"
	else fail "$name" "exit $rc" "$(cat "$tmp/err")" "$(head -3 "$tmp/out")"; fi
}
refused top-folded "--top cuts a table's rows" --format folded --top 2 tree.pmc
refused top-speedscope "--top cuts a table's rows" --format speedscope --top 2 tree.pmc
refused top-html "--top cuts a table's rows" --format html --top 2 tree.pmc
refused top-tree "--top cuts a table's rows" --tree --top 2 tree.pmc
refused top-watch "--top: --watch prints every region" --watch --top 2 tree.pmc
refused region-json "--format json is each file in full" --format json --region solve tree.pmc
# An empty profile says why and fails: an event no thread counted, a
# --region that matches nothing.
refused empty-speedscope "no region has a value of task-clock" --format speedscope \
	--event task-clock "$S"
refused empty-folded "no region has a value of task-clock" --format folded --event task-clock "$S"
refused empty-html "no region has a value of task-clock" --format html --event task-clock "$S"
refused empty-region "no region matches --region" --format folded-stacks --region '^nothing$' "$S"

# ---- the shim's own calibration regions are in no export -----------------------
if [ -f "$tmp/treeapp.pmc" ]; then
	for fmt in speedscope html folded folded-stacks csv json-table; do
		n=$("$R" --format $fmt "$tmp/treeapp.pmc" 2>&1 | grep -c 'pmcshim:calibration')
		expect "no-calibration-frames-$fmt" "$n" 0
	done
fi

# --watch --region: only the lines of the regions that match.
sleep 600 &
P=$!
gen live3.pmc --pid $P
watch_bg watch3 live3.pmc --region '^late$'
if wait_for "$tmp/watch3" "^# per interval"; then
	"$GEN" --append "$IN/live3.pmc"
	wait_for "$tmp/watch3" "^ *[0-9.]*  late "
	"$GEN" --exit "$IN/live3.pmc"
	wait_for "$tmp/watch3" "^exit "
fi
kill $P $W 2>/dev/null
wait $P $W 2>/dev/null
if grep -q "^ *$num  late *+5 " "$tmp/watch3" && [ "$(grep "^ *$num  " "$tmp/watch3" | grep -vc '\[total\]')" = 1 ] &&
   [ "$(tail -1 "$tmp/watch3")" = "exit 0" ]
then ok watch-region; else fail watch-region "$(cat "$tmp/watch3")"; fi
