/* The shim's entry points: load-time setup, the exported markers, and the
 * exit-time report. */
#include <errno.h>
#include <linux/perf_event.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#define PMCSHIM_API_ONLY
#include "../include/pmcshim.h"
#include "clock.h"
#include "config.h"
#include "counters.h"
#include "fork.h"
#include "log.h"
#include "names.h"
#include "report.h"
#include "stacks.h"
#include "threads.h"

#define EXPORT __attribute__((visibility("default")))
#define likely(x) __builtin_expect(!!(x), 1)
#define unlikely(x) __builtin_expect(!!(x), 0)

static struct config config;
static struct event_status status[EVENTS_MAX];
static struct report_info info;
static char exe_name[256];
static int active;

/* --- markers -------------------------------------------------------- */

static inline __attribute__((always_inline)) struct thread_state *enter(uint32_t id)
{
	struct thread_state *t = threads_tls;

	if (unlikely(!t) && !(t = threads_setup_lazy()))
		return NULL;
	if (unlikely(t->busy)) {
		/* a signal handler interrupted a marker on this thread */
		__atomic_add_fetch(&t->reentrant, 1, __ATOMIC_RELAXED);
		return NULL;
	}
	if (unlikely(id == 0))
		return NULL;
	t->busy = 1;
	__atomic_signal_fence(__ATOMIC_SEQ_CST);
	return t;
}

static inline void leave(struct thread_state *t)
{
	__atomic_signal_fence(__ATOMIC_SEQ_CST);
	t->busy = 0;
}

EXPORT unsigned pmcshim_region(const char *name)
{
	return names_intern(name, NULL);
}

EXPORT void pmcshim_begin_id(unsigned id)
{
	struct thread_state *t = enter(id);

	if (t) {
		regions_begin(&t->rs, &t->ctr, id,
			      (uintptr_t)__builtin_return_address(0));
		leave(t);
	}
}

EXPORT void pmcshim_end_id(unsigned id)
{
	struct thread_state *t = enter(id);

	if (t) {
		regions_end(&t->rs, &t->ctr, id);
		leave(t);
	}
}

/* Name lookup happens inside the guard: it may take a lock. */
static struct thread_state *enter_name(const char *name, uint32_t *id)
{
	struct thread_state *t = enter(UINT32_MAX);

	if (t && (*id = regions_name_id(&t->rs, name)) == 0) {
		leave(t);
		t = NULL;
	}
	return t;
}

EXPORT void pmcshim_begin(const char *name)
{
	uint32_t id;
	struct thread_state *t = enter_name(name, &id);

	if (t) {
		regions_begin(&t->rs, &t->ctr, id,
			      (uintptr_t)__builtin_return_address(0));
		leave(t);
	}
}

EXPORT void pmcshim_end(const char *name)
{
	uint32_t id;
	struct thread_state *t = enter_name(name, &id);

	if (t) {
		regions_end(&t->rs, &t->ctr, id);
		leave(t);
	}
}

static const struct pmcshim_api api = {
	.version = PMCSHIM_API_VERSION,
	.size = sizeof(struct pmcshim_api),
	.region = pmcshim_region,
	.begin_id = pmcshim_begin_id,
	.end_id = pmcshim_end_id,
	.begin = pmcshim_begin,
	.end = pmcshim_end,
};

EXPORT const struct pmcshim_api *pmcshim_api(unsigned version)
{
	return version == PMCSHIM_API_VERSION ? &api : NULL;
}

/* --- setup ---------------------------------------------------------- */

/* Append the names of unavailable events sharing reason `first`'s. */
static size_t list_same_reason(int first, unsigned *done, char *out, size_t len)
{
	size_t used = 0;

	for (int i = first; i < config.events.n && used < len; i++) {
		if (status[i].source != SOURCE_UNAVAILABLE ||
		    strcmp(status[i].reason, status[first].reason) != 0)
			continue;
		*done |= 1u << i;
		used += (size_t)snprintf(out + used, len - used, "%s%s",
					 used ? ", " : "", config.events.ev[i].name);
	}
	if (used < len)
		used += (size_t)snprintf(out + used, len - used, " (%s)",
					 status[first].reason);
	return used < len ? used : len;
}

/* Hardware events that fell back to read() although the system has a
 * user-space read path it could turn on. */
static const char *slow_path_hint(void)
{
	for (int i = 0; i < config.events.n; i++)
		if (status[i].source == SOURCE_READ &&
		    config.events.ev[i].type != PERF_TYPE_SOFTWARE)
			return counters_user_read_hint();
	return NULL;
}

/* One line: the unavailable events grouped by reason, and how to enable
 * user-space reads when they are off. */
static void announce(void)
{
	char line[900] = "";
	size_t used = 0;
	unsigned done = 0;
	int missing = 0;
	const char *hint = slow_path_hint();

	for (int i = 0; i < config.events.n; i++) {
		if (status[i].source != SOURCE_UNAVAILABLE)
			continue;
		missing++;
		if ((done & (1u << i)) || used + 3 >= sizeof(line))
			continue;
		if (used)
			used += (size_t)snprintf(line + used, sizeof(line) - used, "; ");
		used += list_same_reason(i, &done, line + used, sizeof(line) - used);
	}
	if (missing)
		log_notice("%s unavailable: %s; measuring %s%s%s (PMCSHIM_QUIET=1 hides this line)",
			   missing == config.events.n ? "events" : "some events",
			   line, missing == config.events.n
				 ? "wall time, calls, stacks and thread CPU time" : "the rest",
			   hint ? "; " : "", hint ? hint : "");
	else if (hint)
		log_notice("%s (PMCSHIM_QUIET=1 hides this line)", hint);
}

static void set_exe_name(void)
{
	char path[4096];
	ssize_t n = readlink("/proc/self/exe", path, sizeof(path) - 1);
	const char *base;
	size_t len;

	path[n > 0 ? n : 0] = '\0';
	base = strrchr(path, '/');
	base = base ? base + 1 : (n > 0 ? path : "unknown");
	len = strnlen(base, sizeof(exe_name) - 1);
	memcpy(exe_name, base, len);
	exe_name[len] = '\0';
}

static void on_fork_child(void)
{
	info.forked = 1;
}

__attribute__((constructor)) static void shim_init(int argc, char **argv, char **envp)
{
	int saved = errno;
	char why[256];

	(void)envp;
	config_load(&config);
	clock_start();
	set_exe_name();
	/* Depth 0 needs no unwinder: the call site is the return address. */
	if (config.stack_depth > 0 && stacks_init(why, sizeof(why)) != 0)
		log_notice("call-site stacks reduced to the call site: %s", why);
	info = (struct report_info){ &config, status, 0, argc, argv, exe_name };
	threads_init(&config, status);
	fork_install(on_fork_child);
	announce();
	active = 1;
	errno = saved;
}

__attribute__((destructor)) static void shim_fini(void)
{
	int saved = errno;

	if (!active)
		return;
	active = 0;
	threads_finish_self();
	report_write(&info);
	errno = saved;
}
