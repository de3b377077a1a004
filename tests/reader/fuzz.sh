#!/bin/sh
# The report parser's fuzz target.
#   fuzz.sh replay    (make test) runs every seed once: the test reports,
#                     the bad ones and tests/reader/fuzz-seeds; no random
#                     inputs, so the result is the same on every run
#   fuzz.sh SECONDS   (make fuzz) explores for SECONDS from a corpus that
#                     starts with the seeds and keeps what it finds
# Prints "fuzz: 1 passed, 0 failed, 0 skipped" when libFuzzer found nothing
# (no crash, leak, sanitizer report, or disagreement between the two parses).
B=${B:-build}
mode=${1:-replay}
bin=$B/tests/reader/fuzz_report
if [ ! -x "$bin" ]; then
	echo "SKIP fuzz ($bin not built: needs clang with libFuzzer, e.g. clang-14 and libclang-rt-14-dev)"
	echo "fuzz: 0 passed, 0 failed, 1 skipped"
	exit 0
fi
if [ "$mode" = replay ]; then
	# a fresh copy: the exploration corpus grows, the seeds do not
	corpus=$B/tests/reader/fuzz-replay
	rm -rf "$corpus"
	limit="-runs=0"
	what="replay of the seeds"
else
	corpus=$B/tests/reader/fuzz-corpus
	limit="-max_total_time=$mode"
	what="$mode s"
fi
mkdir -p "$corpus" "$B/tests/reader/fuzz-crashes"
cp tests/reader/*.json tests/reader/bad/*.json tests/reader/fuzz-seeds/* "$corpus"/ 2>/dev/null
log=$B/tests/reader/fuzz.log
ASAN_OPTIONS=detect_leaks=1 UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1 \
	"$bin" $limit -seed=1 -max_len=65536 -timeout=10 -rss_limit_mb=2048 \
	-dict=tests/reader/fuzz.dict -artifact_prefix="$B/tests/reader/fuzz-crashes/" \
	-print_final_stats=1 "$corpus" >"$log" 2>&1
rc=$?
runs=$(grep -o 'stat::number_of_executed_units: *[0-9]*' "$log" | grep -o '[0-9]*$')
if [ $rc = 0 ]; then
	echo "ok   fuzz ($what, ${runs:-?} inputs, corpus $corpus)"
	echo "fuzz: 1 passed, 0 failed, 0 skipped"
else
	echo "FAIL fuzz (exit $rc; the input is in $B/tests/reader/fuzz-crashes/; log $log):"
	grep -E 'ERROR|SUMMARY|disagree|differ|==[0-9]+==' "$log" | head -20 | sed 's/^/    /'
	echo "fuzz: 0 passed, 1 failed, 0 skipped"
	exit 1
fi
