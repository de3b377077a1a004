#!/bin/sh
# gen_ranks.sh DIR N GEN_REPORT_OPTIONS...: an MPI job's N rank files in DIR
# (made anew), as gen_report writes them with those options, named as the
# shim names them. For the benchmarks (bench.sh, bench_ranks.sh).
B=${B:-build}
dir=$1 n=$2
shift 2
rm -rf "$dir" && mkdir -p "$dir" || exit 1
r=0
while [ $r -lt "$n" ]; do
	"$B/tests/reader/gen_report" --id $r --rank $r --size "$n" "$@" \
		"$dir/pmcshim-app-r$(printf %04d $r)-$r.pmc" || exit 1
	r=$((r + 1))
done
