# The function benches' timing and sums (tests/bench/functions.sh,
# lua.sh), sourced in $tmp, with R the reader: runs at a real-time
# priority where allowed (root: a shared machine's other work then
# waits, not the runs timed).
rt=; chrt -f 1 true 2>/dev/null && rt="chrt -f 1"

# cpu NAME COMMAND...: run it, its CPU seconds (user + system, children's
# too) kept as the best so far of NAME in $tmp/NAME.best, its wall
# seconds in $tmp/NAME.wall (the best, apart)
cpu() {
	n=$1
	shift
	$rt /usr/bin/time -f '%U %S %e' -o "$tmp/$n.time" "$@" >"$tmp/$n.out" 2>"$tmp/$n.err" ||
		{ echo "$n: failed: $(head -2 "$tmp/$n.err")" >&2; return 1; }
	keep_least "$n.best" "$(awk '{ print $1 + $2 }' "$tmp/$n.time")"
	keep_least "$n.wall" "$(awk '{ print $3 }' "$tmp/$n.time")"
	return 0
}

# keep_least FILE VALUE: VALUE into $tmp/FILE where it is less
keep_least() {
	b=$(cat "$tmp/$1" 2>/dev/null || echo 1e9)
	awk -v s="$2" -v b="$b" 'BEGIN { exit !(s < b) }' && echo "$2" >"$tmp/$1"
	return 0
}

# sum_of REPORT [SHARES [SUMS]]: the exclusive times' sum, less what the
# thread waited (wall less CPU: preempted, not running; not where SUMS is
# given: PMCSHIM_FUNCTIONS=sampled's times are CPU time already), a line
# into sums (or SUMS), and its calls in calls; with SHARES, each
# function's exclusive time in per mille of the sum into $tmp/SHARES
sum_of() {
	thr=$("$R" --format json "$1" | grep -o '"wall_ns": [0-9]*, "cpu_ns": [0-9]*' | head -1)
	[ -n "${3:-}" ] && thr=
	"$R" --format csv "$1" | awk -F, -v thr="$thr" -v shares="${2:+$tmp/$2}" -v sums="${3:-sums}" '
		NR == 1 { for (i = 1; i <= NF; i++) h[$i] = i; next }
		{ e += $h["wall_excl_ns"]; c += $h["calls"]; x[$h["region"]] += $h["wall_excl_ns"] }
		END { split(thr, a, /[ ,]+/); print (e - (a[2] - a[4])) / 1e9 >>sums
		      print c >"calls"
		      if (shares != "") for (f in x) printf "%s %.0f\n", f, 1000 * x[f] / e >shares }'
}
