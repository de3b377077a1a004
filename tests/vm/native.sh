#!/bin/sh
# The hardware suite of tests/vm, run natively: for a machine with a real
# PMU (x86-64 with rdpmc, or arm64). Needs root to switch the user-space
# read path off and on. Not part of `make test` (CI machines have no PMU):
#   make all build/tests/vm_check && sudo sh tests/vm/native.sh
set -u
B=${B:-build}
W=$B/native
mkdir -p "$W/out"
rm -f "$W"/out/*

skip() {
	echo "SKIP native hardware suite ($1)"
	echo "native: 0 passed, 0 failed, 1 skipped"
	exit 0
}
${CC:-cc} -std=c11 -Wall -Wextra -Werror -O2 -Iinclude -pthread -o "$W/hw" tests/vm/guest/hw.c ||
	exit 1

case $(uname -m) in
aarch64) knob=/proc/sys/kernel/perf_user_access; on=1 ;;
*) knob=/sys/bus/event_source/devices/cpu/rdpmc; on=1 ;;
esac
saved=$(cat "$knob" 2>/dev/null)

run() {
	name=$1; shift
	rm -f "$W"/r-*.json
	env PMCSHIM_OUTPUT="$W/r-%p.json" LD_PRELOAD="$PWD/$B/libpmcshim.so" "$@" \
		> "$W/out/$name.out" 2>&1
	for f in "$W"/r-*.json; do
		[ -f "$f" ] && mv "$f" "$W/out/$name.$(basename "$f")"
	done
}

# A PMU at all? The shim says, in the report.
run probe PMCSHIM_STACK_DEPTH=0 "$W/hw" loop
grep -q '"source": "unavailable"' "$W"/out/probe.*.json &&
	skip "no PMU: $(grep -o '"reason": "[^"]*"' "$W"/out/probe.*.json | head -n 1)"

for ua in 1 0; do
	[ $ua = 1 ] && v=$on || v=0
	echo "$v" > "$knob" 2>/dev/null || skip "cannot write $knob (run as root)"
	run loop-ua$ua PMCSHIM_STACK_DEPTH=0 "$W/hw" loop
	run threads-ua$ua PMCSHIM_STACK_DEPTH=0 "$W/hw" threads
	run fork-ua$ua PMCSHIM_STACK_DEPTH=0 "$W/hw" fork
	run self0-ua$ua PMCSHIM_STACK_DEPTH=0 "$W/hw" self 0
	run self1m-ua$ua PMCSHIM_STACK_DEPTH=0 "$W/hw" self 1000000
	run cost0-ua$ua PMCSHIM_STACK_DEPTH=0 "$W/hw" cost
	run cost8-ua$ua PMCSHIM_STACK_DEPTH=8 "$W/hw" cost
	run cost8u-ua$ua PMCSHIM_STACK_DEPTH=8 PMCSHIM_STACK_METHOD=unwind "$W/hw" cost
	run signal-ua$ua PMCSHIM_STACK_DEPTH=8 "$W/hw" signal
	run signalu-ua$ua PMCSHIM_STACK_DEPTH=8 PMCSHIM_STACK_METHOD=unwind "$W/hw" signal
done
echo "$on" > "$knob"
# more events than most PMUs have counters
run multiplex PMCSHIM_STACK_DEPTH=0 \
	PMCSHIM_EVENTS=instructions,cycles,branches,branch-misses,instructions:uk,cycles:uk,branches:uk,branch-misses:uk \
	"$W/hw" multiplex
[ -n "$saved" ] && echo "$saved" > "$knob"
PMCSHIM_NATIVE=1 "$B/tests/vm_check" "$W/out"
