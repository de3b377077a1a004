#include "json.h"

#include <inttypes.h>
#include <math.h>
#include <string.h>

void json_init(struct json *j, FILE *f)
{
	memset(j, 0, sizeof(*j));
	j->f = f;
}

/* Length of the valid UTF-8 sequence at s, or 0. */
static size_t utf8_len(const unsigned char *s)
{
	size_t n;
	uint32_t cp;

	if (s[0] < 0x80)
		return 1;
	if (s[0] >= 0xc2 && s[0] <= 0xdf)
		n = 2, cp = s[0] & 0x1f;
	else if (s[0] >= 0xe0 && s[0] <= 0xef)
		n = 3, cp = s[0] & 0x0f;
	else if (s[0] >= 0xf0 && s[0] <= 0xf4)
		n = 4, cp = s[0] & 0x07;
	else
		return 0;
	for (size_t i = 1; i < n; i++) {
		if ((s[i] & 0xc0) != 0x80)
			return 0;
		cp = (cp << 6) | (s[i] & 0x3f);
	}
	if ((n == 3 && (cp < 0x800 || (cp >= 0xd800 && cp <= 0xdfff))) ||
	    (n == 4 && (cp < 0x10000 || cp > 0x10ffff)))
		return 0;
	return n;
}

void json_write_string(FILE *f, const char *str)
{
	const unsigned char *s = (const unsigned char *)(str ? str : "");

	fputc('"', f);
	while (*s) {
		size_t n = utf8_len(s);
		if (n == 0) {
			fputs("\\ufffd", f);
			s++;
		} else if (*s == '"' || *s == '\\') {
			fputc('\\', f);
			fputc(*s++, f);
		} else if (*s == '\n') {
			fputs("\\n", f), s++;
		} else if (*s == '\t') {
			fputs("\\t", f), s++;
		} else if (*s == '\r') {
			fputs("\\r", f), s++;
		} else if (*s < 0x20 || *s == 0x7f) {
			fprintf(f, "\\u%04x", *s++);
		} else {
			fwrite(s, 1, n, f);
			s += n;
		}
	}
	fputc('"', f);
}

/* Comma, indentation and key before a value at the current level. */
static void lead(struct json *j, const char *key)
{
	int first = j->count[j->depth]++ == 0;

	if (!first)
		fputc(',', j->f);
	if (j->compact[j->depth])
		fputs(first ? "" : " ", j->f);
	else if (j->depth > 0)
		fprintf(j->f, "\n%*s", 2 * j->depth, "");
	if (key) {
		json_write_string(j->f, key);
		fputs(": ", j->f);
	}
}

static void open_level(struct json *j, const char *key, char c, int compact)
{
	lead(j, key);
	fputc(c, j->f);
	j->depth++;
	j->close[j->depth] = c == '{' ? '}' : ']';
	j->count[j->depth] = 0;
	/* inside a compact level, everything stays on the line */
	j->compact[j->depth] = compact || j->compact[j->depth - 1];
}

void json_object(struct json *j, const char *key)
{
	open_level(j, key, '{', 0);
}

void json_array(struct json *j, const char *key)
{
	open_level(j, key, '[', 0);
}

void json_object_compact(struct json *j, const char *key)
{
	open_level(j, key, '{', 1);
}

void json_array_compact(struct json *j, const char *key)
{
	open_level(j, key, '[', 1);
}

void json_end(struct json *j)
{
	if (j->depth == 0)
		return;
	if (j->count[j->depth] && !j->compact[j->depth])
		fprintf(j->f, "\n%*s", 2 * (j->depth - 1), "");
	fputc(j->close[j->depth], j->f);
	j->depth--;
}

void json_str(struct json *j, const char *key, const char *v)
{
	lead(j, key);
	json_write_string(j->f, v);
}

void json_u64(struct json *j, const char *key, uint64_t v)
{
	lead(j, key);
	fprintf(j->f, "%" PRIu64, v);
}

void json_i64(struct json *j, const char *key, int64_t v)
{
	lead(j, key);
	fprintf(j->f, "%" PRId64, v);
}

void json_double(struct json *j, const char *key, double v)
{
	lead(j, key);
	if (isfinite(v))
		fprintf(j->f, "%.6g", v);
	else
		fputs("null", j->f);
}

void json_bool(struct json *j, const char *key, int v)
{
	lead(j, key);
	fputs(v ? "true" : "false", j->f);
}

void json_null(struct json *j, const char *key)
{
	lead(j, key);
	fputs("null", j->f);
}

void json_hex(struct json *j, const char *key, uint64_t v)
{
	lead(j, key);
	fprintf(j->f, "\"0x%" PRIx64 "\"", v);
}
