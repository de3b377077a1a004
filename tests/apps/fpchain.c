/* Stacks by frame pointers against libunwind's. Built twice: fpchain-fp
 * (-fno-omit-frame-pointer) and fpchain-nofp (-fomit-frame-pointer), both
 * -O2 -g. Regions:
 *   deep, deep-thread  12 distinct frames below the marker (the walk can
 *                      give all 8 asked for), on the main thread and another
 *   shallow            called from main: the chain ends in libc's start code
 *   slot               its function's saved frame pointer overwritten with
 *                      garbage (several kinds) around the marker
 *   gpreg              the frame-pointer register holds garbage (x86-64)
 *   raslot             its function's saved return address overwritten:
 *                      the same garbage, and code whose unwind rule is
 *                      not this frame's (main's, libc's printf)
 *   signal             in a signal handler raised 12 frames deep
 *   altstack           the same, the handler on an alternate signal stack
 *   alternate          one call site reached through via_a and via_b in
 *                      turn: the stacks differ only in their 8th frame
 * Prints "fpchain: done" and exits 0. */
#include <pthread.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <pmcshim.h>

#define BARRIER() __asm__ __volatile__("" ::: "memory")	/* no tail calls */

/* Marks in a signal handler: the chain above it runs through the
 * kernel's signal frame, which has no frame record. */
static void on_signal(int sig)
{
	(void)sig;
	PMCSHIM_BEGIN("signal");
	PMCSHIM_END("signal");
}

/* The same on an alternate signal stack: not the thread's stack, so the
 * walk must not start at all. */
static void on_altstack(int sig)
{
	(void)sig;
	PMCSHIM_BEGIN("altstack");
	PMCSHIM_END("altstack");
}

static char altstack_mem[1 << 16] __attribute__((aligned(16)));

static void install_handlers(void)
{
	stack_t ss = { .ss_sp = altstack_mem, .ss_size = sizeof(altstack_mem) };
	struct sigaction sa;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_signal;
	sigaction(SIGUSR1, &sa, NULL);
	sigaltstack(&ss, NULL);
	sa.sa_handler = on_altstack;
	sa.sa_flags = SA_ONSTACK;
	sigaction(SIGUSR2, &sa, NULL);
}

__attribute__((noinline)) static void mark_deep(const char *region)
{
	if (strcmp(region, "raise") == 0) {
		raise(SIGUSR1);
		raise(SIGUSR2);
	} else {
		pmcshim_begin_name(region);
		pmcshim_end_name(region);
	}
	BARRIER();
}

#define LEVEL(fn, next)                                                       \
	__attribute__((noinline)) static void fn(const char *region)         \
	{                                                                     \
		next(region);                                                 \
		BARRIER();                                                    \
	}

LEVEL(level11, mark_deep)
LEVEL(level10, level11)
LEVEL(level9, level10)
LEVEL(level8, level9)
LEVEL(level7, level8)
LEVEL(level6, level7)
LEVEL(level5, level6)
LEVEL(level4, level5)
LEVEL(level3, level4)
LEVEL(level2, level3)
LEVEL(level1, level2)

/* The same frames below level5 either way, and the same frame sizes:
 * only the return address into via_a or via_b differs (each counts its
 * calls, so the compiler cannot fold the two into one). */
static volatile int via_calls[2];

__attribute__((noinline)) static void via_a(void)
{
	level5("alternate");
	via_calls[0]++;
}

__attribute__((noinline)) static void via_b(void)
{
	level5("alternate");
	via_calls[1]++;
}

static void *thread_main(void *arg)
{
	(void)arg;
	for (int i = 0; i < 3; i++)
		level1("deep-thread");
	return NULL;
}

/* The garbage a saved frame pointer gets: null, odd, a kernel address,
 * below the current frame (the chain would run down the stack), a fake
 * record above whose return address is not code, and one whose return
 * address is code but whose next link is garbage again. */
static uintptr_t fake[2][4] __attribute__((aligned(16)));

static uintptr_t garbage(int kind, uintptr_t here)
{
	switch (kind) {
	case 0: return 0;
	case 1: return 0x1235;
	case 2: return (uintptr_t)0xffff800000001000ull;
	case 3: return here - 256;
	case 4: return (uintptr_t)fake[0];
	default: return (uintptr_t)fake[1];
	}
}

__attribute__((noinline)) static void corrupt_slot(int kind)
{
	volatile uintptr_t *slot = __builtin_frame_address(0);
	uintptr_t saved = *slot;

	*slot = garbage(kind, (uintptr_t)slot);
	PMCSHIM_BEGIN("slot");
	PMCSHIM_END("slot");
	*slot = saved;
	BARRIER();
}

int main(void);

__attribute__((noinline)) static void corrupt_ra(int kind)
{
	volatile uintptr_t *slot = (uintptr_t *)__builtin_frame_address(0) + 1;
	uintptr_t saved = *slot;

	*slot = kind < 6 ? garbage(kind, (uintptr_t)slot)
		: kind == 6 ? (uintptr_t)&main + 4 : (uintptr_t)&printf + 1;
	PMCSHIM_BEGIN("raslot");
	PMCSHIM_END("raslot");
	*slot = saved;
	BARRIER();
}

__attribute__((noinline)) static void gp_marker(void)
{
	PMCSHIM_BEGIN("gpreg");
	PMCSHIM_END("gpreg");
	BARRIER();
}

/* Calls gp_marker with garbage in rbp, as code that uses rbp as a general
 * register does; steps over the red zone and aligns the stack itself. */
__attribute__((noinline)) static void corrupt_register(uintptr_t g)
{
#if defined(__x86_64__)
	void (*f)(void) = gp_marker;

	/* (128 bytes more than the red zone are stepped over, and zeroed:
	 * this asm moves rsp without telling the unwind tables, so a
	 * table-driven unwinder such as libunwind reads this function's
	 * frame from there; zeros end its walk, where stale words of
	 * earlier calls would send it anywhere) */
	__asm__ __volatile__("mov %%rsp, %%r12\n\t"
			     "sub $256, %%rsp\n\t"
			     "and $-16, %%rsp\n\t"
			     "lea -128(%%r12), %%rdx\n\t"
			     "mov %%rsp, %%rdi\n\t"
			     "1: movq $0, (%%rdi)\n\t"
			     "add $8, %%rdi\n\t"
			     "cmp %%rdx, %%rdi\n\t"
			     "jb 1b\n\t"
			     "mov %%rbp, %%r13\n\t"
			     "mov %0, %%rbp\n\t"
			     "call *%1\n\t"
			     "mov %%r13, %%rbp\n\t"
			     "mov %%r12, %%rsp"
			     : "+S"(g), "+c"(f)
			     :
			     : "rax", "rdx", "rdi", "r8", "r9", "r10", "r11", "r12", "r13",
			       "xmm0", "xmm1", "xmm2", "xmm3", "xmm4", "xmm5", "xmm6", "xmm7",
			       "xmm8", "xmm9", "xmm10", "xmm11", "xmm12", "xmm13", "xmm14",
			       "xmm15", "memory", "cc");
#else
	(void)g;
	gp_marker();
#endif
	BARRIER();
}

int main(void)
{
	pthread_t t;

	fake[0][0] = (uintptr_t)fake[1];
	fake[0][1] = 0x4242;			/* not code */
	fake[1][0] = 0x77;			/* garbage again */
	fake[1][1] = (uintptr_t)&main + 4;	/* code */
	for (int i = 0; i < 3; i++)
		level1("deep");
	for (int i = 0; i < 4; i++) {
		via_a();
		via_b();
	}
	install_handlers();
	level1("raise");
	PMCSHIM_BEGIN("shallow");
	PMCSHIM_END("shallow");
	pthread_create(&t, NULL, thread_main, NULL);
	pthread_join(t, NULL);
	for (int kind = 0; kind < 6; kind++) {
		corrupt_slot(kind);
		corrupt_ra(kind);
		corrupt_register(garbage(kind, (uintptr_t)__builtin_frame_address(0)));
	}
	corrupt_ra(6);
	corrupt_ra(7);
	printf("fpchain: done\n");
	return 0;
}
