#include "fds.h"

#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "cold.h"

#define EXPORT __attribute__((visibility("default")))
#define TRACKED 65536		/* numbers above this are not watched */

enum { NOT_OURS, OURS, LOST, ANY };
/* Two bits a descriptor, four to a byte: the numbers a start touches
 * (3, the report file's high one) are most often on one page. (Not
 * page-aligned: .bss would be, and start on a page of its own.) */
COLD unsigned char fds_state[TRACKED / 4];

/* fd's two bits from `from` (ANY: whatever they are) to `to`; left
 * alone when they are not `from`. */
static void change(int fd, unsigned from, unsigned to)
{
	unsigned char *b = &fds_state[fd / 4], old = __atomic_load_n(b, __ATOMIC_RELAXED), new;
	int shift = fd % 4 * 2;

	do {
		if (from != ANY && ((old >> shift) & 3u) != from)
			return;
		new = (unsigned char)((old & ~(3u << shift)) | to << shift);
	} while (!__atomic_compare_exchange_n(b, &old, new, 1, __ATOMIC_RELAXED, __ATOMIC_RELAXED));
}

int fds_move_high(int fd)
{
	struct rlimit rl;
	int floor = FDS_FLOOR, high;

	/* Counters need one fd per event per thread: prefer the top half;
	 * under a small limit, the top quarter still leaves 3, 4, ... free. */
	if (getrlimit(RLIMIT_NOFILE, &rl) == 0) {
		if (rl.rlim_cur / 2 > FDS_FLOOR)
			floor = rl.rlim_cur / 2 > 1 << 20 ? 1 << 20 : (int)(rl.rlim_cur / 2);
		else if (rl.rlim_cur <= FDS_FLOOR)
			floor = (int)(rl.rlim_cur - rl.rlim_cur / 4);
		/* (libunwind's pipe takes the 4 below the top: fds_with_low_reserved) */
	}
	high = fcntl(fd, F_DUPFD_CLOEXEC, floor);
	if (high < 0)
		high = fcntl(fd, F_DUPFD_CLOEXEC, floor / 2 > 3 ? floor / 2 : 3);
	if (high < 0)
		return fd;
	syscall(SYS_close, fd);	/* (not through our close(): it reads fds_state[] for nothing) */
	return high;
}

void fds_with_low_reserved(void (*fn)(void *), void *arg)
{
	int taken[FDS_FLOOR], n = 0, top = FDS_FLOOR;
	int fd = open("/dev/null", O_RDONLY | O_CLOEXEC);
	struct rlimit rl;

	/* Under a small limit, leave the top few numbers for fn. */
	if (getrlimit(RLIMIT_NOFILE, &rl) == 0 && rl.rlim_cur < FDS_FLOOR + 4)
		top = rl.rlim_cur > 8 ? (int)rl.rlim_cur - 4 : 3;
	while (fd >= 0 && fd < top && n < FDS_FLOOR) {
		taken[n++] = fd;
		fd = fcntl(fd, F_DUPFD_CLOEXEC, 0);
	}
	if (fd >= top)
		close(fd);
	fn(arg);
	while (n > 0)
		close(taken[--n]);
}

static void set(int fd, unsigned v)
{
	if (fd >= 0 && fd < TRACKED)
		change(fd, ANY, v);
}

void fds_own(int fd)
{
	set(fd, OURS);
}

void fds_disown(int fd)
{
	set(fd, NOT_OURS);
}

int fds_lost(int fd)
{
	return fd >= 0 && fd < TRACKED &&
	       ((__atomic_load_n(&fds_state[fd / 4], __ATOMIC_RELAXED) >> (fd % 4 * 2)) & 3u) == LOST;
}

void fds_close(int fd)
{
	if (fds_lost(fd)) {
		fds_disown(fd);
		return;
	}
	fds_disown(fd);
	syscall(SYS_close, fd);
}

/* --- the application's calls ---------------------------------------------- */

static void mark(unsigned lo, unsigned hi)
{
	if (hi >= TRACKED)
		hi = TRACKED - 1;
	for (unsigned fd = lo; fd <= hi; fd++)
		change((int)fd, OURS, LOST);
}

static void *next(const char *name)
{
	return dlsym(RTLD_NEXT, name);
}

EXPORT int close(int fd)
{
	static int (*real)(int);

	if (fd >= 0)
		mark((unsigned)fd, (unsigned)fd);
	if (!real)
		*(void **)&real = next("close");
	return real ? real(fd) : (int)syscall(SYS_close, fd);
}

EXPORT int dup2(int old, int fd)
{
	static int (*real)(int, int);

	if (fd >= 0 && old != fd)
		mark((unsigned)fd, (unsigned)fd);
	if (!real)
		*(void **)&real = next("dup2");
	return real ? real(old, fd) : (int)syscall(SYS_dup3, old, fd, 0);
}

EXPORT int dup3(int old, int fd, int flags)
{
	static int (*real)(int, int, int);

	if (fd >= 0 && old != fd)
		mark((unsigned)fd, (unsigned)fd);
	if (!real)
		*(void **)&real = next("dup3");
	return real ? real(old, fd, flags) : (int)syscall(SYS_dup3, old, fd, flags);
}

EXPORT int close_range(unsigned lo, unsigned hi, int flags)
{
	static int (*real)(unsigned, unsigned, int);

	/* CLOSE_RANGE_CLOEXEC only marks them close-on-exec, as ours are */
	if (!(flags & 4 /* CLOSE_RANGE_CLOEXEC */) && lo <= hi)
		mark(lo, hi);
	if (!real)
		*(void **)&real = next("close_range");
	return real ? real(lo, hi, flags) : (int)syscall(SYS_close_range, lo, hi, flags);
}

EXPORT void closefrom(int lo)
{
	static void (*real)(int);

	if (lo >= 0)
		mark((unsigned)lo, TRACKED - 1);
	if (!real)
		*(void **)&real = next("closefrom");
	if (real)
		real(lo);
	else
		syscall(SYS_close_range, (unsigned)lo, ~0u, 0);
}
