/* Function regions counted, not timed (PMCSHIM_FUNCTIONS=sampled): gprof's
 * design, exact calls and sampled time, with the regions' call tree.
 *
 * Timing a call costs two tick reads (~11 ns each on a VM) on top of the
 * hooks: more than gprof's whole cost per call. So here the hooks read
 * nothing. They keep a stack of their own, apart from the regions' frames:
 * each entry the node of the call tree entered, its function and the
 * stack pointer at its enter hook. A node is a call path: a function
 * under its parent node, from whichever call sites in the parent (the
 * timed hooks keep one site per call site: Lua 5.4 has 38,000 of those,
 * 6,600 paths of functions), with a site in the report file, made at the
 * first call site met.
 *
 * The nodes live in a table of the thread's, by a hash of their parent
 * and call site, one cache line each, made once and never moved (entries
 * and children point at them): the warm enter looks at the node's two
 * first slots, counts the call in the node and pushes an entry; the warm
 * exit pops the entry when it is the function's. One cache line touched
 * besides the stack's top: a call's cost here is the misses. Everything
 * else (a node not met yet or further on, a stack left by longjmp or an
 * exception, a stack too deep, a thread's first call) is the slow path,
 * counted.c, under the guard.
 *
 * Time comes from the sampler (task-clock, so that a sample stands for a
 * fixed CPU time): its handler, on the thread, gives the sample's ns to
 * the innermost entry's site as exclusive and to every open entry's site
 * as inclusive (counted_sample), unless the thread was interrupted in the
 * shim's own code: the hooks' time is theirs, as gprof leaves mcount's.
 * Those sites' v[0] therefore holds CPU ns, not wall ticks, and no
 * minimum or maximum (RF_FN_SAMPLED says so to the reader). The calls go
 * from the nodes into their sites (counted_publish) every few samples,
 * at the thread's end, at the process's, and at a snapshot. */
#ifndef PMCSHIM_COUNTED_H
#define PMCSHIM_COUNTED_H

#include <stdint.h>

#include "format/reportfile.h"

struct region_state;

struct cnode {
	/* its key: NULL in an empty slot (set last, release: a thread that
	 * publishes another's nodes reads it first) */
	const struct cnode *parent;
	uintptr_t fn;
	uintptr_t site;			/* the first call's (its site's) */
	uint64_t calls;			/* relaxed: counted_publish may read them */
	/* What an entry for it holds: itself, or for a function not recorded
	 * (PMCSHIM_FUNCTIONS left it out, no room) its parent's, so that its
	 * callees are its parent's children. */
	struct cnode *as;
	struct rf_site *rec;		/* NULL: not recorded */
	uint32_t region;
	uint32_t pad[3];		/* a cache line each: the table is page aligned */
};
_Static_assert(sizeof(struct cnode) == 64, "a node is a cache line");

struct centry {
	struct cnode *node;		/* cnode.as of the function entered */
	uintptr_t fn;			/* 0 in the root and the overflow entry */
	uintptr_t sp;			/* at its enter hook */
};

struct counted {
	/* The innermost entry: stack[0] is the root, never popped (fn 0,
	 * sp the highest address: every exit misses it, no enter passes it).
	 * Past last, one entry more stands for the calls too deep to keep
	 * (fn 0 again: its exits take the slow path, which counts them). */
	struct centry *top;
	struct centry *last;
	struct cnode *nodes;		/* the table: mask + 1 slots */
	void *mapped;			/* where it lies */
	uintptr_t mask;
	unsigned shift;			/* 64 - log2(slots) */
	uint64_t deep;			/* calls open past last */
	unsigned long epoch;		/* counted_epoch when its nodes were last good */
	uint32_t samples;		/* taken: every COUNTED_PUBLISH-th publishes */
	uint32_t nmade;			/* nodes in made[] (release) */
	uint32_t *made;			/* their slots, in the order made */
	struct region_state *rs;
	struct cnode root;
	struct centry *stack;
};

/* A node's first slot, by its parent and function: the top bits of a
 * product, not a mix by xor alone, which a recursive call undoes (the
 * grandchild's slot would be its grandparent's). */
static inline uintptr_t counted_slot(const struct counted *cs, const struct cnode *parent,
				     uintptr_t fn)
{
	return (uintptr_t)(((uint64_t)(fn ^ (uintptr_t)parent) * UINT64_C(0x9E3779B97F4A7C15)) >>
			   cs->shift);
}

static inline int counted_is(const struct cnode *n, const struct cnode *parent, uintptr_t fn)
{
	return n->parent == parent && n->fn == fn;
}

/* Bumped when code that functions were met in is unloaded: a function
 * loaded later at the same address is another (counted_unloaded). */
extern unsigned long counted_epoch __attribute__((visibility("hidden")));

/* The warm enter: 1 when done, 0 for the slow path (counted_enter). The
 * entry is whole before top moves past it: a sample that interrupts the
 * hook sees either stack, each consistent. */
static inline __attribute__((always_inline)) int counted_enter_warm(struct counted *cs,
								   uintptr_t fn, uintptr_t site,
								   uintptr_t sp)
{
	struct centry *top = cs->top;
	uintptr_t i = counted_slot(cs, top->node, fn);
	struct cnode *n = &cs->nodes[i];

	(void)site;
	if (__builtin_expect(top >= cs->last || sp > top->sp ||
			     cs->epoch != __atomic_load_n(&counted_epoch, __ATOMIC_RELAXED), 0))
		return 0;
	if (__builtin_expect(!counted_is(n, top->node, fn), 0)) {
		n = &cs->nodes[(i + 1) & cs->mask];
		if (!counted_is(n, top->node, fn))
			return 0;
	}
	__atomic_store_n(&n->calls, n->calls + 1, __ATOMIC_RELAXED);
	top[1] = (struct centry){ n->as, fn, sp };
	__atomic_signal_fence(__ATOMIC_RELEASE);
	cs->top = top + 1;
	return 1;
}

/* The warm exit: 1 when done, 0 for the slow path (counted_exit). */
static inline __attribute__((always_inline)) int counted_exit_warm(struct counted *cs,
								  uintptr_t fn)
{
	struct centry *top = cs->top;

	if (__builtin_expect(top->fn != fn, 0))
		return 0;
	cs->top = top - 1;
	return 1;
}

/* The thread's counted stack, made at its first call (NULL: no memory);
 * its table is unmapped by counted_release, with the region state. */
struct counted *counted_of(struct region_state *rs);
void counted_release(struct counted *cs);
/* The slow paths, guard held by the caller: a call of fn (region id, 0
 * where not recorded) from site, its enter hook's stack pointer sp; the
 * exit of fn. */
void counted_enter(struct counted *cs, uintptr_t fn, uintptr_t site, uintptr_t sp, uint32_t id);
void counted_exit(struct counted *cs, uintptr_t fn);
/* From the sampler's handler, the shim not busy on the thread: ns of CPU
 * time to the thread's open functions, unless pc (where the thread was
 * interrupted) is in the shim's code. */
void counted_sample(uintptr_t pc, uint64_t ns);
/* The nodes' calls into their sites: by the thread itself, or by another
 * at the process's end (the thread's nodes are never moved or freed while
 * it is registered). */
void counted_publish(struct counted *cs);
/* Code was unloaded (any thread): every thread's nodes are forgotten at
 * its next call (their counts stay in their sites). */
void counted_unloaded(void);
/* In a fork child, after its sites were zeroed: the nodes' calls too. */
void counted_after_fork(struct counted *cs);

#endif
