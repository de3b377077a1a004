/* Reading a perf counter in user space through its mmap page.
 *
 * The kernel publishes index/offset/pmc_width under a sequence count
 * ("lock"): it increments the count before and after each update. A reader
 * retries while the count is odd or changed under it. The hardware counter
 * is pmc_width bits wide; sign-extending it lets offset + pmc stay right
 * across a wrap of the hardware register. */
#ifndef PMCSHIM_SELFREAD_H
#define PMCSHIM_SELFREAD_H

#include <linux/perf_event.h>
#include <stdint.h>

typedef uint64_t (*selfread_pmc_fn)(uint32_t idx);

#define selfread_barrier() __asm__ __volatile__("" ::: "memory")

/* Keep the low `width` bits of raw, sign-extended to 64 bits. */
static inline int64_t selfread_sign_extend(uint64_t raw, uint16_t width)
{
	if (width == 0 || width >= 64)
		return (int64_t)raw;
	unsigned shift = 64u - width;
	return (int64_t)(raw << shift) >> shift;
}

/* Returns 1 and stores the count in *value when the page allows a user
 * read; 0 when the caller must fall back to read() (the event is not on a
 * hardware counter right now, or user reads are off). Pure apart from
 * read_pmc, so it can be tested on a synthetic page. */
static inline int selfread(const volatile struct perf_event_mmap_page *pc,
			   selfread_pmc_fn read_pmc, uint64_t *value)
{
	uint32_t seq, idx;
	uint64_t count = 0;
	int ok = 0;

	do {
		seq = pc->lock;
		selfread_barrier();
		if (seq & 1)
			continue; /* writer mid-update */
		idx = pc->index;
		count = pc->offset;
		ok = pc->cap_user_rdpmc && idx != 0;
		if (ok)
			count += (uint64_t)selfread_sign_extend(read_pmc(idx - 1),
								pc->pmc_width);
		selfread_barrier();
	} while ((seq & 1) || pc->lock != seq);

	if (ok)
		*value = count;
	return ok;
}

/* The marker's read: the same protocol without a retry loop, for a page
 * already known to allow user reads, with the counter's width fixed at
 * setup (shift = 64 - pmc_width). Returns 0 when the caller must take
 * the full protocol (the kernel changed the page meanwhile, or the event
 * is not on a counter right now). */
static inline int selfread_fast(const volatile struct perf_event_mmap_page *pc,
				selfread_pmc_fn read_pmc, unsigned shift, uint64_t *value)
{
	uint32_t seq = pc->lock;
	uint32_t idx;
	uint64_t raw;

	selfread_barrier();
	idx = pc->index;
	if (__builtin_expect(idx == 0, 0))
		return 0;
	raw = read_pmc(idx - 1);
	*value = pc->offset + (uint64_t)((int64_t)(raw << shift) >> shift);
	selfread_barrier();
	return pc->lock == seq && !(seq & 1);
}

#endif
