/* A program whose CPU time and page faults the totals' tests know from
 * itself (tests/totals/run.sh):
 *   work marked READY   20 marked regions of busy work and page touches,
 *                       then its own CPU clock and getrusage page faults
 *                       (from its start) into READY, then it waits to be
 *                       killed (no CPU, no faults)
 *   work plain READY    the same without markers
 *   work pages N        touch N fresh pages, then exit */
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

#include <pmcshim.h>

#define PAGE 4096

static volatile uint64_t sink;

/* Fixed work, however loaded the machine: ~10 ms of CPU here. */
static void busy(void)
{
	uint64_t x = 1;

	for (int i = 0; i < 5000000; i++)
		x = x * 6364136223846793005u + 1442695040888963407u;
	sink = x;
}

static void touch(size_t pages)
{
	char *p = mmap(NULL, pages * PAGE, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS,
		       -1, 0);

	if (p == MAP_FAILED)
		exit(2);
	for (size_t i = 0; i < pages; i++)
		p[i * PAGE] = 1;
}

static void work(int marked)
{
	for (int k = 0; k < 20; k++) {
		if (marked)
			PMCSHIM_BEGIN("step");
		busy();
		touch(100);
		if (marked)
			PMCSHIM_END("step");
	}
}

/* What it counted itself, into path, then wait for the kill. The line is
 * formatted before the clocks are read: nothing after them faults. */
static void ready_and_wait(const char *path)
{
	static char line[128];
	struct timespec ts;
	struct rusage ru;
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	char *tmp = malloc(16);

	if (fd < 0 || !tmp)
		exit(2);
	memset(line, ' ', sizeof(line));
	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
	getrusage(RUSAGE_SELF, &ru);
	snprintf(line, sizeof(line), "%llu %llu\n",
		 (unsigned long long)ts.tv_sec * 1000000000ull + (unsigned long long)ts.tv_nsec,
		 (unsigned long long)(ru.ru_minflt + ru.ru_majflt));
	if (write(fd, line, strlen(line)) < 0)
		exit(2);
	close(fd);
	for (;;)
		pause();
}

int main(int argc, char **argv)
{
	if (argc == 3 && !strcmp(argv[1], "pages")) {
		touch((size_t)atol(argv[2]));
		return 0;
	}
	if (argc != 3 || (strcmp(argv[1], "marked") && strcmp(argv[1], "plain"))) {
		fprintf(stderr, "usage: work marked|plain READY, or work pages N\n");
		return 2;
	}
	work(!strcmp(argv[1], "marked"));
	ready_and_wait(argv[2]);
	return 0;
}
