/* What sample.c (the events, the signal) and take.c (the handler) share. */
#ifndef PMCSHIM_SAMPLE_IMPL_H
#define PMCSHIM_SAMPLE_IMPL_H

#include <signal.h>
#include <stdint.h>

#include "format/reportfile.h"

#define SAMPLE_DEPTH 32		/* pc words per slot: the interrupted pc and 31 above */
#define SAMPLE_SLOTS_MAIN 2048	/* distinct stacks a thread keeps (power of two) */
#define SAMPLE_SLOTS 512	/* the same, for threads other than the main one */

struct counters;

/* The calling thread's sampler. */
struct sampler {
	int fd;				/* its event; -1: not sampled */
	int armed;			/* the handler re-arms the event */
	struct rf_samples *rec;		/* its table, in the report file */
	uint32_t mask;			/* rec->nslots - 1 */
	int reg;			/* its entry in sample.c's registry, or -1 */
	/* Its counters, read at each sample (rf_sample_values): nvalues of
	 * them, the open events in order; last holds what they read at the
	 * thread's previous sample (have_last 0: no previous read) */
	const struct counters *ctr;
	int nvalues;
	int have_last;
	uint64_t last[RF_EVENTS_MAX];
};
extern __thread struct sampler sample_tls;

extern int sample_signal;		/* the signal: 0 until chosen */
extern int sample_stopped;		/* the application took it (atomic) */

/* take.c: the handler (SA_SIGINFO). */
void sample_on_signal(int sig, siginfo_t *si, void *uc);
/* sample.c: a signal with our number the kernel did not send for an
 * event (kill, sigqueue): what it would have done without the shim. */
void sample_pass_on(int sig);

#endif
