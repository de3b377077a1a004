#!/bin/sh
# make bench-system: what pmcshim --system costs (issue 29). Two runs of
# BENCH_SECONDS (default 60) at -I 100, measured in the same session: a
# baseline on the machine as it is, and one while 500 processes appear
# and end (one every (S-6)/500 s, each living 0.5 s). Per run: the
# launcher's CPU time (getrusage through /usr/bin/time) per interval per
# process followed (the run ends by SIGINT after S s, or once the churn is
# over), its descriptors at the start and once the 500 are gone
# (a leak would keep them), its peak RSS, and the report's size (idle
# entities write nothing: it grows with activity, not with time).
B=${B:-build}
S=${BENCH_SECONDS:-60}
L=$(realpath "$B/pmcshim")
tmp=$(mktemp -d "${TMPDIR:-/tmp}/bench-system.XXXXXX") || exit 1
trap 'rm -rf "$tmp"' EXIT
[ "$(id -u)" = 0 ] || echo "(not root: per-process counters of your own processes only)"

# one NAME CHURN: a run; prints its line and leaves $tmp/NAME.us
one() {
	name=$1 churn=$2
	/usr/bin/time -f "%U %S %M" -o "$tmp/$name.time" "$L" --system -q -I 100 \
		-e cpu-clock,context-switches,page-faults -o "$tmp/$name" 2>"$tmp/$name.err" &
	tp=$!
	t0=$(date +%s)
	sleep 1
	lp=$(cat /proc/$tp/task/$tp/children 2>/dev/null | tr -d ' ')
	fd0=$(ls /proc/$lp/fd 2>/dev/null | wc -l)
	if [ "$churn" -gt 0 ]; then
		gap=$(awk -v s="$S" -v n="$churn" 'BEGIN { printf "%.3f", (s - 6) / n }')
		i=0 pids=
		while [ $i -lt "$churn" ]; do
			sleep 0.5 &
			pids="$pids $!"
			sleep "$gap"
			i=$((i + 1))
		done
	fi
	[ -n "$pids" ] && wait $pids	# the churn's processes
	sleep "$(awk -v s="$S" -v t="$(($(date +%s) - t0))" 'BEGIN { r = s - t; print (r > 2.5 ? r : 2.5) }')"
	# the last ones ended, and the run saw them end (-I 100)
	fd1=$(ls /proc/$lp/fd 2>/dev/null | wc -l)
	kill -INT "$lp"
	wait $tp
	read -r u s rss <"$tmp/$name.time"
	iv=$(sed -n 's/.*--system: \([0-9]*\) intervals, \([0-9.]*\) processes followed.*, \([0-9]*\) ended.*/\1 \2 \3/p' "$tmp/$name.err")
	set -- $iv
	size=$(stat -c %s "$tmp/$name/system.pmc")
	us=$(awk -v u="$u" -v s="$s" -v n="$1" -v p="$2" 'BEGIN { printf "%.2f", (u + s) * 1e6 / n / p }')
	echo "$us" >"$tmp/$name.us"
	printf '%-9s %5.2f s CPU, %4d intervals, %6.1f processes each, %4d ended: %6s us per interval per process; fds %d at start, %d after; peak RSS %d KiB; report %d KiB\n' \
		"$name" "$(awk -v u="$u" -v s="$s" 'BEGIN { print u + s }')" "$1" "$2" "$3" "$us" \
		"$fd0" "$fd1" "$rss" $((size / 1024))
}

echo "pmcshim --system -I 100, $S s each, software events (cpu-clock, context-switches, page-faults)"
one baseline 0
one churn500 500
awk -v a="$(cat "$tmp/baseline.us")" -v b="$(cat "$tmp/churn500.us")" \
	'BEGIN { printf "ratio churn500 / baseline (per interval per process): %.2f\n", b / a }'
