/* Per-architecture primitives: a cheap tick counter, the user-space
 * counter read that perf's mmap page allows (rdpmc on x86-64, mrs on
 * arm64), and a return address as code (arm64: without its PAC). */
#ifndef PMCSHIM_ARCH_H
#define PMCSHIM_ARCH_H

#include <stdint.h>
#include <time.h>

#if defined(__x86_64__) || defined(__i386__)

#define ARCH_TICKS_NAME "rdtsc"
#define ARCH_USER_READ_NAME "rdpmc"
#define ARCH_HAS_USER_PMC 1
#define ARCH_WIDE_COUNTERS 0	/* rdpmc counters are 40 to 48 bits */

#define ARCH_BARRIER_NAME "lfence"

#define arch_return_address() ((uintptr_t)__builtin_return_address(0))

static inline uint64_t arch_ticks(void)
{
	uint32_t lo, hi;
	__asm__ __volatile__("rdtsc" : "=a"(lo), "=d"(hi));
	return ((uint64_t)hi << 32) | lo;
}

/* Ticks in about a millisecond, never much more. The TSC's rate is not
 * architectural, but an x86-64 TSC runs at 1 GHz or more: 2^20 ticks are
 * at most 1.05 ms (0.35 ms at 3 GHz). */
static inline uint64_t arch_ticks_ms(void)
{
	return UINT64_C(1) << 20;
}

/* Keeps the work before and after a counter read on its own side of it
 * (PMCSHIM_SERIALIZE): lfence waits for every earlier instruction. */
static inline void arch_barrier(void)
{
	__asm__ __volatile__("lfence" ::: "memory");
}

/* idx is the perf mmap page's index field minus one. */
static inline uint64_t arch_read_pmc(uint32_t idx)
{
	uint32_t lo, hi;
	__asm__ __volatile__("rdpmc" : "=a"(lo), "=d"(hi) : "c"(idx));
	return ((uint64_t)hi << 32) | lo;
}

/* A snapshot's index, made safe for arch_read_pmc_slot once. */
#define arch_pmc_slot(idx) (idx)
#define arch_read_pmc_slot arch_read_pmc

static inline uint64_t arch_read_pmc_slot_plus(uint32_t slot, uint64_t base)
{
	return base + arch_read_pmc_slot(slot);
}

#elif defined(__aarch64__)

#define ARCH_TICKS_NAME "cntvct"
#define ARCH_USER_READ_NAME "mrs"
#define ARCH_HAS_USER_PMC 1
#define ARCH_WIDE_COUNTERS 1	/* config1 bit 0 (counters.c) */

#define ARCH_BARRIER_NAME "isb"

/* The caller's return address, read from the link register: only as the
 * first statement of a function that calls nothing but in tail position
 * (x30 then holds it throughout). __builtin_return_address(0) costs a
 * frame record and an xpaclri, for a pointer-authentication code that a
 * function which does not sign its own return address never finds. */
static inline __attribute__((always_inline)) uintptr_t arch_return_address(void)
{
	uintptr_t lr;

	__asm__ __volatile__("mov %0, x30" : "=r"(lr));
	return lr;
}

static inline uint64_t arch_ticks(void)
{
	uint64_t v;
	__asm__ __volatile__("isb; mrs %0, cntvct_el0" : "=r"(v));
	return v;
}

/* Ticks in a millisecond: the counter's rate is architectural
 * (cntfrq_el0, set by the firmware; 2^20 ticks if it was left 0). */
static inline uint64_t arch_ticks_ms(void)
{
	uint64_t hz;
	__asm__ __volatile__("mrs %0, cntfrq_el0" : "=r"(hz));
	return hz >= 1000 ? hz / 1000 : UINT64_C(1) << 20;
}

/* PMCSHIM_SERIALIZE: isb completes every earlier instruction first. */
static inline void arch_barrier(void)
{
	__asm__ __volatile__("isb" ::: "memory");
}

/* idx is the page's index minus one, as the arm64 perf driver numbers
 * counters: 0..30 the event counters, 31 the cycle counter (the page's
 * 32); masked to the table, so no index can branch outside it. The
 * register must be named at compile time, so the read branches into a
 * table of 32 slots ("mrs; b"): five instructions and no call, where a
 * table of functions made the marker a non-leaf (saved registers, a
 * return) and a switch costs twice as many. Built with branch
 * protection, each slot starts with "bti j" so the branch stays legal
 * (and slots are 16 bytes). */
#if defined(__ARM_FEATURE_BTI_DEFAULT)
#define ARCH_SLOT(reg) "bti j\n\tmrs %0, " reg "\n\tb 2f\n\tnop\n\t"
#define ARCH_SLOT_SHIFT "4"
#else
#define ARCH_SLOT(reg) "mrs %0, " reg "\n\tb 2f\n\t"
#define ARCH_SLOT_SHIFT "3"
#endif
#define ARCH_PMEV(n) ARCH_SLOT("pmevcntr" #n "_el0")
/* slot: arch_pmc_slot(idx), taken when the snapshot was (counters.c):
 * the marker's reads need not mask it again. */
#define ARCH_PMC_TABLE                                                          \
	"adr %1, 1f\n\t"                                                        \
	"add %1, %1, %w2, uxtw #" ARCH_SLOT_SHIFT "\n\t"                        \
	"br %1\n"                                                               \
	"1:\n\t"                                                               \
	ARCH_PMEV(0) ARCH_PMEV(1) ARCH_PMEV(2) ARCH_PMEV(3) ARCH_PMEV(4)        \
	ARCH_PMEV(5) ARCH_PMEV(6) ARCH_PMEV(7) ARCH_PMEV(8) ARCH_PMEV(9)        \
	ARCH_PMEV(10) ARCH_PMEV(11) ARCH_PMEV(12) ARCH_PMEV(13) ARCH_PMEV(14)   \
	ARCH_PMEV(15) ARCH_PMEV(16) ARCH_PMEV(17) ARCH_PMEV(18) ARCH_PMEV(19)   \
	ARCH_PMEV(20) ARCH_PMEV(21) ARCH_PMEV(22) ARCH_PMEV(23) ARCH_PMEV(24)   \
	ARCH_PMEV(25) ARCH_PMEV(26) ARCH_PMEV(27) ARCH_PMEV(28) ARCH_PMEV(29)   \
	ARCH_PMEV(30) ARCH_SLOT("pmccntr_el0")                                  \
	"2:"

static inline __attribute__((always_inline)) uint64_t arch_read_pmc_slot(uint32_t slot)
{
	uint64_t v, at;

	__asm__ __volatile__(ARCH_PMC_TABLE : "=&r"(v), "=&r"(at) : "r"(slot));
	return v;
}

/* base + the counter at slot, added after the table: the compiler must
 * then load base before the branch, together with slot (one ldp from a
 * snapshot, where it would otherwise load base after the read). */
static inline __attribute__((always_inline)) uint64_t arch_read_pmc_slot_plus(uint32_t slot,
									       uint64_t base)
{
	uint64_t v, at;

	__asm__ __volatile__(ARCH_PMC_TABLE "\n\tadd %0, %0, %3"
			     : "=&r"(v), "=&r"(at) : "r"(slot), "r"(base));
	return v;
}

static inline uint32_t arch_pmc_slot(uint32_t idx)
{
	return idx & 31;
}

static inline __attribute__((always_inline)) uint64_t arch_read_pmc(uint32_t idx)
{
	return arch_read_pmc_slot(arch_pmc_slot(idx));
}
#undef ARCH_PMC_TABLE
#undef ARCH_PMEV
#undef ARCH_SLOT
#undef ARCH_SLOT_SHIFT

/* A return address without its pointer-authentication code (pac-ret,
 * -mbranch-protection, signs the saved x30): xpaclri, in the hint space,
 * so a no-op on a CPU without PAuth; an unsigned address is unchanged. */
static inline uintptr_t arch_strip_ra(uintptr_t ra)
{
	register uintptr_t x30 __asm__("x30") = ra;

	__asm__("hint #7" : "+r"(x30));	/* xpaclri */
	return x30;
}

#else

#define ARCH_TICKS_NAME "clock_monotonic"
#define ARCH_BARRIER_NAME "none"
#define arch_return_address() ((uintptr_t)__builtin_return_address(0))

static inline void arch_barrier(void)
{
	__atomic_thread_fence(__ATOMIC_SEQ_CST);
}
#define ARCH_USER_READ_NAME ""
#define ARCH_HAS_USER_PMC 0
#define ARCH_WIDE_COUNTERS 0

static inline uint64_t arch_ticks(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* Ticks in a millisecond (they are nanoseconds). */
static inline uint64_t arch_ticks_ms(void)
{
	return 1000000;
}

static inline uint64_t arch_read_pmc(uint32_t idx)
{
	(void)idx;
	return 0;
}

#define arch_pmc_slot(idx) (idx)
#define arch_read_pmc_slot arch_read_pmc

static inline uint64_t arch_read_pmc_slot_plus(uint32_t slot, uint64_t base)
{
	return base + arch_read_pmc_slot(slot);
}

#endif

#if !defined(__aarch64__)
static inline uintptr_t arch_strip_ra(uintptr_t ra)
{
	return ra;
}
#endif

#endif
