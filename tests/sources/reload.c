/* A plugin unloaded and another loaded at its address: dlopen A
 * (argv[1]), call alpha_work ROUNDS_A times, dlclose it, dlopen B
 * (argv[2]) and call beta_work ROUNDS_B times. Both are built from
 * reloadlib.c with -finstrument-functions: the shim must count alpha_*
 * and beta_* apart although their addresses are the same. Exit 77 (and
 * why on stdout) when the loader put B elsewhere: the case is not there
 * to test. This program is not instrumented itself. */
#include <dlfcn.h>
#include <stdint.h>
#include <stdio.h>

#define ROUNDS_A 7
#define ROUNDS_B 5
#define LEAVES 10	/* leaf calls per work call */

typedef int work_fn(int);

/* The plugin's work function, or NULL (said on stderr). */
static work_fn *open_work(const char *path, const char *sym, void **handle)
{
	work_fn *fn = NULL;

	*handle = dlopen(path, RTLD_NOW | RTLD_LOCAL);
	if (*handle)
		*(void **)&fn = dlsym(*handle, sym);
	if (!fn)
		fprintf(stderr, "reload: %s: %s\n", path, dlerror());
	return fn;
}

static void run(work_fn *fn, int rounds)
{
	for (int i = 0; i < rounds; i++)
		fn(LEAVES);
}

/* The load address of the object that holds fn. */
static uintptr_t base_of(work_fn *fn)
{
	Dl_info info;

	return dladdr(*(void **)&fn, &info) ? (uintptr_t)info.dli_fbase : 0;
}

int main(int argc, char **argv)
{
	void *a, *b;
	work_fn *fa, *fb;
	uintptr_t at, base;

	if (argc < 3)
		return 2;
	if (!(fa = open_work(argv[1], "alpha_work", &a)))
		return 2;
	run(fa, ROUNDS_A);
	at = (uintptr_t)*(void **)&fa;
	base = base_of(fa);
	dlclose(a);
	if (!(fb = open_work(argv[2], "beta_work", &b)))
		return 2;
	if ((uintptr_t)*(void **)&fb != at || base_of(fb) != base) {
		printf("B loaded at %#lx (beta_work %p), not where A was (%#lx, alpha_work %#lx)\n",
		       (unsigned long)base_of(fb), *(void **)&fb, (unsigned long)base,
		       (unsigned long)at);
		return 77;
	}
	run(fb, ROUNDS_B);
	dlclose(b);
	printf("B at A's address %#lx\n", (unsigned long)base);
	return 0;
}
