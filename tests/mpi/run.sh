#!/bin/sh
# MPI through the shim's PMPI wrappers, with Open MPI and with MPICH (run
# from the repository root; make test runs it). tests/mpi/mpiapp.c is
# built here with each implementation's mpicc; an implementation that is
# not installed is skipped, saying so. Per implementation:
#   - the wrappers' argument counts against its mpi.h (the shim is built
#     without MPI's headers, so nothing else checks them);
#   - 4 ranks under LD_PRELOAD: each rank's file is named by its rank,
#     its header says rank R of 4, and every MPI call is a region with
#     its exact count for that rank; again with the ASan+UBSan shim;
#   - MPI_Finalize twice, or never: one line per rank, and the exit status
#     and output of the run without the shim;
#   - PMCSHIM_MPI=0: no MPI regions, no rank; an unknown value: one line,
#     and the default;
#   - mpirun -np 4 pmcshim: one run directory, one table with the ranks'
#     section; a second job refused the same -o DIR.
B=${B:-build}
. tests/lib.sh
suite_begin mpi
unset PMCSHIM_EVENTS PMCSHIM_QUIET PMCSHIM_OUTPUT PMCSHIM_MPI
SHIM=$(realpath "$B/libpmcshim.so")
R=$(realpath "$B/pmcshim-report")
L=$(realpath "$B/pmcshim")
SRC=$(realpath tests/mpi/mpiapp.c)
MPI_C=$(realpath preload/sources/mpi.c)
ASAN_SHIM=$(realpath "$B/asan/libpmcshim.so" 2>/dev/null)
ASAN_RT=$(${CC:-cc} -print-file-name=libasan.so)

# The calls every rank makes, then those of rank 0 and of the others.
common="MPI_Allgather=1 MPI_Allreduce=11 MPI_Alltoall=1 MPI_Barrier=5 MPI_Bcast=4
MPI_Comm_free=1 MPI_Comm_rank=1 MPI_Comm_size=1 MPI_Comm_split=1 MPI_Finalize=1 MPI_Gather=1
MPI_Ibarrier=1 MPI_Init=1 MPI_Irecv=3 MPI_Isend=3 MPI_Reduce=1 MPI_Scatter=1 MPI_Sendrecv=2
MPI_Wait=1 MPI_Waitall=3 MPI_Wtime=2"
want_rank() {
	if [ "$1" = 0 ]; then
		extra="MPI_Send=3"
	else
		extra="MPI_Probe=1 MPI_Recv=1"
	fi
	printf '%s\n' $common $extra | sort | tr '\n' ' '
}

# got FILE: the MPI regions of a report and their calls, sorted
got() {
	"$R" --format csv "$1" | awk -F, 'NR == 1 { for (i = 1; i <= NF; i++) if ($i == "calls") c = i }
		$1 ~ /^MPI_/ { print $1 "=" $c }' | sort | tr '\n' ' '
}

# run_mpi IMPL NP ENV... -- ARGS...: the implementation's mpirun with the
# environment given to the ranks only; stdout in $t/out, stderr in $t/err
run_mpi() {
	impl=$1 np=$2
	shift 2
	set -- "$@"
	envs=""
	while [ "$1" != "--" ]; do
		if [ "$impl" = openmpi ]; then
			envs="$envs -x $1"
		else
			envs="$envs -genv ${1%%=*} ${1#*=}"
		fi
		shift
	done
	shift
	if [ "$impl" = openmpi ]; then
		# shellcheck disable=SC2086
		mpirun.openmpi --allow-run-as-root --oversubscribe -np "$np" $envs "$@" \
			>"$t/out" 2>"$t/err"
	else
		# shellcheck disable=SC2086
		mpirun.mpich -np "$np" $envs "$@" >"$t/out" 2>"$t/err"
	fi
	rc=$?
}

# arity IMPL: each wrapper's argument count against PMPI_<name> in mpi.h
arity() {
	impl=$1
	printf '#include <mpi.h>\n' | "mpicc.$impl" -E -x c - 2>/dev/null | tr '\n' ' ' |
		sed 's/;/;\n/g' | awk '
		match($0, /int *PMPI_[A-Za-z_]+ *\([^)]*\)/) {
			s = substr($0, RSTART, RLENGTH); name = s; p = s
			sub(/ *\(.*/, "", name); sub(/.*PMPI_/, "MPI_", name)
			sub(/^[^(]*\(/, "", p); sub(/\)$/, "", p); gsub(/ /, "", p)
			if (!(name in seen)) print name, (p == "void" || p == "") ? 0 : gsub(/,/, ",", p) + 1
			seen[name] = 1
		}' > "$t/header"
	grep -o 'X(MPI_[A-Za-z_]*, [0-9]*)\|WRAP_WITH(MPI_[A-Za-z_]*, [0-9]*' "$MPI_C" |
		sed 's/.*(\(MPI_[A-Za-z_]*\), \([0-9]*\).*/\1 \2/' > "$t/wrapped"
	bad=$(awk 'NR == FNR { have[$1] = $2; next }
		   !($1 in have) { printf " %s:not-in-mpi.h", $1; next }
		   have[$1] != $2 { printf " %s:%s-wrapped-%s-in-mpi.h", $1, $2, have[$1] }' \
		"$t/header" "$t/wrapped")
	n=$(wc -l < "$t/wrapped")
	if [ -z "$bad" ] && [ "$n" -gt 150 ]; then
		result "${impl}_wrapper_argument_counts" ok
	else
		result "${impl}_wrapper_argument_counts" fail "$n checked; mismatches:$bad"
	fi
}

# exact IMPL APP LABEL PRELOAD [ENV...]: 4 ranks, each file's rank and
# exact calls
exact() {
	impl=$1 app=$2 label=$3 preload=$4
	shift 4
	t=$tmp/$impl-$label
	mkdir -p "$t/run"
	run_mpi "$impl" 4 LD_PRELOAD="$preload" PMCSHIM_OUTPUT="$t/run/" PMCSHIM_QUIET=1 "$@" -- "$app"
	why=""
	for r in 0 1 2 3; do
		f=$(ls "$t/run"/pmcshim-*-r$r-*.pmc 2>/dev/null)
		if [ "$(echo "$f" | grep -c .)" != 1 ]; then
			why="$why rank $r: $(echo "$f" | grep -c .) files named -r$r-;"
			continue
		fi
		"$R" --format json "$f" | grep -q "\"mpi\": {\"rank\": $r, \"size\": 4," ||
			why="$why rank $r: header has no 'rank $r of 4';"
		[ "$(got "$f")" = "$(want_rank $r)" ] ||
			why="$why rank $r: calls $(got "$f"), want $(want_rank $r);"
	done
	if [ $rc = 0 ] && [ -z "$why" ] && [ "$(ls "$t/run" | wc -l)" = 4 ]; then
		result "${impl}_${label}" ok
	else
		result "${impl}_${label}" fail "exit $rc; $why" "$(ls "$t/run")" "$(tail -5 "$t/err")"
	fi
}

# finalize IMPL APP MODE NP LINE WANT: as without the shim, and LINE WANT
# times: once per rank that did it. (MPI_Finalize never called: one rank,
# as the first rank to end so may have the others killed before they end
# by themselves; called twice: by rank 0 alone, for the same reason.)
finalize() {
	impl=$1 app=$2 mode=$3 np=$4 line=$5 want=$6
	t=$tmp/$impl-$mode
	mkdir -p "$t/run"
	run_mpi "$impl" "$np" PMCSHIM_QUIET=1 -- "$app" "$mode"
	plain_rc=$rc
	sort "$t/out" > "$t/plain"
	run_mpi "$impl" "$np" LD_PRELOAD="$SHIM" PMCSHIM_OUTPUT="$t/run/" PMCSHIM_QUIET=1 -- \
		"$app" "$mode"
	sort "$t/out" > "$t/shim"
	n=$(grep -c "^pmcshim: $line" "$t/err")
	others=$(grep '^pmcshim: ' "$t/err" | grep -vc "^pmcshim: $line")
	if [ $rc = $plain_rc ] && cmp -s "$t/plain" "$t/shim" && [ "$n" = "$want" ] &&
	   [ "$others" = 0 ]; then
		result "${impl}_finalize_${mode}_one_line_per_rank" ok
	else
		result "${impl}_finalize_${mode}_one_line_per_rank" fail \
			"exit $rc (without the shim $plain_rc), $n lines '$line' (want $want) for $np ranks, $others others" \
			"$(grep '^pmcshim: ' "$t/err")"
	fi
}

# switch IMPL APP: PMCSHIM_MPI=0 and an unknown value
switch() {
	impl=$1 app=$2
	t=$tmp/$impl-off
	mkdir -p "$t/run"
	run_mpi "$impl" 2 LD_PRELOAD="$SHIM" PMCSHIM_OUTPUT="$t/run/" PMCSHIM_QUIET=1 PMCSHIM_MPI=0 \
		-- "$app"
	regions=$(for f in "$t"/run/*.pmc; do got "$f"; done | tr -d ' ')
	ranked=$(for f in "$t"/run/*.pmc; do "$R" --format json "$f"; done | grep -c '"mpi":')
	named=$(ls "$t/run" | grep -c -- '-r[0-9]*-')
	if [ $rc = 0 ] && [ "$(ls "$t/run" | wc -l)" = 2 ] && [ -z "$regions" ] && [ "$ranked" = 0 ] &&
	   [ "$named" = 0 ]; then
		result "${impl}_PMCSHIM_MPI_0_off" ok
	else
		result "${impl}_PMCSHIM_MPI_0_off" fail "exit $rc, regions '$regions', $ranked ranks" \
			"in headers, $named files named by rank" "$(ls "$t/run")"
	fi
	t=$tmp/$impl-unknown
	mkdir -p "$t/run"
	run_mpi "$impl" 2 LD_PRELOAD="$SHIM" PMCSHIM_OUTPUT="$t/run/" PMCSHIM_QUIET=1 \
		PMCSHIM_MPI=perhaps -- "$app"
	n=$(grep -c "^pmcshim: PMCSHIM_MPI='perhaps': want 0 or 1; using 1$" "$t/err")
	f=$(ls "$t"/run/*-r0-*.pmc 2>/dev/null)
	if [ $rc = 0 ] && [ "$n" = 2 ] && [ -n "$f" ] && [ "$(got "$f")" = "$(want_rank 0 | sed 's/MPI_Send=3/MPI_Send=1/')" ]; then
		result "${impl}_PMCSHIM_MPI_unknown_one_line_default" ok
	else
		result "${impl}_PMCSHIM_MPI_unknown_one_line_default" fail "exit $rc, $n lines for 2 ranks" \
			"$(cat "$t/err")"
	fi
}

# launcher IMPL APP: mpirun -np 4 pmcshim -o run: one directory, one table
launcher() {
	impl=$1 app=$2
	t=$tmp/$impl-launcher
	mkdir -p "$t"
	(cd "$t" && run_mpi "$impl" 4 -- "$L" -o run "$app"; echo $rc > "$t/rc")
	rc=$(cat "$t/rc")
	tables=$(grep -c '^## regions, all' "$t/err")
	ranks=$(grep -c '^## spread across 4 ranks' "$t/err")
	files=$(ls "$t/run" | grep -c -- '-r[0-3]-.*\.pmc$')
	calls=$(calls MPI_Allreduce "$t/err")
	if [ "$rc" = 0 ] && [ "$tables" = 1 ] && [ "$ranks" = 1 ] && [ "$files" = 4 ] &&
	   [ "$calls" = 44 ] && [ "$(ls "$t" | grep -c '^pmcshim-')" = 0 ]; then
		result "${impl}_launcher_one_dir_one_table" ok
	else
		result "${impl}_launcher_one_dir_one_table" fail \
			"exit $rc, $tables tables, $ranks rank sections, $files rank files, MPI_Allreduce $calls (want 44)" \
			"$(ls -A "$t" "$t/run")" "$(grep '^pmcshim:' "$t/err")"
	fi
	(cd "$t" && run_mpi "$impl" 2 -- "$L" -q -o run "$app"; echo $rc > "$t/rc")
	rc=$(cat "$t/rc")
	if [ "$rc" != 0 ] && grep -q '^pmcshim: run: the directory belongs to another MPI job' "$t/err" &&
	   [ "$(ls "$t/run" | wc -l)" = 4 ]; then
		result "${impl}_launcher_refuses_another_jobs_dir" ok
	else
		result "${impl}_launcher_refuses_another_jobs_dir" fail "exit $rc" "$(cat "$t/err")"
	fi
}

for impl in openmpi mpich; do
	if ! command -v "mpicc.$impl" >/dev/null 2>&1 || ! command -v "mpirun.$impl" >/dev/null 2>&1; then
		result "$impl" "skip:mpicc.$impl or mpirun.$impl not installed (Debian: $( [ $impl = openmpi ] && echo 'libopenmpi-dev openmpi-bin' || echo 'libmpich-dev mpich'))"
		continue
	fi
	app=$tmp/mpiapp-$impl
	if ! "mpicc.$impl" -O1 -g -o "$app" "$SRC" 2>"$tmp/cc-$impl"; then
		result "${impl}_build" fail "$(cat "$tmp/cc-$impl")"
		continue
	fi
	t=$tmp/$impl-arity
	mkdir -p "$t"
	arity "$impl"
	exact "$impl" "$app" 4_ranks_exact_calls_and_rank_headers "$SHIM"
	# the ASan+UBSan shim (leaks not checked: the MPI libraries keep
	# theirs to the end)
	if [ -f "$ASAN_SHIM" ] && [ -f "$ASAN_RT" ]; then
		exact "$impl" "$app" asan_ubsan_exact_calls "$ASAN_RT:$ASAN_SHIM" \
			ASAN_OPTIONS=detect_leaks=0:exitcode=86 UBSAN_OPTIONS=halt_on_error=1:exitcode=87
	else
		result "${impl}_asan_ubsan_exact_calls" "skip:no $B/asan/libpmcshim.so or libasan.so"
	fi
	finalize "$impl" "$app" twice 2 "MPI_Finalize called again by rank 0: passed on to the MPI library$" 1
	finalize "$impl" "$app" never 1 "MPI rank 0 ended without calling MPI_Finalize$" 1
	switch "$impl" "$app"
	launcher "$impl" "$app"
done
# An MPI library in no global scope (the dependency of a module dlopen()ed
# RTLD_LOCAL): the shim's wrapper, which the module's MPI_Init binds to,
# finds PMPI_Init there instead of failing the call. No MPI needed.
l=$tmp/local
mkdir -p "$l"
if cc -shared -fPIC -o "$l/libfakempi.so" tests/mpi/local/fakempi.c &&
   cc -shared -fPIC -o "$l/plugin.so" tests/mpi/local/plugin.c -L"$l" -lfakempi \
	-Wl,-rpath,"$l" && cc -o "$l/host" tests/mpi/local/host.c -ldl; then
	out=$(cd "$l" && LD_PRELOAD="$SHIM" PMCSHIM_OUTPUT="$l/" PMCSHIM_QUIET=1 ./host 2>/dev/null)
	rc=$?
	[ $rc = 0 ] && [ "$out" = "MPI_Init rc=0" ] && result mpi_library_in_a_local_scope ok ||
		result mpi_library_in_a_local_scope fail "exit $rc, out '$out'"
else
	result mpi_library_in_a_local_scope fail "could not build the stand-in"
fi
suite_end
