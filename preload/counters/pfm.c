/* libpfm4 through dlopen: see pfm.h. Its header gives the types; the
 * functions are looked up by name. */
#include "pfm.h"

#include <dlfcn.h>
#include <perfmon/pfmlib_perf_event.h>
#include <stdio.h>
#include <string.h>

static struct {
	int state;	/* 0 not tried, 1 ready, -1 unusable (why) */
	char why[160];
	__typeof__(pfm_get_os_event_encoding) *encode;
	__typeof__(pfm_get_pmu_info) *pmu_info;
	__typeof__(pfm_get_event_info) *event_info;
	__typeof__(pfm_get_event_next) *event_next;
	__typeof__(pfm_strerror) *strerror;
} lib;

static void *sym(void *h, const char *name)
{
	void *p = dlsym(h, name);

	if (!p)
		snprintf(lib.why, sizeof(lib.why), "libpfm.so.4 has no %s", name);
	return p;
}

/* pi gets PMU pmu's description; 1 when it is present and the CPU's own
 * (core or uncore): libpfm4's "perf" tables are always there and prove
 * nothing. */
static int cpu_pmu(int pmu, pfm_pmu_info_t *pi)
{
	memset(pi, 0, sizeof(*pi));
	pi->size = sizeof(*pi);
	return lib.pmu_info((pfm_pmu_t)pmu, pi) == PFM_SUCCESS && pi->is_present &&
	       pi->type != PFM_PMU_TYPE_OS_GENERIC;
}

static int recognises_cpu(void)
{
	pfm_pmu_info_t pi;

	for (int pmu = PFM_PMU_NONE; pmu < PFM_PMU_MAX; pmu++)
		if (cpu_pmu(pmu, &pi))
			return 1;
	return 0;
}

static int load(void)
{
	void *h = dlopen("libpfm.so.4", RTLD_NOW | RTLD_LOCAL);
	__typeof__(pfm_initialize) *init;
	int rc;

	if (!h) {
		snprintf(lib.why, sizeof(lib.why), "no native names: libpfm4 is not installed "
			 "(libpfm.so.4, Debian package libpfm4)");
		return -1;
	}
	if (!(init = sym(h, "pfm_initialize")) || !(lib.encode = sym(h, "pfm_get_os_event_encoding")) ||
	    !(lib.pmu_info = sym(h, "pfm_get_pmu_info")) ||
	    !(lib.event_info = sym(h, "pfm_get_event_info")) ||
	    !(lib.event_next = sym(h, "pfm_get_event_next")) ||
	    !(lib.strerror = sym(h, "pfm_strerror")))
		return -1;
	if ((rc = init()) != PFM_SUCCESS) {
		snprintf(lib.why, sizeof(lib.why), "libpfm4: %s", lib.strerror(rc));
		return -1;
	}
	if (!recognises_cpu()) {
		snprintf(lib.why, sizeof(lib.why), "no native names: libpfm4 does not recognise "
			 "this CPU");
		return -1;
	}
	return 0;
}

static int ready(char *err, size_t errlen)
{
	if (lib.state == 0)
		lib.state = load() == 0 ? 1 : -1;
	if (lib.state < 0)
		snprintf(err, errlen, "%s", lib.why);
	return lib.state > 0;
}

int native_encode(const char *name, struct native_attr *out, char *err, size_t errlen)
{
	struct perf_event_attr attr;
	pfm_perf_encode_arg_t arg;
	int rc;

	if (!ready(err, errlen))
		return -1;
	memset(&attr, 0, sizeof(attr));
	memset(&arg, 0, sizeof(arg));
	arg.attr = &attr;
	arg.size = sizeof(arg);
	rc = lib.encode(name, PFM_PLM3, PFM_OS_PERF_EVENT, &arg);
	if (rc != PFM_SUCCESS) {
		snprintf(err, errlen, "libpfm4: %s", lib.strerror(rc));
		return -1;
	}
	*out = (struct native_attr){ attr.type, attr.config, attr.config1, attr.config2 };
	return 0;
}

/* Every event of one present PMU (fn NULL: only count them), by its bare name (what people type;
 * libpfm4 also takes "pmu::EVENT"). */
static int each_of_pmu(const pfm_pmu_info_t *pi, void (*fn)(void *, const char *), void *arg)
{
	pfm_event_info_t ei;
	int n = 0;

	for (int i = pi->first_event; i != -1; i = lib.event_next(i)) {
		memset(&ei, 0, sizeof(ei));
		ei.size = sizeof(ei);
		if (lib.event_info(i, PFM_OS_NONE, &ei) != PFM_SUCCESS)
			continue;
		if (fn)
			fn(arg, ei.name);
		n++;
	}
	return n;
}

int native_each(void (*fn)(void *arg, const char *name), void *arg,
		char *pmus, size_t pmuslen, char *err, size_t errlen)
{
	pfm_pmu_info_t pi;
	size_t used = 0;
	int n = 0;

	if (pmuslen)
		pmus[0] = '\0';
	if (!ready(err, errlen))
		return -1;
	for (int pmu = PFM_PMU_NONE; pmu < PFM_PMU_MAX; pmu++) {
		if (!cpu_pmu(pmu, &pi))
			continue;
		if (used < pmuslen)
			used += (size_t)snprintf(pmus + used, pmuslen - used, "%s%s (%s)",
						 used ? ", " : "", pi.name, pi.desc);
		n += each_of_pmu(&pi, fn, arg);
	}
	return n;
}
