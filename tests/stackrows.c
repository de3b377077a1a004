/* A report's stacks as rows of text (stackrows.h). */
#include "stackrows.h"

#include <stdlib.h>
#include <string.h>

#include "runapp.h"

static const char *module_name(json_t *rep, long long id)
{
	json_t *m = json_array_get(json_object_get(rep, "modules"), (size_t)id);
	const char *p = json_string_value(json_object_get(m, "path"));
	const char *slash = p ? strrchr(p, '/') : NULL;

	return slash ? slash + 1 : p ? p : "?";
}

static void append_frames(json_t *rep, json_t *stack, char *out, size_t len)
{
	size_t i, used = strlen(out);
	json_t *f;

	json_array_foreach(json_object_get(stack, "frames"), i, f) {
		int k = snprintf(out + used, len - used, " %s+%s",
				 module_name(rep, json_integer_value(json_object_get(f, "module"))),
				 json_string_value(json_object_get(f, "offset")));
		if (k < 0 || (size_t)k >= len - used)
			return;
		used += (size_t)k;
	}
}

static int by_string(const void *a, const void *b)
{
	return strcmp(a, b);
}

/* The report's name of each method (the stack's "method") */
static const char *method_name(const char *method)
{
	if (strcmp(method, "unwind") == 0)
		return "libunwind";
	if (strcmp(method, "fp") == 0)
		return "frame-pointer";
	return "unwind-tables";	/* auto and tables, on x86-64 and arm64 */
}

void rows_collect(json_t *rep, const char *region, const char *method, struct rows *out)
{
	size_t i, k;
	json_t *t, *row;

	out->n = 0;
	out->other_method = out->through_shim = 0;
	json_array_foreach(json_object_get(rep, "threads"), i, t) {
		json_array_foreach(json_object_get(t, "regions"), k, row) {
			const char *name = json_string_value(json_object_get(row, "region"));
			if ((region && strcmp(name, region) != 0) || out->n == ROWS_MAX)
				continue;
			char *s = out->s[out->n++];
			json_t *stack = rep_stack(rep, json_integer_value(json_object_get(row, "stack")));
			const char *m = json_string_value(json_object_get(stack, "method"));

			snprintf(s, ROW_LEN, "%s %lld", name,
				 json_integer_value(json_object_get(row, "calls")));
			append_frames(rep, stack, s, ROW_LEN);
			if (strstr(s, "libpmcshim"))
				out->through_shim++;
			else
				out->other_method += !m || strcmp(m, method_name(method)) != 0;
		}
	}
	qsort(out->s, (size_t)out->n, ROW_LEN, by_string);
}

const char *rows_differ(const struct rows *a, const struct rows *b)
{
	for (int i = 0; i < a->n || i < b->n; i++)
		if (i >= a->n || i >= b->n || strcmp(a->s[i], b->s[i]) != 0)
			return i < a->n ? a->s[i] : b->s[i];
	return NULL;
}

void rows_shape(struct rows *r, const char *module, const char *as)
{
	size_t len = strlen(module);

	for (int i = 0; i < r->n; i++) {
		char out[ROW_LEN], *w = out, *end = out + ROW_LEN - 1;

		for (const char *p = r->s[i]; *p && w < end; p++) {
			/* a frame in module: "module+0x12" after a space */
			if (p > r->s[i] && p[-1] == ' ' && !strncmp(p, module, len) &&
			    p[len] == '+' && (size_t)(end - w) > strlen(as)) {
				w = stpcpy(w, as);
				p += len;
			}
			*w++ = *p;
			if (*p == '+')	/* the offset, up to the next frame */
				p += strcspn(p, " ") - 1;
		}
		*w = '\0';
		memcpy(r->s[i], out, ROW_LEN);
	}
	qsort(r->s, (size_t)r->n, ROW_LEN, by_string);
}

int row_frames(const char *row)
{
	int n = 0;

	for (const char *p = strchr(row, '+'); p; p = strchr(p + 1, '+'))
		n++;
	return n;
}

