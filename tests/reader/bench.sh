#!/bin/sh
# make bench-reader: generates a report with 100 000 call-site rows over 16
# threads (tests/reader/gen_big.c: 2 events, 12 501 stacks 8 frames deep,
# laid out like the shim's own output) and times pmcshim-report loading,
# merging and printing it, best of 3 runs per mode.
B=${B:-build}
R=$B/pmcshim-report
big=$B/bench-reader.json
rows=${ROWS:-100000}
threads=${THREADS:-16}

"$B/gen_big" "$big" "$rows" "$threads" || exit 1
echo "== reader: $big, $(du -m "$big" | cut -f1) MB, $rows call-site rows over $threads threads ($(nproc) cores)"

now() { date +%s%N; }

# best MODE-NAME ARGS...: prints the best of 3 wall times of the reader
best() {
	name=$1
	shift
	min=
	for _ in 1 2 3; do
		t0=$(now)
		"$R" "$@" "$big" >/dev/null || { echo "$name: failed"; return 1; }
		t=$(( ($(now) - t0) / 1000000 ))
		[ -z "$min" ] || [ "$t" -lt "$min" ] && min=$t
	done
	printf '%-44s %5d ms%s\n' "$name" "$min" "$([ "$min" -lt 1000 ] && echo "" || echo "  (over 1 s)")"
}

best "table (threads merged)"
best "table --threads" --threads
best "csv --threads" --format csv --threads
best "json" --format json
best "folded --stacks (report's names)" --format folded --no-symbolize
