/* Takes a known number of page faults when told to: faulter PAGES FIFO
 * waits until a line comes through FIFO (opened here, after the exec, so
 * that the process waiting is this one; the test says when the system run
 * follows it), touches PAGES fresh anonymous pages once each, and prints the
 * minor faults it took meanwhile (getrusage), the test's own reference. */
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	long pages = argc > 1 ? atol(argv[1]) : 30000, psize = sysconf(_SC_PAGESIZE);
	struct rusage before, after;
	char line[16];
	volatile char *p;
	FILE *go = argc > 2 ? fopen(argv[2], "r") : stdin;

	if (pages <= 0 || !go || !fgets(line, sizeof(line), go))
		return 2;
	getrusage(RUSAGE_SELF, &before);
	p = mmap(NULL, (size_t)(pages * psize), PROT_READ | PROT_WRITE,
		 MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (p == MAP_FAILED)
		return 1;
	for (long i = 0; i < pages; i++)
		p[i * psize] = 1;
	getrusage(RUSAGE_SELF, &after);
	printf("%ld\n", after.ru_minflt - before.ru_minflt);
	return 0;
}
