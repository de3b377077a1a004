/* mallocmark: the application's own malloc family marks a region around
 * every call, while threads allocate; the shim's own work must never
 * recurse into it or deadlock. */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

#include <pmcshim.h>

extern void *__libc_malloc(size_t);
extern void *__libc_calloc(size_t, size_t);
extern void *__libc_realloc(void *, size_t);
extern void __libc_free(void *);

void *malloc(size_t n)
{
	pmcshim_begin_name("malloc");
	void *p = __libc_malloc(n);
	pmcshim_end_name("malloc");
	return p;
}

void *calloc(size_t n, size_t size)
{
	pmcshim_begin_name("calloc");
	void *p = __libc_calloc(n, size);
	pmcshim_end_name("calloc");
	return p;
}

void *realloc(void *p, size_t n)
{
	pmcshim_begin_name("realloc");
	p = __libc_realloc(p, n);
	pmcshim_end_name("realloc");
	return p;
}

void free(void *p)
{
	pmcshim_begin_name("free");
	__libc_free(p);
	pmcshim_end_name("free");
}

static __thread void *volatile keep;	/* so the compiler keeps each pair (one per thread:
					 * a shared one was freed twice) */

static void *churn(void *arg)
{
	for (int i = 0; i < 1000; i++) {
		keep = malloc(16 + (size_t)i);
		free(keep);
	}
	return arg;
}

int main(void)
{
	pthread_t t[4];

	for (int i = 0; i < 4; i++)
		pthread_create(&t[i], NULL, churn, NULL);
	churn(NULL);
	for (int i = 0; i < 4; i++)
		pthread_join(t[i], NULL);
	printf("mallocmark: done\n");
	return 0;
}
