/* Calibration runs through the same macros an application uses, so the
 * instructions between a begin's counter read and an end's are exactly
 * those of an application's pair (for the same compiler and flags); at a
 * stack depth above 0 the stack walk depends on where the pair is, and
 * the calibration is an estimate. Each value is the cheapest of REPS
 * calls: interruptions only ever add to a call. */
#include <signal.h>
#include <string.h>

#include "../../include/pmcshim.h"
#include "calibrate.h"
#include "regions/guard.h"
#include "report/mapfile.h"
#include "regions/names.h"

#define REPS 64
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
static void run_pairs(void)
{
	static const int faults[] = { SIGBUS, SIGSEGV, SIGILL, SIGFPE, SIGTRAP };
	sigset_t outside, was;

	sigfillset(&outside);
	for (unsigned i = 0; i < sizeof(faults) / sizeof(faults[0]); i++)
		sigdelset(&outside, faults[i]);
	pthread_sigmask(SIG_BLOCK, &outside, &was);
	for (int i = 0; i < REPS; i++) {
		empty_pair();
		parent_pair();
	}
	pthread_sigmask(SIG_SETMASK, &was, NULL);
}

int calibrate_run(uint32_t thread, struct calibration *out)
{
	struct rf_site *e, *p;
	uint32_t e_id, p_id, c_id;

	pmcshim_api_ = pmcshim_api(PMCSHIM_API_VERSION);
	if (!pmcshim_api_)
		return -1;
	/* the application's names limit is not spent on these; the names
	 * lock is taken inside the guard, as everywhere (a marker in a signal
	 * handler must not wait on it) */
	if (!guard_enter())
		return -1;
	e_id = names_intern_own(EMPTY);
	p_id = names_intern_own(PARENT);
	c_id = names_intern_own(CHILD);
	guard_leave();
	run_pairs();
	e = take_site(thread, e_id);
	p = take_site(thread, p_id);
	take_site(thread, c_id);
	if (!e || !p || e->calls != REPS || p->calls != REPS || e->nvalues != p->nvalues)
		return -1;
	memset(out, 0, sizeof(*out));
	for (uint32_t i = 0; i < e->nvalues && i <= RF_EVENTS_MAX; i++) {
		uint64_t in = e->v[i].min, twice = 2 * in;
		out->in[i] = in;
		out->child[i] = p->v[i].min > twice ? p->v[i].min - twice : 0;
	}
	out->calls = REPS;
	return 0;
}
