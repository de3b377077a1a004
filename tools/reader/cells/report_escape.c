/* See report_escape.h. Terminal control sequences in a region name (ESC,
 * carriage return, the C1 range) would otherwise rewrite the table on the
 * user's screen; a name of a few hundred characters would push every
 * other column off it. A long name loses its middle, not its end: C++
 * names ("std::_Rb_tree<std::__cxx11::basic_string<...>, ...>::find") and
 * names built from a common prefix differ at the end. */
#include "report_escape.h"

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
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

/* s with its control characters escaped, in full. */
static char *escape_all(const char *s)
{
	/* every byte may become "\xNN" (4) */
	char *out = xmalloc(4 * strlen(s) + 1);
	const unsigned char *p = (const unsigned char *)s;
	size_t o = 0;

	while (*p) {
		int control;
		unsigned code;
		size_t n = next_char(p, &control, &code);

		if (control)
			o += (size_t)escape_one(out + o, code);
		else
			memcpy(out + o, p, n), o += n;
		p += n;
	}
	out[o] = '\0';
	return out;
}

/* Columns of UTF-8 text: its characters (escapes are ASCII by now). */
static size_t width(const char *s, size_t bytes)
{
	size_t w = 0;

	for (size_t i = 0; i < bytes; i++)
		w += ((unsigned char)s[i] & 0xc0) != 0x80;
	return w;
}

/* Bytes of the first `cols` characters of s. */
static size_t bytes_of(const char *s, size_t cols)
{
	size_t i = 0;

	for (size_t w = 0; s[i]; i++) {
		if (((unsigned char)s[i] & 0xc0) != 0x80 && w++ == cols)
			break;
	}
	return i;
}

#define ELLIPSIS "\xe2\x80\xa6"	/* U+2026, one column */

/* Whether the '<' or '>' at s[i] is part of an operator's name
 * ("operator<<", "operator->", "operator<=>"), not a template bracket. */
static bool in_operator(const char *s, size_t i)
{
	while (i > 0 && strchr("<>=-", s[i - 1]))
		i--;
	return i >= 8 && strncmp(s + i - 8, "operator", 8) == 0;
}

/* The deepest nesting of template brackets in s; -1 when they do not
 * pair up (not a C++ name: left as it is). */
static int template_depth(const char *s)
{
	int depth = 0, max = 0;

	for (size_t i = 0; s[i]; i++) {
		if ((s[i] != '<' && s[i] != '>') || in_operator(s, i))
			continue;
		depth += s[i] == '<' ? 1 : -1;
		if (depth < 0)
			return -1;
		max = depth > max ? depth : max;
	}
	return depth == 0 ? max : -1;
}

/* s with the arguments of every template bracket at depth `level` and
 * deeper written as one ellipsis: "std::map<…>::find(int)". */
static char *collapse(const char *s, int level)
{
	char *out = xmalloc(2 * strlen(s) + 1);	/* "<T>" becomes "<…>" */
	size_t o = 0;
	int depth = 0;

	for (size_t i = 0; s[i]; i++) {
		bool bracket = (s[i] == '<' || s[i] == '>') && !in_operator(s, i);
		int was = depth;

		if (bracket)
			depth += s[i] == '<' ? 1 : -1;
		if (was < level || (bracket && depth < level))
			out[o++] = s[i];
		if (bracket && depth == level && was < level && s[i + 1] != '>')
			memcpy(out + o, ELLIPSIS, 3), o += 3;
	}
	out[o] = '\0';
	return out;
}

/* s with the arguments of each parameter list written as one ellipsis,
 * "find(…) const"; a location "f (file.c:12)" (after a space) kept. */
static char *collapse_params(const char *s)
{
	char *out = xmalloc(2 * strlen(s) + 1);	/* "(x)" becomes "(…)" */
	size_t o = 0;
	int depth = 0, keep = 0;

	for (size_t i = 0; s[i]; i++) {
		if (s[i] == '(' && depth++ == 0) {
			keep = i > 0 && s[i - 1] == ' ';
			out[o++] = '(';
			if (!keep && s[i + 1] != ')')
				memcpy(out + o, ELLIPSIS, 3), o += 3;
			continue;
		}
		if (s[i] == ')' && depth > 0)
			depth--;
		if (depth == 0 || keep)
			out[o++] = s[i];
	}
	out[o] = '\0';
	return out;
}

/* e (escaped) in at most maxw columns: its head and tail around an
 * ellipsis, the tail the longer (where a name says which function, which
 * line, which of several). */
static char *cut_middle(char *e, size_t maxw)
{
	size_t len = strlen(e), w = width(e, len), head = (maxw - 1) / 3;
	size_t tail = maxw - 1 - head, hb = bytes_of(e, head), tb = len - bytes_of(e, w - tail);
	char *out;

	if (w <= maxw)
		return e;
	out = xmalloc(hb + 3 + tb + 1);
	memcpy(out, e, hb);
	memcpy(out + hb, ELLIPSIS, 3);
	memcpy(out + hb + 3, e + len - tb, tb + 1);
	free(e);
	return out;
}

/* e with ever shallower template arguments left out until it fits in maxw
 * (e itself when none make it fit). */
static char *cut_templates(char *e, size_t maxw)
{
	for (int level = template_depth(e); level > 0; level--) {
		char *c = collapse(e, level);

		if (width(c, strlen(c)) <= maxw || level == 1) {
			free(e);
			e = c;
			if (width(e, strlen(e)) <= maxw)
				break;
		} else {
			free(c);
		}
	}
	return e;
}

/* match[i]: for an opening '<' (template) or '(' at i, its closing
 * bracket's index; 0 elsewhere. False when the brackets do not pair up. */
static bool match_brackets(const char *s, size_t *match)
{
	size_t n = strlen(s), *stack = xmalloc((n + 1) * sizeof(*stack)), depth = 0;
	bool ok = true;

	for (size_t i = 0; i < n && ok; i++) {
		bool angle = (s[i] == '<' || s[i] == '>') && !in_operator(s, i);

		match[i] = 0;
		if (angle ? s[i] == '<' : s[i] == '(')
			stack[depth++] = i;
		else if (angle || s[i] == ')')
			ok = depth > 0 && s[stack[depth - 1]] == (s[i] == ')' ? '(' : '<') &&
			     (match[stack[--depth]] = i, true);
	}
	free(stack);
	return ok && depth == 0;
}

/* Whether one of the n positions lies in [from, to]. */
static bool holds(const size_t *pos, size_t n, size_t from, size_t to)
{
	for (size_t k = 0; k < n; k++)
		if (from <= pos[k] && pos[k] <= to)
			return true;
	return false;
}

char *escape_name_keeping(const char *s, size_t maxw, const size_t *at, size_t nat)
{
	char *e = escape_all(s), *out;
	size_t n = strlen(e), *match = xmalloc((n + 1) * sizeof(*match)), o = 0;
	size_t *pos = xmalloc((nat ? nat : 1) * sizeof(*pos));

	for (size_t k = 0; k < nat; k++) {	/* where at[k] of s is in e */
		char *head = strndup(s, at[k]), *he = head ? escape_all(head) : NULL;

		pos[k] = he ? strlen(he) : 0;
		free(head), free(he);
	}
	out = xmalloc(2 * n + 1);
	if (!match_brackets(e, match)) {
		free(match), free(out), free(pos);
		return cut_middle(e, maxw);
	}
	for (size_t i = 0; i < n; i++) {
		out[o++] = e[i];
		/* a group not holding a difference, but for a location
		 * "f (file.c:12)": its contents left out */
		if (match[i] > i + 1 && !holds(pos, nat, i, match[i]) && !(i > 0 && e[i - 1] == ' ')) {
			memcpy(out + o, ELLIPSIS, 3), o += 3;
			i = match[i] - 1;
		}
	}
	out[o] = '\0';
	free(match), free(e), free(pos);
	return cut_middle(out, maxw);
}

char *escape_name_cut(const char *s, size_t maxw, enum name_cut how)
{
	char *e = escape_all(s);

	if (!maxw || how == CUT_NONE || width(e, strlen(e)) <= maxw)
		return e;
	if (maxw < 2)
		maxw = 2;
	if (how == CUT_TEMPLATES)
		e = cut_templates(e, maxw);
	if (how == CUT_TEMPLATES && width(e, strlen(e)) > maxw && template_depth(e) >= 0) {
		char *c = collapse_params(e);

		free(e);
		e = c;
	}
	return cut_middle(e, maxw);
}

char *escape_name(const char *s, size_t maxw)
{
	return escape_name_cut(s, maxw, CUT_TEMPLATES);
}
