#!/bin/sh
# make bench-reader: a report file of 1 000 000 call-site rows over 16
# threads (gen_report: 400 regions, 10 000 stacks 9 frames deep, 4 events of
# which one is unavailable), the default table timed (best of 3), against a
# floor timed in the same run (tests/reader/floor.c: map the file and touch
# every byte once); peak RSS against the file size. Then what users run, end
# to end, each with its peak RSS (/usr/bin/time): on a report of 1 000 000
# distinct regions the table (--top 20) and the JSON export, and the table
# of an MPI job's 1024 rank files of 1000 regions each (NRANKS).
B=${B:-build}
R=$B/pmcshim-report
big=$B/bench-reader.pmc
rows=${ROWS:-1000000}
threads=${THREADS:-16}

"$B/tests/reader/gen_report" --rows "$rows" --threads "$threads" --regions 400 --stacks 10000 \
	--depth 8 --events 4 "$big" || exit 1
size=$(stat -c %s "$big")
echo "== reader: $big, $((size / 1048576)) MiB, $rows rows over $threads threads ($(nproc) cores, load $(cut -d' ' -f1 /proc/loadavg))"

now() { date +%s%N; }

# best CMD...: the best of 3 wall times in microseconds
best() {
	min=
	for _ in 1 2 3; do
		t0=$(now)
		"$@" >/dev/null || { echo "failed: $*" >&2; return 1; }
		t=$(( ($(now) - t0) / 1000 ))
		[ -z "$min" ] || [ "$t" -lt "$min" ] && min=$t
	done
	echo "$min"
}

cat "$big" >/dev/null # in the page cache for both
floor=$(best "$B/tests/reader/floor" "$big") || exit 1
table=$(best "$R" "$big") || exit 1
awk -v r="$rows" -v t="$table" -v f="$floor" 'BEGIN {
	printf "default table    %8.1f ms  %6.2f M rows/s  (target >= 5 M rows/s on one core)\n", t / 1000, r / t
	printf "floor (touch it) %8.1f ms  %6.2f M rows/s\n", f / 1000, r / f
	printf "table / floor    %8.2f x\n", t / f }'
if [ -x /usr/bin/time ]; then
	# CPU time too: on a shared machine wall time also counts waiting
	set -- $(/usr/bin/time -f "%M %U %S" "$R" "$big" 2>&1 >/dev/null | tail -1)
	awk -v k="$1" -v s="$size" -v u="$2" -v y="$3" -v r="$rows" 'BEGIN {
		printf "table CPU time   %8.1f ms  %6.2f M rows per CPU second\n",
			(u + y) * 1000, r / (u + y) / 1e6
		printf "peak RSS         %8.1f MiB  (file %.1f MiB; RSS - file = %.1f MiB)\n",
			k / 1024, s / 1048576, k / 1024 - s / 1048576 }'
else
	echo "peak RSS: not measured (no /usr/bin/time)"
fi
for mode in "--threads" "--format csv --threads" "--stacks --no-symbolize --top 3" "--format json"; do
	# shellcheck disable=SC2086
	t=$(best "$R" $mode "$big") || exit 1
	awk -v m="$mode" -v t="$t" 'BEGIN { printf "%-34s %8.1f ms\n", m, t / 1000 }'
done

# --- what users run --------------------------------------------------------
# once CMD...: "WALL_S PEAK_KIB" of one run (peak 0 without /usr/bin/time)
once() {
	if [ -x /usr/bin/time ]; then
		/usr/bin/time -f "%e %M" -o "$B/bench-time" "$@" >/dev/null || return 1
		cat "$B/bench-time"
	else
		t0=$(now)
		"$@" >/dev/null || return 1
		echo "$(( ($(now) - t0) / 1000000 )) 0" | awk '{ printf "%.3f 0\n", $1 / 1000 }'
	fi
}

# user LABEL TARGET_S CMD...: the best of 3 wall times, with that run's peak
# RSS, against the target
user() {
	label=$1 target=$2
	shift 2
	for _ in 1 2 3; do
		once "$@" || { echo "failed: $*" >&2; return 1; }
	done | sort -n | head -1 | awk -v l="$label" -v g="$target" -v f="$filemib" '{
		printf "%-30s %6.2f s (target <= %s s)  peak RSS %7.1f MiB", l, $1, g, $2 / 1024
		if (f > 0 && $2 > 0) printf " = %.2f x the file", $2 / 1024 / f
		printf "\n" }'
}

one=$B/bench-regions.pmc
"$B/tests/reader/gen_report" --rows 1000000 --threads 1 --regions 1000000 --stacks 10000 \
	--depth 8 --events 4 "$one" || exit 1
filemib=$(awk -v s="$(stat -c %s "$one")" 'BEGIN { printf "%.1f", s / 1048576 }')
cat "$one" >/dev/null
echo "== what users run: $one, $filemib MiB, 1000000 distinct regions (load $(cut -d' ' -f1 /proc/loadavg))"
user "table --top 20" 0.5 "$R" --top 20 "$one" || exit 1
user "--format json" 1 "$R" --format json "$one" || exit 1
rm -f "$one"

nranks=${NRANKS:-1024}
dir=$B/bench-reader-ranks
B=$B sh tests/reader/gen_ranks.sh "$dir" "$nranks" --rows 1000 --threads 1 --regions 1000 \
	--stacks 5 || exit 1
filemib=0
cat "$dir"/*.pmc >/dev/null
echo "== $nranks rank files of 1000 regions each, $(du -sm "$dir" | cut -f1) MiB (load $(cut -d' ' -f1 /proc/loadavg))"
user "table, $nranks files merged" 2 "$R" "$dir"/*.pmc || exit 1
rm -rf "$dir" "$B/bench-time"
