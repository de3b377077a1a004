/* The shim's entry points: load-time setup and the exported markers. How
 * the process ends (exit, _exit, exec) is in ending.c. */
#include <errno.h>
#include <linux/perf_event.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#define PMCSHIM_API_ONLY
#include "../../include/pmcshim.h"
#include "base/clock.h"
#include "settings/config.h"
#include "counters/counters.h"
#include "ending.h"
#include "fork.h"
#include "hooks.h"
#include "regions/guard.h"
#include "base/log.h"
#include "report/mapfile.h"
#include "report/modules.h"
#include "regions/names.h"
#include "sample/sample.h"
#include "stacks/stacks.h"
#include "shim.h"
#include "base/text.h"
#include "threads.h"

#define EXPORT __attribute__((visibility("default")))
#define likely(x) __builtin_expect(!!(x), 1)
#define unlikely(x) __builtin_expect(!!(x), 0)

static struct config config;
static struct event_status status[EVENTS_MAX];
static char exe_name[256];
int shim_active;
static int setup_started;
static uint64_t early;		/* markers before setup (counted once it exists) */

static void shim_setup(int argc, char **argv);

/* --- markers -------------------------------------------------------- */

/* Not recording: before setup (set up now if nothing else is under way),
 * after the end, or without a file. */
static __attribute__((noinline)) int not_active(void)
{
	if (__atomic_exchange_n(&setup_started, 1, __ATOMIC_ACQ_REL) == 0) {
		shim_setup(0, NULL);
		return !__atomic_load_n(&shim_active, __ATOMIC_ACQUIRE);
	}
	__atomic_add_fetch(&early, 1, __ATOMIC_RELAXED);
	return 1;
}

/* A thread's first marker, when it was not seen starting. */
static __attribute__((noinline)) struct thread_state *setup_thread(void)
{
	struct thread_state *t = NULL;

	if (guard_enter()) {
		t = threads_setup_lazy();
		guard_leave();
	} else {
		mapfile_drop(RF_DROP_BUSY);	/* a signal handler interrupted the setup */
	}
	return t;
}

/* The calling thread's state, or NULL when the marker is not recorded.
 * The markers themselves take the guard (regions.h). */
static struct thread_state *enter(uint32_t id)
{
	struct thread_state *t;

	if (!__atomic_load_n(&shim_active, __ATOMIC_RELAXED) && not_active())
		return NULL;
	t = threads_tls;
	if ((!t && !(t = setup_thread())) || id == 0)
		return NULL;
	return t;
}

struct thread_state *shim_thread_cold(void)
{
	return enter(UINT32_MAX);
}

/* The warm path: recording, the thread set up, a region id that region()
 * gave out (one compare: ids are 1, 2, ... in order). */
static inline struct thread_state *warm(uint32_t id)
{
	struct thread_state *t = threads_tls;

	if (likely(__atomic_load_n(&shim_active, __ATOMIC_RELAXED) && t && names_issued_id(id)))
		return t;
	return NULL;
}

/* The name markers' warm path (the id comes from the name, inside). */
static inline struct thread_state *warm_name(void)
{
	struct thread_state *t = threads_tls;

	if (likely(__atomic_load_n(&shim_active, __ATOMIC_RELAXED) && t))
		return t;
	return NULL;
}

/* An id no region() call returned (garbage, a stale or made-up number) is
 * refused and counted, never recorded: the report could not name it. The
 * warm path's compare may not yet see an id another thread was given an
 * instant ago: the names lock decides, taken inside the guard as
 * everywhere (when the shim is busy on this thread, the marker is let
 * through, for the marker's own guard to drop and count). */
static int given_out(uint32_t id)
{
	int known = 1;

	if (names_issued_id(id))
		return 1;
	if (guard_enter()) {
		known = names_given_out(id);
		guard_leave();
	}
	if (!known)
		mapfile_drop(RF_DROP_IDS);
	return known;
}

/* Any marker by id off the warm path (tail-called, so the warm markers
 * need no stack frame). */
static __attribute__((noinline)) void begin_cold(uint32_t id, uintptr_t caller)
{
	struct thread_state *t = enter(id);

	if (t && given_out(id))
		regions_begin(&t->rs, &t->ctr, id, caller);
}

static __attribute__((noinline)) void end_cold(uint32_t id)
{
	struct thread_state *t = enter(id);

	if (t && given_out(id))
		regions_end(&t->rs, &t->ctr, id);
}

static void begin_name_cold(const char *name, uintptr_t caller)
{
	struct thread_state *t = enter(UINT32_MAX);

	if (t)
		regions_begin_name(&t->rs, &t->ctr, name, caller);
}

static void end_name_cold(const char *name)
{
	struct thread_state *t = enter(UINT32_MAX);

	if (t)
		regions_end_name(&t->rs, &t->ctr, name);
}

EXPORT unsigned pmcshim_region(const char *name)
{
	unsigned id = 0;

	if (__atomic_load_n(&shim_active, __ATOMIC_RELAXED) || !not_active()) {
		if (guard_enter()) {
			id = names_intern(name, NULL);
			guard_leave();
		}
	}
	return id;
}

EXPORT void pmcshim_begin_id(unsigned id)
{
	struct thread_state *t = warm(id);
	uintptr_t caller = (uintptr_t)__builtin_return_address(0);

	if (t)
		regions_begin(&t->rs, &t->ctr, id, caller);
	else
		begin_cold(id, caller);
}

EXPORT void pmcshim_end_id(unsigned id)
{
	struct thread_state *t = warm(id);

	if (t)
		regions_end(&t->rs, &t->ctr, id);
	else
		end_cold(id);
}

/* Markers by name: enter() is given a non-zero stand-in id; the region
 * comes from the name, inside the marker. */
EXPORT void pmcshim_begin(const char *name)
{
	struct thread_state *t = warm_name();
	uintptr_t caller = (uintptr_t)__builtin_return_address(0);

	if (t)
		regions_begin_name(&t->rs, &t->ctr, name, caller);
	else
		begin_name_cold(name, caller);
}

EXPORT void pmcshim_end(const char *name)
{
	struct thread_state *t = warm_name();

	if (t)
		regions_end_name(&t->rs, &t->ctr, name);
	else
		end_name_cold(name);
}

/* --- the shim's own sources of regions ------------------------------ */

/* Never sets up the shim nor counts an early marker: a source may run
 * before setup (another library's constructor) or after the end (an
 * atexit handler), where its calls are not the application's markers. */
uint32_t shim_name_text(const char *name, enum rf_from source, const char **text)
{
	uint32_t id = 0;

	if (__atomic_load_n(&shim_active, __ATOMIC_ACQUIRE) && guard_enter()) {
		id = names_intern_text(name, source, text);
		guard_leave();
	}
	return id;
}

uint32_t shim_name(const char *name, enum rf_from source)
{
	const char *text;

	return shim_name_text(name, source, &text);
}

void shim_begin_at(uint32_t id, uintptr_t caller)
{
	struct thread_state *t = warm(id);

	if (t || (__atomic_load_n(&shim_active, __ATOMIC_RELAXED) && (t = enter(id))))
		regions_begin(&t->rs, &t->ctr, id, caller);
}

void shim_end_at(uint32_t id)
{
	struct thread_state *t = warm(id);

	if (t || (__atomic_load_n(&shim_active, __ATOMIC_RELAXED) && (t = enter(id))))
		regions_end(&t->rs, &t->ctr, id);
}

/* Its markers start as the exported functions; shim_setup puts the
 * regions' entries for the main thread's values in their place (the
 * header's markers read the table at each call). */
static struct pmcshim_api api = {
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

/* The markers the api table holds. */
static void set_markers(void (*begin)(unsigned), void (*end)(unsigned),
			void (*begin_name)(const char *), void (*end_name)(const char *))
{
	__atomic_store_n(&api.begin_id, begin, __ATOMIC_RELAXED);
	__atomic_store_n(&api.end_id, end, __ATOMIC_RELAXED);
	__atomic_store_n(&api.begin, begin_name, __ATOMIC_RELAXED);
	__atomic_store_n(&api.end, end_name, __ATOMIC_RELAXED);
}

/* The entries installed, for the values the main thread has (kept: the
 * same are put back after a failed exec, as threads' warm_ids were made
 * for them). */
static const struct regions_entry *installed;

/* While the process records, the markers in the api table are whole
 * entry points (one call from the application, one thread-local
 * look-up), which do not look at shim_active: they are in the table
 * only while it is set. Their cold paths are this file's markers. */
static void install_entries(void)
{
	struct thread_state *t = threads_tls;

	entry_cold = (struct entry_cold){ begin_cold, end_cold, begin_name_cold, end_name_cold };
	if (t && !installed)
		installed = regions_entry(&t->rs);
	if (installed)
		set_markers(installed->begin, installed->end, installed->begin_name,
			    installed->end_name);
}

/* Not recording (the end, a fork child without a file): this file's
 * markers, which look at shim_active. A marker that read the table
 * just before may still take an entry's warm path, as one that read
 * shim_active just before would. */
static void remove_entries(void)
{
	set_markers(pmcshim_begin_id, pmcshim_end_id, pmcshim_begin, pmcshim_end);
}

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

/* "a, b" for the events of mask that count, into out; how many. */
static int names_of(uint32_t mask, char *out, size_t len)
{
	for (int i = 0; i < config.events.n; i++)
		if (status[i].source == SOURCE_UNAVAILABLE)
			mask &= ~(1u << i);
	return events_names(&config.events, mask, out, len);
}

/* The defaults chosen for this machine, when not the PMU's; and the cost
 * of the events read only through read() that the markers still read (the
 * user named them). */
static void announce_read_only(void)
{
	char names[400];
	int n;

	if (config.events_default && config.events_why[0]) {
		names_of(~0u, names, sizeof(names));
		log_notice("default events %s, counted per thread (%s); regions get calls and "
			   "wall time; PMCSHIM_EVENTS names others (PMCSHIM_QUIET=1 hides this line)",
			   names, config.events_why);
	}
	n = names_of(config_read_only(&config.events) & ~config.per_thread, names, sizeof(names));
	if (n)
		log_notice("%s count%s only through read(): each marker pair makes two system "
			   "calls to count %s per region (1-2 us each on a VM) "
			   "(PMCSHIM_QUIET=1 hides this line)", names,
			   n > 1 ? "" : "s", n > 1 ? "them" : "it");
}

/* One line: the unavailable events grouped by reason, and how to enable
 * user-space reads when they are off. (None made under PMCSHIM_QUIET:
 * snprintf's code would be paged in for nothing.) */
static void announce(void)
{
	char line[900] = "";
	size_t used = 0;
	unsigned done = 0;
	int missing = 0;
	const char *hint;

	if (config.quiet)
		return;
	hint = slow_path_hint();

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
	for (int i = 0; i < config.events.n; i++)
		if (status[i].user_only)
			log_notice("%s counts in user space only: the kernel refused kernel mode "
				   "(%s)", config.events.ev[i].name, status[i].reason);
	announce_read_only();
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

/* What the main thread found for each configured event. */
static void record_events(void)
{
	for (int i = 0; i < config.events.n; i++) {
		const struct event_spec *e = &config.events.ev[i];
		struct rf_event *r = mapfile_append(RF_EVENT, sizeof(*r));

		if (!r)
			return;
		r->index = (uint32_t)i;
		r->type = e->type;
		r->config = e->config;
		r->exclude_kernel = (uint32_t)(e->exclude_kernel || status[i].user_only);
		r->source = (uint32_t)status[i].source;
		text_copy(r->name, sizeof(r->name), e->name);
		text_copy(r->reason, sizeof(r->reason),
			  status[i].source == SOURCE_UNAVAILABLE ? status[i].reason : "");
		text_copy(r->mode_note, sizeof(r->mode_note),
			  status[i].user_only ? status[i].reason : "");
		r->per_thread = config.per_thread >> i & 1;
		mapfile_publish(r);
	}
	mapfile_header()->nevents = (uint32_t)config.events.n;
}

static void on_fork_child(int recording)
{
	__atomic_store_n(&shim_active, recording, __ATOMIC_RELEASE);
	if (!recording)
		remove_entries();
}

static void on_end(void)
{
	sample_end();
	hooks_end();
	__atomic_store_n(&shim_active, 0, __ATOMIC_RELEASE);
	remove_entries();
}

static void on_resume(void)
{
	sample_resume();
	__atomic_store_n(&shim_active, 1, __ATOMIC_RELEASE);
	install_entries();
}

/* Once, from the constructor or from the first marker if another
 * library's constructor marks before ours runs. */
static void shim_setup(int argc, char **argv)
{
	int saved = errno;
	char why[256];
	struct mapfile_process p;

	threads_note_begin();
	config_load(&config);
	names_set_limit((uint32_t)config.max_names);
	hooks_setup(&config);
	config.per_thread |= hooks_per_thread(&config);
	clock_start();
	set_exe_name();
	p = (struct mapfile_process){ exe_name, argc, argv, config.stack_depth,
				      config.serialize };
	if (mapfile_create(&config, &p) != 0) {
		errno = saved;
		return;
	}
	guard_enter();
	/* Depth 0 needs no unwinder: the call site is the return address. */
	if (config.stack_depth > 0 && stacks_init(config.stack_method, why, sizeof(why)) != 0)
		log_notice("call-site stacks reduced to the call site: %s", why);
	guard_leave();
	sample_init(&config);
	threads_init(&config, status);
	guard_enter();
	record_events();
	guard_leave();
	fork_install(on_fork_child);
	ending_install(on_end, on_resume);
	announce();
	__atomic_add_fetch(&mapfile_header()->dropped[RF_DROP_EARLY],
			   __atomic_exchange_n(&early, 0, __ATOMIC_RELAXED), __ATOMIC_RELAXED);
	__atomic_store_n(&shim_active, 1, __ATOMIC_RELEASE);
	install_entries();
	errno = saved;
}

__attribute__((constructor)) static void shim_init(int argc, char **argv, char **envp)
{
	(void)envp;
	if (__atomic_exchange_n(&setup_started, 1, __ATOMIC_ACQ_REL) == 0)
		shim_setup(argc, argv);
}
