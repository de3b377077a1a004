/* Each source is calibrated through its own path. The markers' runs
 * through the same macros an application uses, so the instructions
 * between a begin's counter read and an end's are exactly those of an
 * application's pair (for the same compiler and flags); at a stack depth
 * above 0 the stack walk depends on where the pair is, and the
 * calibration is an estimate. Each value is the cheapest of REPS calls:
 * interruptions only ever add to a call. Another source hands its own
 * pairs (calibrate_pairs), and may ask for the cheapest mean of BATCHES
 * batches of REPS calls instead: where the clock moves in steps as long
 * as the call (a VM's tick counter: ~10 ns), the cheapest call is a
 * step too low or too high, and a mean over many calls is not. */
#include <signal.h>
#include <string.h>

#include "../../include/pmcshim.h"
#include "calibrate.h"
#include "regions/guard.h"
#include "report/mapfile.h"
#include "regions/names.h"

#define REPS 64
#define BATCHES 16
#define EMPTY "pmcshim:calibration-empty"
#define PARENT "pmcshim:calibration-parent"
#define CHILD "pmcshim:calibration-child"

const struct pmcshim_api *pmcshim_api(unsigned version);

__attribute__((noinline)) static void empty_pair(void)
{
	PMCSHIM_BEGIN(EMPTY);
	PMCSHIM_END(EMPTY);
}

__attribute__((noinline)) static void parent_pair(void)
{
	PMCSHIM_BEGIN(PARENT);
	PMCSHIM_BEGIN(CHILD);
	PMCSHIM_END(CHILD);
	PMCSHIM_END(PARENT);
}

struct site_key {
	uint32_t thread, region;
};

static int is_site(const struct rf_record *r, const void *arg)
{
	const struct site_key *k = arg;
	const struct rf_site *s = (const struct rf_site *)r;

	return r->type == RF_SITE && s->thread == k->thread && s->region == k->region;
}

/* The site of region `id` in thread; hidden from readers once read. */
static struct rf_site *take_site(uint32_t thread, uint32_t id)
{
	struct site_key k = { thread, id };
	struct rf_site *s = (struct rf_site *)mapfile_find(is_site, &k);

	if (s)
		mapfile_hide(&s->r);
	return s;
}

/* The pairs, with every signal that can come from outside held back: a
 * handler that marks (a profiler's timer, a 20 us SIGALRM) would nest its
 * regions in the calibration's, which are then hidden, and leave a tree
 * whose parents a reader cannot find. The handler runs right after. The
 * signals a fault raises stay open: blocked, they would kill the process
 * (a cut report's SIGBUS is mended by the shim's handler). */
static void run_pairs(const struct calibration_pairs *p)
{
	static const int faults[] = { SIGBUS, SIGSEGV, SIGILL, SIGFPE, SIGTRAP };
	sigset_t outside, was;

	sigfillset(&outside);
	for (unsigned i = 0; i < sizeof(faults) / sizeof(faults[0]); i++)
		sigdelset(&outside, faults[i]);
	pthread_sigmask(SIG_BLOCK, &outside, &was);
	for (int i = 0; i < REPS; i++) {
		p->empty();
		p->parent();
	}
	pthread_sigmask(SIG_SETMASK, &was, NULL);
}

void calibrate_hide(uint32_t thread, uint32_t id)
{
	while (take_site(thread, id))
		;
}

/* The cheapest of REPS calls: the minimum each site keeps. */
static void cheapest_call(const struct rf_site *e, const struct rf_site *p,
			  struct calibration *out)
{
	for (uint32_t i = 0; i < e->nvalues && i <= RF_EVENTS_MAX; i++) {
		uint64_t in = e->v[i].min, twice = 2 * in;
		out->in[i] = in;
		out->child[i] = p->v[i].min > twice ? p->v[i].min - twice : 0;
	}
}

/* The cheapest mean of BATCHES batches of REPS calls (the first batch
 * made the sites: run again), from the sums the sites keep. */
static void cheapest_mean(const struct calibration_pairs *pairs, const struct rf_site *e,
			  const struct rf_site *p, struct calibration *out)
{
	uint64_t e_best[RF_EVENTS_MAX + 1], p_best[RF_EVENTS_MAX + 1];
	uint64_t e_was[RF_EVENTS_MAX + 1], p_was[RF_EVENTS_MAX + 1];
	uint32_t n = e->nvalues <= RF_EVENTS_MAX + 1 ? e->nvalues : RF_EVENTS_MAX + 1;

	for (uint32_t i = 0; i < n; i++) {
		e_best[i] = p_best[i] = UINT64_MAX;
		e_was[i] = e->v[i].incl, p_was[i] = p->v[i].incl;
	}
	for (int b = 0; b < BATCHES; b++) {
		run_pairs(pairs);
		for (uint32_t i = 0; i < n; i++) {
			uint64_t em = (e->v[i].incl - e_was[i]) / REPS;
			uint64_t pm = (p->v[i].incl - p_was[i]) / REPS;

			e_best[i] = em < e_best[i] ? em : e_best[i];
			p_best[i] = pm < p_best[i] ? pm : p_best[i];
			e_was[i] = e->v[i].incl, p_was[i] = p->v[i].incl;
		}
	}
	for (uint32_t i = 0; i < n; i++) {
		out->in[i] = e_best[i];
		out->child[i] = p_best[i] > 2 * e_best[i] ? p_best[i] - 2 * e_best[i] : 0;
	}
}

int calibrate_pairs(uint32_t thread, const struct calibration_pairs *pairs,
		    struct calibration *out)
{
	struct rf_site *e, *p;

	run_pairs(pairs);
	e = take_site(thread, pairs->empty_id);
	p = take_site(thread, pairs->parent_id);
	take_site(thread, pairs->child_id);
	if (!e || !p || e->calls != REPS || p->calls != REPS || e->nvalues != p->nvalues)
		return -1;
	memset(out, 0, sizeof(*out));
	if (pairs->mean)
		cheapest_mean(pairs, e, p, out);
	else
		cheapest_call(e, p, out);
	out->calls = REPS;
	return 0;
}

int calibrate_run(uint32_t thread, struct calibration *out)
{
	struct calibration_pairs pairs = { .empty = empty_pair, .parent = parent_pair };

	pmcshim_api_ = pmcshim_api(PMCSHIM_API_VERSION);
	if (!pmcshim_api_)
		return -1;
	/* the application's names limit is not spent on these; the names
	 * lock is taken inside the guard, as everywhere (a marker in a signal
	 * handler must not wait on it) */
	if (!guard_enter())
		return -1;
	pairs.empty_id = names_intern_own(EMPTY);
	pairs.parent_id = names_intern_own(PARENT);
	pairs.child_id = names_intern_own(CHILD);
	guard_leave();
	return calibrate_pairs(thread, &pairs, out);
}
