/* Function regions counted, not timed: the slow paths, the samples and
 * the calls' publishing (the scheme and the warm paths: counted.h). */
#include <errno.h>
#include <string.h>
#include <sys/mman.h>

#include "counted.h"
#include "regions_impl.h"

#include "base/self.h"
#include "entry.h"
#include "report/mapfile.h"
#include "stacks/fpwalk.h"

#define STACK_CAP FRAMES_MAX		/* entries kept, as the timed frames: calls
					 * open at once (deeper: too deep) */
/* The table's slots: 2 MB of address space a thread, a huge page where
 * the kernel gives one (a TLB miss per call otherwise, on Lua 5.4's
 * 6,600 paths), else its pages touched where nodes are. Paths past
 * MADE_MAX (half the slots), or past PROBES slots from their own, are
 * not recorded: their time and calls are their parent's, and counted as
 * dropped. */
#define SLOTS COUNTED_SLOTS
/* The last entry kept (cs->last, which the warm enter loads). */
#define LAST(cs) (&(cs)->stack[STACK_CAP - 1])
#define MADE_MAX (SLOTS / 2)
#define PROBES 32
#define PUBLISH_EVERY 16		/* samples (16 ms of CPU at the default rate) */
#define TABLE_BYTES (SLOTS * sizeof(struct cnode))
#define HUGE (2u << 20)			/* a huge page: the table aligned to it */
/* Nodes from which the table is made a huge page: a thread with fewer
 * touches a page per node or so (its first 4 kB pages; a thread of a few
 * functions keeps a few pages), one with more most of the 512 pages
 * anyway, and then misses the TLB at most calls without one. */
#define HUGE_AT 256
#ifndef MADV_COLLAPSE
#define MADV_COLLAPSE 25		/* Linux 6.1: made a huge page now */
#endif
/* The table, its cold half, the list of nodes made and the stack's
 * entries (and the overflow entry), in one mapping, touched as used. */
#define MAPPED (HUGE + TABLE_BYTES + SLOTS * sizeof(struct cnode_cold) + \
		MADE_MAX * sizeof(uint32_t) + (STACK_CAP + 1) * sizeof(struct centry))

struct counted *counted_of(struct region_state *rs)
{
	struct counted *cs = rs->counted;
	uintptr_t lo, hi;
	void *nodes;

	if (cs)
		return cs;
	/* found here, not in the sampler's handler (self.h) */
	self_range(&lo, &hi);
	if (!(cs = arena_alloc(&rs->arena, sizeof(*cs))))
		return NULL;
	nodes = mmap(NULL, MAPPED, PROT_READ | PROT_WRITE,
		     MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
	if (nodes == MAP_FAILED)
		return NULL;
	cs->mapped = nodes;
	cs->nodes = (void *)(((uintptr_t)nodes + HUGE - 1) & ~(uintptr_t)(HUGE - 1));
	cs->cold = (struct cnode_cold *)(cs->nodes + SLOTS);
	cs->made = (uint32_t *)(cs->cold + SLOTS);
	cs->stack = (struct centry *)(cs->made + MADE_MAX);
	cs->rs = rs;
	cs->root.as = &cs->root;
	cs->stack[0] = (struct centry){ &cs->root, 0, UINTPTR_MAX };
	cs->top = cs->stack;
	cs->last = LAST(cs);
	__atomic_store_n(&rs->counted, cs, __ATOMIC_RELEASE);	/* (read by other threads) */
	shim_tls.counted = cs;
	return cs;
}

void counted_release(struct counted *cs)
{
	if (shim_tls.counted == cs)
		shim_tls.counted = NULL;
	munmap(cs->mapped, MAPPED);
	cs->nodes = NULL;
}

/* --- the call tree --------------------------------------------------- */

/* The site of node n (NULL: not recorded, or the root). */
static struct rf_site *rec_of(const struct counted *cs, const struct cnode *n)
{
	return n == &cs->root ? NULL : cs->cold[n - cs->nodes].rec;
}

static uint32_t region_of(const struct counted *cs, const struct cnode *n)
{
	return n == &cs->root ? 0 : cs->cold[n - cs->nodes].region;
}

/* The table on a huge page, where the kernel has them: asked for, and
 * made at once where the kernel can (MADV_COLLAPSE; else its daemon may
 * in time). Neither changes what the table holds. */
static void make_huge(struct counted *cs)
{
	int saved = errno;

	if (madvise(cs->nodes, TABLE_BYTES, MADV_HUGEPAGE) == 0)
		madvise(cs->nodes, TABLE_BYTES, MADV_COLLAPSE);
	errno = saved;
}

/* The node of fn under parent, made the first time (its site in the file
 * too, where fn is recorded, at call site site); NULL where it has no
 * room. */
static struct cnode *node(struct counted *cs, struct cnode *parent, uintptr_t fn,
			  uintptr_t site, uint32_t id)
{
	uintptr_t first = counted_slot(parent, fn), i = first;
	struct cnode_cold *c;
	struct cnode *n = NULL;
	unsigned k;

	for (k = 0; k < PROBES; k++) {
		n = &cs->nodes[i = counted_probe(first, k)];
		if (!n->parent)
			break;
		if (counted_is(n, parent, fn))
			break;
	}
	if (k == PROBES || (!n->parent && cs->nmade >= MADE_MAX)) {
		if (id)	/* (a function not recorded was counted once, if at all) */
			mapfile_drop(RF_DROP_FUNCTIONS);
		return NULL;
	}
	if (k >= COUNTED_PROBES_WARM)	/* (counted.h) */
		cs->far[first & (COUNTED_FAR - 1)] = n;
	if (n->parent)
		return n;
	c = &cs->cold[i];
	c->site = site, c->region = id;
	c->rec = id ? sites_find_call(&cs->rs->sites, id, site, rec_of(cs, parent)) : NULL;
	if (id && !c->rec)	/* no room in the file */
		mapfile_drop(RF_DROP_FULL);
	n->fn = fn;
	n->as = c->rec ? n : parent->as;
	__atomic_store_n(&n->parent, parent, __ATOMIC_RELEASE);
	cs->made[cs->nmade] = (uint32_t)i;
	__atomic_store_n(&cs->nmade, cs->nmade + 1, __ATOMIC_RELEASE);
	if (cs->nmade == HUGE_AT)
		make_huge(cs);
	return n;
}

/* A node of a function gone no longer matches a call (fn 0: none is
 * there); it keeps its slot, its calls and its site, and the entries open
 * on it their parent. Made by its thread, read here from another: nmade
 * (acquire) says how many are whole. */
void counted_unloaded(struct counted *cs, int (*gone)(uintptr_t fn))
{
	uint32_t n = __atomic_load_n(&cs->nmade, __ATOMIC_ACQUIRE);

	for (uint32_t k = 0; k < n; k++) {
		struct cnode *x = &cs->nodes[cs->made[k]];
		uintptr_t fn = __atomic_load_n(&x->fn, __ATOMIC_RELAXED);

		if (fn && gone(fn))
			__atomic_store_n(&x->fn, 0, __ATOMIC_RELAXED);
	}
}

/* --- entries left behind ---------------------------------------------- */

/* Pop the entries above e, whose exits were not seen (longjmp, an
 * exception): each recorded one counts as resynchronised. */
static void pop_to(struct counted *cs, struct centry *e)
{
	for (struct centry *x = cs->top; x > e; x--)
		if (x->fn && rec_of(cs, x->node) && (x == cs->stack + 1 || x[-1].node != x->node))
			regions_record_error(cs->rs, RF_ERR_RESYNC, region_of(cs, x->node), 0, 1);
	cs->top = e;
}

/* The overflow entry, which stands for the calls past the last kept, left
 * as the others are: by a call above the stack pointer of the first of
 * them (its sp). Their count is lost; the top is then the last entry. */
static void overflow_left(struct counted *cs, uintptr_t sp)
{
	if (cs->top > LAST(cs) && sp > cs->top->sp) {
		cs->deep = 0;
		cs->top = LAST(cs);
	}
}

/* A call at stack pointer sp, above where the top entry was entered: it
 * was left (longjmp, an exception), and so was every entry below it
 * entered at sp or below: a function called again where the left one
 * was called (on the thread's own stack: a signal stack or a coroutine's
 * lies elsewhere by chance, and its calls nest). The warm path takes a
 * call at the top's own stack pointer as its child: an inlined
 * function's hooks are called from its caller's frame (on Lua 5.4, 2 M
 * calls); so a function left by a longjmp straight to its caller is
 * taken for the parent of what its caller calls next, until the caller
 * returns. */
static void left_behind(struct counted *cs, uintptr_t sp)
{
	struct centry *e = cs->top;
	uintptr_t lo, hi;

	fpwalk_stack(&lo, &hi);
	if (!hi) {
		fpwalk_thread_init();
		fpwalk_stack(&lo, &hi);
	}
	if (sp < lo || sp >= hi || e->sp < lo || e->sp >= hi)
		return;
	while (e > cs->stack && e->sp <= sp)
		e--;
	pop_to(cs, e);
}

/* --- the slow paths ---------------------------------------------------- */

void counted_enter(struct counted *cs, uintptr_t fn, uintptr_t site, uintptr_t sp, uint32_t id)
{
	struct centry *top;
	struct cnode *n;

	overflow_left(cs, sp);
	if (cs->top > LAST(cs)) {	/* deeper still */
		cs->deep++;
		return;
	}
	if (sp > cs->top->sp)
		left_behind(cs, sp);
	top = cs->top;
	if (top == LAST(cs)) {		/* the overflow entry (fn 0) */
		counted_push_entry(cs, top->node, 0, sp);
		cs->deep = 1;
		regions_record_error(cs->rs, RF_ERR_TOO_DEEP, id, 0, 1);
		return;
	}
	n = node(cs, top->node, fn, site, id);
	if (n)
		counted_push(cs, n, fn, sp);
	else	/* no room: its calls go under its parent, uncounted */
		counted_push_entry(cs, top->node, fn, sp);
}

void counted_exit(struct counted *cs, uintptr_t fn)
{
	struct centry *e;

	if (cs->top > LAST(cs)) {
		if (--cs->deep == 0)
			cs->top = LAST(cs);
		return;
	}
	/* the nearest entry of fn: those above it were left; none, a
	 * function entered before recording began */
	for (e = cs->top; e > cs->stack && e->fn != fn; e--)
		;
	if (e > cs->stack) {
		pop_to(cs, e);	/* (e itself ends as it should) */
		cs->top = e - 1;
	}
}

/* --- calls and samples into the file ------------------------------------ */

/* Each node adds to its site what it counted since: a site may have more
 * than one node (a function's node forgotten at an unload, made again),
 * and two threads may publish one node at once (its own, and the one the
 * process ends on): the one that moves published past a count adds the
 * difference, and a count older than published adds nothing. */
void counted_publish(struct counted *cs)
{
	uint32_t n = __atomic_load_n(&cs->nmade, __ATOMIC_ACQUIRE);

	for (uint32_t k = 0; k < n; k++) {
		uint64_t calls = __atomic_load_n(&cs->nodes[cs->made[k]].calls, __ATOMIC_RELAXED);
		struct cnode_cold *c = &cs->cold[cs->made[k]];
		uint64_t was = __atomic_load_n(&c->published, __ATOMIC_RELAXED);

		if (!c->rec)
			continue;
		while (calls > was && !__atomic_compare_exchange_n(&c->published, &was, calls, 0,
								    __ATOMIC_RELAXED, __ATOMIC_RELAXED))
			;
		if (calls > was)
			__atomic_add_fetch(&c->rec->calls, calls - was, __ATOMIC_RELAXED);
	}
}

void counted_after_fork(struct counted *cs)
{
	for (uint32_t k = 0; k < cs->nmade; k++) {
		__atomic_store_n(&cs->nodes[cs->made[k]].calls, 0, __ATOMIC_RELAXED);
		__atomic_store_n(&cs->cold[cs->made[k]].published, 0, __ATOMIC_RELAXED);
	}
}

static void add_time(struct rf_site *s, uint64_t incl, uint64_t excl)
{
	uint32_t seq = rf_site_write_begin(s);

	store(&s->v[0].incl, load(&s->v[0].incl) + incl);
	store(&s->v[0].excl, load(&s->v[0].excl) + excl);
	rf_site_write_end(s, seq);
}

void counted_sample(uintptr_t pc, uint64_t ns)
{
	struct counted *cs = shim_tls.counted;
	const struct centry *top, *e;
	const struct cnode *prev = NULL;
	struct rf_site *s;

	if (!cs)
		return;
	if (++cs->samples % PUBLISH_EVERY == 0)
		counted_publish(cs);
	if (self_holds(pc))	/* the hooks' own time */
		return;
	top = cs->top <= LAST(cs) ? cs->top : LAST(cs);
	/* each open node once: an entry of a function not recorded holds its
	 * parent's node, next to it */
	for (e = cs->stack + 1; e <= top; prev = e->node, e++)
		if (e->node != prev && e->node != top->node && (s = rec_of(cs, e->node)))
			add_time(s, ns, 0);
	if ((s = rec_of(cs, top->node)))
		add_time(s, ns, ns);
}
