#!/bin/sh
# pmcshim-report --format html in a real browser (run from the repository
# root; make test runs it): the page of a report made by the shim here
# (tests/reader/treeapp.c), of a generated 100 000-region report (its page
# bounded; its time said),
# of two generated MPI ranks from an older shim (no tree), of treeapp with
# events that cannot count without a PMU, and of a generated report with
# sampled stacks (whole and with --region), opened
# in Chromium and driven by puppeteer-core from npm (installed once into
# $B/tests/html). Skipped, visibly, without chromium, node or npm, or when
# npm cannot install puppeteer-core.
B=${B:-build}
case $B in /*) ;; *) B=$PWD/$B ;; esac
R=$B/pmcshim-report
GEN=$B/tests/reader/gen_report
SHIM=$B/libpmcshim.so
APP=$B/tests/reader/treeapp
NM=$B/tests/html
BIG=100000
DOM_MAX=20000			# elements on the big page once open
passed=0
failed=0
skipped=0
tmp=$(mktemp -d "${TMPDIR:-/tmp}/html-test.XXXXXX") || exit 1
trap 'rm -rf "$tmp"' EXIT INT TERM

ok() { echo "ok   $1"; passed=$((passed + 1)); }
fail() { echo "FAIL $1"; shift; for l in "$@"; do printf '    %s\n' "$l"; done; failed=$((failed + 1)); }
skip() { echo "SKIP $1 ($2)"; skipped=$((skipped + 1)); }
finish() {
	echo "html: $passed passed, $failed failed, $skipped skipped"
	[ $failed = 0 ]
	exit
}

for f in "$R" "$GEN" "$SHIM" "$APP"; do
	[ -e "$f" ] || { fail build "$f missing"; finish; }
done
PMCSHIM_OUTPUT="$tmp/tree.pmc" PMCSHIM_EVENTS=task-clock PMCSHIM_QUIET=1 LD_PRELOAD="$SHIM" "$APP"
"$R" --format html "$tmp/tree.pmc" >"$tmp/tree.html" || fail html-written "exit $?"
"$GEN" --rows $BIG --regions $BIG --threads 1 --tree 4 --events 2 "$tmp/big.pmc"
"$R" --format html "$tmp/big.pmc" >"$tmp/big.html" || fail html-big-written "exit $?"
"$GEN" --rank 0 --size 2 "$tmp/rank0.pmc"
"$GEN" --rank 1 --size 2 --id 1 "$tmp/rank1.pmc"
"$R" --format html "$tmp/rank0.pmc" "$tmp/rank1.pmc" >"$tmp/ranks.html" || fail html-ranks-written "exit $?"
# Events that cannot count here (instructions and cycles without a PMU, or
# counted where there is one): the page says n/a, never NaN.
PMCSHIM_OUTPUT="$tmp/nopmu.pmc" PMCSHIM_EVENTS=instructions,cycles,task-clock PMCSHIM_QUIET=1 \
	LD_PRELOAD="$SHIM" "$APP"
"$R" --format html "$tmp/nopmu.pmc" >"$tmp/nopmu.html" || fail html-nopmu-written "exit $?"
"$R" --format csv "$tmp/nopmu.pmc" >"$tmp/nopmu.csv"
# Sampled stacks (gen_report --samples: 300 under solve, 100 in none),
# whole and with --region.
"$GEN" --samples "$tmp/sampled.pmc"
"$R" --format html --no-symbolize "$tmp/sampled.pmc" >"$tmp/sampled.html" ||
	fail html-sampled-written "exit $?"
"$R" --format html --no-symbolize --region '^solve$' "$tmp/sampled.pmc" >"$tmp/solve.html" ||
	fail html-sampled-region-written "exit $?"

# Self-contained: nothing to fetch.
if grep -Eqi '(src|href)=|https?://|@import|url\(' "$tmp/tree.html"; then
	fail html-self-contained "$(grep -Eoi '(src|href)=[^ >]*|https?://[^ "]*|@import|url\(' "$tmp/tree.html" | head -3)"
else
	ok html-self-contained
fi

CHROMIUM=${CHROMIUM:-$(command -v chromium || command -v chromium-browser)}
if [ -z "$CHROMIUM" ]; then
	skip html-browser "no chromium (Debian: apt-get install chromium)"
	finish
fi
if ! command -v node >/dev/null 2>&1 || ! command -v npm >/dev/null 2>&1; then
	skip html-browser "no node or npm to drive chromium (Debian: apt-get install nodejs npm)"
	finish
fi
if [ ! -d "$NM/node_modules/puppeteer-core" ]; then
	mkdir -p "$NM"
	if ! npm install --prefix "$NM" --no-audit --no-fund --no-save --silent \
	     puppeteer-core@24 >"$tmp/npm" 2>&1; then
		skip html-browser "npm could not install puppeteer-core: $(tail -1 "$tmp/npm")"
		finish
	fi
fi
NODE_PATH=$NM/node_modules timeout 300 node tests/html/check.js "$CHROMIUM" \
	"$tmp/tree.html" "$tmp/big.html" $BIG "$DOM_MAX" "$tmp/ranks.html" "$tmp/nopmu.html" \
	"$tmp/nopmu.csv" "$tmp/sampled.html" "$tmp/solve.html" >"$tmp/out" 2>&1
rc=$?
# results FILE: a driver's lines as results
results() {
	while read -r word rest; do
		case $word in
		ok) ok "$rest" ;;
		FAIL) fail "$rest" ;;
		SKIP) skip "$rest" "" ;;
		*) echo "    $word $rest" ;;
		esac
	done <"$1"
}
results "$tmp/out"
[ $rc = 0 ] || fail html-driver "node exited $rc"

# The system report's page (report_html_system.c): a run of the launcher
# with CPU 1 offline from its start (PMCSHIM_TEST_SYSFS, for tests only).
if [ "$(id -u)" != 0 ] || [ "$(nproc)" -lt 2 ] || [ ! -x "$B/pmcshim" ]; then
	skip html-system "needs root, 2 CPUs (per-CPU counters) and $B/pmcshim"
else
	mkdir -p "$tmp/sysfs/devices/system/cpu/cpu1"
	echo 0 >"$tmp/sysfs/devices/system/cpu/cpu1/online"
	PMCSHIM_TEST_SYSFS=$tmp/sysfs "$B/pmcshim" --system -q -I 100 -e cpu-clock,page-faults \
		--duration 0.6 -o "$tmp/sys" 2>"$tmp/sys.err"
	"$R" --format html --top 5 "$tmp/sys/system.pmc" >"$tmp/sys.html" &&
		"$R" --format json --top 5 "$tmp/sys/system.pmc" >"$tmp/sys.json" ||
		fail html-system-written "$(cat "$tmp/sys.err")"
	NODE_PATH=$NM/node_modules timeout 120 node tests/html/system.js "$CHROMIUM" \
		"$tmp/sys.html" "$tmp/sys.json" >"$tmp/sysout" 2>&1
	rc=$?
	results "$tmp/sysout"
	[ $rc = 0 ] || fail html-system-driver "node exited $rc"
fi
finish
