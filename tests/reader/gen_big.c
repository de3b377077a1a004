/* Writes a synthetic pmcshim report for `make bench-reader`: ROWS region
 * rows (call-site rows) spread over THREADS threads, laid out like the
 * shim's own output (docs/report-format.md), with four events of which one
 * is unavailable (null in every row), so the reader's worst case - many
 * rows, many stacks, nulls - is what gets timed.
 *
 * usage: gen_big OUT [ROWS [THREADS]]   (defaults: 100000 rows, 16 threads) */
#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#define NREGIONS 400
#define DEPTH 8

/* A fixed xorshift generator: the same report every time. */
static uint64_t rng = 0x9e3779b97f4a7c15u;

static uint64_t next(uint64_t mod)
{
	rng ^= rng << 13, rng ^= rng >> 7, rng ^= rng << 17;
	return rng % mod;
}

static void stat(FILE *f, uint64_t incl, uint64_t excl, uint64_t calls, const char *end)
{
	fprintf(f, "{\"incl\": %" PRIu64 ", \"excl\": %" PRIu64 ", \"min\": %" PRIu64
		", \"max\": %" PRIu64 "}%s", incl, excl, incl / calls / 2, incl / calls * 2, end);
}

static void row(FILE *f, unsigned region, unsigned stack, const char *end)
{
	uint64_t calls = 1 + next(5000), wall = calls * (500 + next(100000));
	uint64_t excl = wall - wall / (2 + next(8)), ins = wall * 3, cyc = wall * 2;

	fprintf(f, "        {\n          \"region\": \"region_%03u\",\n          \"stack\": %u,\n"
		"          \"calls\": %" PRIu64 ",\n          \"wall_ns\": ", region, stack, calls);
	stat(f, wall, excl, calls, ",\n          \"events\": [\n            ");
	stat(f, ins, excl * 3, calls, ",\n            ");
	stat(f, cyc, excl * 2, calls, "\n          ]\n");
	fprintf(f, "        }%s\n", end);
}

static void thread(FILE *f, unsigned t, unsigned nrows, unsigned nstacks, const char *end)
{
	fprintf(f, "    {\n      \"tid\": %u, \"name\": \"worker-%u\", \"main\": %s, "
		"\"state\": \"exited\", \"setup\": \"start\",\n"
		"      \"wall_ns\": 5000000000, \"cpu_ns\": 4900000000,\n      \"totals\": [\n"
		"        {\"value\": 15000000000, \"enabled_ns\": 4900000000, \"running_ns\": "
		"4900000000, \"status\": \"counted\"},\n"
		"        {\"value\": 10000000000, \"enabled_ns\": 4900000000, \"running_ns\": "
		"2450000000, \"status\": \"multiplexed\", \"scaled\": 20000000000}\n"
		"      ],\n"
		"      \"regions\": [\n", 1000 + t, t, t ? "false" : "true");
	for (unsigned i = 0; i < nrows; i++) {
		unsigned stack = (i * 7 + t * 131) % nstacks;

		row(f, stack % NREGIONS, stack, i + 1 < nrows ? "," : "");
	}
	fprintf(f, "      ]\n    }%s\n", end);
}

static void stacks(FILE *f, unsigned nstacks)
{
	fputs("  \"stacks\": [\n", f);
	for (unsigned s = 0; s < nstacks; s++) {
		fprintf(f, "    {\"id\": %u, \"frames\": [", s);
		for (unsigned d = 0; d < DEPTH; d++) {
			uint64_t off = d == 0 ? 0x1000 + s * 16 : 0x1000 + next(0x100000);
			unsigned mod = d == DEPTH - 1 ? 1 : 0;

			fprintf(f, "%s{\"addr\": \"0x%" PRIx64 "\", \"module\": %u, \"offset\": \"0x%"
				PRIx64 "\"%s}", d ? ", " : "", (mod ? 0x7f0000000000u : 0x555500000000u)
				+ off, mod, off, d == 1 ? ", \"symbol\": \"caller+0x10\"" : "");
		}
		fprintf(f, "]}%s\n", s + 1 < nstacks ? "," : "");
	}
	fputs("  ],\n", f);
}

int main(int argc, char **argv)
{
	unsigned nrows = argc > 2 ? (unsigned)atoi(argv[2]) : 100000;
	unsigned nthreads = argc > 3 ? (unsigned)atoi(argv[3]) : 16;
	unsigned nstacks = nrows / 8 + 1, per;
	FILE *f = argc > 1 ? fopen(argv[1], "w") : NULL;

	if (!f || !nthreads || !nrows) {
		fputs("usage: gen_big OUT [ROWS [THREADS]]\n", stderr);
		return 2;
	}
	per = nrows / nthreads;
	fputs("{\n  \"format\": \"pmcshim-report\",\n  \"version\": 1,\n  \"process\": {\n"
	      "    \"pid\": 1000, \"ppid\": 1, \"host\": \"bench\", \"executable\": \"big\",\n"
	      "    \"argv\": [\"./big\"], \"forked\": false, \"start_ns\": 1, \"end_ns\": 5000000001,\n"
	      "    \"wall_ns\": 5000000000\n  },\n"
	      "  \"clock\": {\"source\": \"rdtsc\", \"ticks_per_us\": 3000.0},\n"
	      "  \"stack_depth\": 7,\n  \"events\": [\n"
	      "    {\"name\": \"instructions\", \"type\": 0, \"config\": \"0x1\", "
	      "\"exclude_kernel\": true, \"source\": \"rdpmc\"},\n"
	      "    {\"name\": \"cycles\", \"type\": 0, \"config\": \"0x0\", "
	      "\"exclude_kernel\": true, \"source\": \"rdpmc\"}\n"
	      "  ],\n  \"threads\": [\n", f);
	for (unsigned t = 0; t < nthreads; t++)
		thread(f, t, t + 1 < nthreads ? per : nrows - per * (nthreads - 1), nstacks,
		       t + 1 < nthreads ? "," : "");
	fputs("  ],\n", f);
	stacks(f, nstacks);
	fputs("  \"modules\": [\n    {\"id\": 0, \"path\": \"/nonexistent/big\", \"build_id\": "
	      "\"00\", \"base\": \"0x555500000000\"},\n    {\"id\": 1, \"path\": "
	      "\"/nonexistent/libc.so.6\", \"build_id\": \"01\", \"base\": \"0x7f0000000000\"}\n"
	      "  ],\n  \"errors\": []\n}\n", f);
	return fclose(f) ? 1 : 0;
}
