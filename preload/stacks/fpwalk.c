/* A frame record is two words, the same on x86-64 and arm64: at fp, the
 * caller's fp (saved rbp / x29); at fp + 8, the return address (rbp+8 /
 * x30). */
#include "fpwalk.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <string.h>
#include <sys/resource.h>
#include <unistd.h>

#include "base/arch.h"
#include "codemap.h"

/* This thread's stack, [lo, hi); hi == 0: not looked up yet; lo > hi:
 * unknown (every walk then fails and libunwind answers). */
static __thread uintptr_t stack_lo, stack_hi;

/* glibc's (ld.so's): the initial stack pointer; weak, as any libc may
 * not have it (pthread_getattr_np then answers) */
extern void *__libc_stack_end __attribute__((weak));
/* The main thread, when fpwalk_init ran on it (not thread-local: a
 * variable more there moves the others, and the calibration's exact
 * count in the arm64 guest with them, by an instruction). */
static pthread_t main_self;
static int main_known;

void fpwalk_init(void)
{
	codemap_init();
	if (gettid() == getpid()) {
		main_self = pthread_self();
		main_known = 1;
	}
}

static int hex_digit(char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	return -1;
}

/* The end of the /proc/self/maps line holding addr, and of the line
 * before it (0 if none). Read with plain read(): no stdio, sscanf nor
 * malloc, so async-signal-safe. Returns 0 when found. */
static int mapping_of(uintptr_t addr, uintptr_t *to, uintptr_t *below)
{
	char buf[1024];
	uintptr_t v[2] = { 0, 0 }, last_to = 0;
	int fd = open("/proc/self/maps", O_RDONLY | O_CLOEXEC), field = 0, found = 0;
	ssize_t n;

	if (fd < 0)
		return -1;
	while (!found && (n = read(fd, buf, sizeof(buf))) > 0)
		for (ssize_t i = 0; i < n && !found; i++) {
			int d = hex_digit(buf[i]);

			if (buf[i] == '\n') {
				found = v[0] <= addr && addr < v[1];
				*to = v[1];
				*below = last_to;
				last_to = v[1];
				v[0] = v[1] = 0;
				field = 0;
			} else if (field < 2 && d >= 0) {
				v[field] = v[field] * 16 + (uintptr_t)d;
			} else if (field < 2) {
				field++;	/* '-' after from, ' ' after to */
			}
		}
	close(fd);
	return found ? 0 : -1;
}

/* The main thread's stack as glibc's pthread_getattr_np gives it, which
 * reads /proc/self/maps with stdio and sscanf (malloc, not for a signal
 * handler's first walk; and about 100 000 instructions): from the page
 * above __libc_stack_end down by RLIMIT_STACK less what the mapping holds
 * above that page, and not into the mapping below. */
static int main_stack(uintptr_t *lo, uintptr_t *hi)
{
	uintptr_t page = (uintptr_t)sysconf(_SC_PAGESIZE);
	uintptr_t end = &__libc_stack_end ? (uintptr_t)__libc_stack_end : 0;
	uintptr_t top = (end & -page) + page, to, below, size;
	struct rlimit rl;

	/* (a fork child of another thread runs on that thread's stack) */
	if (!end || !main_known || !pthread_equal(pthread_self(), main_self) ||
	    getrlimit(RLIMIT_STACK, &rl) != 0 || mapping_of(end, &to, &below) != 0)
		return -1;
	size = ((uintptr_t)rl.rlim_cur - (to - top)) & -page;
	if (size > top - below)
		size = top - below;
	*lo = top - size;
	*hi = top;
	return 0;
}

void fpwalk_thread_init(void)
{
	int saved = errno;	/* a marker's first walk on a thread comes here */
	pthread_attr_t a;
	void *addr;
	size_t size;

	stack_lo = UINTPTR_MAX;
	stack_hi = 1;
	if (main_stack(&stack_lo, &stack_hi) == 0) {
		errno = saved;
		return;
	}
	if (pthread_getattr_np(pthread_self(), &a) == 0) {
		if (pthread_attr_getstack(&a, &addr, &size) == 0) {
			stack_lo = (uintptr_t)addr;
			stack_hi = (uintptr_t)addr + size;
		}
		pthread_attr_destroy(&a);
	}
	errno = saved;
}

/* fp can be the frame above prev: higher (the stack grows down), aligned,
 * and its record inside the stack. Everything between the walk's first
 * frame and the stack's top is mapped, so then both words can be read. */
static inline int frame_ok(uintptr_t fp, uintptr_t prev, uintptr_t top)
{
	return fp >= prev + 16 && (fp & 15) == 0 && fp <= top;
}

/* Read the record at fp into the trail; returns the next frame pointer
 * and the return address as stored (*ra). */
static inline uintptr_t read_record(uintptr_t fp, uintptr_t *ra, struct fpwalk_trail *t)
{
	struct fpwalk_record *r = &t->rec[t->n++];

	*r = fpwalk_load(fp);
	*ra = r->ra;
	return r->fp;
}

/* The walk may start at fp: on this thread's stack (not a sigaltstack's,
 * nor a coroutine's). */
static inline int start_ok(uintptr_t fp, uintptr_t top)
{
	return fp >= stack_lo && fp <= top && !(fp & 15);
}

uintptr_t fpwalk_entry(uintptr_t start, uintptr_t caller, uintptr_t shim_lo, uintptr_t shim_hi,
		       struct fpwalk_trail *trail)
{
	if (__builtin_expect(stack_hi == 0, 0))
		fpwalk_thread_init();
	return fpwalk_entry_within(start, stack_lo, stack_hi, caller, shim_lo, shim_hi, trail);
}

uintptr_t fpwalk_entry_within(uintptr_t start, uintptr_t lo, uintptr_t hi, uintptr_t caller,
			      uintptr_t shim_lo, uintptr_t shim_hi, struct fpwalk_trail *trail)
{
	uintptr_t fp = start, prev, ra, top = hi - 16;	/* the highest frame record */
	int n = 0;

	trail->n = 0;
	trail->words = 0;
	trail->start = fp;
	if (fp < lo || fp > top || (fp & 15))
		return 0;
	for (;;) {
		prev = fp;
		fp = read_record(fp, &ra, trail);
		ra = arch_strip_ra(ra);
		if (ra == caller)
			return prev;
		if (ra < shim_lo || ra >= shim_hi || ++n > FPWALK_SHIM_FRAMES_MAX ||
		    !frame_ok(fp, prev, top))
			return 0;
	}
}

void fpwalk_stack(uintptr_t *lo, uintptr_t *hi)
{
	*lo = stack_lo;
	*hi = stack_hi;
}

int fpwalk_capture(uintptr_t start, uintptr_t caller, int depth, uintptr_t *pcs,
		   uintptr_t shim_lo, uintptr_t shim_hi, struct fpwalk_trail *trail)
{
	uintptr_t prev, ra, fp, top;

	start = start ? start : (uintptr_t)__builtin_frame_address(0);
	prev = fpwalk_entry(start, caller, shim_lo, shim_hi, trail);
	struct codemap_range code;
	int n;

	if (!prev)
		return 0;
	fp = trail->rec[trail->n - 1].fp;
	top = stack_hi - 16;
	pcs[0] = caller;
	code = codemap_last;	/* a local copy: no TLS access per frame */
	if (code.lo < shim_hi && code.hi > shim_lo)
		code.lo = code.hi = 0;	/* never the shim's: see below */
	for (n = 1; n <= depth && frame_ok(fp, prev, top); n++) {
		uintptr_t next = read_record(fp, &ra, trail);

		ra = arch_strip_ra(ra);
		if (ra < code.lo || ra >= code.hi) {
			/* the shim never calls back into the application: a
			 * return into it above the call site is a stale word, a
			 * broken chain (and code never holds the shim's range) */
			if ((ra >= shim_lo && ra < shim_hi) || !codemap_lookup(ra))
				break;
			code = codemap_last;
		}
		/* a signal handler's caller: the interrupted frame is not
		 * chained; libunwind reads the signal frame instead */
		if (code.tramp && codemap_is_sigreturn(ra, code.hi))
			break;
		pcs[n] = ra;
		prev = fp;
		fp = next;
	}
	return n;
}

/* Only the first record's address (start) can differ from the first
 * walk's, and only the checks of start and of the step from it depend on
 * it: they are made again. A trail of two records or more took that
 * step; a one-record trail may have stopped at it, where a walk from
 * another start could go on, so it is not reused. */
int fpwalk_same_moved(uintptr_t start, const struct fpwalk_record *rec, int n)
{
	uintptr_t top = stack_hi - 16;

	if (n < 2 || stack_hi == 0 || !start_ok(start, top) || !frame_ok(rec[0].fp, start, top))
		return 0;
	return fpwalk_records_at(start, rec, n);
}
