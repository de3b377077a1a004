/* A function called from one place before and after a plugin it has
 * nothing to do with is loaded and unloaded (tests/sources/reloadlib.c's
 * alpha, path in argv[1]): foo() 1,000 times, the plugin's alpha_work(7),
 * dlclose, then foo() 10 times more: foo's calls are 1,010. Built with
 * -finstrument-functions. */
#include <dlfcn.h>
#include <stdio.h>

static volatile int sink;

__attribute__((noinline)) static void foo(int i)
{
	sink += i;
}

__attribute__((noinline)) static int plugin(const char *path)
{
	void *h = dlopen(path, RTLD_NOW);
	int (*work)(int) = h ? (int (*)(int))dlsym(h, "alpha_work") : NULL;

	if (!work)
		return -1;
	sink += work(7);
	return dlclose(h);
}

int main(int argc, char **argv)
{
	if (argc < 2)
		return 2;
	for (int i = 0; i < 1010; i++)
		if (i == 1000 && plugin(argv[1]) != 0)
			return 1;
		else
			foo(i);
	printf("unload %d\n", sink);
	return 0;
}
