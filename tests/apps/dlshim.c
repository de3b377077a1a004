/* dlshim SHIM: a host that loads the shim as a plugin does (dlopen, not
 * LD_PRELOAD), marks from a thread through the dlsym'd pmcshim_api,
 * dlcloses the shim, and only then lets the thread exit (the shim's
 * thread-exit work runs after the dlclose). */
#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>

#include <pmcshim.h>

static const struct pmcshim_api *api;
static pthread_barrier_t marked, closed;

static void *worker(void *arg)
{
	unsigned id = api->region("worker");

	for (int i = 0; i < 10; i++) {
		api->begin_id(id);
		api->end_id(id);
	}
	pthread_barrier_wait(&marked);
	pthread_barrier_wait(&closed);	/* the shim is dlclosed by now */
	return arg;
}

int main(int argc, char **argv)
{
	pmcshim_api_fn get;
	pthread_t t;
	void *h;

	if (argc != 2 || !(h = dlopen(argv[1], RTLD_NOW | RTLD_LOCAL))) {
		fprintf(stderr, "dlshim: %s\n", argc == 2 ? dlerror() : "usage: dlshim SHIM");
		return 2;
	}
	*(void **)&get = dlsym(h, "pmcshim_api");
	if (!get || !(api = get(PMCSHIM_API_VERSION))) {
		fprintf(stderr, "dlshim: no pmcshim_api\n");
		return 2;
	}
	pthread_barrier_init(&marked, NULL, 2);
	pthread_barrier_init(&closed, NULL, 2);
	pthread_create(&t, NULL, worker, NULL);
	pthread_barrier_wait(&marked);
	api = NULL;
	printf("dlclose: %d\n", dlclose(h));
	pthread_barrier_wait(&closed);
	pthread_join(t, NULL);
	printf("dlshim: done\n");
	return 0;
}
