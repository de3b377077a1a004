/* Function regions counted, not timed: the slow paths, the samples and
 * the calls' publishing (the scheme and the warm paths: counted.h). */
#include <link.h>
#include <string.h>
#include <sys/mman.h>

#include "counted.h"
#include "regions_impl.h"

#include "entry.h"
#include "report/mapfile.h"
#include "stacks/fpwalk.h"

#define STACK_CAP 65536			/* entries kept: calls open at once */
/* The table's slots: 2 MB of address space a thread, a huge page where
 * the kernel gives one (a TLB miss per call otherwise, on Lua 5.4's
 * 6,600 paths), else its pages touched where nodes are. Paths past
 * MADE_MAX (3/4 of the slots), or past PROBES slots from their own, are
 * not recorded: their time and calls are their parent's, and counted as
 * dropped. */
#define SLOTS 32768
#define MADE_MAX (SLOTS / 4 * 3)
#define PROBES 16
#define PUBLISH_EVERY 16		/* samples (16 ms of CPU at the default rate) */
#define TABLE_BYTES (SLOTS * sizeof(struct cnode))
#define HUGE (2u << 20)			/* a huge page: the table aligned to it */
/* The table, then the stack's entries (and the overflow entry), in one
 * mapping, touched as they are used. */
#define MAPPED (TABLE_BYTES + HUGE + (STACK_CAP + 1) * sizeof(struct centry))

unsigned long counted_epoch;

/* The shim's own code, [lo, hi): a sample there is the hooks' time. */
static uintptr_t shim_lo, shim_hi;

static int find_self(struct dl_phdr_info *info, size_t size, void *arg)
{
	uintptr_t self = (uintptr_t)arg;

	(void)size;
	for (int i = 0; i < info->dlpi_phnum; i++) {
		const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
		uintptr_t lo = info->dlpi_addr + ph->p_vaddr;

		if (ph->p_type == PT_LOAD && (ph->p_flags & PF_X) && self >= lo &&
		    self < lo + ph->p_memsz) {
			__atomic_store_n(&shim_lo, lo, __ATOMIC_RELAXED);
			__atomic_store_n(&shim_hi, lo + ph->p_memsz, __ATOMIC_RELAXED);
			return 1;
		}
	}
	return 0;
}

struct counted *counted_of(struct region_state *rs)
{
	struct counted *cs = rs->counted;
	void *nodes;

	if (cs)
		return cs;
	/* (not from the handler: dl_iterate_phdr takes the loader's lock) */
	if (!__atomic_load_n(&shim_hi, __ATOMIC_RELAXED))
		dl_iterate_phdr(find_self, (void *)(uintptr_t)counted_of);
	cs = arena_alloc(&rs->arena, sizeof(*cs));
	if (!cs || !(cs->made = arena_alloc(&rs->arena, MADE_MAX * sizeof(cs->made[0]))))
		return NULL;
	nodes = mmap(NULL, MAPPED, PROT_READ | PROT_WRITE,
		     MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
	if (nodes == MAP_FAILED)
		return NULL;
	cs->epoch = __atomic_load_n(&counted_epoch, __ATOMIC_RELAXED);
	cs->mapped = nodes;
	cs->nodes = (void *)(((uintptr_t)nodes + HUGE - 1) & ~(uintptr_t)(HUGE - 1));
	madvise(cs->nodes, TABLE_BYTES, MADV_HUGEPAGE);
	cs->stack = (struct centry *)(cs->nodes + SLOTS);
	cs->mask = SLOTS - 1;
	cs->shift = 64 - __builtin_ctz(SLOTS);
	cs->rs = rs;
	cs->root.as = &cs->root;
	cs->stack[0] = (struct centry){ &cs->root, 0, UINTPTR_MAX };
	cs->top = cs->stack;
	cs->last = &cs->stack[STACK_CAP - 1];
	rs->counted = cs;
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

/* The node of fn under parent, made the first time (its site in the file
 * too, where fn is recorded, at call site site); NULL where it has no
 * room. */
static struct cnode *node(struct counted *cs, struct cnode *parent, uintptr_t fn,
			  uintptr_t site, uint32_t id)
{
	uintptr_t i = counted_slot(cs, parent, fn);
	struct cnode *n = NULL;

	for (int k = 0; k < PROBES; k++, i = (i + 1) & cs->mask) {
		n = &cs->nodes[i];
		if (!n->parent)
			break;
		if (counted_is(n, parent, fn))
			return n;
	}
	if (n->parent || cs->nmade >= MADE_MAX) {
		mapfile_drop(RF_DROP_FUNCTIONS);
		return NULL;
	}
	n->site = site, n->fn = fn, n->region = id;
	n->rec = id ? sites_find_call(&cs->rs->sites, id, site, parent->rec) : NULL;
	n->as = n->rec ? n : parent->as;
	if (id && !n->rec)	/* no room in the file */
		mapfile_drop(RF_DROP_FULL);
	__atomic_store_n(&n->parent, parent, __ATOMIC_RELEASE);
	cs->made[cs->nmade] = (uint32_t)i;
	__atomic_store_n(&cs->nmade, cs->nmade + 1, __ATOMIC_RELEASE);
	return n;
}

void counted_unloaded(void)
{
	__atomic_add_fetch(&counted_epoch, 1, __ATOMIC_RELAXED);
}

/* The nodes made before an unload no longer match a function (fn 0: none
 * is there); they keep their slots, their calls and their sites, and the
 * entries open on them their parents. */
static void forget_nodes(struct counted *cs)
{
	cs->epoch = __atomic_load_n(&counted_epoch, __ATOMIC_RELAXED);
	for (uint32_t k = 0; k < cs->nmade; k++)
		cs->nodes[cs->made[k]].fn = 0;
}

/* --- entries left behind ---------------------------------------------- */

/* Pop the entries above e, whose exits were not seen (longjmp, an
 * exception): each recorded one counts as resynchronised. */
static void pop_to(struct counted *cs, struct centry *e)
{
	for (struct centry *x = cs->top; x > e; x--)
		if (x->fn && x->node->rec && (x == cs->stack + 1 || x[-1].node != x->node))
			regions_record_error(cs->rs, RF_ERR_RESYNC, x->node->region, 0, 1);
	cs->top = e;
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
	struct centry *top = cs->top;
	struct cnode *n;

	if (top > cs->last) {		/* the overflow entry */
		cs->deep++;
		return;
	}
	if (top == cs->last) {
		top[1] = (struct centry){ top->node, 0, 0 };
		cs->deep = 1;
		cs->top = top + 1;
		regions_record_error(cs->rs, RF_ERR_TOO_DEEP, id, 0, 1);
		return;
	}
	if (cs->epoch != __atomic_load_n(&counted_epoch, __ATOMIC_RELAXED))
		forget_nodes(cs);
	if (sp > top->sp) {
		left_behind(cs, sp);
		top = cs->top;
	}
	n = node(cs, top->node, fn, site, id);
	if (n)
		__atomic_store_n(&n->calls, n->calls + 1, __ATOMIC_RELAXED);
	top[1] = (struct centry){ n ? n->as : top->node, fn, sp };
	__atomic_signal_fence(__ATOMIC_RELEASE);
	cs->top = top + 1;
}

void counted_exit(struct counted *cs, uintptr_t fn)
{
	struct centry *e;

	if (cs->top > cs->last) {
		if (--cs->deep == 0)
			cs->top = cs->last;
		return;
	}
	/* the nearest entry of fn: those above it were left; none, a
	 * function entered before recording began */
	for (e = cs->top; e > cs->stack && e->fn != fn; e--)
		;
	if (e > cs->stack)
		pop_to(cs, e - 1);
}

/* --- calls and samples into the file ------------------------------------ */

void counted_publish(struct counted *cs)
{
	uint32_t n = __atomic_load_n(&cs->nmade, __ATOMIC_ACQUIRE);

	for (uint32_t k = 0; k < n; k++) {
		const struct cnode *x = &cs->nodes[cs->made[k]];
		uint64_t calls = __atomic_load_n(&x->calls, __ATOMIC_RELAXED);

		if (x->rec && __atomic_load_n(&x->rec->calls, __ATOMIC_RELAXED) != calls)
			__atomic_store_n(&x->rec->calls, calls, __ATOMIC_RELAXED);
	}
}

void counted_after_fork(struct counted *cs)
{
	for (uint32_t k = 0; k < cs->nmade; k++)
		__atomic_store_n(&cs->nodes[cs->made[k]].calls, 0, __ATOMIC_RELAXED);
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

	if (!cs)
		return;
	if (++cs->samples % PUBLISH_EVERY == 0)
		counted_publish(cs);
	if (pc >= __atomic_load_n(&shim_lo, __ATOMIC_RELAXED) &&
	    pc < __atomic_load_n(&shim_hi, __ATOMIC_RELAXED))
		return;
	top = cs->top <= cs->last ? cs->top : cs->last;
	/* each open node once: an entry of a function not recorded holds its
	 * parent's node, next to it */
	for (e = cs->stack + 1; e <= top; prev = e->node, e++)
		if (e->node != prev && e->node->rec && e->node != top->node)
			add_time(e->node->rec, ns, 0);
	if (top->node->rec)
		add_time(top->node->rec, ns, ns);
}
