#include "clock.h"

#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#define MIN_CALIBRATION_NS 2000000u	/* 2 ms: ~1e-5 error from the clock reads */

static uint64_t start_ticks, start_mono, start_real;
static uint64_t start_boot, start_cpu;
static double ticks_per_ns = 1.0;

static uint64_t ns_of(clockid_t id)
{
	struct timespec ts;

	clock_gettime(id, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

uint64_t clock_mono_ns(void)
{
	return ns_of(CLOCK_MONOTONIC);
}

uint64_t clock_real_ns(void)
{
	return ns_of(CLOCK_REALTIME);
}

static uint64_t ns_of_sys(clockid_t id)
{
	struct timespec ts;

	syscall(SYS_clock_gettime, id, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

uint64_t clock_mono_ns_sys(void)
{
	return ns_of_sys(CLOCK_MONOTONIC);
}

uint64_t clock_real_ns_sys(void)
{
	return ns_of_sys(CLOCK_REALTIME);
}

uint64_t clock_thread_cpu_ns(void)
{
	return ns_of(CLOCK_THREAD_CPUTIME_ID);
}

void clock_start(void)
{
	start_real = clock_real_ns_sys();
	start_mono = clock_mono_ns_sys();
	start_ticks = arch_ticks();
	start_boot = ns_of_sys(CLOCK_BOOTTIME);
	start_cpu = ns_of_sys(CLOCK_THREAD_CPUTIME_ID);
}

uint64_t clock_start_before_ns(uint64_t proc_start)
{
	long hz = sysconf(_SC_CLK_TCK);
	uint64_t tick, began, since = 0;

	if (proc_start && hz > 0) {
		tick = 1000000000u / (uint64_t)hz;
		/* the kernel rounds the start down to a tick: it began in
		 * [began, began + tick) */
		began = proc_start * tick + tick;
		since = start_boot > began ? start_boot - began : 0;
	}
	return since > start_cpu ? since : start_cpu;
}

uint64_t clock_start_real_ns(void)
{
	return start_real;
}

uint64_t clock_start_mono_ns(void)
{
	return start_mono;
}

uint64_t clock_start_ticks(void)
{
	return start_ticks;
}

/* ticks per ns from the process's start to MONO and TICKS, read now;
 * 0 when the counter has not moved (or went back) */
static double rate_since_start(uint64_t mono, uint64_t ticks)
{
	if (ticks <= start_ticks || mono <= start_mono)
		return 0;
	return (double)(ticks - start_ticks) / (double)(mono - start_mono);
}

double clock_ticks_per_ns_now(void)
{
	uint64_t mono = clock_mono_ns();

	return rate_since_start(mono, arch_ticks());
}

void clock_calibrate(int wait)
{
	uint64_t mono = clock_mono_ns_sys();
	double rate;

	if (wait && mono - start_mono < MIN_CALIBRATION_NS) {
		uint64_t left = MIN_CALIBRATION_NS - (mono - start_mono);
		struct timespec ts = { 0, (long)left };
		nanosleep(&ts, NULL);
	}
	mono = clock_mono_ns_sys();
	rate = rate_since_start(mono, arch_ticks());
	if (rate > 0)
		ticks_per_ns = rate;
}

double clock_ticks_per_ns(void)
{
	return ticks_per_ns;
}
