#!/bin/sh
# make bench-ranks: an MPI job of 1024 ranks (NRANKS; make bench-ranks-10k:
# 10,000), one report file per rank as gen_report writes them (4 threads,
# 400 rows over 25 regions and 5 stacks each), merged by the reader: the
# default table (with the ranks' section), --format csv and --format
# json-table, each timed with its peak RSS (/usr/bin/time), best of 3.
B=${B:-build}
R=$B/pmcshim-report
n=${NRANKS:-1024}
dir=$B/bench-ranks
B=$B sh tests/reader/gen_ranks.sh "$dir" "$n" --rows 400 --threads 4 --regions 25 --stacks 5 ||
	exit 1
kib=$(du -sk "$dir" | cut -f1)
echo "== reader on $n rank files ($((kib / 1024)) MiB; $(nproc) cores, load $(cut -d' ' -f1 /proc/loadavg))"
for args in "" "--format csv" "--format json-table" "--ranks --top 10"; do
	best=""
	for _ in 1 2 3; do
		# shellcheck disable=SC2086
		/usr/bin/time -f "%e %M" -o "$dir/time" "$R" $args "$dir"/*.pmc >/dev/null ||
			{ echo "failed: $R $args"; exit 1; }
		set -- $(cat "$dir/time")
		if [ -z "$best" ] || [ "$(echo "$1 < $best" | bc)" = 1 ]; then
			best=$1 rss=$2
		fi
	done
	printf '%-24s %6s s  peak RSS %6d MiB\n' "${args:-table}" "$best" $((rss / 1024))
done
rm -rf "$dir"
