/* What the function hooks (functions.c) give the rest of their source. */
#ifndef PMCSHIM_FUNCTIONS_H
#define PMCSHIM_FUNCTIONS_H

#include <stdint.h>

/* The hooks, exported (code built with -finstrument-functions calls them). */
void __cyg_profile_func_enter(void *fn, void *site);
void __cyg_profile_func_exit(void *fn, void *site);

/* Make fn a function met, recorded as region id (the shim's own
 * functions, for the calibration); inside the guard. 0 when the table
 * has no room or memory. */
int functions_seed(uintptr_t fn, uint32_t id);

/* funccalib.c: the hooks' own cost, measured once per process, at the
 * first function met (outside the guard; a no-op after). */
void functions_calibrate(void);
/* Time the calling thread's next call of each hook. */
void functions_time_next(void);
/* The calling thread's timed means since the last call (wall ticks: per
 * call, per child call); 0 when it timed none. The timing starts anew. */
int functions_timed(uint64_t *in, uint64_t *child);
/* What the timed means leave out (the calls to the hooks and back) less
 * what timing adds, per call and per child call: added to every
 * thread's means. */
void functions_glue(int64_t in, int64_t child);

/* funcuse.c: whether a loaded object was built with
 * -finstrument-functions (it imports the hooks). In such a process the
 * events that count only through read() are counted per thread, never
 * per call (its per_thread hook, said in one line). */
int functions_instrumented(void);

/* What one tick read costs, in ticks (set by functions_calibrate). */
extern uint64_t functions_read_ticks;

#endif
