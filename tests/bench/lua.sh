#!/bin/sh
# make bench-lua: issue 27's check on a real program. Lua 5.4 from
# Debian's source (LUA_SRC=an unpacked lua-5.4 tree, else `apt-get source
# lua5.4`, which needs a deb-src line), built plain, with
# -finstrument-functions and with -pg, runs tests/bench/lua/work.lua
# (string handling: interning, concatenation, a sort with string
# compares; 27 M function calls):
#   - CPU time (user + system, best of ROUNDS alternating rounds) plain,
#     with glibc's empty hooks, under pmcshim (no events, and the
#     machine's default events), gprof and uftrace (where installed);
#   - pmcshim's exclusive times' sum (less the time its thread waited,
#     preempted) against the plain CPU time;
#   - the top 5 functions by exclusive time against perf record's (where
#     perf is installed: cpu-clock, DWARF call graphs, each sample charged
#     to the first Lua function on its stack, so that libc's time is its
#     caller's), of the plain binary and of the -finstrument-functions one
#     run without the shim (the same inlining as pmcshim sees: the plain
#     build inlines tostringbuff into luaO_tostring and calls realloc from
#     l_alloc as a tail call, charged to luaM_malloc_: against the plain
#     build those two are compared under the plain build's names);
#   - the same with PMCSHIM_FUNCTIONS=sampled (calls counted, CPU time
#     from samples).
# A bench, not a test: nothing here passes or fails. Not part of `make
# bench` (it downloads and builds Lua).
#   B=build ROUNDS=3 LUA_SRC=/path/to/lua-5.4.4 sh tests/bench/lua.sh
B=${B:-build}
HERE=$PWD/tests/bench
ROUNDS=${ROUNDS:-5}
SHIM=$PWD/$B/libpmcshim.so
R=$PWD/$B/pmcshim-report
WORK=$PWD/tests/bench/lua/work.lua
out=$PWD/$B/tmp/bench-lua
mkdir -p "$out" || exit 1

src=${LUA_SRC:-}
if [ -z "$src" ]; then
	src=$(ls -d "$out"/src/lua5.4-*/ 2>/dev/null | head -1)
	if [ -z "$src" ]; then
		mkdir -p "$out/src"
		(cd "$out/src" && apt-get source -q lua5.4 >"$out/apt-source.log" 2>&1)
		src=$(ls -d "$out"/src/lua5.4-*/ 2>/dev/null | head -1)
	fi
fi
if [ -z "$src" ] || [ ! -f "$src/src/lvm.c" ]; then
	echo "bench-lua: no Lua source: set LUA_SRC=an unpacked lua-5.4 tree, or add a"
	echo "deb-src line and run apt-get update (see $out/apt-source.log): skipped"
	exit 0
fi

# build NAME FLAGS...: the interpreter from $src with FLAGS, into $out/NAME
build() {
	n=$1
	shift
	[ "$out/$n" -nt "$src/src/lvm.c" ] && return 0
	cc -O2 -g -DLUA_COMPAT_5_3 -DLUA_USE_LINUX "$@" -o "$out/$n" \
		$(ls "$src"/src/*.c | grep -v '/luac\.c$') -lm -ldl ||
		{ echo "bench-lua: building $n failed"; exit 1; }
}
build plain
build fi -finstrument-functions
build pg -pg

tmp=$(mktemp -d "${TMPDIR:-/tmp}/bench-lua.XXXXXX") || exit 1
trap 'rm -rf "$tmp"' EXIT INT TERM
cd "$tmp" || exit 1
. "$HERE/cpu.sh"
# Not at a real-time priority: the kernel throttles such a task 50 ms in
# every second it runs (sched_rt_runtime_us), and a run of over a second
# under the hooks had that 50 ms in one call of whatever ran then
# (str_sub, luaH_getshortstr: 13-19% of a profile).
rt=

for r in $(seq "$ROUNDS"); do
	cpu plain "$out/plain" "$WORK"
	cpu fi-alone "$out/fi" "$WORK"
	rm -rf "$tmp/pmc" "$tmp/pmcd" && mkdir "$tmp/pmc" "$tmp/pmcd"
	cpu pmcshim env PMCSHIM_QUIET=1 PMCSHIM_EVENTS=none PMCSHIM_OUTPUT="$tmp/pmc/" \
		LD_PRELOAD="$SHIM" "$out/fi" "$WORK"
	sum_of "$tmp/pmc"/*.pmc "top.$r"
	rm -rf "$tmp/pmcs" && mkdir "$tmp/pmcs"
	cpu pmcshim-sampled env PMCSHIM_QUIET=1 PMCSHIM_EVENTS=none PMCSHIM_FUNCTIONS=sampled \
		PMCSHIM_OUTPUT="$tmp/pmcs/" LD_PRELOAD="$SHIM" "$out/fi" "$WORK"
	sum_of "$tmp/pmcs"/*.pmc "stop.$r" ssums
	cpu pmcshim-default env PMCSHIM_QUIET=1 PMCSHIM_OUTPUT="$tmp/pmcd/" \
		LD_PRELOAD="$SHIM" "$out/fi" "$WORK"
	cpu gprof "$out/pg" "$WORK"
	command -v uftrace >/dev/null && rm -rf "$tmp/uft" &&
		cpu uftrace uftrace record -d "$tmp/uft" "$out/pg" "$WORK"
done

plain=$(cat plain.best) plainw=$(cat plain.wall)
row() {	# row NAME LABEL
	[ -f "$1.best" ] || return 0
	awk -v l="$2" -v s="$(cat "$1.best")" -v p="$plain" -v w="$(cat "$1.wall")" -v pw="$plainw" \
		'BEGIN { printf "%-46s %8.3f %7.2fx %8.2f %7.1fx\n", l, s, s / p, w, w / pw }'
}
echo "== Lua 5.4 ($(basename "$src")), $(basename "$WORK"): $(cat calls) function calls"
printf '%-46s %8s %8s %8s %8s\n' "" "CPU s" "x plain" "wall s" "x plain"
row plain "plain -O2"
row fi-alone "-finstrument-functions, glibc's empty hooks"
row pmcshim "pmcshim, PMCSHIM_EVENTS=none"
row pmcshim-default "pmcshim, default events"
row pmcshim-sampled "pmcshim, PMCSHIM_FUNCTIONS=sampled"
row gprof "gprof (-pg)"
if [ -f uftrace.best ]; then row uftrace "uftrace record (-pg build)"
else echo "uftrace: not installed: its row is skipped"; fi
sort -n sums | awk -v p="$plain" '{ v[NR] = $1 } END {
	printf "pmcshim exclusive times add up to %.3f s (median of %d; %.3f to %.3f; less the " \
	       "thread'"'"'s waits): %.2fx the plain CPU time\n", v[int((NR + 1) / 2)], NR, v[1], v[NR], v[int((NR + 1) / 2)] / p }'
sort -n ssums | awk -v p="$plain" -v f="$(cat fi-alone.best)" '{ v[NR] = $1 } END { m = v[int((NR + 1) / 2)]
	printf "sampled: exclusive times add up to %.3f s (median of %d; %.3f to %.3f): %.2fx the " \
	       "plain CPU time, %.2fx the -finstrument-functions binary'"'"'s alone\n", m, NR, v[1], v[NR], m / p, m / f }'

# perf_top BINARY: Lua's functions by samples, each sample charged to the
# first frame in BINARY (libc's time to its Lua caller), per mille
perf_top() {
	perf record -q --call-graph=dwarf,8192 -e cpu-clock -F 5000 -o "$tmp/perf.data" \
		"$1" "$WORK" >/dev/null 2>&1 || return 1
	perf script -i "$tmp/perf.data" -F ip,sym,dso 2>/dev/null | awk -v exe="/$(basename "$1"))" '
		/^$/ { if (any) { n++; if (f != "") c[f]++ } any = 0; f = ""; next }
		{ any = 1; if (f == "" && substr($0, length($0) - length(exe) + 1) == exe) f = $2 }
		END { for (k in c) printf "%s %.0f\n", k, 1000 * c[k] / n }'
}
top5() { sort -k2,2nr "$1" | head -5 | awk '{ printf "%s %.1f%%  ", $1, $2 / 10 } END { print "" }'; }
names5() { sort -k2,2nr "$1" | head -5 | awk '{ print $1 }' | sort; }
# as_built B: names of the -finstrument-functions build as the B build
# has them (plain inlines tostringbuff into luaO_tostring, and calls
# realloc from l_alloc as a tail call, charged to luaM_malloc_)
as_built() {
	if [ "$1" = plain ]; then sed 's/^tostringbuff$/luaO_tostring/; s/^l_alloc$/luaM_malloc_/'
	else cat; fi
}
echo "top 5 by exclusive time:"
for r in $(seq "$ROUNDS"); do printf '  pmcshim, round %d:   ' "$r"; top5 "top.$r"; done
for r in $(seq "$ROUNDS"); do printf '  sampled, round %d:   ' "$r"; top5 "stop.$r"; done
if command -v perf >/dev/null; then
	for b in plain fi; do
		perf_top "$out/$b" >"perf.$b" || { echo "perf record failed: skipped"; break; }
		printf '  perf record, %-6s ' "$b:"; top5 "perf.$b"
		names5 "perf.$b" >"perf5.$b"
		for r in $(seq "$ROUNDS"); do
			printf '%d ' "$(names5 "top.$r" | as_built "$b" | grep -cxF -f "perf5.$b")"
		done | awk -v b="$b" '{ printf "  pmcshim top 5 in perf'"'"'s (%s), per round: %s\n", b, $0 }'
		for r in $(seq "$ROUNDS"); do
			printf '%d ' "$(names5 "stop.$r" | as_built "$b" | grep -cxF -f "perf5.$b")"
		done | awk -v b="$b" '{ printf "  sampled top 5 in perf'"'"'s (%s), per round: %s\n", b, $0 }'
	done
else
	echo "  perf: not installed: no comparison"
fi
echo "best of $ROUNDS rounds each; CPU time: user + system; wall: /usr/bin/time's, to 10 ms${rt:+; at a real-time priority}"
