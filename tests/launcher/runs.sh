# Whole runs under the launcher (issue 30, items 2 and 3; sourced by
# run.sh): -r N of a program without markers carries the totals, with
# their spread; a `make -j2` of a small generated project read per
# executable (--by-command) and per process, rows told apart.

# ---- -r 3 of a program without markers --------------------------------------
launch "$tmp/rep" -q -e task-clock,page-faults -r 3 -o run sh -c 'ls / >/dev/null'
e=$tmp/rep/err
# a total's row: NAME RUNS MEAN +-PCT MIN MAX (time values carry a unit)
row_ok() {
	grep -Eq "^$1 +3/3 +[0-9.,]+( [a-zA-Z]+)? +\\+-[0-9]+\\.[0-9]{2}% +[0-9.,]+" "$e"
}
if [ $rc = 0 ] && grep -q '^## totals over the 3 runs' "$e" && row_ok task-clock &&
   row_ok page-faults && row_ok CPU && row_ok wall && grep -Eq '^processes +3/3 +2 ' "$e" &&
   ! grep -q '^(total) ' "$e"; then
	result repeat_unmarked_has_totals ok
else
	result repeat_unmarked_has_totals fail "exit $rc" "$(cat "$e")"
fi
# the spread is the runs' own: the mean lies between min and max (page faults: plain counts)
pf=$(awk '$1 == "page-faults" { gsub(",", ""); print $3, $5, $6 }' "$e")
set -- $pf
if [ $# = 3 ] && awk -v m="$1" -v lo="$2" -v hi="$3" 'BEGIN { exit !(lo <= m && m <= hi && lo > 0) }'; then
	result repeat_totals_spread ok
else
	result repeat_totals_spread fail "page-faults mean, min, max: '$pf'" "$(cat "$e")"
fi

# ---- a make -j2 of a generated project ---------------------------------------
if ! command -v make >/dev/null 2>&1 || ! command -v cc >/dev/null 2>&1; then
	result make_by_command "skip:no make or cc here"
else
	p=$tmp/proj
	mkdir -p "$p"
	for k in 1 2 3 4 5 6; do
		echo "int unit$k(int x) { return x * $k; }" >"$p/unit_number_$k.c"
	done
	printf 'all: %s\n%%.o: %%.c\n\tcc -O1 -Wall -Wextra -DA_LONG_DEFINE=1 -DANOTHER_ONE=2 -c $< -o $@\n' \
		"$(cd "$p" && ls *.c | sed 's/\.c$/.o/' | tr '\n' ' ')" >"$p/Makefile"
	launch "$p" -q -e task-clock -o run make -j2
	R=$(realpath "$B/pmcshim-report")
	"$R" --totals --by-command "$p/run" >"$p/cmds" 2>&1
	# rows: COMMAND PROCESSES THREADS CPU UNIT ...; their processes add up to the run's
	total=$(sed -n 's/^## totals: \([0-9]*\) processes.*/\1/p' "$p/cmds")
	sum=$(awk '/^## totals per command/ { on = 1; getline; next } on && $2 ~ /^[0-9]+$/ { s += $2 }
		END { print s }' "$p/cmds")
	makes=$(awk '/^## totals per command/ { on = 1 } on && $1 == "make" { print $2 }' "$p/cmds")
	many=$(awk '/^## totals per command/ { on = 1; getline; next } on && $2 ~ /^[0-9]+$/ && $2 >= 6 { n++ }
		END { print n + 0 }' "$p/cmds")
	# heaviest first: each row's CPU (in ms) no more than the one above
	order=$(awk 'function ms(v, u) { return u == "s" ? v * 1000 : u == "us" ? v / 1000 : u == "ns" ? v / 1e6 : v }
		/^## totals per command/ { on = 1; getline; next }
		on && $2 ~ /^[0-9]+$/ { c = ms($4, $5); if (seen && c > last) bad = 1; last = c; seen = 1 }
		END { print bad ? "unordered" : "ordered" }' "$p/cmds")
	if [ $rc = 0 ] && [ -n "$total" ] && [ "$sum" -ge "$total" ] && [ "$makes" = 1 ] &&
	   [ "$many" -ge 1 ] && [ "$order" = ordered ]; then
		result make_by_command ok
	else
		result make_by_command fail "exit $rc; $total processes, rows add to $sum, make $makes," \
			"$many executables with 6 processes or more, $order" "$(cat "$p/cmds")"
	fi
	# every process listed, each compile's row naming its own source file
	"$R" --totals --by-process "$p/run" >"$p/procs" 2>&1
	named=0
	for k in 1 2 3 4 5 6; do
		grep -q " unit_number_$k\\.c " "$p/procs" && named=$((named + 1))
	done
	rows=$(awk '/^## totals per process/ { on = 1; getline; next } on && /^ *[0-9]+ / { print }' "$p/procs" |
		sed 's/^ *[0-9]* *//; s/  .*//' | sort | uniq -d | wc -l)
	if [ $named = 6 ] && [ "$rows" = 0 ]; then
		result make_processes_told_apart ok
	else
		result make_processes_told_apart fail "$named of 6 sources named; $rows command cells repeated" \
			"$(sed -n '/^## totals per process/,$p' "$p/procs")"
	fi
fi
