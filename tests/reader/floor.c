/* The floor for make bench-reader: the least any reader of FILE must do,
 * map it and touch every byte once (summing its 64-bit words), timed in
 * the same run as the reader. Prints the sum so the work is not optimised
 * away. usage: floor FILE */
#include <fcntl.h>
#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	struct stat st;
	int fd = argc == 2 ? open(argv[1], O_RDONLY) : -1;
	const uint64_t *p;
	uint64_t sum = 0;
	size_t n;

	if (fd < 0 || fstat(fd, &st) != 0) {
		fputs("usage: floor FILE\n", stderr);
		return 2;
	}
	p = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_SHARED, fd, 0);
	if (p == MAP_FAILED)
		return 2;
	madvise((void *)p, (size_t)st.st_size, MADV_WILLNEED); /* as the reader does */
	n = (size_t)st.st_size / 8;
	for (size_t i = 0; i < n; i++)
		sum += p[i];
	printf("%" PRIu64 "\n", sum);
	return 0;
}
