/* Run-time names that are string literals of a plugin which is then
 * unloaded: plugin-a.so marks its name 3 times and is closed; plugin-b.so,
 * loaded next (where the kernel maps it: usually the same place), marks
 * its own name, a literal of the same length at the same offset, twice.
 * Prints whether the two names had the same address, as that is the case
 * the shim's name cache must get right. The plugins lie beside the app. */
#include <dlfcn.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include <pmcshim.h>

/* Load dir/file, mark its name n times; returns its name's address. */
static const void *use_plugin(const char *dir, const char *file, int n)
{
	char path[PATH_MAX];
	const char *(*name)(void);
	void (*mark)(void);
	const void *where;
	void *h;

	snprintf(path, sizeof(path), "%s/%s", dir, file);
	if (!(h = dlopen(path, RTLD_NOW | RTLD_LOCAL))) {
		fprintf(stderr, "plugins: %s\n", dlerror());
		return NULL;
	}
	*(void **)&name = dlsym(h, "plugin_name");
	*(void **)&mark = dlsym(h, "plugin_mark");
	if (!name || !mark)
		return NULL;
	for (int i = 0; i < n; i++)
		mark();
	where = name();
	dlclose(h);
	return where;
}

int main(void)
{
	char dir[PATH_MAX];
	ssize_t len = readlink("/proc/self/exe", dir, sizeof(dir) - 1);
	const void *a, *b;

	if (len <= 0)
		return 1;
	dir[len] = '\0';
	*strrchr(dir, '/') = '\0';
	a = use_plugin(dir, "plugin-a.so", 3);
	b = use_plugin(dir, "plugin-b.so", 2);
	if (!a || !b)
		return 1;
	printf("plugins: names at the same address: %s\n", a == b ? "yes" : "no");
	return 0;
}
