#!/bin/sh
# make bench-sample: the CPU time (user + system) of a CPU-bound program
# under the shim without sampling and with PMCSHIM_SAMPLE=1000 (what
# pmcshim --sample sets), alternating, best of 3 each, and their ratio.
# The program: xz -6 on MB megabytes (default 16) of generated text where
# xz is installed, else tests/sample/sampled's loops.
B=${B:-build}
MB=${MB:-16}
ROUNDS=${ROUNDS:-3}
SHIM=$PWD/$B/libpmcshim.so
[ -x /usr/bin/time ] || { echo "bench-sample: no /usr/bin/time (GNU time): skipped"; exit 0; }
out=$B/tmp/bench-sample
rm -rf "$out" && mkdir -p "$out/reports"
if command -v xz >/dev/null 2>&1; then
	# text with some repetition: what xz does most of its work on
	awk -v mb="$MB" 'BEGIN { srand(1); n = 0
		while (n < mb * 1048576) { l = sprintf("%d %s %x\n", int(rand() * 100000),
			substr("alpha beta gamma delta epsilon zeta eta theta", int(rand() * 30) + 1, 12),
			int(rand() * 65536)); printf "%s", l; n += length(l) } }' >"$out/data"
	what="xz -6 on $MB MB of generated text"
	set -- xz -6 -c -T1 "$out/data"
else
	what="tests/sample/sampled ratio (no xz here)"
	set -- "$B/tests/sample/sampled" ratio
fi

# cpu SAMPLE COMMAND...: one run's CPU seconds under the shim (SAMPLE
# empty: not sampled)
cpu() {
	hz=$1
	shift
	env PMCSHIM_QUIET=1 PMCSHIM_EVENTS=task-clock PMCSHIM_OUTPUT="$out/reports/" \
		${hz:+PMCSHIM_SAMPLE=$hz} LD_PRELOAD="$SHIM" \
		/usr/bin/time -f '%U %S' -o "$out/time" "$@" >/dev/null 2>&1
	awk '{ print $1 + $2 }' "$out/time"
}

best() { # the smaller of $1 and $2 (empty: the other)
	awk -v a="$1" -v b="$2" 'BEGIN { print (a == "" || b < a) ? b : a }'
}

echo "== bench-sample: $what, CPU time under the shim, best of $ROUNDS alternating rounds"
off= on=
for r in $(seq "$ROUNDS"); do
	a=$(cpu "" "$@")
	b=$(cpu 1000 "$@")
	echo "round $r: without sampling ${a} s, sampled 1000/s ${b} s"
	off=$(best "$off" "$a")
	on=$(best "$on" "$b")
done
samples=$("$B/pmcshim-report" --functions --format csv "$out/reports"/*.pmc 2>/dev/null |
	awk -F, 'NR > 1 { s += $3 } END { print s + 0 }')
awk -v a="$off" -v b="$on" 'BEGIN { printf "best: without %.3f s, sampled %.3f s, ratio %.4f (%+.2f%%)\n",
	a, b, b / a, (b / a - 1) * 100 }'
echo "(samples in the $ROUNDS sampled runs: $samples)"
rm -rf "$out"
# One sample's cost in instructions is measured exactly in the arm64 guest
# (make test-vm: check.c's test_sample_cost writes it).
if [ -f "$B/vm/out/sample-cost" ]; then
	echo "one sample: $(cat "$B/vm/out/sample-cost") instructions in user space (arm64 guest, exact; from the last make test-vm)"
else
	echo "one sample's cost in instructions: run make test-vm (the arm64 guest counts it exactly)"
fi
