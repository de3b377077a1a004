/* See report_cells.h: readable numbers and aligned tables, shared by every
 * view that prints for people. */
#include "report_cells.h"

#include <inttypes.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

/* ---- numbers ------------------------------------------------------------ */

char *fmt_num(char *b, uint64_t v, enum how how)
{
	static const char *const unit[2][7] = {
		{ "", " k", " M", " G", " T", " P", " E" }, { " ns", " us", " ms", " s" } };
	size_t u = 0, nunit = how == H_TIME ? 4 : 7;
	double x = (double)v;
	char d[24];

	if (how == H_PLAIN) {
		snprintf(b, 32, "%" PRIu64, v);
		return b;
	}
	if (how == H_EXACT) {
		int n = snprintf(d, sizeof(d), "%" PRIu64, v), o = 0;

		for (int i = 0; i < n; i++) {
			if (i && (n - i) % 3 == 0)
				b[o++] = ',';
			b[o++] = d[i];
		}
		b[o] = '\0';
		return b;
	}
	/* 999.5 would print as "1000": move to the next unit before that. */
	for (; u + 1 < nunit && x >= 999.5; u++)
		x /= 1000;
	snprintf(b, 32, u == 0 || x >= 99.95 ? "%.0f%s" : x >= 9.995 ? "%.1f%s" : "%.2f%s",
		 x, unit[how][u]);
	return b;
}

enum how how_of(const struct model *m, int e)
{
	return e < 0 || event_is_time(m->ev[e]) ? H_TIME : H_COUNT;
}

/* ---- tables ------------------------------------------------------------- */

void tbl_init(struct table *t, size_t ncol)
{
	memset(t, 0, sizeof(*t));
	t->ncol = ncol;
	t->left = xcalloc(ncol, 1);
}

void tbl_left(struct table *t, size_t col)
{
	t->left[col] = 1;
}

void tbl_span(struct table *t, size_t col, size_t ncol, const char *text)
{
	t->span = grow(t->span, &t->spancap, t->nspan + 1, sizeof(*t->span));
	t->span[t->nspan++] = (struct span){ col, ncol, strdup(text) };
	if (!t->span[t->nspan - 1].text)
		oom();
}

void tbl_put(struct table *t, const char *fmt, ...)
{
	va_list ap;
	char *s;

	va_start(ap, fmt);
	if (vasprintf(&s, fmt, ap) < 0)
		oom();
	va_end(ap);
	t->cell = grow(t->cell, &t->cap, t->n + 1, sizeof(*t->cell));
	t->cell[t->n++] = s;
}

/* Display width: count UTF-8 lead bytes so names in any script align. */
static size_t width(const char *s)
{
	size_t w = 0;

	for (; *s; s++)
		w += ((unsigned char)*s & 0xc0) != 0x80;
	return w;
}

/* Lines end without trailing blanks: the last cell may be padded. */
static void put_line(FILE *out, char *line, size_t len)
{
	while (len && line[len - 1] == ' ')
		len--;
	fprintf(out, "%.*s\n", (int)len, line);
}

/* The heading row of spans, centred over their columns (which grow when a
 * span is wider than they are). */
static void print_spans(struct table *t, size_t *w, FILE *out)
{
	char *line;
	size_t len = 0, total = 0;

	for (size_t i = 0; i < t->nspan; i++) {
		struct span *s = &t->span[i];
		size_t have = 2 * (s->ncol - 1), need = width(s->text);

		total += strlen(s->text);
		for (size_t c = s->col; c < s->col + s->ncol; c++)
			have += w[c];
		/* wider than its columns: they share the extra room */
		for (size_t c = 0; need > have && c < s->ncol; c++) {
			size_t add = (need - have + s->ncol - 1 - c) / (s->ncol - c);

			w[s->col + c] += add, have += add;
		}
	}
	for (size_t c = 0; c < t->ncol; c++)
		total += w[c] + 2;
	line = xmalloc(total + 1);
	for (size_t c = 0; c < t->ncol;) {
		struct span *s = NULL;
		size_t span_w, pad;

		for (size_t i = 0; i < t->nspan; i++)
			if (t->span[i].col == c)
				s = &t->span[i];
		span_w = (c ? 2 : 0) + w[c];
		for (size_t k = 1; s && k < s->ncol; k++)
			span_w += 2 + w[c + k];
		pad = s ? span_w - width(s->text) : span_w;
		len += (size_t)sprintf(line + len, "%*s%s%*s", (int)(pad - pad / 2), "",
				       s ? s->text : "", (int)(pad / 2), "");
		c += s ? s->ncol : 1;
	}
	put_line(out, line, len);
	free(line);
}

void tbl_print(struct table *t, FILE *out)
{
	size_t *w = xcalloc(t->ncol, sizeof(*w)), total = 0, len = 0;
	char *line;

	for (size_t i = 0; i < t->n; i++)
		if (width(t->cell[i]) > w[i % t->ncol])
			w[i % t->ncol] = width(t->cell[i]);
	if (t->nspan)
		print_spans(t, w, out);
	for (size_t c = 0; c < t->ncol; c++)
		total += w[c] + 2;
	for (size_t i = 0; i < t->n; i++)
		total += strlen(t->cell[i]) > width(t->cell[i]) ?
			 strlen(t->cell[i]) - width(t->cell[i]) : 0;
	line = xmalloc(total + 1);
	for (size_t i = 0; i < t->n; i++) {
		size_t c = i % t->ncol, pad = w[c] - width(t->cell[i]);

		len += (size_t)sprintf(line + len, "%s%*s%s%*s", c ? "  " : "",
				       (int)(t->left[c] ? 0 : pad), "", t->cell[i],
				       (int)(t->left[c] ? pad : 0), "");
		if (c + 1 == t->ncol) {
			put_line(out, line, len);
			len = 0;
		}
		free(t->cell[i]);
	}
	for (size_t i = 0; i < t->nspan; i++)
		free(t->span[i].text);
	free(line), free(w), free(t->cell), free(t->left), free(t->span);
	memset(t, 0, sizeof(*t));
}

/* ---- cells -------------------------------------------------------------- */

const char *est_cell(char *b, const struct sum *s, uint64_t v, enum how how)
{
	if (!s->have)
		return s->never ? "n/a*" : "n/a";
	return strcat(fmt_num(b, v, how), s->mux ? "*" : "");
}
