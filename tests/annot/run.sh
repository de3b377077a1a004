#!/bin/sh
# Regions from other tools' annotations, exact counts through
# pmcshim-report's CSV:
#   LIKWID's marker API: an OpenMP program built with -DLIKWID_PERFMON and
#   linked with liblikwid, 4 threads of 100 "calc" regions and 50 "init"
#   on the main thread: exactly 400 and 50 calls of source likwid, the
#   program's stdout the same as without the shim, LIKWID_MARKER_GET
#   answered for the calling thread (50 calls, a positive time);
#   PMCSHIM_LIKWID=0: the calls go to liblikwid (no likwid region);
#   PAPI's high-level API: two nested regions, 100 each, every call
#   PAPI_OK, the nesting in --tree; PMCSHIM_PAPI=0: libpapi's answers
#   (on a machine without counters, errors), no papi region.
B=${B:-build}
. tests/lib.sh
suite_begin annot
unset PMCSHIM_EVENTS PMCSHIM_QUIET PMCSHIM_OUTPUT PMCSHIM_LIKWID PMCSHIM_PAPI PMCSHIM_NVTX
A=$B/tests/annot
R=$B/pmcshim-report
SHIM=$PWD/$B/libpmcshim.so
CC=${CC:-cc}
mkdir -p "$A"

# calls NAME SOURCE: "region=calls" of that source's rows, in name order
calls() {
	"$R" --raw --format csv --source "$2" "$tmp/$1"/*.pmc 2>"$tmp/$1.rerr" |
		awk -F, 'NR == 1 { for (i = 1; i <= NF; i++) h[$i] = i; next }
			{ print $h["region"] "=" $h["calls"] }' | sort | tr '\n' ' '
}

# build NAME HEADER CFLAGS...: $A/NAME from tests/annot/NAME.c, or a skip
# line naming the missing header
build() {
	n=$1 h=$2
	shift 2
	if [ ! -f "/usr/include/$h" ]; then
		result "$n" "skip:no /usr/include/$h (Debian's $1 test package)"
		return 1
	fi
	shift
	$CC -std=c11 -Wall -Wextra -Werror -D_GNU_SOURCE -O1 -g -o "$A/$n" "tests/annot/$n.c" "$@" \
		>"$tmp/$n.cc" 2>&1 && return 0
	result "$n" fail "build failed" "$(head -5 "$tmp/$n.cc")"
	return 1
}

# --- LIKWID ---------------------------------------------------------------------
if build likwid likwid-marker.h likwid -fopenmp -DLIKWID_PERFMON -llikwid; then
	"$A/likwid" >"$tmp/likwid-plain.out" 2>/dev/null
	shim likwid "$A/likwid"
	got=$(calls likwid likwid)
	if [ $rc = 0 ] && [ "$got" = "calc=400 init=50 " ] &&
	   cmp -s "$tmp/likwid.out" "$tmp/likwid-plain.out"; then
		result likwid_exact_calls ok
	else
		result likwid_exact_calls fail "exit $rc, calls: $got (want calc=400 init=50)" \
			"stdout: $(cat "$tmp/likwid.out") / without the shim: $(cat "$tmp/likwid-plain.out")"
	fi
	if grep -qx 'likwid: init count 50, time positive' "$tmp/likwid.err"; then
		result likwid_get_region ok
	else
		result likwid_get_region fail "$(cat "$tmp/likwid.err")"
	fi
	PMCSHIM_LIKWID=0 shim likwid-off "$A/likwid"
	got=$(calls likwid-off likwid)
	if [ $rc = 0 ] && [ -z "$got" ] && grep -q 'init count 0' "$tmp/likwid-off.err"; then
		result likwid_off_passes_to_liblikwid ok
	else
		result likwid_off_passes_to_liblikwid fail "exit $rc, likwid regions: '$got'" \
			"$(cat "$tmp/likwid-off.err")"
	fi
fi

# --- PAPI high-level --------------------------------------------------------------
if build papihl papi.h libpapi-dev -lpapi; then
	shim papi "$A/papihl"
	got=$(calls papi papi)
	"$R" --tree --source papi "$tmp/papi"/*.pmc >"$tmp/papi.tree" 2>&1
	if [ $rc = 0 ] && [ "$got" = "inner=100 outer=100 " ] &&
	   grep -qx 'papi: 0 calls not PAPI_OK' "$tmp/papi.out" &&
	   grep -q '^outer ' "$tmp/papi.tree" && grep -q '^  inner ' "$tmp/papi.tree"; then
		result papi_hl_nested_exact ok
	else
		result papi_hl_nested_exact fail "exit $rc, calls: $got (want inner=100 outer=100)" \
			"$(cat "$tmp/papi.out")" "$(cat "$tmp/papi.tree")"
	fi
	PMCSHIM_PAPI=0 shim papi-off "$A/papihl"
	got=$(calls papi-off papi)
	if [ $rc = 0 ] && [ -z "$got" ] && "$A/papihl" | cmp -s - "$tmp/papi-off.out"; then
		result papi_off_passes_to_libpapi ok
	else
		result papi_off_passes_to_libpapi fail "exit $rc, papi regions: '$got'" \
			"$(cat "$tmp/papi-off.out")"
	fi
fi

# --- NVTX ---------------------------------------------------------------------------
nvtx_want="dom:m=3 dom:reg=40 dom:x=7 ex=20 inner=50 io=30 step=100 tick=5 wide\303\251=10 "
nvtx_want=$(printf "$nvtx_want")
$CC -std=c11 -Wall -Wextra -Werror -D_GNU_SOURCE -O1 -g -pthread -o "$A/nvtxclient" \
	tests/annot/nvtxclient.c -ldl >"$tmp/nvtx.cc" 2>&1 &&
$CC -std=c11 -Wall -Wextra -Werror -O1 -g -fPIC -shared -o "$A/libothertool.so" \
	tests/annot/othertool.c >>"$tmp/nvtx.cc" 2>&1 || result nvtx_build fail "$(head -5 "$tmp/nvtx.cc")"
if [ -x "$A/nvtxclient" ]; then
	# the preloaded shim found as a loaded object's entry point
	shim nvtx "$A/nvtxclient"
	got=$(calls nvtx nvtx)
	if [ $rc = 0 ] && [ "$got" = "$nvtx_want" ] &&
	   grep -qx 'nvtx: tool init 1, 0 pushes or pops at the wrong level' "$tmp/nvtx.out"; then
		result nvtx_exact_calls ok
	else
		result nvtx_exact_calls fail "exit $rc, calls: $got" "want: $nvtx_want" "$(cat "$tmp/nvtx.out")"
	fi
	# through NVTX_INJECTION64_PATH, as the launcher sets it
	"$B/pmcshim" -q -o "$tmp/nvtx-env" "$A/nvtxclient" env >"$tmp/nvtx-env.out" 2>&1
	got=$(calls nvtx-env nvtx)
	if [ "$got" = "$nvtx_want" ]; then
		result nvtx_through_injection_path ok
	else
		result nvtx_through_injection_path fail "calls: $got" "$(cat "$tmp/nvtx-env.out")"
	fi
	# PMCSHIM_NVTX=0: the shim declines, the ranges are the no-ops of no tool
	PMCSHIM_NVTX=0 shim nvtx-off "$A/nvtxclient"
	got=$(calls nvtx-off nvtx)
	if [ $rc = 0 ] && [ -z "$got" ] && grep -q 'tool init 0' "$tmp/nvtx-off.out"; then
		result nvtx_off ok
	else
		result nvtx_off fail "exit $rc, nvtx regions: '$got'" "$(cat "$tmp/nvtx-off.out")"
	fi
	# another tool named by the user gets the front end, through the shim
	NVTX_INJECTION64_PATH=$PWD/$A/libothertool.so shim nvtx-other "$A/nvtxclient"
	got=$(calls nvtx-other nvtx)
	if [ $rc = 0 ] && [ -z "$got" ] && grep -qx 'other tool: initialised (tables)' "$tmp/nvtx-other.err"; then
		result nvtx_other_tool_kept ok
	else
		result nvtx_other_tool_kept fail "exit $rc, nvtx regions: '$got'" "$(cat "$tmp/nvtx-other.err")"
	fi
fi
# the ASan+UBSan shim (NVTX ranges ended on another thread, LIKWID on 4
# threads at once; the TSan shim needs a TSan build of the program: the
# shim's own threads are under tests/run.sh's TSan suite)
asan_rt=$($CC -print-file-name=libasan.so)
for san in asan; do
	lib=$PWD/$B/$san/libpmcshim.so
	pre="$asan_rt $lib"
	if [ ! -f "$lib" ] || [ ! -f "$asan_rt" ]; then
		result "${san}_annotations" "skip:no $san shim built"
		continue
	fi
	ok=1 why=
	export ASAN_OPTIONS=detect_leaks=1:exitcode=86 UBSAN_OPTIONS=halt_on_error=1:exitcode=87
	export PMCSHIM_STACK_METHOD=fp	# (as the sources suite: LSan and libunwind's threads)
	if [ -x "$A/nvtxclient" ]; then
		PRELOAD=$pre shim "$san-nvtx" "$A/nvtxclient"
		[ $rc = 0 ] && [ "$(calls "$san-nvtx" nvtx)" = "$nvtx_want" ] && [ ! -s "$tmp/$san-nvtx.err" ] ||
			ok=0 why="nvtx: exit $rc $(head -5 "$tmp/$san-nvtx.err")"
	fi
	if [ -x "$A/likwid" ]; then
		PRELOAD=$pre shim "$san-likwid" "$A/likwid"
		[ $rc = 0 ] && [ "$(calls "$san-likwid" likwid)" = "calc=400 init=50 " ] &&
			! grep -q 'Sanitizer' "$tmp/$san-likwid.err" ||
			ok=0 why="$why likwid: exit $rc $(head -5 "$tmp/$san-likwid.err")"
	fi
	[ $ok = 1 ] && result "${san}_annotations" ok || result "${san}_annotations" fail "$why"
	unset ASAN_OPTIONS UBSAN_OPTIONS PMCSHIM_STACK_METHOD
done

# the launcher names the shim for NVTX, unless the user named a tool
"$B/pmcshim" -q -o "$tmp/env1" sh -c 'echo "$NVTX_INJECTION64_PATH"' >"$tmp/env1.out" 2>&1
NVTX_INJECTION64_PATH=/opt/tool.so "$B/pmcshim" -q -o "$tmp/env2" sh -c 'echo "$NVTX_INJECTION64_PATH"' \
	>"$tmp/env2.out" 2>&1
if grep -q 'libpmcshim.so$' "$tmp/env1.out" && grep -qx /opt/tool.so "$tmp/env2.out"; then
	result launcher_sets_nvtx_injection_path ok
else
	result launcher_sets_nvtx_injection_path fail "$(cat "$tmp/env1.out")" "$(cat "$tmp/env2.out")"
fi

suite_end
