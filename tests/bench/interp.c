/* A Lua-like workload for the function hooks' bench (make bench-functions):
 * an interpreter loop over a small bytecode that builds keys, interns
 * them (a hash chain, string compares), keeps them in tables (get, set,
 * rehash) and sorts them with a comparator, as a script of string
 * handling does in Lua: millions of calls of small functions, with
 * malloc and strcmp (libc, not instrumented) under them. Prints a
 * checksum, the same with every build. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Every function a call in every build (-O2 would inline the small
 * ones with -pg and without, and instrument them with
 * -finstrument-functions): the same calls for every tool. */
#define NI __attribute__((noinline))
#define NKEYS 40000
#define BUCKETS 4096

struct str {
	struct str *next;
	unsigned hash;
	size_t len;
	char text[];
};

struct table {
	struct str **v;
	size_t n, cap;
};

static struct str *strings[BUCKETS];

static NI unsigned hash_of(const char *s, size_t len)
{
	unsigned h = 2166136261u;

	for (size_t i = 0; i < len; i++)
		h = (h ^ (unsigned char)s[i]) * 16777619u;
	return h;
}

static NI int same(const struct str *s, const char *text, size_t len, unsigned h)
{
	return s->hash == h && s->len == len && memcmp(s->text, text, len) == 0;
}

static struct str *intern(const char *text, size_t len)
{
	unsigned h = hash_of(text, len);
	struct str **b = &strings[h % BUCKETS], *s;

	for (s = *b; s; s = s->next)
		if (same(s, text, len, h))
			return s;
	s = malloc(sizeof(*s) + len + 1);
	if (!s)
		exit(1);
	s->hash = h, s->len = len;
	memcpy(s->text, text, len);
	s->text[len] = '\0';
	s->next = *b;
	*b = s;
	return s;
}

static NI void rehash(struct table *t)
{
	t->cap = t->cap ? 2 * t->cap : 16;
	t->v = realloc(t->v, t->cap * sizeof(*t->v));
	if (!t->v)
		exit(1);
}

static NI void table_set(struct table *t, size_t i, struct str *s)
{
	while (i >= t->cap)
		rehash(t);
	if (i >= t->n)
		t->n = i + 1;
	t->v[i] = s;
}

static struct str *table_get(const struct table *t, size_t i)
{
	return i < t->n ? t->v[i] : NULL;
}

static NI int str_cmp(const struct str *a, const struct str *b)
{
	return strcmp(a->text, b->text);
}

static NI int less_than(const struct str *a, const struct str *b)
{
	return a == b ? 0 : str_cmp(a, b) < 0;
}

static NI void sort(struct table *t, size_t lo, size_t hi)
{
	while (lo + 1 < hi) {
		struct str *p = table_get(t, (lo + hi) / 2);
		size_t i = lo, j = hi - 1;

		while (i <= j) {
			while (less_than(table_get(t, i), p))
				i++;
			while (less_than(p, table_get(t, j)))
				j--;
			if (i <= j) {
				struct str *x = table_get(t, i);
				table_set(t, i++, table_get(t, j));
				table_set(t, j--, x);
				if (j == (size_t)-1)
					break;
			}
		}
		if (j + 1 > lo)
			sort(t, lo, j + 1);
		lo = i;
	}
}

static struct str *make_key(long i, int round)
{
	char buf[48];
	int n = snprintf(buf, sizeof(buf), "key%ld_%d", (i * 7919) % 100003, round);

	return intern(buf, (size_t)n);
}

enum op { OP_KEY, OP_SET, OP_CMP, OP_SORT, OP_END };

/* The interpreter: one instruction a turn, as luaV_execute. */
static NI long execute(const enum op *code, struct table *t)
{
	long acc = 0;

	for (int round = 0; round < 3; round++)
		for (const enum op *pc = code; *pc != OP_END; pc++)
			switch (*pc) {
			case OP_KEY:
				for (long i = 0; i < NKEYS; i++)
					table_set(t, (size_t)i, make_key(i, round));
				break;
			case OP_SET:
				for (long i = 0; i < NKEYS; i++)
					table_set(t, (size_t)i, table_get(t, (size_t)(NKEYS - 1 - i)));
				break;
			case OP_CMP:
				for (long i = 0; i + 1 < NKEYS; i++)
					acc += less_than(table_get(t, (size_t)i),
							 table_get(t, (size_t)i + 1));
				break;
			case OP_SORT:
				sort(t, 0, t->n);
				break;
			default:
				break;
			}
	return acc;
}

int main(void)
{
	static const enum op code[] = { OP_KEY, OP_SET, OP_CMP, OP_SORT, OP_CMP, OP_END };
	struct table t = { 0 };
	long acc = execute(code, &t);

	printf("interp: %ld ordered pairs, first %s\n", acc, table_get(&t, 0)->text);
	return 0;
}
