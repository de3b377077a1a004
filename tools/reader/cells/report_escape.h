/* Names from a report as a table shows them: control characters escaped
 * (a region name is whatever string the program passed), very long names
 * shortened visibly. */
#ifndef PMCSHIM_REPORT_ESCAPE_H
#define PMCSHIM_REPORT_ESCAPE_H

#include <stddef.h>

/* The longest name a table column shows, in characters, ellipsis included. */
#define NAME_COLUMN_MAX 60

/* How a name longer than its column is shortened. */
enum name_cut {
	CUT_TEMPLATES,	/* C++ template arguments left out, deepest first
			 * ("std::map<…>::find(int)"), then the parameter lists,
			 * then as CUT_MIDDLE */
	CUT_MIDDLE,	/* its middle replaced by "…": the start and the
			 * (longer) end kept */
	CUT_NONE,	/* not shortened */
};

/* s with C0/C1 control characters and DEL written as \n, \t, \e or \xNN,
 * shortened to at most maxw characters (0: no limit) with "…" where text
 * was left out. Returns a string that the caller frees. */
char *escape_name_cut(const char *s, size_t maxw, enum name_cut how);
/* s escaped, every template argument list and parameter list left out
 * but those that hold one of the nat bytes at[] of s (where s differs
 * from names that shorten the same), then cut as CUT_MIDDLE to maxw
 * columns. */
char *escape_name_keeping(const char *s, size_t maxw, const size_t *at, size_t nat);
/* escape_name_cut(s, maxw, CUT_TEMPLATES) */
char *escape_name(const char *s, size_t maxw);

#endif
