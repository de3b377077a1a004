/* unloads: name markers with string literals on 4 threads while the main
 * thread loads and unloads a library 200 times. Every pair must be counted
 * under its own name: the shim's name cache trusts a literal's pointer
 * only while no object is being or has been unloaded, and the count of
 * unloads moves under the markers here. Prints "unloads: done". */
#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>

#include <pmcshim.h>

#define THREADS 4
#define PAIRS 20000
#define CYCLES 200

static void *mark(void *name)
{
	for (int i = 0; i < PAIRS; i++) {
		pmcshim_begin_name(name);
		pmcshim_end_name(name);
	}
	return NULL;
}

int main(void)
{
	static const char *const names[THREADS] = { "lit-0", "lit-1", "lit-2", "lit-3" };
	pthread_t t[THREADS];

	for (int i = 0; i < THREADS; i++)
		pthread_create(&t[i], NULL, mark, (void *)names[i]);
	for (int c = 0; c < CYCLES; c++) {
		void *h = dlopen("libm.so.6", RTLD_NOW | RTLD_LOCAL);
		if (h)
			dlclose(h);
	}
	for (int i = 0; i < THREADS; i++)
		pthread_join(t[i], NULL);
	printf("unloads: done\n");
	return 0;
}
