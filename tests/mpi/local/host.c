/* Loads plugin.so RTLD_LOCAL and calls MPI through it. */
#include <dlfcn.h>
#include <stdio.h>
int main(void) {
	void *h = dlopen("./plugin.so", RTLD_NOW | RTLD_LOCAL);
	int (*run)(void);
	if (!h) { printf("dlopen: %s\n", dlerror()); return 2; }
	*(void **)&run = dlsym(h, "plugin_run");
	int rc = run();
	printf("MPI_Init rc=%d\n", rc);
	return rc;
}
