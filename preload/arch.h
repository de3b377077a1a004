/* Per-architecture primitives: a cheap tick counter and the user-space
 * counter read that perf's mmap page allows (rdpmc on x86-64, mrs on arm64). */
#ifndef PMCSHIM_ARCH_H
#define PMCSHIM_ARCH_H

#include <stdint.h>
#include <time.h>

#if defined(__x86_64__) || defined(__i386__)

#define ARCH_TICKS_NAME "rdtsc"
#define ARCH_USER_READ_NAME "rdpmc"
#define ARCH_HAS_USER_PMC 1

static inline uint64_t arch_ticks(void)
{
	uint32_t lo, hi;
	__asm__ __volatile__("rdtsc" : "=a"(lo), "=d"(hi));
	return ((uint64_t)hi << 32) | lo;
}

/* idx is the perf mmap page's index field minus one. */
static inline uint64_t arch_read_pmc(uint32_t idx)
{
	uint32_t lo, hi;
	__asm__ __volatile__("rdpmc" : "=a"(lo), "=d"(hi) : "c"(idx));
	return ((uint64_t)hi << 32) | lo;
}

#elif defined(__aarch64__)

#define ARCH_TICKS_NAME "cntvct"
#define ARCH_USER_READ_NAME "mrs"
#define ARCH_HAS_USER_PMC 1

static inline uint64_t arch_ticks(void)
{
	uint64_t v;
	__asm__ __volatile__("isb; mrs %0, cntvct_el0" : "=r"(v));
	return v;
}

/* Indices follow the arm64 perf driver: 32 is the cycle counter,
 * 0..30 the event counters. The register must be named at compile time. */
#define ARCH_PMEV(n) case n: __asm__ __volatile__("mrs %0, pmevcntr" #n "_el0" : "=r"(v)); break
static inline uint64_t arch_read_pmc(uint32_t idx)
{
	uint64_t v = 0;
	switch (idx) {
	ARCH_PMEV(0); ARCH_PMEV(1); ARCH_PMEV(2); ARCH_PMEV(3); ARCH_PMEV(4);
	ARCH_PMEV(5); ARCH_PMEV(6); ARCH_PMEV(7); ARCH_PMEV(8); ARCH_PMEV(9);
	ARCH_PMEV(10); ARCH_PMEV(11); ARCH_PMEV(12); ARCH_PMEV(13); ARCH_PMEV(14);
	ARCH_PMEV(15); ARCH_PMEV(16); ARCH_PMEV(17); ARCH_PMEV(18); ARCH_PMEV(19);
	ARCH_PMEV(20); ARCH_PMEV(21); ARCH_PMEV(22); ARCH_PMEV(23); ARCH_PMEV(24);
	ARCH_PMEV(25); ARCH_PMEV(26); ARCH_PMEV(27); ARCH_PMEV(28); ARCH_PMEV(29);
	ARCH_PMEV(30);
	case 31:
		__asm__ __volatile__("mrs %0, pmccntr_el0" : "=r"(v));
		break;
	}
	return v;
}
#undef ARCH_PMEV

#else

#define ARCH_TICKS_NAME "clock_monotonic"
#define ARCH_USER_READ_NAME ""
#define ARCH_HAS_USER_PMC 0

static inline uint64_t arch_ticks(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static inline uint64_t arch_read_pmc(uint32_t idx)
{
	(void)idx;
	return 0;
}

#endif

#endif
