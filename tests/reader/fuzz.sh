#!/bin/sh
# The report loader's fuzz target.
#   fuzz.sh replay    (make test) runs each seed once, deterministically:
#                     files gen_report writes (every process state, a
#                     record not done, a site mid-update, values near 2^64,
#                     odd names, sampled stacks, each corruption)
#   fuzz.sh SECONDS   (make fuzz) explores from those seeds for SECONDS
# Prints "fuzz: 1 passed, 0 failed, 0 skipped" when nothing was found (no
# crash, leak or sanitizer report).
B=${B:-build}
mode=${1:-replay}
bin=$B/tests/reader/fuzz_report
gen=$B/tests/reader/gen_report
seeds=$B/tests/reader/fuzz-seeds
if [ ! -x "$bin" ]; then
	echo "SKIP fuzz ($bin not built: needs clang with libFuzzer, e.g. clang-14 and libclang-rt-14-dev)"
	echo "fuzz: 0 passed, 0 failed, 1 skipped"
	exit 0
fi
if [ ! -x "$gen" ]; then
	echo "FAIL fuzz ($gen not built)"
	echo "fuzz: 0 passed, 1 failed, 0 skipped"
	exit 1
fi
rm -rf "$seeds"
mkdir -p "$seeds" "$B/tests/reader/fuzz-crashes"
small="--rows 6 --threads 3 --regions 2 --stacks 2 --depth 1"
"$gen" $small "$seeds/exited"
for s in running exec _exit; do "$gen" $small --state "$s" "$seeds/state-$s"; done
"$gen" $small --undone 2 "$seeds/undone"
"$gen" $small --partial --dropped "$seeds/partial"
"$gen" --rows 40 "$seeds/sample"
"$gen" $small --huge "$seeds/huge"
"$gen" $small --odd-names "$seeds/odd-names"
"$gen" --rows 10 --threads 2 --stacks 7 --depth 1 --calibrated --region-coverage "$seeds/coverage"
for c in bad-magic version3 header-size tail-unaligned tail-beyond state size0 size-overflow \
	 unknown-thread unknown-name unknown-stack nvalues thread-mask name-unterminated \
	 stack-frames event-index; do
	"$gen" $small --corrupt "$c" "$seeds/corrupt-$c"
done
"$gen" $small --truncate 5000 "$seeds/truncated"
"$gen" --rows 12 --threads 2 --regions 3 --tree 2 "$seeds/tree"
"$gen" --rows 12 --threads 2 --regions 3 --tree 2 --corrupt parent-cycle "$seeds/corrupt-parent-cycle"
"$gen" $small --samples "$seeds/samples"
"$gen" $small --samples --corrupt samples-slots "$seeds/corrupt-samples-slots"
if [ "$(ls "$seeds" | wc -l)" != 31 ]; then
	echo "FAIL fuzz (gen_report did not write the 31 seeds)"
	echo "fuzz: 0 passed, 1 failed, 0 skipped"
	exit 1
fi
log=$B/tests/reader/fuzz.log
if [ "$mode" = replay ]; then
	ASAN_OPTIONS=detect_leaks=1 UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1 \
		"$bin" "$seeds"/* >"$log" 2>&1
	rc=$?
	what="replay of $(ls "$seeds" | wc -l) seeds"
else
	corpus=$B/tests/reader/fuzz-corpus
	mkdir -p "$corpus"
	cp "$seeds"/* "$corpus"/
	ASAN_OPTIONS=detect_leaks=1 UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1 \
		"$bin" -max_total_time="$mode" -max_len=65536 -timeout=10 -rss_limit_mb=2048 \
		-dict=tests/reader/fuzz.dict -artifact_prefix="$B/tests/reader/fuzz-crashes/" \
		-print_final_stats=1 "$corpus" >"$log" 2>&1
	rc=$?
	what="$mode s, $(grep -o 'stat::number_of_executed_units: *[0-9]*' "$log" | grep -o '[0-9]*$') inputs, corpus $corpus"
fi
if [ $rc = 0 ]; then
	echo "ok   fuzz ($what)"
	echo "fuzz: 1 passed, 0 failed, 0 skipped"
else
	echo "FAIL fuzz (exit $rc; the input is in $B/tests/reader/fuzz-crashes/; log $log):"
	grep -E 'ERROR|SUMMARY|Running|==[0-9]+==' "$log" | head -20 | sed 's/^/    /'
	echo "fuzz: 0 passed, 1 failed, 0 skipped"
	exit 1
fi
