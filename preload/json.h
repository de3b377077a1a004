/* A small streaming JSON writer: it tracks commas and nesting so the
 * report code only says what goes where. key is NULL inside arrays. */
#ifndef PMCSHIM_JSON_H
#define PMCSHIM_JSON_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#define JSON_MAX_DEPTH 16

struct json {
	FILE *f;
	int depth;
	int count[JSON_MAX_DEPTH];	/* items written at each level */
	char close[JSON_MAX_DEPTH];	/* '}' or ']' for each open level */
	char compact[JSON_MAX_DEPTH];	/* level written on one line */
};

/* Nesting deeper than JSON_MAX_DEPTH - 1 is a programming error. */
void json_init(struct json *j, FILE *f);
/* Write s as a JSON string: quotes, escapes, and U+FFFD for bytes that
 * are not valid UTF-8. */
void json_write_string(FILE *f, const char *s);

void json_object(struct json *j, const char *key);
void json_array(struct json *j, const char *key);
/* An object or array kept on one line, for small leaves. */
void json_object_compact(struct json *j, const char *key);
void json_array_compact(struct json *j, const char *key);
void json_end(struct json *j);		/* closes the innermost object/array */
void json_str(struct json *j, const char *key, const char *v);
void json_u64(struct json *j, const char *key, uint64_t v);
void json_i64(struct json *j, const char *key, int64_t v);
void json_double(struct json *j, const char *key, double v); /* null if not finite */
void json_bool(struct json *j, const char *key, int v);
void json_null(struct json *j, const char *key);
void json_hex(struct json *j, const char *key, uint64_t v);	/* "0x..." */

#endif
