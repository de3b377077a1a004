/* The function hooks' own cost. A function built with
 * -finstrument-functions calls __cyg_profile_func_enter(itself, its
 * return address) first and __cyg_profile_func_exit(the same) last, so
 * what its hooks cost around the counter reads lands in the function
 * (the tail of the enter, the head of the exit) and in its caller (the
 * rest: the calls, the look-up of the function, the begin and end
 * around the reads). That path is not the markers' (calibrate.c's
 * macros): a table look-up per hook, a call through the PLT into an
 * exported function, a begin keyed by the call site. So it is measured
 * through the hooks themselves, by functions here that call them the
 * way the compiler's code does, recorded under the shim's own names
 * (seeded into the functions' table, their sites hidden), once, at the
 * first function met. */
#include "functions.h"

#include "base/arch.h"

#include "lifecycle/calibrate.h"
#include "lifecycle/threads.h"
#include "regions/guard.h"
#include "regions/names.h"

#define EMPTY "pmcshim:calibration-fn-empty"
#define PARENT "pmcshim:calibration-fn-parent"
#define CHILD "pmcshim:calibration-fn-child"

#define READS 256
#define PAIRS 64
#define BATCHES 8

static int taken;
uint64_t functions_read_ticks;

/* As gcc instruments a function: its own address, its return address. */
#define ENTER(fn) __cyg_profile_func_enter((void *)(fn), __builtin_return_address(0))
#define EXIT(fn) __cyg_profile_func_exit((void *)(fn), __builtin_return_address(0))

static __attribute__((noinline)) void fn_empty(void)
{
	ENTER(fn_empty);
	__asm__ __volatile__("" ::: "memory");
	EXIT(fn_empty);
}

static __attribute__((noinline)) void fn_child(void)
{
	ENTER(fn_child);
	__asm__ __volatile__("" ::: "memory");
	EXIT(fn_child);
}

static __attribute__((noinline)) void fn_parent(void)
{
	ENTER(fn_parent);
	fn_child();
	EXIT(fn_parent);
}

/* The same pairs, every hook timed: the cheapest of BATCHES batches'
 * means (functions.c's), into *in and *child. */
static void timed_pairs(uint64_t *in, uint64_t *child)
{
	uint64_t bin, bchild;

	*in = *child = UINT64_MAX;
	for (int b = 0; b < BATCHES; b++) {
		for (int i = 0; i < PAIRS; i++) {
			functions_time_next();
			fn_empty();
			functions_time_next();
			fn_parent();	/* (its child's exit is the one timed) */
		}
		if (functions_timed(&bin, &bchild)) {
			*in = bin < *in ? bin : *in;
			*child = bchild < *child ? bchild : *child;
		}
	}
}

static int run(uint32_t thread, struct calibration *out)
{
	struct calibration_pairs pairs = { .empty = fn_empty, .parent = fn_parent, .mean = 1 };
	uint64_t in, child;
	int seeded;

	if (!guard_enter())
		return -1;
	pairs.empty_id = names_intern_own(EMPTY);
	pairs.parent_id = names_intern_own(PARENT);
	pairs.child_id = names_intern_own(CHILD);
	seeded = pairs.empty_id && pairs.parent_id && pairs.child_id &&
		 functions_seed((uintptr_t)fn_empty, pairs.empty_id) &&
		 functions_seed((uintptr_t)fn_parent, pairs.parent_id) &&
		 functions_seed((uintptr_t)fn_child, pairs.child_id);
	guard_leave();
	if (!seeded || calibrate_pairs(thread, &pairs, out) != 0)
		return -1;
	timed_pairs(&in, &child);
	calibrate_hide(thread, pairs.empty_id);
	calibrate_hide(thread, pairs.parent_id);
	calibrate_hide(thread, pairs.child_id);
	if (in != UINT64_MAX && child != UINT64_MAX)
		functions_glue((int64_t)out->in[0] - (int64_t)in,
			       (int64_t)out->child[0] - (int64_t)child);
	return 0;
}

/* The cheapest mean of BATCHES batches of READS reads back to back (a
 * mean: a VM's tick counter moves in steps as long as a read). */
static uint64_t read_cost(void)
{
	uint64_t best = UINT64_MAX;

	for (int b = 0; b < BATCHES; b++) {
		uint64_t first = arch_ticks(), last = first;

		for (int i = 0; i < READS; i++)
			last = arch_ticks();
		best = (last - first) / READS < best ? (last - first) / READS : best;
	}
	return best;
}

void functions_calibrate(void)
{
	if (guard_busy() || __atomic_load_n(&taken, __ATOMIC_RELAXED) ||
	    __atomic_exchange_n(&taken, 1, __ATOMIC_ACQ_REL))
		return;
	__atomic_store_n(&functions_read_ticks, read_cost(), __ATOMIC_RELAXED);
	threads_calibrate_functions(run);
}
