/* Per-thread state: set up when a thread starts (constructor for the main
 * thread, the interposed pthread_create for the others) or lazily at its
 * first marker; finished when it ends; kept for the exit-time report. */
#ifndef PMCSHIM_THREADS_H
#define PMCSHIM_THREADS_H

#include <pthread.h>
#include <stdint.h>
#include <sys/types.h>

#include "config.h"
#include "counters.h"
#include "regions.h"

struct thread_state {
	struct thread_state *next;	/* registry, newest first */
	pid_t tid;
	int is_main;
	int lazy;			/* set up at its first marker */
	int busy;			/* inside a marker (signal-handler guard) */
	uint64_t reentrant;		/* markers dropped while busy (atomic) */
	int finished;			/* under rs.lock: totals below are final */
	uint64_t start_mono, end_mono;
	uint64_t start_cpu, cpu_ns;
	char name[16];
	int totals_ok;
	unsigned open_mask;		/* events open in this thread (bit i) */
	int lost;			/* a counter read failed (fd closed?) */
	uint64_t totals[EVENTS_MAX], enabled[EVENTS_MAX], running[EVENTS_MAX];
	struct counters ctr;
	struct region_state rs;
};

/* The calling thread's state; NULL until set up and after it finished. */
extern __thread struct thread_state *threads_tls;

/* Constructor: remember the settings and set up the main thread, which
 * fills status (what each event can do in this process). */
void threads_init(const struct config *cfg, struct event_status *status);
/* First marker of a thread not seen starting. NULL once it finished,
 * while it is being set up, or before threads_init. */
struct thread_state *threads_setup_lazy(void);
/* Process exit: finish the calling thread. */
void threads_finish_self(void);

/* Report: threads still running get their totals, CPU time and name as
 * of now (their state stays "running"). */
void threads_snapshot_running(void);
/* Report: fn runs for each thread with the registry locked and the
 * thread's rs.lock held. */
void threads_for_each(void (*fn)(struct thread_state *t, void *ctx), void *ctx);

/* fork(): see fork.c. */
void threads_lock_registry(void);
void threads_unlock_registry(void);
void threads_after_fork_child(void);

#endif
