/* The shim's locks are taken across fork() so the child never inherits
 * one held by a thread that does not exist there. */
#include "fork.h"

#include <pthread.h>

#include "base/clock.h"
#include "regions/guard.h"
#include "report/mapfile.h"
#include "report/modules.h"
#include "regions/names.h"
#include "stacks/stacks.h"
#include "threads.h"

static void (*child_hook)(int recording);
/* The forking thread holds the guard while it holds the locks: a marker
 * in a signal handler then is dropped instead of waiting on them. */
static __thread int guarded;

static void prepare(void)
{
	guarded = guard_enter();
	threads_lock_registry();
	names_lock();
	stacks_lock();
	modules_lock();
	mapfile_lock();
}

static void parent(void)
{
	mapfile_unlock();
	modules_unlock();
	stacks_unlock();
	names_unlock();
	threads_unlock_registry();
	if (guarded)
		guard_leave();
}

static void child(void)
{
	parent();
	clock_start();
	child_hook(threads_after_fork_child() == 0);
}

void fork_install(void (*on_child)(int recording))
{
	child_hook = on_child;
	pthread_atfork(prepare, parent, child);
}
