/* PAPI's high-level API as regions (source "papi"): PAPI_hl_region_begin
 * and PAPI_hl_region_end name a region; PAPI_hl_read and PAPI_hl_stop
 * change nothing the shim keeps. Preloaded, the shim's definitions come
 * before libpapi's, so PAPI is never initialised for them (on a machine
 * where PAPI finds no counters, its own begin fails at every call): each
 * returns PAPI_OK (0, papi.h). PAPI's low-level API is not touched.
 *
 * With PMCSHIM_PAPI=0, or when the shim does not record, each call goes
 * on to libpapi's definition, chosen once at setup. */

#include "annot.h"
#include "base/nextsym.h"
#include "lifecycle/hooks.h"
#include "settings/config.h"

#define EXPORT __attribute__((visibility("default")))
#define PAPI_OK 0

static int taken;

static void papi_setup(const struct config *c)
{
	taken = c->papi;
}

__attribute__((constructor)) static void papi_register(void)
{
	static const struct shim_hooks hooks = { .setup = papi_setup };

	hooks_register(&hooks);
}

/* libpapi's definition of name (found once per slot), called with arg;
 * PAPI_OK when there is none. */
static int pass(void **slot, const char *name, const char *arg, int with_arg)
{
	void *fn = nextsym_once(slot, name);

	if (!fn)
		return PAPI_OK;
	return with_arg ? ((int (*)(const char *))fn)(arg) : ((int (*)(void))fn)();
}

EXPORT int PAPI_hl_region_begin(const char *region)
{
	static void *slot;

	if (!__atomic_load_n(&taken, __ATOMIC_RELAXED))
		return pass(&slot, "PAPI_hl_region_begin", region, 1);
	annot_begin(region, RF_FROM_PAPI, (uintptr_t)__builtin_return_address(0));
	return PAPI_OK;
}

EXPORT int PAPI_hl_region_end(const char *region)
{
	static void *slot;

	if (!__atomic_load_n(&taken, __ATOMIC_RELAXED))
		return pass(&slot, "PAPI_hl_region_end", region, 1);
	annot_end(region, RF_FROM_PAPI);
	return PAPI_OK;
}

EXPORT int PAPI_hl_read(const char *region)
{
	static void *slot;

	if (!__atomic_load_n(&taken, __ATOMIC_RELAXED))
		return pass(&slot, "PAPI_hl_read", region, 1);
	return PAPI_OK;
}

EXPORT int PAPI_hl_stop(void)
{
	static void *slot;

	if (!__atomic_load_n(&taken, __ATOMIC_RELAXED))
		return pass(&slot, "PAPI_hl_stop", NULL, 0);
	return PAPI_OK;
}
