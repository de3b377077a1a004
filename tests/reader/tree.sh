# The region tree (sourced by run.sh): a generated tree in every output,
# an older file without one, and the tree of a program
# run under the shim.

# ---- a generated tree ------------------------------------------------------
# gen_report --tree 2: in each of 2 threads, site k is a child of site
# (k - 1) / 2; each incl is its excl plus its children's incl.
gen tree.pmc --rows 24 --threads 2 --tree 2
golden tree --tree tree.pmc
golden tree-min-share --tree --min-share 10 --threads tree.pmc
golden tree-folded --format folded tree.pmc
golden tree-folded-threads --format folded --threads tree.pmc
golden tree-speedscope --format speedscope tree.pmc
golden tree-speedscope-wall --format speedscope --event wall --by-process tree.pmc
(cd "$IN" && "$R" --format json tree.pmc) >"$tmp/tree.json"
seq12="null 0 0 1 1 2 2 3 3 4 4 5 "
expect tree-json-parents "$(grep -o '"parent": [0-9a-z]*' "$tmp/tree.json" | cut -d' ' -f2 | tr '\n' ' ')" \
	"$seq12$seq12"
# Folded paths carry exclusive weights: they add up to the whole.
expect tree-folded-sums "$(cd "$IN" && "$R" --format folded tree.pmc | awk '{ s += $NF } END { print s }')" \
	"$(cd "$IN" && "$R" --format csv tree.pmc |
	   awk -F, 'NR == 1 { for (i = 1; i <= NF; i++) if ($i == "instructions_excl") c = i }
		    NR > 1 { s += $c } END { print s }')"

# A file without a tree (an older shim): outermost regions, said once.
(cd "$IN" && "$R" --tree "$S") >"$tmp/out" 2>&1
expect tree-older-file "$(grep -c '^note: sample.pmc holds no region tree' "$tmp/out") $(grep -c '^  ' "$tmp/out")" "1 0"

if command -v node >/dev/null 2>&1; then
	for args in "--format speedscope tree.pmc" "--format speedscope --threads tree.pmc" \
		    "--format speedscope $S" "--format speedscope --event wall $M0 $M1"; do
		# shellcheck disable=SC2086
		(cd "$IN" && "$R" $args) >"$tmp/ss.json"
		out=$(node "$T/speedscope_check.js" "$tmp/ss.json" 2>&1)
		if [ "$out" = ok ]; then ok "speedscope-schema: $args"
		else fail "speedscope-schema: $args" "$out"; fi
	done
	# Sampled stacks (gen_report --samples): a profile of their own for the
	# thread, weights = samples, under their region; --region keeps solve's.
	gen sampled.pmc --samples
	for re in '' '^solve$'; do
		(cd "$IN" && "$R" --format speedscope --no-symbolize ${re:+--region "$re"} sampled.pmc) \
			>"$tmp/ss.json"
		out=$(node "$T/speedscope_check.js" "$tmp/ss.json" --stacks samples 2>&1)
		want='ok
# samples (task-clock): app [pid 4242] app [tid 4242]
[solve];[app+0x2000];[app+0x1234] 300'
		[ -z "$re" ] && want="$want
[libwork.so+0x40] 100"
		expect "speedscope-sampled${re:+-region}" "$out" "$want"
	done
else
	skip speedscope-schema "no node to check the speedscope file's structure"
fi

# ---- the tree of a real run -------------------------------------------------
# tests/reader/treeapp.c: main { solve { factor x3 } io { factor } rec {
# rec { rec } } }. The shape and the calls are exact; times are masked.
TAPP=$B/tests/reader/treeapp
if [ ! -x "$TAPP" ] || [ ! -f "$SHIM" ]; then
	fail tree-shim "build $TAPP and $SHIM first"
else
	PMCSHIM_OUTPUT="$tmp/treeapp.pmc" PMCSHIM_EVENTS=task-clock PMCSHIM_QUIET=1 \
		LD_PRELOAD="$SHIM" "$TAPP"
	mask() { sed -E 's/[0-9.]+ (ns|us|ms|s)( |$)/T\2/g; s/[0-9.]+%/P%/g; s/([^ ])  +/\1 /g'; }
	golden_run() {
		name=$1
		shift
		"$R" "$@" "$tmp/treeapp.pmc" 2>"$tmp/err" | mask >"$tmp/out"
		[ $update = 1 ] && cp "$tmp/out" "$G/$name"
		if [ -s "$tmp/err" ]; then fail "$name" "$(head -3 "$tmp/err")"
		elif ! diff -u "$G/$name" "$tmp/out" >"$tmp/diff" 2>&1; then
			fail "$name" "output differs from $G/$name:" "$(head -30 "$tmp/diff")"
		else ok "$name"; fi
	}
	golden_run tree-shim --tree --sort name --event wall
	golden_run tree-shim-task-clock --tree --sort name
	"$R" --format folded --sort name --event wall "$tmp/treeapp.pmc" |
		sed 's/ [0-9]*$//' >"$tmp/paths"
	expect tree-shim-folded "$(tr '\n' ' ' <"$tmp/paths")" \
		"main main;io main;io;factor main;rec main;rec;rec main;rec;rec;rec main;solve main;solve;factor "
	"$R" --format speedscope --sort name --event wall "$tmp/treeapp.pmc" >"$tmp/ss.json"
	expect tree-shim-speedscope "$(grep -o '"samples": .*' "$tmp/ss.json")" \
		'"samples": [[0], [0,3], [0,3,2], [0,4], [0,4,4], [0,4,4,4], [0,1], [0,1,2]],'
	if command -v node >/dev/null 2>&1; then
		expect tree-shim-speedscope-schema "$(node "$T/speedscope_check.js" "$tmp/ss.json" 2>&1)" ok
	fi
fi
