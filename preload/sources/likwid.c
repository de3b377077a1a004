/* LIKWID's marker API as regions (source "likwid"). A program built with
 * -DLIKWID_PERFMON and linked with liblikwid calls likwid_markerStartRegion
 * and the others; the shim, preloaded, defines them first, so its calls
 * come here and liblikwid is never initialised (it would print "Running
 * without Marker API" outside likwid-perfctr, or take the counters).
 * Signatures and return values are LIKWID 5's (likwid.h): 0 for success.
 *
 * With PMCSHIM_LIKWID=0, or when the shim does not record, each call goes
 * on to liblikwid's definition, as without the shim. The choice is made
 * once, at setup, so one program never mixes the two. */

#include "annot.h"
#include "base/nextsym.h"
#include "lifecycle/hooks.h"
#include "settings/config.h"

#define EXPORT __attribute__((visibility("default")))

static int taken;			/* the shim takes the calls */

static void likwid_setup(const struct config *c)
{
	taken = c->likwid;
}

__attribute__((constructor)) static void likwid_register(void)
{
	static const struct shim_hooks hooks = { .setup = likwid_setup };

	hooks_register(&hooks);
}

/* Calls that change nothing the shim keeps: the shim sets its threads up
 * itself, counts every event at once (no groups to switch) and writes
 * its report at the end. */
#define PASS_VOID(fn)							\
	EXPORT void fn(void)						\
	{								\
		static void *slot;					\
		void (*real)(void);					\
									\
		if (!__atomic_load_n(&taken, __ATOMIC_RELAXED) &&	\
		    (*(void **)&real = nextsym_once(&slot, #fn)))		\
			real();						\
	}

PASS_VOID(likwid_markerInit)
PASS_VOID(likwid_markerThreadInit)
PASS_VOID(likwid_markerNextGroup)
PASS_VOID(likwid_markerClose)

/* A call liblikwid gets when the shim does not take it; 0 when it has
 * none. */
static int pass_tag(void **slot, const char *name, const char *tag)
{
	int (*real)(const char *);

	*(void **)&real = nextsym_once(slot, name);
	return real ? real(tag) : 0;
}

EXPORT int likwid_markerRegisterRegion(const char *tag)
{
	static void *slot;

	if (__atomic_load_n(&taken, __ATOMIC_RELAXED)) {
		annot_id(tag, RF_FROM_LIKWID);	/* named now: no lock at its start */
		return 0;
	}
	return pass_tag(&slot, "likwid_markerRegisterRegion", tag);
}

EXPORT int likwid_markerStartRegion(const char *tag)
{
	static void *slot;

	if (__atomic_load_n(&taken, __ATOMIC_RELAXED)) {
		annot_begin(tag, RF_FROM_LIKWID, (uintptr_t)__builtin_return_address(0));
		return 0;
	}
	return pass_tag(&slot, "likwid_markerStartRegion", tag);
}

EXPORT int likwid_markerStopRegion(const char *tag)
{
	static void *slot;

	if (__atomic_load_n(&taken, __ATOMIC_RELAXED)) {
		annot_end(tag, RF_FROM_LIKWID);
		return 0;
	}
	return pass_tag(&slot, "likwid_markerStopRegion", tag);
}

/* The report keeps every call: a reset erases nothing there (and so
 * likwid_markerGetRegion goes on giving the whole run's values). */
EXPORT int likwid_markerResetRegion(const char *tag)
{
	static void *slot;

	if (__atomic_load_n(&taken, __ATOMIC_RELAXED))
		return 0;
	return pass_tag(&slot, "likwid_markerResetRegion", tag);
}

/* The calling thread's values of region tag: *count calls, *time the
 * inclusive wall seconds, events[0 .. *nr_events) the counts of the
 * shim's events in their order (*nr_events becomes how many). */
EXPORT void likwid_markerGetRegion(const char *tag, int *nr_events, double *events,
				   double *time, int *count)
{
	static void *slot;
	void (*real)(const char *, int *, double *, double *, int *);
	uint64_t calls;
	int n = nr_events && events ? *nr_events : 0;

	if (!__atomic_load_n(&taken, __ATOMIC_RELAXED)) {
		if ((*(void **)&real = nextsym_once(&slot, "likwid_markerGetRegion")))
			real(tag, nr_events, events, time, count);
		return;
	}
	annot_sums(tag, RF_FROM_LIKWID, &calls, time ? time : &(double){ 0 }, events, &n);
	if (nr_events)
		*nr_events = n;
	if (count)
		*count = calls > (uint64_t)__INT_MAX__ ? __INT_MAX__ : (int)calls;
}
