#include "report_json.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "report_util.h"

/* ---- arenas ------------------------------------------------------------- */

struct block {
	struct block *next;
	size_t size, used;
	_Alignas(16) unsigned char data[];
};

struct jarena {
	struct block *first, *cur;
	size_t next_size;
};

/* Small first, so a small report (or a fuzz input) stays cheap; doubling,
 * so a big one needs few blocks. */
enum { FIRST_BLOCK = 64 << 10, MAX_BLOCK = 8 << 20 };

static _Thread_local struct jarena *cur_arena;
static json_malloc_t saved_malloc;
static json_free_t saved_free;

/* A block after b (the arena's last), big enough for n. */
static struct block *new_block(struct jarena *a, struct block *b, size_t n)
{
	size_t size = n > a->next_size ? n : a->next_size;
	struct block *nb = xmalloc(sizeof(*nb) + size);

	nb->next = NULL, nb->used = 0, nb->size = size;
	if (a->next_size < MAX_BLOCK)
		a->next_size *= 2;
	if (b)
		b->next = nb;
	else
		a->first = nb;
	return nb;
}

static void *arena_alloc(size_t n)
{
	struct jarena *a = cur_arena;

	if (!a) { /* a thread forgot jarena_use: a bug, not bad input */
		fputs(PROG ": internal error: jansson used outside an arena\n", stderr);
		abort();
	}
	n = (n + 15) & ~(size_t)15;
	for (;;) {
		struct block *b = a->cur;

		if (b && b->size - b->used >= n) {
			void *p = b->data + b->used;

			b->used += n;
			return p;
		}
		/* after a reset the blocks are reused in order, then more added */
		a->cur = b && b->next ? b->next : new_block(a, b, n);
	}
}

/* jansson frees what it replaces (a grown array, a parse error's partial
 * tree): that memory simply waits for the arena's reset. */
static void arena_free(void *p)
{
	(void)p;
}

void jarena_install(void)
{
	json_get_alloc_funcs(&saved_malloc, &saved_free);
	json_set_alloc_funcs(arena_alloc, arena_free);
	/* The hash seed is jansson's one piece of global state: set it before
	 * any worker thread builds an object. */
	json_object_seed(0);
}

void jarena_uninstall(void)
{
	json_set_alloc_funcs(saved_malloc, saved_free);
	cur_arena = NULL;
}

struct jarena *jarena_new(void)
{
	struct jarena *a = xcalloc(1, sizeof(*a));

	a->next_size = FIRST_BLOCK;
	return a;
}

void jarena_use(struct jarena *a)
{
	cur_arena = a;
}

void jarena_reset(struct jarena *a)
{
	for (struct block *b = a->first; b; b = b->next)
		b->used = 0;
	a->cur = a->first;
}

void jarena_free(struct jarena *a)
{
	if (!a)
		return;
	while (a->first) {
		struct block *b = a->first;

		a->first = b->next;
		free(b);
	}
	if (cur_arena == a)
		cur_arena = NULL;
	free(a);
}

/* ---- document split ----------------------------------------------------- */

/* Deeper than this, leave it to jansson whole: its own limit (2048) counts
 * from the top of the document, a piece's from the piece. */
enum { MAX_DEPTH = 1000 };

static const char *skip_ws(const char *p, const char *e)
{
	while (p < e && (*p == ' ' || *p == '\t' || *p == '\n' || *p == '\r'))
		p++;
	return p;
}

/* Bytes the scanner stops at: 1 inside a string, 2 between values. A table
 * lets the loops skip ordinary bytes fast: this pass sees every byte of the
 * document, on one thread, before the parallel parse can start. */
static const unsigned char stop[256] = {
	['"'] = 3, ['\\'] = 1, ['{'] = 2, ['}'] = 2, ['['] = 2, [']'] = 2 };

/* p at '"': just past the closing quote, or NULL. */
static const char *skip_string(const char *p, const char *e)
{
	for (p++; p < e; p++) {
		while (p < e && !(stop[(unsigned char)*p] & 1))
			p++;
		if (p >= e)
			break;
		if (*p == '\\')
			p++;
		else
			return p + 1;
	}
	return NULL;
}

static bool is_delim(char c)
{
	return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == ',' || c == ']' ||
	       c == '}' || c == ':';
}

/* Just past the value that starts at p, or NULL. Only the value's extent is
 * found here: whether it is valid JSON is jansson's call. */
static const char *skip_value(const char *p, const char *e)
{
	int depth = 0;

	if (p >= e)
		return NULL;
	if (*p == '"')
		return skip_string(p, e);
	if (*p != '{' && *p != '[') {
		const char *q = p;

		while (q < e && !is_delim(*q))
			q++;
		return q > p ? q : NULL;
	}
	for (; p < e; p++) {
		while (p < e && !(stop[(unsigned char)*p] & 2))
			p++;
		if (p >= e)
			break;
		if (*p == '"') {
			if (!(p = skip_string(p, e)))
				return NULL;
			p--;
		} else if (*p == '{' || *p == '[') {
			if (++depth > MAX_DEPTH)
				return NULL;
		} else if (--depth == 0) {
			return p + 1;
		}
	}
	return NULL;
}

/* [p, e) is an array value: its elements become pieces. */
static bool split_array(const char *p, const char *e, struct jmember *m)
{
	size_t cap = 0;

	p = skip_ws(p + 1, e);
	if (p < e && *p == ']')
		return p + 1 == e;
	for (;;) {
		const char *q = skip_value(p, e);

		if (!q)
			return false;
		m->el = grow(m->el, &cap, m->nel + 1, sizeof(*m->el));
		m->el[m->nel++] = (struct jpiece){ p, (size_t)(q - p) };
		p = skip_ws(q, e);
		if (p < e && *p == ',') {
			p = skip_ws(p + 1, e);
			continue;
		}
		return p < e && *p == ']' && p + 1 == e;
	}
}

/* The key at [p, q), decoded by jansson (escapes, UTF-8 checks). */
static char *decode_key(const char *p, const char *q)
{
	json_t *k = jpiece_parse(&(struct jpiece){ p, (size_t)(q - p) });
	char *s = NULL;

	if (json_is_string(k) && strlen(json_string_value(k)) == json_string_length(k)) {
		s = xmalloc(json_string_length(k) + 1);
		memcpy(s, json_string_value(k), json_string_length(k) + 1);
	}
	return s;
}

static bool add_member(struct jsplit *s, size_t *cap, char *key, const char *v,
		       const char *ve)
{
	struct jmember *m;

	for (size_t i = 0; i < s->n; i++)
		if (!strcmp(s->m[i].key, key)) { /* jansson whole says "duplicate" */
			free(key);
			return false;
		}
	s->m = grow(s->m, cap, s->n + 1, sizeof(*s->m));
	m = memset(&s->m[s->n++], 0, sizeof(*m));
	m->key = key;
	m->value = (struct jpiece){ v, (size_t)(ve - v) };
	m->array = *v == '[';
	return !m->array || split_array(v, ve, m);
}

bool jsplit(const char *buf, size_t len, struct jsplit *s)
{
	const char *e = buf + len, *p = skip_ws(buf, e), *q;
	size_t cap = 0;
	char *key;

	memset(s, 0, sizeof(*s));
	/* jansson's reader keeps a NUL-terminated look-ahead: a NUL byte in the
	 * input behaves in ways a piece cut out of it might not repeat. */
	if (memchr(buf, '\0', len))
		return false;
	if (p == e || *p != '{')
		goto whole;
	p = skip_ws(p + 1, e);
	if (p < e && *p == '}')
		return skip_ws(p + 1, e) == e;
	for (;;) {
		if (p >= e || *p != '"' || !(q = skip_string(p, e)) || !(key = decode_key(p, q)))
			goto whole;
		p = skip_ws(q, e);
		if (p >= e || *p != ':') {
			free(key);
			goto whole;
		}
		p = skip_ws(p + 1, e);
		if (!(q = skip_value(p, e))) {
			free(key);
			goto whole;
		}
		if (!add_member(s, &cap, key, p, q))
			goto whole;
		p = skip_ws(q, e);
		if (p < e && *p == ',') {
			p = skip_ws(p + 1, e);
			continue;
		}
		if (p < e && *p == '}' && skip_ws(p + 1, e) == e)
			return true;
		goto whole;
	}
whole:
	jsplit_free(s);
	return false;
}

void jsplit_free(struct jsplit *s)
{
	for (size_t i = 0; i < s->n; i++) {
		free(s->m[i].key);
		free(s->m[i].el);
	}
	free(s->m);
	memset(s, 0, sizeof(*s));
}

/* Part of a number or a literal: whitespace between two of these separates
 * tokens ("1 2"), elsewhere it means nothing. */
static bool in_token(char c)
{
	return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
	       c == '.' || c == '+' || c == '-';
}

/* p without the whitespace that separates nothing: jansson reads a byte at
 * a time through a callback, so indentation costs it as much as data. The
 * JSON means the same, valid or not (a space between tokens stays). */
static size_t compact(const char *p, size_t n, char *out)
{
	const char *e = p + n;
	size_t o = 0;

	while (p < e) {
		if (*p == '"') {
			const char *q = skip_string(p, e);
			size_t len = q ? (size_t)(q - p) : (size_t)(e - p);

			memcpy(out + o, p, len);
			o += len, p += len;
		} else if (*p == ' ' || *p == '\t' || *p == '\n' || *p == '\r') {
			while (p < e && (*p == ' ' || *p == '\t' || *p == '\n' || *p == '\r'))
				p++;
			if (o && p < e && in_token(out[o - 1]) && in_token(*p))
				out[o++] = ' ';
		} else {
			out[o++] = *p++;
		}
	}
	return o;
}

json_t *jpiece_parse_compact(const struct jpiece *p, struct jbuf *b)
{
	json_error_t err;
	size_t n;

	if (b->cap < p->len) {
		free(b->p);
		b->cap = p->len;
		b->p = xmalloc(b->cap);
	}
	n = compact(p->p, p->len, b->p);
	return json_loadb(b->p, n, JSON_DECODE_ANY | JSON_REJECT_DUPLICATES, &err);
}

json_t *jpiece_parse(const struct jpiece *p)
{
	json_error_t err;

	return json_loadb(p->p, p->len, JSON_DECODE_ANY | JSON_REJECT_DUPLICATES, &err);
}

/* ---- workers ------------------------------------------------------------ */

struct pfor {
	size_t n;
	atomic_size_t next;
	void (*fn)(size_t i, int worker, void *arg);
	void *arg;
};

struct pworker {
	struct pfor *pf;
	int w;
};

/* Items are taken one at a time: pieces differ in size, so a fixed share
 * per thread would leave threads idle. */
static void drain(struct pfor *pf, int w)
{
	size_t i;

	while ((i = atomic_fetch_add(&pf->next, 1)) < pf->n)
		pf->fn(i, w, pf->arg);
}

static void *worker_main(void *arg)
{
	struct pworker *k = arg;

	drain(k->pf, k->w);
	return NULL;
}

void parallel_for(size_t n, int nworkers, void (*fn)(size_t i, int worker, void *arg),
		  void *arg)
{
	struct pfor pf = { .n = n, .fn = fn, .arg = arg };
	pthread_t *t;
	struct pworker *k;
	int started = 0;

	atomic_init(&pf.next, 0);
	if (nworkers <= 1 || n <= 1) {
		drain(&pf, 0);
		return;
	}
	t = xcalloc((size_t)nworkers, sizeof(*t));
	k = xcalloc((size_t)nworkers, sizeof(*k));
	for (int w = 1; w < nworkers; w++) {
		k[w] = (struct pworker){ &pf, w };
		if (pthread_create(&t[w], NULL, worker_main, &k[w]) != 0)
			break; /* fewer threads: the items still all run */
		started = w;
	}
	drain(&pf, 0);
	for (int w = 1; w <= started; w++)
		pthread_join(t[w], NULL);
	free(t);
	free(k);
}
