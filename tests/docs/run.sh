#!/bin/sh
# The man pages against the code: every PMCSHIM_* variable the shim reads
# (a string literal of exactly that name in preload/) has an entry (.TP)
# in pmcshim(3); every one the commands read (getenv in tools/) is named
# in one of the pages; every option of each command (its getopt_long
# table and option string) has an entry in its page; every variable of
# the shim has a row in README.md's environment table. A failure names
# what is missing and where it is read.
. tests/lib.sh
suite_begin docs
M=docs/man

# tags PAGE: the page's entry tags (the line after each .TP), escapes
# undone: \- to -, font changes and quotes dropped
tags() {
	awk 'tag { print; tag = 0 } /^\.TP/ { tag = 1 }' "$1" |
		sed -e 's/\\-/-/g' -e 's/\\f[BIRP]//g' -e 's/\\(dq//g' -e 's/"//g'
}

# has_word TEXT WORD: WORD (a variable or an option) stands alone in TEXT
has_word() {
	printf '%s\n' "$1" | grep -qE -e "(^|[^-A-Za-z0-9_])$2([^-A-Za-z0-9_]|\$)"
}

# check NAME PAGE-TEXT WHAT ITEMS...: ITEMS are "word@where"; each word must
# stand alone in PAGE-TEXT
check() {
	name=$1 text=$2 what=$3
	shift 3
	missing=""
	for item in "$@"; do
		has_word "$text" "${item%%@*}" || missing="$missing
$what: ${item%%@*} (read in ${item#*@})"
	done
	if [ $# = 0 ]; then
		result "$name" fail "found nothing to check: has the code moved?"
	elif [ -z "$missing" ]; then
		result "$name" ok
	else
		result "$name" fail "$(printf '%s' "$missing" | sed 1d)"
	fi
}

# vars FILES...: "VAR@file" for each string literal that is a variable name
vars() {
	grep -o '"PMCSHIM_[A-Z0-9_][A-Z0-9_]*"' "$@" /dev/null | tr -d '"' |
		awk -F: '{ print $2 "@" $1 }' | sort -u -t@ -k1,1
}

set -- $(vars $(find preload -name '*.[ch]' | sort))
check env_in_pmcshim3 "$(tags $M/pmcshim.3)" \
	"pmcshim(3) has no entry (.TP) for" "$@"
[ $# -ge 7 ] || result env_found "fail" "only $# variables found in preload/: $*"

# README.md's environment table: a row ("| `VAR` |") for each of them
check env_in_readme "$(grep -o '^| `PMCSHIM_[A-Z0-9_]*`' README.md | tr -d '|` ')" \
	"README.md's environment table has no row for" "$@"

set -- $(grep -o 'getenv("PMCSHIM_[A-Z0-9_]*")' $(find tools -name '*.c' | sort) /dev/null |
	sed 's/^\([^:]*\):getenv("\(.*\)")$/\2@\1/' | sort -u -t@ -k1,1)
check env_of_commands_in_pages "$(cat $M/pmcshim.1 $M/pmcshim.3 $M/pmcshim-report.1 |
	sed 's/\\-/-/g')" "no man page names" "$@"

# options FILES...: "--long@file" for each entry of a getopt_long table,
# "-x@file" for each letter of a getopt_long option string
options() {
	for f in "$@"; do
		grep -oE '\{ *"[a-z0-9-]+", *(no|required|optional)_argument' "$f" |
			sed -E 's/^\{ *"([^"]*)".*/--\1/' | sed "s|\$|@$f|"
		grep -oE 'getopt_long\([^,]*, *[^,]*, *"[^"]*"' "$f" |
			sed -E 's/.*"([^"]*)"$/\1/' | tr -d '+:-' | fold -w1 | sed "s|^|-|; s|\$|@$f|"
	done | sort -u -t@ -k1,1
}

set -- $(options tools/launcher/pmcshim.c tools/launcher/launch_*.c)
check options_in_pmcshim1 "$(tags $M/pmcshim.1)" "pmcshim(1) has no entry (.TP) for" "$@"
[ $# -ge 7 ] || result launcher_options_found "fail" "only $# options found: $*"
set -- $(options tools/reader/pmcshim-report.c tools/reader/*/report_*.c)
check options_in_pmcshim_report1 "$(tags $M/pmcshim-report.1)" \
	"pmcshim-report(1) has no entry (.TP) for" "$@"
[ $# -ge 12 ] || result reader_options_found "fail" "only $# options found: $*"
# each man page holds each section once (two EXIT STATUS sections told two stories)
for page in docs/man/*.1; do
	twice=$(sed -n 's/^\.SH //p' "$page" | sort | uniq -d | tr '\n' ' ')
	if [ -n "$twice" ]; then
		result "sections_once_$(basename "$page")" fail "sections written twice: $twice"
	else
		result "sections_once_$(basename "$page")" ok
	fi
done
suite_end
