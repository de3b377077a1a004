/* See report_text.h. */
#include "report_text.h"

#include <stdbool.h>
#include <stddef.h>
#include <string.h>

/* ---- escaping ----------------------------------------------------------- */

/* Bytes of the valid UTF-8 sequence at s, 0 when there is none: names come
 * from the program and may be any bytes, and JSON readers (jansson among
 * them) refuse a document that is not UTF-8. */
static size_t utf8_len(const unsigned char *s)
{
	unsigned char c = s[0], lo = 0x80, hi = 0xbf;
	size_t n;

	if (c < 0x80)
		return 1;
	if (c >= 0xc2 && c <= 0xdf)
		n = 2;
	else if (c >= 0xe0 && c <= 0xef)
		n = 3, lo = c == 0xe0 ? 0xa0 : 0x80, hi = c == 0xed ? 0x9f : 0xbf;
	else if (c >= 0xf0 && c <= 0xf4)
		n = 4, lo = c == 0xf0 ? 0x90 : 0x80, hi = c == 0xf4 ? 0x8f : 0xbf;
	else
		return 0;
	if (s[1] < lo || s[1] > hi)
		return 0;
	for (size_t i = 2; i < n; i++)
		if (s[i] < 0x80 || s[i] > 0xbf)
			return 0;
	return n;
}

/* Printable ASCII that needs no escape: written in runs, not a byte at a
 * time (a big export is mostly names). */
static bool plain(unsigned char c)
{
	return c >= 0x20 && c < 0x80 && c != '"' && c != '\\';
}

void json_string(FILE *out, const char *str)
{
	const unsigned char *s = (const unsigned char *)str;

	putc('"', out);
	while (*s) {
		size_t n = 0;

		while (plain(s[n]))
			n++;
		if (n) {
			fwrite(s, 1, n, out);
			s += n;
			continue;
		}
		n = utf8_len(s);
		if (*s == '"' || *s == '\\')
			fprintf(out, "\\%c", *s);
		else if (*s == '\n')
			fputs("\\n", out);
		else if (*s == '\t')
			fputs("\\t", out);
		else if (*s < 0x20)
			fprintf(out, "\\u%04x", *s);
		else if (!n)
			fputs("\\ufffd", out); /* a byte that is not UTF-8 */
		else
			fwrite(s, 1, n, out);
		s += n ? n : 1;
	}
	putc('"', out);
}

/* A cell a spreadsheet would take for a formula (a region named
 * =HYPERLINK(...) runs when the CSV is opened): OWASP's list of first
 * characters. Only text comes here; numbers are printed as they are. */
static bool formula_like(const char *s)
{
	return *s && strchr("=+-@\t\r", *s);
}

void csv_field(FILE *out, const char *s)
{
	bool formula = formula_like(s);

	if (!formula && !s[strcspn(s, ",\"\r\n")]) {
		fputs(s, out);
		return;
	}
	putc('"', out);
	if (formula)
		putc('\'', out);	/* text to the spreadsheet, inside the quotes */
	for (; *s; s++) {
		if (*s == '"')
			putc('"', out);
		putc(*s, out);
	}
	putc('"', out);
}
