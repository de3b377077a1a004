# Many processes at a glance, and runs compared per executable (issue 30,
# items 2 and 3; sourced by run.sh). A generated build: 12 cc1 processes
# whose command lines differ only in the middle (the source file), past
# the column's 48 characters, each with its own CPU time; a make and an as.

# build DIR N CPU0: N cc1 files (cc1 K: CPU0 + (7 K mod 13) x 100 ms more
# than the generator's 1.5 s), a make, an as, into $IN/DIR
build() {
	mkdir -p "$IN/$1"
	k=1
	while [ $k -le "$2" ]; do
		gen "$1/cc1-$k.pmc" --id "$k" --threads 1 --rows 4 --cpu-ms $(($3 + k * 7 % 13 * 100)) \
			--command "/usr/lib/gcc/cc1 -quiet -I include -O2 -Wall -Wextra -DLONG_DEFINE=1 src/unit$k.c -dumpbase unit$k.c -o /tmp/cc$k.s"
		k=$((k + 1))
	done
	gen "$1/make.pmc" --id 40 --threads 1 --rows 4 --command "make -j2"
	gen "$1/as.pmc" --id 41 --threads 1 --rows 4 --cpu-ms 300 --command "/usr/bin/as --64 -o unit1.o /tmp/cc1.s"
}
build build1 12 0

# ---- the list of processes: heaviest first, rows told apart ------------------
golden processes-heaviest --totals build1
(cd "$IN" && "$R" --totals build1) >"$tmp/procs" 2>&1
# the rows of the per-process table: their cpu column, in order
awk '/^## totals per process/ { on = 1; getline; next } on && /^ *[0-9]+ / { print $(NF - 6) }
	on && /^$/ { exit }' "$tmp/procs" >"$tmp/cpus"
expect processes-heaviest-title "$(grep -c '^## totals per process, the 10 heaviest by CPU time, heaviest first' "$tmp/procs")" 1
expect processes-heaviest-rows "$(wc -l <"$tmp/cpus" | tr -d ' ')" 10
if sort -g -r -c "$tmp/cpus" 2>/dev/null; then ok processes-heaviest-order
else fail processes-heaviest-order "$(tr '\n' ' ' <"$tmp/cpus")"; fi
# every cc1 row shows its source file; no two rows read the same
rows=$(awk '/^## totals per process/ { on = 1; getline; next } on && / cc1 / { print $4 }
	on && /^$/ { exit }' "$tmp/procs")
expect processes-argv-differing-part "$(printf '%s\n' "$rows" | grep -c '^src/unit[0-9]*\.c$')" 9
expect processes-argv-distinct "$(printf '%s\n' "$rows" | sort -u | wc -l | tr -d ' ')" 9
# all shown: in the order they started (here: file order, as they start together)
(cd "$IN" && "$R" --totals --by-process build1) >"$tmp/procs" 2>&1
expect processes-all-title "$(grep -c '^## totals per process, in the order they started' "$tmp/procs")" 1
expect processes-all-rows "$(grep -c ' cc1 … src/unit[0-9]*\.c … unit[0-9]*\.c … /tmp/cc[0-9]*\.s ' "$tmp/procs")" 12
# a line that fits its column is shown whole
expect processes-argv-whole "$(grep -c ' as --64 -o unit1\.o /tmp/cc1\.s ' "$tmp/procs")" 1

# ---- --by-command: a row per executable ---------------------------------------
golden by-command --totals --by-command build1
(cd "$IN" && "$R" --totals --by-command build1) >"$tmp/cmds" 2>&1
expect by-command-cc1 "$(awk '$1 == "cc1" { print $2, $3 }' "$tmp/cmds")" "12 12"
expect by-command-order "$(awk '/^command / { on = 1; next } on && $2 ~ /^[0-9]+$/ { printf "%s ", $1 }' "$tmp/cmds")" \
	"cc1 as make "
# cc1's CPU is its 12 processes' added up: 12 x (1.5 s + 2 ms before setup)
# + (7+1+8+2+9+3+10+4+11+5+12+6) x 100 ms = 25.8 s
expect by-command-cpu "$(awk '$1 == "cc1" { print $4, $5 }' "$tmp/cmds")" "25.8 s"
(cd "$IN" && "$R" --totals --by-command --format csv build1) >"$tmp/cmds.csv" 2>&1
expect by-command-csv "$(awk -F, '$1 == "command" && $3 == "/usr/lib/gcc/cc1" { print $5, $9 }' "$tmp/cmds.csv")" \
	"12 25824000000"
expect by-command-csv-columns "$(awk -F, '{ print NF }' "$tmp/cmds.csv" | sort -u | tr '\n' ' ')" "22 "

# ---- diff of two builds per executable ---------------------------------------
# build2: 14 cc1, each 200 ms heavier; build0: no as, a cc1 less
build build2 14 200
build build0 11 0
rm "$IN/build0/as.pmc"
golden diff-builds diff build1 build2
golden diff-builds-csv diff --by-command --format csv build1 build2
(cd "$IN" && "$R" diff --by-command --format csv build1 build2) >"$tmp/de.csv"
# (CSV and JSON name the executable as recorded: its path)
C1=/usr/lib/gcc/cc1
expect diff-exe-processes "$(field "$tmp/de.csv" $C1 processes_before) $(field "$tmp/de.csv" $C1 processes_after)" "12 14"
# cc1 13 and 14 are new (7 x 13 mod 13 = 0, 7 x 14 mod 13 = 7); every cc1 200 ms heavier
expect diff-exe-cpu "$(field "$tmp/de.csv" $C1 cpu_ns_change)" $((14 * 200000000 + (0 + 7) * 100000000 + 2 * 1502000000))
expect diff-exe-order "$(awk -F, 'NR > 1 { printf "%s ", $1 }' "$tmp/de.csv")" "$C1 /usr/bin/as make "
(cd "$IN" && "$R" diff --by-command --format csv build0 build1) >"$tmp/de.csv"
expect diff-exe-after-only "$(field "$tmp/de.csv" /usr/bin/as status)" "after only"
if command -v jq >/dev/null 2>&1; then
	expect diff-exe-json "$(cd "$IN" && "$R" diff --format json build1 build2 |
		jq -c '[.executables[] | [.executable, .processes.before, .processes.after]]')" \
		'[["/usr/lib/gcc/cc1",12,14],["/usr/bin/as",1,1],["make",1,1]]'
else
	skip diff-exe-json "no jq"
fi

# ---- --repeat: the runs' totals, their spread computed by hand ----------------
# three runs of one thread, CPU 1.502 s + 0, 0.3, 0.6 s: mean 1.802 s,
# standard deviation 0.3 s = 16.65% of it
for k in 0 1 2; do
	mkdir -p "$IN/rep$k"
	gen "rep$k/app.pmc" --threads 1 --rows 4 --cpu-ms $((k * 300))
done
(cd "$IN" && "$R" --repeat rep0 rep1 rep2) >"$tmp/rep" 2>&1
expect repeat-totals-cpu "$(awk '$1 == "CPU" { print $2, $3, $4, $5, $6, $7, $8, $9 }' "$tmp/rep")" \
	"3/3 1.80 s +-16.65% 1.50 s 2.10 s"
expect repeat-totals-events "$(awk '$1 == "instructions" { print $2, $3, $4, $5 }' "$tmp/rep")" \
	"3/3 2.00 M +-0.00%"
