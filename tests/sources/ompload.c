/* Loads an OpenMP library with RTLD_LOCAL (as an interpreter loads an
 * extension) and runs its parallel region once: the program itself does
 * not link libgomp. */
#include <dlfcn.h>
#include <stdio.h>

int main(int argc, char **argv)
{
	void *h = dlopen(argc > 1 ? argv[1] : "libomplib.so", RTLD_LOCAL | RTLD_NOW);
	int (*team)(void);

	if (!h || !(*(void **)&team = dlsym(h, "omplib_team"))) {
		fprintf(stderr, "ompload: %s\n", dlerror());
		return 2;
	}
	printf("team %d\n", team());
	return 0;
}
