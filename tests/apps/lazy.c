/* A thread the shim does not see start: created through libc's own
 * pthread_create, bypassing the interposed one. Its first marker sets it
 * up. */
#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>

#include <pmcshim.h>

typedef int (*create_fn)(pthread_t *, const pthread_attr_t *, void *(*)(void *), void *);

static void *body(void *arg)
{
	for (int i = 0; i < 6; i++) {
		PMCSHIM_BEGIN("lazy-work");
		PMCSHIM_END("lazy-work");
	}
	return arg;
}

int main(void)
{
	void *libc = dlopen("libc.so.6", RTLD_NOW | RTLD_NOLOAD);
	create_fn create;
	pthread_t t;

	*(void **)&create = libc ? dlsym(libc, "pthread_create") : NULL;
	if (!create || create(&t, NULL, body, NULL) != 0)
		return 1;
	pthread_join(t, NULL);
	printf("lazy: done\n");
	return 0;
}
