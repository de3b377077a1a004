#!/bin/sh
# Fortran markers (include/pmcshim.f90): tests/fortran/markers.f90 alone
# (every marker a no-op, same output) and through the launcher, its
# regions' exact call counts read back with pmcshim-report's CSV.
. tests/lib.sh
suite_begin fortran
unset PMCSHIM_EVENTS PMCSHIM_QUIET PMCSHIM_OUTPUT LD_PRELOAD
B=${B:-build}
app=$B/tests/fortran/markers
if [ ! -x "$app" ]; then
	result fortran_markers "skip:no gfortran (Debian package gfortran): $app not built"
	suite_end
	exit
fi
line="markers: sum 500950, fib(10) 55, under pmcshim:"

OMP_NUM_THREADS=4 "$app" >"$tmp/alone" 2>&1
[ "$(cat "$tmp/alone")" = "$line F" ] && result without_shim_noop ok ||
	result without_shim_noop fail "$(cat "$tmp/alone")"

"$B/pmcshim" -o "$tmp/run" "$app" >"$tmp/out" 2>"$tmp/err"
rc=$?
[ $rc = 0 ] && [ "$(cat "$tmp/out")" = "$line T" ] && result under_launcher ok ||
	result under_launcher fail "exit $rc, out '$(cat "$tmp/out")'" "$(tail -5 "$tmp/err")"

# calls NAME: its calls in the run's CSV export (columns found by name)
"$B/pmcshim-report" --format csv "$tmp"/run/*.pmc >"$tmp/csv" 2>"$tmp/csv.err"
calls_of() {
	awk -F, -v r="$1" 'NR == 1 { for (i = 1; i <= NF; i++) { if ($i == "region") rc = i
		if ($i == "calls") cc = i }; next } $rc == r { print $cc }' "$tmp/csv"
}
# f_scope: 300 scoped calls (a second begin of an open scope ignored, and
# RETURN ends it); f_block: a BLOCK's scope, with f_inner inside; f_fib:
# a scope in a recursive function (177 calls for fib(10)); f_omp: 4
# OpenMP threads.
for want in f_loop=1000 f_scope=300 f_block=20 f_inner=20 f_id=50 f_fib=177 f_omp=400; do
	name=${want%=*} n=${want#*=}
	got=$(calls_of "$name")
	[ "$got" = "$n" ] && result "calls_$name" ok ||
		result "calls_$name" fail "calls '$got', want $n" "$(head -3 "$tmp/csv")"
done
# Past the module's 255-byte buffer (the shim keeps the name's first
# bytes: the row is found by its start).
long=$(awk -F, 'NR == 1 { for (i = 1; i <= NF; i++) if ($i == "calls") c = i }
	NR > 1 && index($1, "a name longer than the module") == 1 { print $c }' "$tmp/csv")
[ "$long" = 1 ] && result long_name ok ||
	result long_name fail "no row of the 313-character name" "$(cut -c1-80 "$tmp/csv")"
# Balanced (every end closes its begin): the report holds no
# marker error and dropped nothing.
balanced "$tmp"/run/*.pmc
suite_end
