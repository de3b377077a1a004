/* The sampler in the arm64 guest (tests/vm/run.sh, checked by
 * tests/vm/check.c): one() and three() run the same loop 1:3, in turns,
 * each in a section of its own, so that the check can tell a sample's
 * function from its pc alone: the program prints both ranges.
 *   sampled N   10 turns of one(N) and three(N) */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

static volatile uint64_t sink;

#define SPIN(n) do { \
	uint64_t x_ = sink; \
	for (uint64_t i_ = 0; i_ < (n); i_++) { \
		x_ = x_ * 6364136223846793005ULL + 1442695040888963407ULL; \
		__asm__ volatile("" : "+r"(x_)); \
	} \
	sink = x_; \
} while (0)

/* (the linker makes __start_/__stop_ symbols for sections named as C
 * identifiers) */
__attribute__((noinline, section("text_one"))) void one(uint64_t n) { SPIN(n); }
__attribute__((noinline, section("text_three"))) void three(uint64_t n) { SPIN(3 * n); }
extern char __start_text_one[], __stop_text_one[];
extern char __start_text_three[], __stop_text_three[];

int main(int argc, char **argv)
{
	uint64_t n = argc > 1 ? strtoull(argv[1], NULL, 10) : 100000;

	printf("range one %p %p\n", (void *)__start_text_one, (void *)__stop_text_one);
	printf("range three %p %p\n", (void *)__start_text_three, (void *)__stop_text_three);
	for (int r = 0; r < 10; r++) {
		one(n);
		three(n);
	}
	puts("sampled done");
	return 0;
}
