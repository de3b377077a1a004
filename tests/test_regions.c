/* Region bookkeeping on one thread, driven directly: nesting, recursion,
 * unbalanced markers, and stack/name interning. Wall ticks are the only
 * value (no counters open), so the checks are on calls and on the
 * relations between inclusive and exclusive sums. */
#include "../preload/stacks/codemap.h"
#include "../preload/regions/names.h"
#include "../preload/regions/regions.h"
#include "../preload/stacks/stacks.h"
#include "../preload/base/log.h"
#include "../preload/report/mapfile.h"
#include "harness.h"

#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static struct region_state rs;
static struct counters none;	/* nopen == 0: wall time only */

/* The site record of region at a call site, inside parent (the site of
 * the region open at its begin), or outermost. */
static struct rf_site *find_in(uint32_t region, uintptr_t caller, const struct rf_site *parent)
{
	return sites_at(&rs.sites, region, caller, parent);
}

static struct rf_site *find(uint32_t region, uintptr_t caller)
{
	return find_in(region, caller, NULL);
}

/* A site's parent, from its record's offset in the file. */
static const struct rf_site *parent_of(const struct rf_site *s)
{
	return s->parent ? (const void *)((const char *)mapfile_header() + s->parent) : NULL;
}

static uint64_t error_count(enum rf_error_kind kind, uint32_t region)
{
	for (struct region_error *e = rs.errors; e; e = e->next)
		if (e->rec->kind == kind && e->rec->region == region)
			return e->rec->count;
	return 0;
}

/* The region whose end (or 0: a function's hook) made an error of kind
 * at region. */
static uint32_t error_open(enum rf_error_kind kind, uint32_t region)
{
	for (struct region_error *e = rs.errors; e; e = e->next)
		if (e->rec->kind == kind && e->rec->region == region)
			return e->rec->open;
	return UINT32_MAX;
}

static int is_stack(const struct rf_record *r, const void *arg)
{
	return r->type == RF_STACK && ((const struct rf_stack *)r)->id == *(const uint32_t *)arg;
}

/* The RF_STACK record of id, read back from the file. */
static const struct rf_stack *stack_record(uint32_t id)
{
	return (const struct rf_stack *)mapfile_find(is_stack, &id);
}

static void spin(void)
{
	for (volatile int i = 0; i < 2000; i++)
		;
}

static void fresh(void)
{
	regions_release(&rs);
	regions_init(&rs, &none, 1, 0, 0);	/* wall time only */
}

static void test_names_interned_once(void)
{
	const char *p1, *p2;
	uint32_t a = names_intern("alpha", &p1), b = names_intern("beta", NULL);

	CHECK(a != 0 && b != 0 && a != b, "ids %u %u", a, b);
	CHECK(names_intern("alpha", &p2) == a && p1 == p2, "same name, same id and copy");
	CHECK(strcmp(names_get(a), "alpha") == 0, "names_get");
	CHECK(strcmp(names_get(999999), "?") == 0, "unknown id");
}

static void test_stacks_interned_once(void)
{
	uintptr_t s1[3] = { 1, 2, 3 }, s2[3] = { 1, 2, 4 };
	uint32_t a = stacks_intern(s1, 3, 0), b = stacks_intern(s2, 3, 0);
	const struct rf_stack *st = stack_record(a);

	CHECK(a != b, "different stacks, different ids");
	CHECK(stacks_intern(s1, 3, 0) == a, "same stack, same id");
	CHECK(stacks_intern(s1, 2, 0) != a, "a prefix is another stack");
	CHECK(st && st->nframes == 3 && st->pc[2] == 3, "stored frames");
}

static void test_nesting_exclusive(void)
{
	uint32_t outer = names_intern("outer", NULL), inner = names_intern("inner", NULL);

	fresh();
	for (int k = 0; k < 5; k++) {
		regions_begin(&rs, &none, outer, 0x1000);
		spin();
		regions_begin(&rs, &none, inner, 0x2000);
		spin();
		regions_end(&rs, &none, inner);
		regions_begin(&rs, &none, inner, 0x2000);
		spin();
		regions_end(&rs, &none, inner);
		regions_end(&rs, &none, outer);
	}
	struct rf_site *o = find(outer, 0x1000), *i = find_in(inner, 0x2000, o);
	CHECK(o && i, "sites exist");
	CHECK(!find(inner, 0x2000), "inner has no outermost site");
	CHECK(parent_of(i) == o && !parent_of(o) && (mapfile_header()->flags & RF_TREE),
	      "the record names its parent");
	CHECK(o->calls == 5 && i->calls == 10, "calls %llu %llu",
	      (unsigned long long)o->calls, (unsigned long long)i->calls);
	CHECK(o->v[0].excl + i->v[0].incl == o->v[0].incl, "outer excl + inner incl == outer incl");
	CHECK(i->v[0].excl == i->v[0].incl, "leaf: excl == incl");
	CHECK(o->v[0].min <= o->v[0].max && o->v[0].min * 5 <= o->v[0].incl, "min/max");
	CHECK(regions_open_count(&rs) == 0 && rs.errors == NULL, "balanced");
}

static void test_recursion_not_double_counted(void)
{
	uint32_t r = names_intern("rec", NULL);

	fresh();
	/* rec -> rec -> rec, same call site (depth 0) */
	regions_begin(&rs, &none, r, 0x3000);
	spin();
	regions_begin(&rs, &none, r, 0x3000);
	spin();
	regions_begin(&rs, &none, r, 0x3000);
	spin();
	regions_end(&rs, &none, r);
	regions_end(&rs, &none, r);
	regions_end(&rs, &none, r);
	/* each level is a node of the tree: rec, rec;rec, rec;rec;rec */
	struct rf_site *s = find(r, 0x3000), *s2 = find_in(r, 0x3000, s),
		       *s3 = find_in(r, 0x3000, s2);
	CHECK(s && s2 && s3 && sites_count(&rs.sites) == 3, "three nodes");
	CHECK(s->calls == 1 && s2->calls == 1 && s3->calls == 1, "a call each");
	CHECK(s2->v[0].incl == 0 && s3->v[0].incl == 0, "inner activations add nothing to incl");
	CHECK(s->v[0].incl == s->v[0].max, "incl is the outermost call alone");
	CHECK(s->v[0].excl + s2->v[0].excl + s3->v[0].excl == s->v[0].incl,
	      "excl over all activations sums to incl");
}

/* The per-region array grows (a new, larger id) while a region is open:
 * the open region still knows it is the outermost of its name when it
 * ends, and so does its next call. */
static void test_slots_grow_while_open(void)
{
	uint32_t r = names_intern("grow-r", NULL), big = 0;
	char name[32];

	for (int i = 0; big < 2 * r + 64; i++) {
		snprintf(name, sizeof(name), "grow-filler-%d", i);
		big = names_intern(name, NULL);
	}
	fresh();
	regions_begin(&rs, &none, r, 0x5000);
	spin();
	regions_begin(&rs, &none, big, 0x5100);	/* the array grows here */
	spin();
	regions_end(&rs, &none, big);
	regions_end(&rs, &none, r);
	regions_begin(&rs, &none, r, 0x5000);
	spin();
	regions_end(&rs, &none, r);
	struct rf_site *s = find(r, 0x5000), *b = find_in(big, 0x5100, s);
	CHECK(s && b && s->calls == 2 && b->calls == 1, "calls");
	CHECK(s->v[0].incl - s->v[0].excl == b->v[0].incl,
	      "both calls outermost: incl %llu - excl %llu = the child's %llu",
	      (unsigned long long)s->v[0].incl, (unsigned long long)s->v[0].excl,
	      (unsigned long long)b->v[0].incl);
}

/* A function left open (by exit()) ends at its thread's end, measured,
 * not an error; a marker open inside it is one. */
static void test_function_open_at_end(void)
{
	uint32_t f = names_intern_addr("", 0x1234, RF_FROM_FUNCTIONS, RF_ADDR_ENTRY, 0),
		 m = names_intern("inside", NULL);

	fresh();
	regions_begin(&rs, &none, f, 0x50);
	regions_begin(&rs, &none, m, 0x60);
	regions_finish(&rs, &none);
	CHECK(find(f, 0x50) && find(f, 0x50)->calls == 1, "the function ends, measured");
	CHECK(error_count(RF_ERR_OPEN_AT_EXIT, f) == 0, "the function is no error");
	CHECK(error_count(RF_ERR_OPEN_AT_EXIT, m) == 1, "the marker left open is");
	CHECK(regions_open_count(&rs) == 0, "nothing left open");
}

static void test_unbalanced(void)
{
	uint32_t a = names_intern("a", NULL), b = names_intern("b", NULL),
		 c = names_intern("c", NULL), good = names_intern("good", NULL);

	fresh();
	regions_end(&rs, &none, c);			/* nothing open */
	regions_begin(&rs, &none, a, 0x10);
	regions_begin(&rs, &none, b, 0x20);
	regions_end(&rs, &none, a);			/* b still open: closed too */
	regions_begin(&rs, &none, good, 0x30);
	regions_end(&rs, &none, good);
	regions_begin(&rs, &none, c, 0x40);		/* left open */
	regions_finish(&rs, &none);
	CHECK(error_count(RF_ERR_END_UNOPENED, c) == 1, "end-unopened");
	CHECK(error_count(RF_ERR_END_MISMATCH, a) == 1, "end-mismatch");
	CHECK(error_count(RF_ERR_OPEN_AT_EXIT, c) == 1, "open-at-exit");
	CHECK(find(a, 0x10) && find(a, 0x10)->calls == 1, "a still measured");
	CHECK(find_in(b, 0x20, find(a, 0x10)) && find_in(b, 0x20, find(a, 0x10))->calls == 1,
	      "b closed at a's end, measured");
	CHECK(error_count(RF_ERR_RESYNC, b) == 1 && error_open(RF_ERR_RESYNC, b) == a,
	      "b counted as closed by a's end");
	CHECK(find(good, 0x30)->calls == 1, "later regions fine");
	CHECK(regions_open_count(&rs) == 0, "nothing left open");
}

static void test_sites_split_by_call_site(void)
{
	uint32_t r = names_intern("split", NULL);

	fresh();
	for (int k = 0; k < 3; k++) {
		regions_begin(&rs, &none, r, 0x500);
		regions_end(&rs, &none, r);
	}
	regions_begin(&rs, &none, r, 0x600);
	regions_end(&rs, &none, r);
	CHECK(find(r, 0x500)->calls == 3 && find(r, 0x600)->calls == 1, "per call site");
	CHECK(find(r, 0x500)->stack != find(r, 0x600)->stack, "distinct stacks");
}

/* The same region at the same call site under two parents is two nodes
 * of the tree; the warm path (its cached slot) keeps them apart. */
static void test_sites_split_by_parent(void)
{
	uint32_t a = names_intern("tree-a", NULL), b = names_intern("tree-b", NULL),
		 leaf = names_intern("tree-leaf", NULL);

	fresh();
	for (int k = 0; k < 3; k++) {
		regions_begin(&rs, &none, a, 0xa00);
		regions_begin(&rs, &none, leaf, 0xc00);
		regions_end(&rs, &none, leaf);
		regions_end(&rs, &none, a);
		regions_begin(&rs, &none, b, 0xb00);
		for (int j = 0; j < 2; j++) {
			regions_begin(&rs, &none, leaf, 0xc00);
			regions_end(&rs, &none, leaf);
		}
		regions_end(&rs, &none, b);
	}
	struct rf_site *sa = find(a, 0xa00), *sb = find(b, 0xb00);
	struct rf_site *la = find_in(leaf, 0xc00, sa), *lb = find_in(leaf, 0xc00, sb);
	CHECK(sa && sb && la && lb && la != lb, "leaf under a and under b: two sites");
	CHECK(la->calls == 3 && lb->calls == 6, "calls %llu %llu",
	      la ? (unsigned long long)la->calls : 0, lb ? (unsigned long long)lb->calls : 0);
	CHECK(parent_of(la) == sa && parent_of(lb) == sb, "parents recorded");
	CHECK(la->stack == lb->stack, "one call-site stack");
	CHECK(sites_count(&rs.sites) == 4, "%zu sites", sites_count(&rs.sites));
}

/* FRAMES_MAX regions open at once; the ones above are dropped, each
 * counted once, and so are their ends. An id no region can have (the API
 * passes whatever the application gives) is refused, not looped on. */
static void test_nesting_limit(void)
{
	uint32_t r = names_intern("deep", NULL);
	const uint32_t huge = 0x80000000u;

	fresh();
	for (int i = 0; i < FRAMES_MAX + 4; i++)
		regions_begin(&rs, &none, r, 0x900);
	for (int i = 0; i < FRAMES_MAX + 4; i++)
		regions_end(&rs, &none, r);
	CHECK(error_count(RF_ERR_TOO_DEEP, r) == 4, "%llu dropped, want 4",
	      (unsigned long long)error_count(RF_ERR_TOO_DEEP, r));
	CHECK(find(r, 0x900) && find(r, 0x900)->calls == 1 &&
	      sites_count(&rs.sites) == FRAMES_MAX, "%zu nodes", sites_count(&rs.sites));
	regions_begin(&rs, &none, huge, 0x900);
	regions_end(&rs, &none, huge);
	CHECK(error_count(RF_ERR_TOO_DEEP, huge) == 1 && regions_open_count(&rs) == 0 && rs.overflow == 0,
	      "id 2^31: begin dropped and counted, its end too");
}

/* An end of a region open below others closes them first (their ends
 * were missed), each measured to that end and counted per region, then
 * the region itself; the thread goes on recording. */
static void test_mismatch_closes_above(void)
{
	uint32_t a = names_intern("mm-a", NULL), b = names_intern("mm-b", NULL),
		 c = names_intern("mm-c", NULL);
	struct rf_site *sa, *sb, *sc;

	fresh();
	for (int k = 0; k < 3; k++) {
		regions_begin(&rs, &none, a, 0x10);
		regions_begin(&rs, &none, b, 0x20);
		spin();
		regions_begin(&rs, &none, c, 0x30);
		spin();
		regions_end(&rs, &none, a);	/* b and c never ended */
	}
	sa = find(a, 0x10);
	sb = sa ? find_in(b, 0x20, sa) : NULL;
	sc = sb ? find_in(c, 0x30, sb) : NULL;
	CHECK(sa && sb && sc && sa->calls == 3 && sb->calls == 3 && sc->calls == 3,
	      "every call counted, each on its own");
	CHECK(sb && sc && sb->v[0].incl >= sc->v[0].incl && sc->v[0].incl > 0 &&
	      sa->v[0].incl >= sb->v[0].incl, "measured up to the end that closed them");
	CHECK(error_count(RF_ERR_RESYNC, b) == 3 && error_count(RF_ERR_RESYNC, c) == 3 &&
	      error_open(RF_ERR_RESYNC, c) == a, "closed by resync: 3 each, by a's end");
	CHECK(error_count(RF_ERR_END_MISMATCH, a) == 3, "each mismatched end counted");
	CHECK(regions_open_count(&rs) == 0, "nothing left open");
}

/* 5,000 regions left open (generators never finished), deeper than the
 * old cap of 4,096, then 3,100 pairs of another region: all recorded. */
static void test_left_open_then_balanced(void)
{
	uint32_t gen = names_intern("lo-gen", NULL), other = names_intern("lo-other", NULL);
	const struct rf_site *inner, *s;

	fresh();
	for (int i = 0; i < 5000; i++)
		regions_begin(&rs, &none, gen, 0x40);
	inner = regions_open_count(&rs) ? rs.top->site : NULL;
	for (int i = 0; i < 3100; i++) {
		regions_begin(&rs, &none, other, 0x50);
		regions_end(&rs, &none, other);
	}
	s = inner ? find_in(other, 0x50, inner) : NULL;
	CHECK(s && s->calls == 3100, "%llu calls of other, want 3100",
	      s ? (unsigned long long)s->calls : 0ULL);
	CHECK(error_count(RF_ERR_TOO_DEEP, gen) == 0 && error_count(RF_ERR_TOO_DEEP, other) == 0,
	      "nothing dropped");
	CHECK(regions_open_count(&rs) == 5000, "%u open", regions_open_count(&rs));
	regions_finish(&rs, &none);
	CHECK(error_count(RF_ERR_OPEN_AT_EXIT, gen) == 5000, "the open ones, counted at the end");
}

/* Functions' frames carry the CFA of their machine frame and its return
 * address: an open frame keyed below a function's begin was abandoned
 * (longjmp), and is closed with what was opened inside it (a marker), each
 * counted; so is one keyed at it with another return address (a sibling
 * left by longjmp) or of the same function begun again (its enter hook
 * returning to the same place). One keyed at it with the same return
 * address is an inlined function's caller (or itself, inlined into
 * itself): it stays, and so does a frame above. Frames without a key
 * (markers) are looked past. */
static void test_keys_resync(void)
{
	uint32_t f = names_intern_addr("", 0x5100, RF_FROM_FUNCTIONS, RF_ADDR_ENTRY, 0),
		 g = names_intern_addr("", 0x5200, RF_FROM_FUNCTIONS, RF_ADDR_ENTRY, 0),
		 h = names_intern_addr("", 0x5300, RF_FROM_FUNCTIONS, RF_ADDR_ENTRY, 0),
		 m = names_intern("keys-marker", NULL);
	struct fn_place pf = { 0x7000, 0x111, 0x5104, f, 0x5100 },
			pg = { 0x6f00, 0x222, 0x5204, g, 0x5200 },
			ph_inline = { 0x6f00, 0x222, 0x5230, h, 0x5300 },
			ph_sibling = { 0x6f00, 0x333, 0x5304, h, 0x5300 },
			pg_again = { 0x6f00, 0x222, 0x5204, g, 0x5200 },
			pg_inline = { 0x6f00, 0x222, 0x5240, g, 0x5200 },
			ph_deeper = { 0x6e00, 0x444, 0x5304, h, 0x5300 },
			pf_above = { 0x7100, 0x555, 0x5104, f, 0x5100 };
	size_t d;

	fresh();
	d = regions_top_mark(&rs);
	regions_begin(&rs, &none, f, 0x60);
	regions_keyed(&rs, d, &pf);
	for (int k = 0; k < 4; k++) {
		d = regions_top_mark(&rs);
		regions_begin(&rs, &none, g, 0x70);
		regions_keyed(&rs, d, &pg);
		regions_begin(&rs, &none, m, 0x80);	/* a marker: no key */
		CHECK(!regions_abandoned(&rs, &ph_inline), "h inlined in g's frame: g live");
		CHECK(!regions_abandoned(&rs, &ph_deeper), "h called deeper: g live");
		CHECK(regions_abandoned(&rs, &ph_sibling), "h at g's CFA, another site: g left");
		CHECK(regions_abandoned(&rs, &pg_again), "g begun again at its CFA: g left");
		CHECK(!regions_abandoned(&rs, &pg_inline), "g inlined into itself: g live");
		regions_resync(&rs, &none, 0x6f01, &ph_sibling);	/* g on another stack */
		CHECK(regions_open_count(&rs) == 3, "%u open", regions_open_count(&rs));
		regions_resync(&rs, &none, 0x1000, k % 2 ? &ph_sibling : &pg_again);
		CHECK(regions_open_count(&rs) == 1, "%u open", regions_open_count(&rs));
	}
	CHECK(!regions_abandoned(&rs, &ph_inline), "f stays");
	CHECK(find(f, 0x60) && find_in(g, 0x70, find(f, 0x60)) &&
	      find_in(g, 0x70, find(f, 0x60))->calls == 4, "4 calls of g, each its own");
	CHECK(error_count(RF_ERR_RESYNC, g) == 4 && error_count(RF_ERR_RESYNC, m) == 4 &&
	      error_open(RF_ERR_RESYNC, g) == 0, "closed by resync, counted");
	CHECK(regions_abandoned(&rs, &pf_above), "a begin above f: f left");
	regions_end(&rs, &none, f);
	CHECK(find(f, 0x60)->calls == 1 && regions_open_count(&rs) == 0, "f ends as usual");
}

/* Markers by run-time name: the per-thread cache is keyed by the pointer
 * but must see a buffer reused with other text. */
static void test_name_cache(void)
{
	char buf[16] = "dyn-one";
	struct rf_site *one, *two;

	fresh();
	for (int k = 0; k < 2; k++) {
		regions_begin_name(&rs, &none, buf, 0x700);
		regions_end_name(&rs, &none, buf);
	}
	strcpy(buf, "dyn-two");		/* same pointer, new text */
	regions_begin_name(&rs, &none, buf, 0x700);
	regions_end_name(&rs, &none, buf);
	one = find(names_intern("dyn-one", NULL), 0x700);
	two = find(names_intern("dyn-two", NULL), 0x700);
	CHECK(one && one->calls == 2, "dyn-one: %llu calls", one ? (unsigned long long)one->calls : 0);
	CHECK(two && two->calls == 1, "pointer reuse not detected");
}

/* A name longer than names keep is cut; its text in a buffer, compared
 * with the cut copy at each marker, is the same name each time (and a
 * shorter text in the same buffer is another). */
static void test_long_name_in_buffer(void)
{
	char buf[NAMES_MAX_LEN + 64];
	struct rf_site *cut, *shorter;
	uint32_t id;

	fresh();
	memset(buf, 'x', sizeof(buf) - 1);
	buf[sizeof(buf) - 1] = '\0';
	for (int k = 0; k < 3; k++) {
		regions_begin_name(&rs, &none, buf, 0x780);
		regions_end_name(&rs, &none, buf);
	}
	id = names_intern(buf, NULL);
	cut = find(id, 0x780);
	CHECK(cut && cut->calls == 3, "the cut name: %llu calls",
	      cut ? (unsigned long long)cut->calls : 0);
	buf[NAMES_MAX_LEN - 1] = '\0';		/* one byte shorter than the cut */
	regions_begin_name(&rs, &none, buf, 0x780);
	regions_end_name(&rs, &none, buf);
	shorter = find(names_intern(buf, NULL), 0x780);
	CHECK(shorter && shorter != cut && shorter->calls == 1, "a shorter text is another name");
	CHECK(regions_open_count(&rs) == 0 && rs.overflow == 0, "nothing left open");
}

static char writable_text[] = "writable";

/* Only text no one can write is taken as constant (its markers then skip
 * the compare): a string literal, not a stack, heap or writable global
 * buffer, nor a length that runs out of the literal's segment. */
static void test_constant_text(void)
{
	const char *literal = "constant-text";
	char stack[16] = "on-the-stack";
	char *heap = strdup("on-the-heap");

	CHECK(codemap_constant((uintptr_t)literal, strlen(literal)), "a string literal");
	CHECK(!codemap_constant((uintptr_t)literal, SIZE_MAX / 2), "past its segment");
	CHECK(!codemap_constant((uintptr_t)stack, strlen(stack)), "a stack buffer");
	CHECK(heap && !codemap_constant((uintptr_t)heap, strlen(heap)), "a heap buffer");
	CHECK(!codemap_constant((uintptr_t)writable_text, strlen(writable_text)),
	      "a writable global");
	free(heap);
}

/* A constant answer holds until a dlclose (which may unmap its object). */
static void test_constant_until_dlclose(void)
{
	const char *literal = "constant-text";
	unsigned long before = codemap_constant((uintptr_t)literal, strlen(literal)), after;
	void *h = dlopen("libm.so.6", RTLD_NOW);

	CHECK(before && before == codemap_stamp(), "stamp %lu, now %lu", before, codemap_stamp());
	CHECK(h && dlclose(h) == 0, "dlopen/dlclose libm");
	after = codemap_constant((uintptr_t)literal, strlen(literal));
	CHECK(codemap_stamp() != before && after == codemap_stamp(),
	      "after dlclose: stamp %lu (was %lu), answer %lu", codemap_stamp(), before, after);
}

/* Enough names and sites that their indexes grow from the arena into
 * pages of their own, and past a huge page. */
#define MANY 70000

static void test_many_names_and_sites(void)
{
	static uint32_t ids[MANY];
	char name[32];

	fresh();
	for (int i = 0; i < MANY; i++) {
		snprintf(name, sizeof(name), "many-%d", i);
		ids[i] = names_intern(name, NULL);
		CHECK(ids[i] != 0 && (i == 0 || ids[i] == ids[i - 1] + 1), "id of %s: %u", name, ids[i]);
		regions_begin(&rs, &none, ids[i], 0x900);
		regions_end(&rs, &none, ids[i]);
	}
	for (int i = 0; i < MANY; i += 997) {
		snprintf(name, sizeof(name), "many-%d", i);
		CHECK(names_intern(name, NULL) == ids[i], "%s again", name);
		CHECK(strcmp(names_get(ids[i]), name) == 0, "names_get(%u)", ids[i]);
		regions_begin(&rs, &none, ids[i], 0x900);
		regions_end(&rs, &none, ids[i]);
		CHECK(find(ids[i], 0x900) && find(ids[i], 0x900)->calls == 2, "site of %s", name);
	}
	CHECK(sites_count(&rs.sites) == MANY, "%zu sites", sites_count(&rs.sites));
}

/* Past the limit a new name gets no id and counts a drop; names it has,
 * and the shim's own, still work. */
static void test_names_limit(void)
{
	uint32_t base = names_intern("limit-base", NULL), alpha = names_intern("alpha", NULL);
	uint64_t *dropped = &mapfile_header()->dropped[RF_DROP_NAMES];

	names_set_limit(base + 2);
	CHECK(names_intern("limit-a", NULL) && names_intern("limit-b", NULL), "up to the limit");
	CHECK(names_intern("limit-c", NULL) == 0 && names_intern("limit-d", NULL) == 0,
	      "past it: no id");
	CHECK(*dropped == 2, "dropped %llu", (unsigned long long)*dropped);
	CHECK(names_intern("alpha", NULL) == alpha && names_intern("limit-a", NULL) != 0,
	      "known names keep their ids");
	CHECK(names_intern_own("limit-own") != 0, "the shim's own names are not limited");
	CHECK(*dropped == 2, "dropped %llu", (unsigned long long)*dropped);
	names_set_limit(CONFIG_DEFAULT_MAX_NAMES);
	CHECK(names_intern("limit-c", NULL) != 0, "a higher limit admits it");
}

/* Past the limit, a refused name's markers are dropped and counted, from
 * the thread's name cache after the first; the same buffer holding a
 * known name again still finds it. */
static void test_refused_name_cached(void)
{
	char buf[32] = "refused-x";
	uint64_t *dropped = &mapfile_header()->dropped[RF_DROP_NAMES], before;
	uint32_t alpha = names_intern("alpha", NULL);

	fresh();
	names_set_limit(1);
	before = *dropped;
	for (int k = 0; k < 3; k++) {
		regions_begin_name(&rs, &none, buf, 0x800);
		regions_end_name(&rs, &none, buf);
	}
	CHECK(*dropped - before == 6, "dropped %llu, want 6", (unsigned long long)(*dropped - before));
	CHECK(regions_open_count(&rs) == 0 && rs.overflow == 0, "nothing left open");
	strcpy(buf, "alpha");
	regions_begin_name(&rs, &none, buf, 0x800);
	regions_end_name(&rs, &none, buf);
	CHECK(find(alpha, 0x800) && find(alpha, 0x800)->calls == 1, "a known name in the same buffer");
	CHECK(*dropped - before == 6, "no more drops");
	names_set_limit(CONFIG_DEFAULT_MAX_NAMES);
}

/* The running counts go to the thread's record (rf_thread.live) at the
 * first region end whose wall tick reaches publish_due, whatever its
 * depth; the ends before it leave the record alone. */
static void publish_case(const char *path)
{
	uint32_t outer = names_intern("pub-outer", NULL), inner = names_intern("pub-inner", NULL);
	struct rf_thread rec;
	uint64_t before;

	memset(&rec, 0, sizeof(rec));
	regions_publish_into(&rs, &rec);	/* due at once */
	regions_begin(&rs, &none, outer, 0x900);
	regions_begin(&rs, &none, inner, 0x910);
	before = arch_ticks();
	regions_end(&rs, &none, inner);
	CHECK(rec.live_seq == 2 && rec.live_ticks >= before,
	      "%s: an inner end due publishes (seq %u)", path, rec.live_seq);
	CHECK(rs.publish_due == rec.live_ticks + arch_ticks_ms(),
	      "%s: the next one is due a millisecond on", path);
	rs.publish_due = UINT64_MAX;
	regions_begin(&rs, &none, inner, 0x910);
	regions_end(&rs, &none, inner);
	regions_end(&rs, &none, outer);
	CHECK(rec.live_seq == 2, "%s: ends not due published (seq %u)", path, rec.live_seq);
	rs.publish_due = 0;
	regions_begin(&rs, &none, outer, 0x900);
	before = arch_ticks();
	regions_end(&rs, &none, outer);
	CHECK(rec.live_seq == 4 && rec.live_ticks >= before,
	      "%s: an outermost end due publishes (seq %u)", path, rec.live_seq);
	CHECK(find(outer, 0x900)->calls == 2 && regions_open_count(&rs) == 0,
	      "%s: the regions counted as usual", path);
}

/* Off the warm path (these tests' threads have no entries installed),
 * then on it (regions_entry installs them for this thread's values). */
static void test_publish_when_due(void)
{
	fresh();
	publish_case("off the warm path");
	CHECK(rs.warm_ids == 0, "the markers took the warm path");
	regions_entry(&rs);
	fresh();
	publish_case("warm path");
	CHECK(rs.warm_ids > 0, "the markers did not take the warm path");
}

/* Sites, names and stacks live in a report file: make one. */
static int make_file(void)
{
	static struct config cfg;
	struct mapfile_process p = { "test_regions", 0, NULL, 0, 0 };

	snprintf(cfg.output, sizeof(cfg.output), "build/tmp/test_regions-%%p.pmc");
	return mapfile_create(&cfg, &p);
}

int main(void)
{
	log_set_quiet(1);
	if (make_file() != 0)
		return printf("regions: cannot make a report file\n"), 1;
	RUN(test_names_interned_once);
	RUN(test_stacks_interned_once);
	RUN(test_nesting_exclusive);
	RUN(test_recursion_not_double_counted);
	RUN(test_slots_grow_while_open);
	RUN(test_unbalanced);
	RUN(test_function_open_at_end);
	RUN(test_mismatch_closes_above);
	RUN(test_left_open_then_balanced);
	RUN(test_keys_resync);
	RUN(test_sites_split_by_call_site);
	RUN(test_sites_split_by_parent);
	RUN(test_name_cache);
	RUN(test_long_name_in_buffer);
	RUN(test_constant_text);
	RUN(test_constant_until_dlclose);
	RUN(test_nesting_limit);
	RUN(test_many_names_and_sites);
	RUN(test_names_limit);
	RUN(test_refused_name_cached);
	RUN(test_publish_when_due);	/* last: it installs the entries */
	unlink(mapfile_path());
	return t_done("regions");
}
