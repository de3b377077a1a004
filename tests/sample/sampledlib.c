/* The library tests/sample/sampled.c's dlclose mode loads and unloads
 * while sampled: a busy loop of its own. */
static volatile unsigned long sink;

__attribute__((visibility("default"))) void lib_work(unsigned long n)
{
	unsigned long x = sink;

	for (unsigned long i = 0; i < n; i++) {
		x = x * 6364136223846793005UL + 1442695040888963407UL;
		__asm__ volatile("" : "+r"(x));
	}
	sink = x;
}
