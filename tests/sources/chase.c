/* A function whose cost is loads in flight: chase follows STEPS
 * dependent loads through a shuffled 64 MB cycle (each a cache miss,
 * ~100 ns), and returns where it got; drive calls it ROUNDS times and
 * does next to nothing itself. Built with -finstrument-functions, no
 * barrier in the program: the time of chase's last loads, still in
 * flight when its exit hook runs, is chase's. Prints the end index and
 * the ns drive took (CLOCK_MONOTONIC). */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#define SLOTS (16u << 20)		/* 4-byte indices: 64 MB */
#define STEPS 8
#define ROUNDS 40000

static uint32_t *next;

__attribute__((noinline)) uint32_t chase(uint32_t at)
{
	for (int i = 0; i < STEPS; i++)
		at = next[at];
	return at;
}

__attribute__((noinline)) uint32_t drive(uint32_t at)
{
	for (int i = 0; i < ROUNDS; i++)
		at = chase(at);
	return at;
}

/* One cycle through every slot, in a shuffled order (a fixed seed). */
static __attribute__((no_instrument_function)) void make_cycle(void)
{
	uint32_t *order = malloc(SLOTS * sizeof(*order));
	uint64_t x = 88172645463325252ull;

	next = malloc(SLOTS * sizeof(*next));
	if (!order || !next)
		exit(1);
	for (uint32_t i = 0; i < SLOTS; i++)
		order[i] = i;
	for (uint32_t i = SLOTS - 1; i > 0; i--) {
		uint32_t j, t;

		x ^= x << 13, x ^= x >> 7, x ^= x << 17;
		j = (uint32_t)(x % (i + 1));
		t = order[i], order[i] = order[j], order[j] = t;
	}
	for (uint32_t i = 0; i < SLOTS; i++)
		next[order[i]] = order[(i + 1) % SLOTS];
	free(order);
}

static __attribute__((no_instrument_function)) long long now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

int main(void)
{
	long long t0;
	uint32_t end;

	make_cycle();
	t0 = now_ns();
	end = drive(0);
	printf("%u %lld\n", end, now_ns() - t0);
	return 0;
}
