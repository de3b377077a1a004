#!/bin/sh
# The figures the docs quote, from the benchmarks themselves.
#
#   sh tools/build/figures.sh [TARGET...]   run each `make TARGET` and keep
#       its output in docs/figures/TARGET.txt (a header line says when,
#       where and at what load), then fill the docs' blocks from them
#   sh tools/build/figures.sh --blocks      only fill the blocks
#
#   sh tools/build/figures.sh --value FILE LABEL   one quoted figure
#
# A block in README.md or docs/*.md preceded by "<!-- figure: TARGET -->"
# holds TARGET's output as kept (its header line first). A figure in a
# sentence is a link to the file, titled with the label of its line and,
# after a '#', which field after the label (default the first):
#   [+1037](docs/figures/bench-starts.txt "/bin/true, CPU us, best#3")
# The link's text is written here from the file. tests/docs/figures.sh
# checks both, so nothing quoted is written by hand.
set -u
cd "$(dirname "$0")/../.." || exit 1
. tools/build/blocks.sh
DIR=docs/figures
TARGETS="bench-markers bench-threads bench-starts bench-fdcheck bench-names bench-reader"
PAGES="README.md docs/*.md"

# header TARGET: one line saying when, on what and at what load
header() {
	cpu=$(sed -n 's/^model name[[:space:]]*: //p' /proc/cpuinfo | head -1)
	printf '# make %s: %s, commit %s, %s cores (%s), load %s before; written by tools/build/figures.sh\n' \
		"$1" "$(date -u +%Y-%m-%d)" "$(git rev-parse --short HEAD 2>/dev/null || echo none)" \
		"$(nproc)" "${cpu:-unknown CPU}" "$(cut -d' ' -f1 /proc/loadavg)"
}

# keep TARGET: run it, keep its output (a failed run keeps the old file)
keep() {
	out=$DIR/$1.txt
	echo "figures: make $1" >&2
	{ header "$1"; make -s "$1" 2>&1; } >"$out.new" && mv "$out.new" "$out" ||
		{ echo "figures: make $1 failed; $out kept as it was (see $out.new)" >&2; return 1; }
}

# fill PAGE: each figure block of PAGE made of its file
fill() {
	bad=0
	for t in $(sed -n 's/^<!-- figure: \([a-z0-9-]*\) -->$/\1/p' "$1"); do
		block_replace "$1" "<!-- figure: $t -->" "$DIR/$t.txt" || bad=1
	done
	return $bad
}

# value FILE LABEL[#N]: the Nth field after LABEL on the first line that
# begins with LABEL (after spaces)
value() {
	label=${2%#*} n=1
	[ "$label" != "$2" ] && n=${2##*#}
	awk -v l="$label" -v n="$n" '
		{ t = $0; sub(/^[ \t]+/, "", t) }
		index(t, l) == 1 { t = substr(t, length(l) + 1); split(t, f, " "); print f[n]; found = 1; exit }
		END { exit !found }' "$1"
}

# quote PAGE: each quoted figure's text made from its file
quote() {
	grep -o '\[[^]]*\]([^ )]*figures/[a-z0-9-]*\.txt "[^"]*")' "$1" | sort -u |
	while IFS= read -r link; do
		file=${link#*](}; file=${file%% *}
		title=${link#* \"}; title=${title%\")}
		v=$(value "$DIR/${file##*figures/}" "$title") ||
			{ echo "figures: $1: no line \"$title\" in $file" >&2; continue; }
		new="[$v](${link#*](}"
		[ "$new" = "$link" ] && continue
		awk -v o="$link" -v n="$new" '{ while ((i = index($0, o)) > 0)
			$0 = substr($0, 1, i - 1) n substr($0, i + length(o)); print }' "$1" >"$1.new" &&
			mv "$1.new" "$1"
	done
}

if [ "${1:-}" = --value ]; then
	value "$2" "$3"
	exit
fi
status=0
if [ "${1:-}" != --blocks ]; then
	mkdir -p "$DIR"
	for t in ${*:-$TARGETS}; do keep "$t" || status=1; done
fi
for p in $PAGES; do
	grep -q '^<!-- figure: ' "$p" && { fill "$p" || status=1; }
	quote "$p"
done
exit $status
