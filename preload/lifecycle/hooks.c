/* The sources' hooks (hooks.h). Registration happens in constructors, which
 * the dynamic linker runs one at a time, before any thread the program
 * makes can reach the shim: the table is filled before it is read from
 * another thread, and a hook registered after setup is set up on the spot
 * (the shim was set up by another library's constructor, before ours). */
#include <stddef.h>

#include "hooks.h"

#define HOOKS_MAX 12

static const struct shim_hooks *hooks[HOOKS_MAX];
static int nhooks;
static const struct config *configured;	/* set once setup called the hooks */

void hooks_register(const struct shim_hooks *h)
{
	const struct config *c = __atomic_load_n(&configured, __ATOMIC_ACQUIRE);

	if (nhooks == HOOKS_MAX)
		return;
	__atomic_store_n(&hooks[nhooks], h, __ATOMIC_RELEASE);
	__atomic_store_n(&nhooks, nhooks + 1, __ATOMIC_RELEASE);
	if (c && h->setup)
		h->setup(c);
}

static int count(void)
{
	return __atomic_load_n(&nhooks, __ATOMIC_ACQUIRE);
}

void hooks_setup(const struct config *c)
{
	for (int i = 0; i < count(); i++)
		if (hooks[i]->setup)
			hooks[i]->setup(c);
	__atomic_store_n(&configured, c, __ATOMIC_RELEASE);
}

void hooks_thread_finish(struct thread_state *t)
{
	for (int i = 0; i < count(); i++)
		if (hooks[i]->thread_finish)
			hooks[i]->thread_finish(t);
}

void hooks_end(void)
{
	for (int i = 0; i < count(); i++)
		if (hooks[i]->end)
			hooks[i]->end();
}

uint32_t hooks_per_thread(const struct config *c)
{
	uint32_t mask = 0;

	for (int i = 0; i < count(); i++)
		if (hooks[i]->per_thread)
			mask |= hooks[i]->per_thread(c);
	return mask;
}
