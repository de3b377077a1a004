/* See report_escape.h. Terminal control sequences in a region name (ESC,
 * carriage return, the C1 range) would otherwise rewrite the table on the
 * user's screen; a name of a few hundred characters would push every
 * other column off it. */
#include "report_escape.h"

#include <stdio.h>
#include <string.h>

#include "reader/data/report_util.h"

/* The escape for one control character: a byte below 0x20 or DEL, or
 * U+0080..U+009F (C1, written \u0080 .. \u009f). */
static int escape_one(char *out, unsigned c)
{
	switch (c) {
	case '\n': return sprintf(out, "\\n");
	case '\t': return sprintf(out, "\\t");
	case '\r': return sprintf(out, "\\r");
	case 0x1b: return sprintf(out, "\\e");
	default: return sprintf(out, c >= 0x80 ? "\\u%04x" : "\\x%02x", c);
	}
}

/* Bytes of the character at s, and whether it is a control character
 * (*code gets it). */
static size_t next_char(const unsigned char *s, int *control, unsigned *code)
{
	*code = s[0];
	*control = s[0] < 0x20 || s[0] == 0x7f;
	if (s[0] == 0xc2 && s[1] >= 0x80 && s[1] <= 0x9f) {	/* U+0080..U+009F */
		*code = s[1];
		*control = 1;
		return 2;
	}
	if (s[0] < 0x80 || (s[0] & 0xc0) == 0x80)
		return 1;
	size_t n = 1;
	while (s[n] && (s[n] & 0xc0) == 0x80)
		n++;
	return n;
}

char *escape_name(const char *s, size_t maxw)
{
	/* every byte may become "\xNN" (4), plus the ellipsis */
	char *out = xmalloc(4 * strlen(s) + 4);
	const unsigned char *p = (const unsigned char *)s;
	size_t o = 0, w = 0, cut = 0;

	while (*p) {
		int control;
		unsigned code;
		size_t n = next_char(p, &control, &code), before = o;

		if (control)
			o += (size_t)escape_one(out + o, code);
		else
			memcpy(out + o, p, n), o += n;
		w += control ? o - before : 1;
		p += n;
		if (maxw && w <= maxw - 1)	/* room left for the ellipsis */
			cut = o;
	}
	out[o] = '\0';
	if (maxw && w > maxw)
		strcpy(out + cut, "\xe2\x80\xa6");	/* U+2026, one column */
	return out;
}
