/* Event-name parsing and the environment settings. */
#include <linux/perf_event.h>
#include <stdlib.h>

#include "../preload/settings/config.h"
#include "../preload/counters/events.h"
#include "harness.h"

static void test_generic_names(void)
{
	struct event_spec e;
	char err[200];

	CHECK(events_parse_one("instructions", &e, err, sizeof(err)) == 0, "%s", err);
	CHECK(e.type == PERF_TYPE_HARDWARE && e.config == PERF_COUNT_HW_INSTRUCTIONS, "instructions");
	CHECK(e.exclude_kernel == 1, "user space only by default");
	CHECK(events_parse_one("ref-cycles", &e, err, sizeof(err)) == 0 &&
	      e.config == PERF_COUNT_HW_REF_CPU_CYCLES, "ref-cycles");
	CHECK(events_parse_one("stalled-cycles-backend", &e, err, sizeof(err)) == 0 &&
	      e.config == PERF_COUNT_HW_STALLED_CYCLES_BACKEND, "stalled-cycles-backend");
	CHECK(events_parse_one("task-clock", &e, err, sizeof(err)) == 0 &&
	      e.type == PERF_TYPE_SOFTWARE && e.config == PERF_COUNT_SW_TASK_CLOCK, "task-clock");
	CHECK(events_parse_one("page-faults", &e, err, sizeof(err)) == 0 &&
	      e.config == PERF_COUNT_SW_PAGE_FAULTS, "page-faults");
	CHECK(events_parse_one("context-switches", &e, err, sizeof(err)) == 0 &&
	      e.exclude_kernel == 0, "a software event counts in the kernel too by default");
	CHECK(events_parse_one("context-switches:u", &e, err, sizeof(err)) == 0 &&
	      e.exclude_kernel == 1, "context-switches:u: user space only");
	CHECK(events_parse_one("LLC-loads", &e, err, sizeof(err)) == 0 &&
	      e.exclude_kernel == 1, "a cache event: user space only by default");
	CHECK(events_parse_one("r01c2", &e, err, sizeof(err)) == 0 &&
	      e.exclude_kernel == 1, "a raw event: user space only by default");
}

static void test_raw_and_modifiers(void)
{
	struct event_spec e;
	char err[200];

	CHECK(events_parse_one("r01c2", &e, err, sizeof(err)) == 0, "%s", err);
	CHECK(e.type == PERF_TYPE_RAW && e.config == 0x1c2, "config=%llx",
	      (unsigned long long)e.config);
	CHECK(events_parse_one("cycles:uk", &e, err, sizeof(err)) == 0 &&
	      e.exclude_kernel == 0, "cycles:uk counts the kernel");
	CHECK(events_parse_one("cycles:u", &e, err, sizeof(err)) == 0 &&
	      e.exclude_kernel == 1, "cycles:u");
	CHECK(events_parse_one("r", &e, err, sizeof(err)) != 0, "bare r");
	CHECK(events_parse_one("r12g4", &e, err, sizeof(err)) != 0, "non-hex raw");
	CHECK(events_parse_one("r11112222333344445", &e, err, sizeof(err)) != 0, "raw > 64 bits");
	CHECK(events_parse_one("cycles:x", &e, err, sizeof(err)) != 0 &&
	      strstr(err, "modifier"), "bad modifier: %s", err);
}

static void test_bad_names_explained(void)
{
	struct event_spec e;
	char err[200];

	CHECK(events_parse_one("instructionz", &e, err, sizeof(err)) != 0, "typo accepted");
	CHECK(strstr(err, "'instructionz'") && strstr(err, "unknown event"), "err=%s", err);
	CHECK(events_parse_one("", &e, err, sizeof(err)) != 0, "empty accepted");
}

static void test_cache_names(void)
{
	struct event_spec e;
	char err[400];

	CHECK(events_parse_one("L1-dcache-load-misses", &e, err, sizeof(err)) == 0, "%s", err);
	CHECK(e.type == PERF_TYPE_HW_CACHE &&
	      e.config == (PERF_COUNT_HW_CACHE_L1D | PERF_COUNT_HW_CACHE_OP_READ << 8 |
			   PERF_COUNT_HW_CACHE_RESULT_MISS << 16), "config=%llx",
	      (unsigned long long)e.config);
	CHECK(events_parse_one("LLC-prefetches:uk", &e, err, sizeof(err)) == 0 &&
	      e.config == (PERF_COUNT_HW_CACHE_LL | PERF_COUNT_HW_CACHE_OP_PREFETCH << 8 |
			   PERF_COUNT_HW_CACHE_RESULT_ACCESS << 16) && !e.exclude_kernel, "LLC-prefetches:uk");
	CHECK(events_parse_one("dTLB-store-misses", &e, err, sizeof(err)) == 0 &&
	      e.config == (PERF_COUNT_HW_CACHE_DTLB | PERF_COUNT_HW_CACHE_OP_WRITE << 8 |
			   PERF_COUNT_HW_CACHE_RESULT_MISS << 16), "dTLB-store-misses");
	/* perf lists no stores for the instruction cache */
	CHECK(events_parse_one("L1-icache-stores", &e, err, sizeof(err)) != 0, "L1-icache-stores");
}

static void test_unknown_names_suggest(void)
{
	struct event_spec e;
	char err[400];

	CHECK(events_parse_one("L1-dcache-lod-misses", &e, err, sizeof(err)) != 0, "typo accepted");
	CHECK(strstr(err, "closest: L1-dcache-load-misses"), "err=%s", err);
	CHECK(events_parse_one("INSTRUCTIONS", &e, err, sizeof(err)) != 0 &&
	      strstr(err, "closest: instructions"), "case: %s", err);
	CHECK(events_parse_one("stalled-cycles-front", &e, err, sizeof(err)) != 0 &&
	      strstr(err, "closest: stalled-cycles-frontend"), "err=%s", err);
	/* nothing close: the reason native names did not help */
	CHECK(events_parse_one("zzzzzzzzzzzz", &e, err, sizeof(err)) != 0 &&
	      !strstr(err, "closest") && strstr(err, "libpfm4"), "err=%s", err);
}

/* libpfm4's EVENT:UMASK keeps its colons; only a trailing :u/:k/:uk is
 * pmcshim's. */
static void test_native_names(void)
{
	struct event_spec e;
	char err[400];

	if (events_parse_one("INST_RETIRED:ANY_P:u", &e, err, sizeof(err)) == 0) {
		CHECK(e.type == PERF_TYPE_RAW && e.exclude_kernel, "type %u", e.type);
		return;
	}
	CHECK(strstr(err, "'INST_RETIRED:ANY_P:u'") && strstr(err, "libpfm4"), "err=%s", err);
	if (strstr(err, "does not recognise this CPU"))
		SKIP("libpfm4 does not recognise this CPU: no native names to test here");
	if (strstr(err, "not installed"))
		SKIP("libpfm4 is not installed");
	CHECK(0, "an Intel name on a CPU libpfm4 knows: %s", err);
}

static void test_list_keeps_good_entries(void)
{
	struct event_list l;
	char err[400];
	int skipped = events_parse_list(" cycles , foo,,instructions,cycles ", &l, err, sizeof(err));

	CHECK(skipped == 2, "skipped=%d", skipped);
	CHECK(l.n == 2, "n=%d", l.n);
	CHECK(strcmp(l.ev[0].name, "cycles") == 0 && strcmp(l.ev[1].name, "instructions") == 0,
	      "order kept, spaces trimmed: '%s' '%s'", l.ev[0].name, l.ev[1].name);
	CHECK(strstr(err, "'foo'") && strstr(err, "listed twice"), "err=%s", err);
}

static void test_list_limit(void)
{
	struct event_list l;
	char err[400];
	int skipped = events_parse_list("r1,r2,r3,r4,r5,r6,r7,r8,r9", &l, err, sizeof(err));

	CHECK(l.n == EVENTS_MAX && skipped == 1, "n=%d skipped=%d", l.n, skipped);
	CHECK(strstr(err, "more than"), "err=%s", err);
}

static void test_output_expansion(void)
{
	char out[128];

	CHECK(config_expand_output("r-%e-%p-%h.json", 42, "box", "app", "", out, sizeof(out)) == 0, "fits");
	CHECK(strcmp(out, "r-app-42-box.json") == 0, "out=%s", out);
	CHECK(config_expand_output("100%%-%q%", 1, "h", "e", "", out, sizeof(out)) == 0 &&
	      strcmp(out, "100%-%q%") == 0, "literal percent signs: %s", out);
	CHECK(config_expand_output("%e%e%e", 1, "h", "0123456789", "", out, 20) != 0,
	      "overflow must be refused");
}

/* An MPI job's rank from the launcher's environment: in the default file
 * name (padded to the size's digits) and %r; none with PMCSHIM_MPI=0; an
 * unknown PMCSHIM_MPI keeps the default. */
static void test_mpi_rank_and_switch(void)
{
	struct config c;
	char out[128];

	CHECK(config_expand_output("p-r%r.pmc", 1, "h", "e", "07", out, sizeof(out)) == 0 &&
	      strcmp(out, "p-r07.pmc") == 0, "out=%s", out);
	unsetenv("PMCSHIM_OUTPUT");
	setenv("OMPI_COMM_WORLD_RANK", "7", 1);
	setenv("OMPI_COMM_WORLD_SIZE", "16", 1);
	config_load(&c);
	CHECK(c.mpi == 1 && strcmp(c.rank, "07") == 0 &&
	      strcmp(c.output, CONFIG_DEFAULT_OUTPUT_RANK) == 0, "mpi %d rank '%s' output %s",
	      c.mpi, c.rank, c.output);
	setenv("PMCSHIM_MPI", "0", 1);
	config_load(&c);
	CHECK(c.mpi == 0 && !c.rank[0] && strcmp(c.output, CONFIG_DEFAULT_OUTPUT) == 0,
	      "off: mpi %d rank '%s'", c.mpi, c.rank);
	setenv("PMCSHIM_MPI", "yes please", 1);
	config_load(&c);
	CHECK(c.mpi == 1 && strcmp(c.rank, "07") == 0, "unknown value: default");
	unsetenv("PMCSHIM_MPI");
	unsetenv("OMPI_COMM_WORLD_RANK");
	unsetenv("OMPI_COMM_WORLD_SIZE");
}

static void test_env_defaults_and_bad_values(void)
{
	struct config c;

	unsetenv("PMCSHIM_EVENTS");
	unsetenv("PMCSHIM_OUTPUT");
	setenv("PMCSHIM_STACK_DEPTH", "banana", 1);
	setenv("PMCSHIM_QUIET", "1", 1);
	config_load(&c);
	/* the machine's: the PMU's where it counts, else the software ones,
	 * which count only through read() and so per thread only */
	{
		char why[200];
		const char *want = config_default_events(why, sizeof(why));
		int pmu = !strcmp(want, CONFIG_DEFAULT_EVENTS);

		CHECK(c.events_default && c.events.n == (pmu ? 2 : 3) &&
		      strcmp(c.events.ev[0].name, pmu ? "instructions" : "task-clock") == 0 &&
		      (pmu || !strcmp(c.events.ev[2].name, "page-faults")) && !pmu == !!why[0],
		      "default events (%s, %d of them, why '%s')", want, c.events.n, why);
		CHECK(c.per_thread == (pmu ? config_read_only(&c.events) : 7u),
		      "defaults read only through read() are per thread: %#x", c.per_thread);
	}
	CHECK(c.stack_depth == CONFIG_DEFAULT_DEPTH, "bad depth falls back");
	CHECK(strcmp(c.output, CONFIG_DEFAULT_OUTPUT) == 0, "default output");
	CHECK(c.quiet == 1, "quiet");
	setenv("PMCSHIM_STACK_DEPTH", "0", 1);
	setenv("PMCSHIM_EVENTS", "none", 1);
	config_load(&c);
	CHECK(c.stack_depth == 0 && c.events.n == 0, "depth 0, no events");
	setenv("PMCSHIM_EVENTS", "", 1);
	config_load(&c);
	CHECK(c.events_default && c.events.n == (config_read_only(&c.events) ? 3 : 2),
	      "empty events: a mistake, the default");
	setenv("PMCSHIM_EVENTS", "task-clock", 1);
	config_load(&c);
	CHECK(!c.events_default && c.per_thread == 0, "task-clock named: per region");
	setenv("PMCSHIM_STACK_DEPTH", "65", 1);
	config_load(&c);
	CHECK(c.stack_depth == CONFIG_DEFAULT_DEPTH, "depth above the limit refused");
}

int main(void)
{
	RUN(test_generic_names);
	RUN(test_raw_and_modifiers);
	RUN(test_bad_names_explained);
	RUN(test_cache_names);
	RUN(test_unknown_names_suggest);
	RUN(test_native_names);
	RUN(test_list_keeps_good_entries);
	RUN(test_list_limit);
	RUN(test_output_expansion);
	RUN(test_mpi_rank_and_switch);
	RUN(test_env_defaults_and_bad_values);
	return t_done("events");
}
