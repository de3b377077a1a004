#!/bin/sh
# make bench-functions: the Lua-like workload (tests/bench/interp.c) with
# every function instrumented, under pmcshim, gprof (-pg) and uftrace,
# against the same program built plainly: CPU time (user + system, the
# best of ROUNDS alternating rounds: the machine is shared), the calls
# each tool counted, and for pmcshim the exclusive times' sum (less the
# time its thread waited, preempted; with PMCSHIM_FUNCTIONS=sampled, CPU
# time from samples) against the plain program's CPU time. uftrace is a bench dependency only: without
# it its rows say so.
#   B=build ROUNDS=3 sh tests/bench/functions.sh
B=${B:-build}
HERE=$PWD/tests/bench
ROUNDS=${ROUNDS:-5}
SHIM=$PWD/$B/libpmcshim.so
R=$PWD/$B/pmcshim-report
P=$PWD/$B/bench-interp
tmp=$(mktemp -d "${TMPDIR:-/tmp}/bench-functions.XXXXXX") || exit 1
trap 'rm -rf "$tmp"' EXIT INT TERM
cd "$tmp" || exit 1
have_uftrace=$(command -v uftrace)
. "$HERE/cpu.sh"

for r in $(seq "$ROUNDS"); do
	cpu plain "$P"
	cpu fi-alone "$P-fi"
	rm -rf "$tmp/pmc" "$tmp/pmcd" && mkdir "$tmp/pmc" "$tmp/pmcd"
	cpu pmcshim env PMCSHIM_QUIET=1 PMCSHIM_EVENTS=none PMCSHIM_OUTPUT="$tmp/pmc/" \
		LD_PRELOAD="$SHIM" "$P-fi"
	rm -rf "$tmp/pmcs" && mkdir "$tmp/pmcs"
	cpu pmcshim-sampled env PMCSHIM_QUIET=1 PMCSHIM_EVENTS=none PMCSHIM_FUNCTIONS=sampled \
		PMCSHIM_OUTPUT="$tmp/pmcs/" LD_PRELOAD="$SHIM" "$P-fi"
	sum_of "$tmp/pmcs"/*.pmc "" ssums
	mv calls scalls
	sum_of "$tmp/pmc"/*.pmc
	cpu pmcshim-default env PMCSHIM_QUIET=1 PMCSHIM_OUTPUT="$tmp/pmcd/" \
		LD_PRELOAD="$SHIM" "$P-fi"
	cpu gprof "$P-pg"
	[ -n "$have_uftrace" ] && rm -rf "$tmp/uft" && cpu uftrace uftrace record -d "$tmp/uft" "$P-pg"
done

plain=$(cat plain.best)
row() {	# row NAME LABEL CALLS
	[ -f "$1.best" ] || return 0
	awk -v l="$2" -v s="$(cat "$1.best")" -v p="$plain" -v c="$3" \
		'BEGIN { printf "%-44s %8.3f %7.2fx %12s\n", l, s, s / p, c }'
}
shim_calls=$(cat calls)
excl=$(sort -n sums | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)], v[1], v[NR] }')
gprof_calls=$(gprof -b -p "$P-pg" gmon.out 2>/dev/null |
	awk '$4 ~ /^[0-9]+$/ { c += $4 } END { print c + 0 }')
uft_calls=n/a
[ -n "$have_uftrace" ] && uft_calls=$(uftrace report -d "$tmp/uft" 2>/dev/null |
	awk '$NF ~ /^[a-z_]/ && $(NF - 1) ~ /^[0-9]+$/ { c += $(NF - 1) } END { print c + 0 }')

echo "== -finstrument-functions on a Lua-like program ($(head -1 plain.out))"
printf '%-44s %8s %8s %12s\n' "" "CPU s" "x plain" "calls"
row plain "plain -O2 (no instrumentation)" -
row fi-alone "-finstrument-functions, glibc's empty hooks" -
row pmcshim "pmcshim, PMCSHIM_EVENTS=none" "$shim_calls"
row pmcshim-default "pmcshim, default events" "$shim_calls"
row pmcshim-sampled "pmcshim, PMCSHIM_FUNCTIONS=sampled" "$(cat scalls)"
row gprof "gprof (-pg; gmon.out written at exit)" "$gprof_calls"
if [ -n "$have_uftrace" ]; then
	row uftrace "uftrace record (-pg build)" "$uft_calls"
else
	echo "uftrace: not installed (apt-get install uftrace): its row is skipped"
fi
echo "$excl" | awk -v p="$plain" -v a="$(cat fi-alone.best)" '{
	printf "pmcshim exclusive times add up to %.3f s (median; %.3f to %.3f; less the " \
	       "thread'"'"'s waits):\n  %.2fx the plain CPU time, %.2fx the instrumented one " \
	       "without the shim\n", $1, $2, $3, $1 / p, $1 / a }'
sort -n ssums | awk -v p="$plain" -v a="$(cat fi-alone.best)" '{ v[NR] = $1 } END { m = v[int((NR + 1) / 2)]
	printf "sampled: exclusive times (CPU, from samples) add up to %.3f s (median; %.3f to %.3f):\n" \
	       "  %.2fx the plain CPU time, %.2fx the instrumented one without the shim\n", m, v[1], v[NR], m / p, m / a }'
echo "best of $ROUNDS rounds each; CPU time: user + system${rt:+; at a real-time priority}"
echo "(gprof's flat profile counts a recursive function's outer calls only)"
