/* LIKWID's marker macros as a LIKWID user writes them (built with
 * -DLIKWID_PERFMON, linked with -llikwid): 4 OpenMP threads run 100 "calc"
 * regions each, the main thread 50 "init". Prints "done" on stdout (the
 * same with or without the shim) and on stderr what LIKWID_MARKER_GET
 * says of the main thread's "init", so the test sees the shim answer. */
#include <likwid-marker.h>
#include <omp.h>
#include <stdio.h>

static volatile double sink;

static void work(int n)
{
	for (int i = 0; i < n; i++)
		sink += i * 0.5;
}

int main(void)
{
	int nev = 4, count = 0;
	double ev[4], t = 0;

	LIKWID_MARKER_INIT;
	LIKWID_MARKER_REGISTER("init");
#pragma omp parallel num_threads(4)
	{
		LIKWID_MARKER_THREADINIT;
		LIKWID_MARKER_REGISTER("calc");
	}
	for (int i = 0; i < 50; i++) {
		LIKWID_MARKER_START("init");
		work(1000);
		LIKWID_MARKER_STOP("init");
	}
#pragma omp parallel num_threads(4)
	for (int i = 0; i < 100; i++) {
		LIKWID_MARKER_START("calc");
		work(2000);
		LIKWID_MARKER_STOP("calc");
	}
	LIKWID_MARKER_GET("init", &nev, ev, &t, &count);
	fprintf(stderr, "likwid: init count %d, time %s\n", count, t > 0 ? "positive" : "zero");
	printf("likwid: done\n");
	LIKWID_MARKER_CLOSE;
	return 0;
}
