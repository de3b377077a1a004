#!/bin/sh
# Python markers (python/pmcshim.py): tests/python/markers.py through the
# launcher, its regions' exact call counts read back with pmcshim-report's
# CSV; the same script without the shim prints the same and marks nothing.
. tests/lib.sh
suite_begin python
unset PMCSHIM_EVENTS PMCSHIM_QUIET PMCSHIM_OUTPUT LD_PRELOAD
B=${B:-build}
py=$(command -v "${PYTHON:-python3}") || {
	result python_markers "skip:no python3"
	suite_end
	exit
}
# The interpreter itself, not a wrapper script (pyenv's shim is one).
py=$("$py" -c 'import sys; print(sys.executable)')
# (no byte code written into the sources)
export PYTHONPATH=$PWD/python PYTHONDONTWRITEBYTECODE=1

"$py" tests/python/markers.py >"$tmp/alone" 2>&1
if [ "$(cat "$tmp/alone")" = "markers: fib(10)=55, a number as a name refused, under pmcshim: False" ]; then
	result without_shim_noop ok
else
	result without_shim_noop fail "$(cat "$tmp/alone")"
fi

"$B/pmcshim" -o "$tmp/run" "$py" tests/python/markers.py >"$tmp/out" 2>"$tmp/err"
rc=$?
if [ $rc = 0 ] && [ "$(cat "$tmp/out")" = "markers: fib(10)=55, a number as a name refused, under pmcshim: True" ]; then
	result under_launcher ok
else
	result under_launcher fail "exit $rc, out '$(cat "$tmp/out")'" "$(tail -5 "$tmp/err")"
fi

# col CSV NAME...: the named columns of a CSV export, by its header
col() {
	f=$1
	shift
	awk -F, -v want="$*" 'NR == 1 { n = split(want, w, " ")
		for (i = 1; i <= NF; i++) for (j = 1; j <= n; j++) if ($i == w[j]) c[j] = i
		next }
		{ line = ""; for (j = 1; j <= n; j++) line = line (j > 1 ? " " : "") $c[j]; print line }' "$f"
}

"$B/pmcshim-report" --format csv "$tmp"/run/*.pmc >"$tmp/csv" 2>"$tmp/csv.err"
for want in py_with=1000 py_deco=1000 py_fib=177 py_raise=5 py_be=7; do
	name=${want%=*} n=${want#*=}
	got=$(col "$tmp/csv" region calls | awk -v r="$name" '$1 == r { print $2 }')
	[ "$got" = "$n" ] && result "calls_$name" ok ||
		result "calls_$name" fail "calls '$got', want $n" "$(head -3 "$tmp/csv")"
done

# Balanced (every end closes its begin, an exception in a with block
# too): the report holds no marker error and dropped nothing.
balanced "$tmp"/run/*.pmc
# Each Python thread is its own thread to the shim: 250 on each of 4.
"$B/pmcshim-report" --format csv --threads "$tmp"/run/*.pmc >"$tmp/tcsv" 2>/dev/null
per=$(col "$tmp/tcsv" region tid calls | awk '$1 == "py_with" { print $2 ":" $3 }' | sort -u)
if [ "$(printf '%s\n' "$per" | grep -c ':250$')" = 4 ] && [ "$(printf '%s\n' "$per" | wc -l)" = 4 ]; then
	result per_thread ok
else
	result per_thread fail "py_with per tid:" $per
fi
suite_end
