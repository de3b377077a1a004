/* Sampling (PMCSHIM_SAMPLE=HZ): where a program's time goes by function,
 * without markers. Each thread has an overflow event of its own (cycles
 * with a PMU, else task-clock) that signals that thread with a real-time
 * signal the application has no handler for; the handler records the
 * interrupted stack, under the thread's innermost open region, in the
 * thread's RF_SAMPLES table in the report file. */
#ifndef PMCSHIM_SAMPLE_H
#define PMCSHIM_SAMPLE_H

#include <stdint.h>

#include "settings/config.h"

/* Once, in the constructor, before the main thread is set up: the signal
 * chosen and its handler installed (nothing when c->sample is 0). */
void sample_init(const struct config *c);
/* The calling thread starts (guard held): its table and its event. */
void sample_thread_start(uint32_t thread);
/* The calling thread ends: its event closed (its table stays). */
void sample_thread_stop(void);
/* The process stops recording (exit, _exit, exec): the calling thread's
 * event off, its pending signal taken, so that an exec'd image never
 * meets it; sample_resume after a failed exec. */
void sample_end(void);
void sample_resume(void);
/* A fork child (the forking thread alone): a table and an event of its
 * own; the parent's tables, copied with the file, hidden. */
void sample_after_fork(uint32_t thread);

#endif
