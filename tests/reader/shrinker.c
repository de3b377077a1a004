/* LD_PRELOAD under the reader: cuts a file short while the reader reads
 * it, at a known point. SHRINK_FILE is truncated to SHRINK_TO bytes at
 * the SHRINK_AT-th (default 1st) call of madvise() (the reader, about to
 * snapshot a live file from its mapping) or pread() (about to read a
 * finished one), whichever comes first: the reader then faults on the
 * mapping, or reads short. */
#include <dlfcn.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <unistd.h>

static int calls;

static void maybe_shrink(void)
{
	const char *file = getenv("SHRINK_FILE"), *to = getenv("SHRINK_TO");
	const char *at = getenv("SHRINK_AT");

	if (file && to && ++calls == (at ? atoi(at) : 1) && truncate(file, atol(to)) != 0)
		_exit(99);
}

int madvise(void *addr, size_t len, int advice)
{
	int (*real)(void *, size_t, int);

	maybe_shrink();
	*(void **)&real = dlsym(RTLD_NEXT, "madvise");
	return real(addr, len, advice);
}

ssize_t pread(int fd, void *buf, size_t n, off_t off)
{
	ssize_t (*real)(int, void *, size_t, off_t);

	maybe_shrink();
	*(void **)&real = dlsym(RTLD_NEXT, "pread");
	return real(fd, buf, n, off);
}
