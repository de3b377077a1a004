/* Strings in the machine formats: JSON and CSV, escaped and quoted as
 * their readers expect. */
#ifndef PMCSHIM_REPORT_TEXT_H
#define PMCSHIM_REPORT_TEXT_H

#include <stdio.h>

/* s as a JSON string, quoted and escaped. */
void json_string(FILE *out, const char *s);
/* s, a text, as a CSV field: quoted when it holds a comma, quote or line
 * break; one that starts as a formula would (=, +, -, @, tab, carriage
 * return) quoted and led by a ' so that a spreadsheet shows it as text.
 * Not for numbers: -5 would become text. */
void csv_field(FILE *out, const char *s);

#endif
