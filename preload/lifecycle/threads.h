/* Per-thread state: set up when a thread starts (constructor for the main
 * thread, the interposed pthread_create for the others) or lazily at its
 * first marker, with an RF_THREAD record in the report file; finished when
 * it ends (its totals stored in the record, its memory freed). */
#ifndef PMCSHIM_THREADS_H
#define PMCSHIM_THREADS_H

#include <stdint.h>
#include <sys/types.h>

#include "base/arena.h"
#include "settings/config.h"
#include "counters/counters.h"
#include "regions/regions.h"
#include "format/reportfile.h"

struct thread_state {
	struct thread_state *next;	/* registry of unfinished threads */
	struct arena own;		/* the memory of this struct */
	pid_t tid;
	uint64_t start_cpu;
	uint64_t begin_faults;		/* its page faults as its counters opened */
	/* The shim's own work the thread's totals counted (the calibration,
	 * on the thread that names the first region), taken out of them at
	 * the end: CPU ns and each event. */
	uint64_t shim_cpu, shim_counts[EVENTS_MAX];
	struct rf_thread *rec;		/* in the report file */
	int named;			/* rec->name set by threads_name, kept */
	struct counters ctr;		/* what the markers read: config->events
					 * less those counted per thread only */
	struct region_state rs;
	/* config->per_thread's events: read at its end (totals), never by a
	 * marker; last, so that the markers' fields keep their places */
	struct counters tctr;
};

/* The calling thread's state; NULL until set up and after it finished. */
extern __thread struct thread_state *threads_tls;

/* Constructor: remember the settings and set up the main thread, which
 * fills status (what each event can do in this process). */
/* Note the main thread's CPU clock as the shim's setup begins: what it ran
 * before (exec, loading) is told apart in the report. */
void threads_note_begin(void);
void threads_init(const struct config *cfg, struct event_status *status);

struct calibration;
/* A source's own calibration, for the function hooks (-finstrument-functions):
 * run on the calling thread (set up, outside the guard), its cost taken
 * out of the thread's totals, the result stored in every thread record
 * (rf_thread.calib_fn_*), those of threads set up later too. Once per
 * process: the caller sees to it. */
void threads_calibrate_functions(int (*run)(uint32_t thread, struct calibration *out));
/* First marker of a thread not seen starting (guard held). NULL once it
 * finished, while it is being set up, or before threads_init. */
struct thread_state *threads_setup_lazy(void);

/* Name the calling thread in the report (an OpenMP team's "omp-0.3"),
 * not from its comm at the end; the thread itself keeps its name. */
void threads_name(struct thread_state *t, const char *name);

/* The process ends (exit, _exit, exec): store the calling thread's totals
 * (with close_open, its open regions become errors first, unless the
 * shim was interrupted on it) and every other thread's as a snapshot.
 * Takes no lock it could wait on forever. */
void threads_end_process(int close_open);
/* exec failed: the threads go on (their records say running again). */
void threads_resume(void);

/* fn on every thread not finished, the registry locked (fn takes no
 * lock the registry's holders may wait on). */
void threads_each(void (*fn)(struct thread_state *t));
/* fork(): see fork.c. */
void threads_lock_registry(void);
void threads_unlock_registry(void);
/* Returns -1 when the child cannot record (no file of its own). */
int threads_after_fork_child(void);

#endif
