#include "nextsym.h"

#include <dlfcn.h>
#include <link.h>
#include <string.h>

#define LOADED_MAX 512

struct loaded {
	const char *self;		/* the shim's own file: never asked */
	const char *name[LOADED_MAX];
	int n;
};

static int note_loaded(struct dl_phdr_info *info, size_t size, void *arg)
{
	struct loaded *l = arg;

	(void)size;
	if (info->dlpi_name && info->dlpi_name[0] && l->n < LOADED_MAX &&
	    (!l->self || strcmp(info->dlpi_name, l->self) != 0))
		l->name[l->n++] = info->dlpi_name;
	return 0;
}

void *nextsym(void *scope, const char *name)
{
	struct loaded l;	/* 4 KiB of stack, once per name looked up */
	Dl_info self;
	void *p = dlsym(scope, name), *h;

	if (p)
		return p;
	l.self = dladdr((void *)&nextsym, &self) ? self.dli_fname : NULL;
	l.n = 0;
	/* the names first: no dlopen under the loader's lock */
	dl_iterate_phdr(note_loaded, &l);
	for (int i = 0; !p && i < l.n; i++)
		if ((h = dlopen(l.name[i], RTLD_LAZY | RTLD_NOLOAD)))
			p = dlsym(h, name);	/* (the reference is dropped at exit) */
	return p;
}

void *nextsym_once(void **slot, const char *name)
{
	void *fn = __atomic_load_n(slot, __ATOMIC_ACQUIRE);

	if (!fn && (fn = nextsym(RTLD_NEXT, name)))
		__atomic_store_n(slot, fn, __ATOMIC_RELEASE);
	return fn;
}
