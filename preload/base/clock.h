/* Wall time in ticks (rdtsc / cntvct) on the hot path; the tick rate,
 * against CLOCK_MONOTONIC over the whole run, goes into the report file at
 * the end, and the reader converts. */
#ifndef PMCSHIM_CLOCK_H
#define PMCSHIM_CLOCK_H

#include <stdint.h>

#include "arch.h"

void clock_start(void);		/* at process start (and in a fork child) */
/* Fix the tick rate; with wait, sleeps briefly first when the run was
 * too short to tell it well (a process with no region has no tick-based
 * value for it to convert: no wait, no sleep's syscall). */
void clock_calibrate(int wait);
double clock_ticks_per_ns(void);
double clock_ticks_per_ns_now(void);
uint64_t clock_mono_ns(void);
uint64_t clock_real_ns(void);
/* The same by a system call, not the vDSO: for the few reads of the
 * process's start and end and of its first thread's, which would page in
 * the vDSO's two pages of data (two page faults) in a program that never
 * reads the time itself. */
uint64_t clock_mono_ns_sys(void);
uint64_t clock_real_ns_sys(void);
uint64_t clock_thread_cpu_ns(void);
/* Process start, CLOCK_REALTIME and CLOCK_MONOTONIC. */
uint64_t clock_start_real_ns(void);
uint64_t clock_start_mono_ns(void);
uint64_t clock_start_ticks(void);
/* How long the process ran before clock_start, at least: the calling
 * thread's CPU time then (one thread ran before the shim), or the time
 * since proc_start (field 22 of /proc/self/stat, clock ticks since boot;
 * 0: unknown) less the tick it is rounded to, whichever is more. */
uint64_t clock_start_before_ns(uint64_t proc_start);

#endif
