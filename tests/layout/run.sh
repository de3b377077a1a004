#!/bin/sh
# The source layout (docs/design.md, "Layout"): folders by role under
# preload/ and tools/, dependencies one way between them.
#  - no circle between folders through #include (from the sources);
#  - no circle between folders through calls (from the built objects'
#    defined and undefined symbols, where they are built);
#  - no folder with more than 15 .c files, no .c or .h file over 1,000 lines.
# Usage: tests/layout/run.sh [BUILD_DIR]   (ROOT=dir checks another tree)
B=${1:-${B:-build}}
ROOT=${ROOT:-.}
passed=0; failed=0; skipped=0
ok() { echo "ok   $1"; passed=$((passed + 1)); }
fail() { echo "FAIL $1"; shift; printf '      %s\n' "$@"; failed=$((failed + 1)); }
skip() { echo "skip $1"; skipped=$((skipped + 1)); }
tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT

cd "$ROOT" || exit 1
find preload tools -name '*.[ch]' | sort >"$tmp/files"

# Folder edges through #include "...": a name is looked up beside the file,
# then under preload/ and tools/ (the -I roots), as the compiler does.
while read -r f; do
	dir=${f%/*}
	sed -n 's/^[[:space:]]*#[[:space:]]*include[[:space:]]*"\([^"]*\)".*/\1/p' "$f" |
	while read -r inc; do
		for cand in "$dir/$inc" "preload/$inc" "tools/$inc"; do
			if [ -f "$cand" ]; then
				to=$(cd "${cand%/*}" && pwd -P)
				to=${to#"$(pwd -P)/"}
				[ "$to" != "$dir" ] && echo "$dir $to $f -> $cand"
				break
			fi
		done
	done
done <"$tmp/files" >"$tmp/includes"

# Prints the folders on circles of the edges in file $1 ("from to ..."),
# or nothing.
circle() {
	awk '{ print $1, $2 }' "$1" | sort -u | tsort 2>&1 >/dev/null |
		sed -n 's/^tsort: //p' | grep -v 'input contains a loop' | sort -u
}

# The edges of file $1 between the folders named in the rest (a circle's):
# three a pair, which say where to cut.
inside() {
	f=$1; shift
	awk -v on=" $* " 'index(on, " " $1 " ") && index(on, " " $2 " ") {
		if (++n[$1 " " $2] <= 3) print }' "$f"
}

loop=$(circle "$tmp/includes")
if [ -z "$loop" ]; then
	ok "no circle between folders through #include ($(awk '{print $1, $2}' "$tmp/includes" | sort -u | wc -l) folder edges)"
else
	fail "a circle between folders through #include: $(echo $loop)" \
		"$(inside "$tmp/includes" $loop)"
fi

# Folder edges through calls: each undefined symbol of an object, to the
# folder of the object that defines it (the shim's objects, then the
# reader's and the launcher's, each program on its own).
calls() {	# OBJDIR: the objects below it, folder = path under it
	objs=$(find "$1" -name '*.o' 2>/dev/null | sort)
	[ -n "$objs" ] || return 1
	for o in $objs; do
		d=${o#"$1"/}; d=${d%/*}
		nm --defined-only "$o" | awk -v d="$d" '$2 ~ /[TDBRC]/ { print "def", $3, d }'
		nm -u "$o" | awk -v d="$d" '{ print "use", $2, d }'
	done | awk '$1 == "def" { at[$2] = $3; next }
		    { use[NR] = $2; from[NR] = $3 }
		    END { for (i in use) if ((use[i] in at) && at[use[i]] != from[i])
				print from[i], at[use[i]], use[i] }' | sort -u
}
for prog in shim tools launcher; do
	if ! calls "$B/$prog" >"$tmp/calls-$prog"; then
		skip "no circle between $prog folders through calls: $B/$prog is not built"
		continue
	fi
	loop=$(circle "$tmp/calls-$prog")
	if [ -z "$loop" ]; then
		ok "no circle between $prog folders through calls"
	else
		fail "a circle between $prog folders through calls: $(echo $loop)" \
			"$(inside "$tmp/calls-$prog" $loop)"
	fi
done

big=$(for d in $(find preload tools -type d | sort); do
	n=$(find "$d" -maxdepth 1 -name '*.c' | wc -l)
	[ "$n" -gt 15 ] && echo "$d: $n .c files"
done)
[ -z "$big" ] && ok "no folder with more than 15 .c files" || fail "folders over 15 .c files" "$big"

long=$(xargs wc -l <"$tmp/files" | awk '$2 != "total" && $1 > 1000 { print $2 ": " $1 " lines" }')
[ -z "$long" ] && ok "no source file over 1,000 lines" || fail "files over 1,000 lines" "$long"

echo "layout: $passed passed, $failed failed, $skipped skipped"
[ "$failed" = 0 ]
