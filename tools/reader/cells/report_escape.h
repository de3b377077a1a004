/* Names from a report as a table shows them: control characters escaped
 * (a region name is whatever string the program passed), very long names
 * shortened visibly. */
#ifndef PMCSHIM_REPORT_ESCAPE_H
#define PMCSHIM_REPORT_ESCAPE_H

#include <stddef.h>

/* The longest name a table column shows, in characters, ellipsis included. */
#define NAME_COLUMN_MAX 60

/* s with C0/C1 control characters and DEL written as \n, \t, \e or \xNN,
 * shortened to at most maxw characters (0: no limit) ending in "…".
 * Returns a string that the caller frees. */
char *escape_name(const char *s, size_t maxw);

#endif
