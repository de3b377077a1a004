# The docs' generated blocks, one definition for the scripts that write
# them (tools/build/figures.sh, tests/docs/examples.sh). Sourced.

# block_replace PAGE MARKER FILE: the fenced block after the line MARKER in
# PAGE made of FILE, PAGE rewritten in place (1: FILE missing, PAGE as it was)
block_replace() {
	[ -r "$3" ] || { echo "blocks: no $3" >&2; return 1; }
	awk -v m="$2" -v f="$3" '
		$0 == m { print; on = 1; next }
		on == 1 && /^```/ { print; while ((getline l < f) > 0) print l; close(f); on = 2; next }
		on == 2 && /^```/ { print; on = 0; next }
		on == 2 { next }
		{ print }' "$1" >"$1.new" && cat "$1.new" >"$1" && rm -f "$1.new"
}
