#!/bin/sh
# The docs' figures against the benchmark output they come from
# (tools/build/figures.sh writes both): each "<!-- figure: TARGET -->"
# block holds docs/figures/TARGET.txt as kept, and each figure quoted in a
# sentence, a link [TEXT](.../figures/TARGET.txt "LABEL#N"), is what that
# output prints there. A failure names the page, the figure and its file.
. tests/lib.sh
suite_begin docs-figures
DIR=docs/figures

# blocks PAGE: "TARGET" for each figure block of PAGE
blocks() { sed -n 's/^<!-- figure: \([a-z0-9-]*\) -->$/\1/p' "$1"; }

# block PAGE TARGET: the block's lines, without its fences
block() { marked_block "$1" "<!-- figure: $2 -->"; }

nblocks=0 nlinks=0
for page in README.md docs/*.md; do
	for t in $(blocks "$page"); do
		nblocks=$((nblocks + 1))
		name=block_$(basename "$page" .md)_$t
		if [ ! -f "$DIR/$t.txt" ]; then
			result "$name" fail "$page quotes $DIR/$t.txt, which is missing (sh tools/build/figures.sh $t)"
		elif block "$page" "$t" | diff -u "$DIR/$t.txt" - >"$tmp/d"; then
			result "$name" ok
		else
			result "$name" fail "$page's block is not $DIR/$t.txt (sh tools/build/figures.sh --blocks):" \
				"$(head -20 "$tmp/d")"
		fi
	done
	# [TEXT](path/figures/TARGET.txt "LABEL#N"), one a line
	grep -o '\[[^]]*\]([^ )]*figures/[a-z0-9-]*\.txt "[^"]*")' "$page" >"$tmp/links"
	while IFS= read -r link; do
		nlinks=$((nlinks + 1))
		text=${link#\[}; text=${text%%\](*}
		file=${link#*](}; file=${file%% *}; file=$DIR/${file##*figures/}
		title=${link#* \"}; title=${title%\")}
		want=$(sh tools/build/figures.sh --value "$file" "$title" 2>/dev/null)
		if [ -n "$want" ] && [ "$want" = "$text" ]; then
			result "figure_$(basename "$page" .md)_$nlinks" ok
		else
			result "figure_$(basename "$page" .md)_$nlinks" fail \
				"$page quotes \"$text\" for \"$title\" of $file, which prints \"${want:-nothing}\"" \
				"(sh tools/build/figures.sh --blocks writes it)"
		fi
	done <"$tmp/links"
done
[ "$nblocks" -gt 0 ] && [ "$nlinks" -gt 0 ] ||
	result figures_found fail "found $nblocks figure blocks and $nlinks quoted figures: has the markup moved?"
suite_end
