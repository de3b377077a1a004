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
 * and function, two to a cache line, made once and never moved (entries
 * and children point at them): the warm enter looks at the two nodes of
 * the node's first line, counts the call in the node and pushes an entry;
 * the warm exit pops the entry when it is the function's. One cache line
 * touched besides the stack's top: a call's cost here is the misses. Everything
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

/* A node: the fields the warm enter reads, two to a cache line (the
 * rest, cold, in counted.cold[] at the same index). */
struct cnode {
	/* its key: NULL in an empty slot (set last, release: a thread that
	 * publishes another's nodes reads it first) */
	const struct cnode *parent;
	uintptr_t fn;
	uint64_t calls;			/* relaxed: counted_publish may read them */
	/* What an entry for it holds: itself, or for a function not recorded
	 * (PMCSHIM_FUNCTIONS left it out, no room) its parent's, so that its
	 * callees are its parent's children. */
	struct cnode *as;
};
_Static_assert(sizeof(struct cnode) == 32, "two nodes to a cache line");

struct cnode_cold {
	struct rf_site *rec;		/* NULL: not recorded */
	uintptr_t site;			/* the first call's (its site's) */
	uint64_t published;		/* calls added to rec so far (atomic) */
	uint32_t region;
};

#define COUNTED_SLOTS_LOG 16		/* 65,536 slots: 2 MB, a huge page */
#define COUNTED_SLOTS (1u << COUNTED_SLOTS_LOG)
/* A node is looked for from its first slot, that slot's line (the other
 * node in it), then the lines after, two slots each (counted_probe). The
 * warm enter looks at the first line; counted_enter_near at the next
 * COUNTED_PROBES_WARM - 2 slots and, past them, at a small direct-mapped
 * cache of the thread's, by first slot. Few nodes lie past the first
 * line, but calls are not spread evenly. With a node a line, 64 bytes,
 * and 20% load, Lua 5.4 (27.2 M calls, 6,600 nodes) found 22% of its
 * calls' nodes past their first slot and 1 M past their fourth (8 nodes),
 * all of them the slow path's without the cache; with two a line, at 10%
 * load, its warm enters take 40 instructions on average (callgrind), the
 * way past the first line about 0.5 of them. */
#define COUNTED_PROBES_WARM 8
#define COUNTED_FAR 256

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
	struct centry *last;		/* &stack[STACK_CAP - 1] (counted.c) */
	struct cnode *nodes;		/* the table: COUNTED_SLOTS slots */
	struct cnode_cold *cold;	/* theirs, by the same index */
	void *mapped;			/* where they lie */
	uint64_t deep;			/* calls open past last */
	uint32_t samples;		/* taken: every COUNTED_PUBLISH-th publishes */
	uint32_t nmade;			/* nodes in made[] (release) */
	uint32_t *made;			/* their slots, in the order made */
	struct region_state *rs;
	struct cnode root;
	struct centry *stack;
	struct cnode *far[COUNTED_FAR];	/* nodes past COUNTED_PROBES_WARM */
};

/* A node's first slot, by its parent and function: the top bits of a
 * product, not a mix by xor alone, which a recursive call undoes (the
 * grandchild's slot would be its grandparent's). */
static inline uintptr_t counted_slot(const struct cnode *parent, uintptr_t fn)
{
	return (uintptr_t)(((uint64_t)(fn ^ (uintptr_t)parent) * UINT64_C(0x9E3779B97F4A7C15)) >>
			   (64 - COUNTED_SLOTS_LOG));
}

/* The k-th slot to look at from first slot i: i, the other in its line,
 * then the next lines' two. */
static inline uintptr_t counted_probe(uintptr_t i, unsigned k)
{
	return ((((i >> 1) + (k >> 1)) << 1) | ((i ^ k) & 1)) & (COUNTED_SLOTS - 1);
}

static inline int counted_is(const struct cnode *n, const struct cnode *parent, uintptr_t fn)
{
	/* (fn: 0 once its code was unloaded, from another thread) */
	return n->parent == parent && __atomic_load_n(&n->fn, __ATOMIC_RELAXED) == fn;
}

/* An entry pushed, every way one is. top moves first: an instrumented
 * signal handler that interrupts the push pushes its own entries past it
 * (had the entry been written first, the handler's would be written over
 * it, and taken for it). The sampler leaves alone a sample taken in the
 * shim's code, where the entry may not be written. */
static inline __attribute__((always_inline)) void counted_push_entry(struct counted *cs,
								    struct cnode *node,
								    uintptr_t fn, uintptr_t sp)
{
	struct centry *top = cs->top;

	cs->top = top + 1;
	__atomic_signal_fence(__ATOMIC_SEQ_CST);
	top[1] = (struct centry){ node, fn, sp };
}

/* A call of node n: counted, and its entry pushed. */
static inline __attribute__((always_inline)) void counted_push(struct counted *cs,
							      struct cnode *n, uintptr_t fn,
							      uintptr_t sp)
{
	__atomic_store_n(&n->calls, n->calls + 1, __ATOMIC_RELAXED);
	counted_push_entry(cs, n->as, fn, sp);
}

/* The warm enter of a node not in its first slot: 1 when done, 0 for
 * the slow path. For a function of its own (the hook's tail), so that the
 * way to the first slot saves as few registers as it can (with its loop
 * inline, GCC 12 saved three). */
static inline int counted_enter_near(struct counted *cs, uintptr_t fn, uintptr_t sp)
{
	const struct cnode *parent = cs->top->node;
	uintptr_t i = counted_slot(parent, fn);
	struct cnode *n;

	for (unsigned k = 2; k < COUNTED_PROBES_WARM; k++) {
		n = &cs->nodes[counted_probe(i, k)];
		if (counted_is(n, parent, fn)) {
			counted_push(cs, n, fn, sp);
			return 1;
		}
	}
	n = cs->far[i & (COUNTED_FAR - 1)];
	if (!n || !counted_is(n, parent, fn))
		return 0;
	counted_push(cs, n, fn, sp);
	return 1;
}

/* The warm enter: 1 when done, -1 when the node is not in its first
 * slot (counted_enter_near next), 0 for the slow path (counted_enter). */
static inline __attribute__((always_inline)) int counted_enter_warm(struct counted *cs,
								   uintptr_t fn, uintptr_t site,
								   uintptr_t sp)
{
	struct centry *top = cs->top;
	uintptr_t i = counted_slot(top->node, fn);
	struct cnode *n = &cs->nodes[i];

	(void)site;
	if (__builtin_expect(top >= cs->last || sp > top->sp, 0))
		return 0;
	if (__builtin_expect(!counted_is(n, top->node, fn), 0)) {
		n = &cs->nodes[i ^ 1];	/* (the same line) */
		if (!counted_is(n, top->node, fn))
			return -1;
	}
	counted_push(cs, n, fn, sp);
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
/* Code was unloaded (by any thread, with the registry locked: cs's thread
 * is registered): the nodes of the functions gone(fn) says were in it no
 * longer match a call (a function loaded later at one's address is
 * another); their counts stay in their sites. */
void counted_unloaded(struct counted *cs, int (*gone)(uintptr_t fn));
/* In a fork child, after its sites were zeroed: the nodes' calls too. */
void counted_after_fork(struct counted *cs);

#endif
