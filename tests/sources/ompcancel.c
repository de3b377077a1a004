/* 100 parallel regions of 2 threads, each cancelled by thread 0 while
 * thread 1 may be at a cancellation point or at the region's explicit
 * (cancellable) barrier; run with OMP_CANCELLATION=true. The shim's own
 * barrier after each region must not make the team wait for good. */
#include <omp.h>
#include <stdio.h>

int main(void)
{
	int rounds = 0;

	for (int r = 0; r < 100; r++) {
#pragma omp parallel num_threads(2)
		{
			for (int i = 0; i < 1000; i++) {
				if (omp_get_thread_num() == 0 && i == 10) {
#pragma omp cancel parallel
				}
#pragma omp cancellation point parallel
			}
#pragma omp barrier
		}
		rounds++;
	}
	printf("%d rounds, cancellation %s\n", rounds, omp_get_cancellation() ? "on" : "off");
	return 0;
}
