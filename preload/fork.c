/* The shim's locks are taken across fork() so the child never inherits
 * one held by a thread that does not exist there. */
#include "fork.h"

#include <pthread.h>

#include "clock.h"
#include "names.h"
#include "stacks.h"
#include "threads.h"

static void (*child_hook)(void);

static void prepare(void)
{
	threads_lock_registry();
	names_lock();
	stacks_lock();
}

static void parent(void)
{
	stacks_unlock();
	names_unlock();
	threads_unlock_registry();
}

static void child(void)
{
	parent();
	clock_start();
	threads_after_fork_child();
	if (child_hook)
		child_hook();
}

void fork_install(void (*on_child)(void))
{
	child_hook = on_child;
	pthread_atfork(prepare, parent, child);
}
