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
/* base + the counter at idx (arch_read_pmc_slot_plus) */
typedef uint64_t (*selfread_pmc_plus_fn)(uint32_t idx, uint64_t base);

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

/* What the full protocol found on a page, kept so that a marker needs
 * neither the protocol nor the page's fields: while the page's lock still
 * reads `lock`, the count is offset + the counter at idx. The kernel
 * changes the page, and its lock, whenever it moves the event (a context
 * switch, a multiplexing rotation, an overflow); the marker then takes a
 * new snapshot. */
struct selfread_snap {
	/* In pairs a marker loads together (one ldp on arm64): the page
	 * and the lock it must still read, the offset and the counter. */
	const volatile struct perf_event_mmap_page *page;
	uint64_t lock;		/* even; 32 bits of it compared */
	uint64_t offset;
	uint64_t idx;		/* the page's index - 1 */
	unsigned shift;		/* 64 - pmc_width */
};

/* Returns 1 with *s filled when the page allows a user read now; 0 when
 * it does not (the event is not on a counter, or user reads are off). */
static inline int selfread_snap_take(struct selfread_snap *s,
				     const volatile struct perf_event_mmap_page *pc)
{
	uint32_t seq, idx;
	uint64_t offset;
	uint16_t width;
	int cap;

	do {
		seq = pc->lock;
		selfread_barrier();
		idx = pc->index;
		offset = pc->offset;
		width = pc->pmc_width;
		cap = pc->cap_user_rdpmc;
		selfread_barrier();
	} while ((seq & 1) || pc->lock != seq);
	if (!cap || idx == 0)
		return 0;
	s->page = pc;
	s->offset = offset;
	s->idx = idx - 1;
	s->lock = seq;
	s->shift = width && width < 64 ? 64u - width : 0;
	return 1;
}

/* The count through a snapshot: right only if selfread_snap_moved,
 * called after it, says 0. */
static inline __attribute__((always_inline)) uint64_t selfread_snap_count(const struct selfread_snap *s,
					   selfread_pmc_fn read_pmc)
{
	uint64_t raw = read_pmc((uint32_t)s->idx);

	return s->offset + (uint64_t)((int64_t)(raw << s->shift) >> s->shift);
}

/* The same for a 64-bit counter (shift 0). */
static inline __attribute__((always_inline)) uint64_t selfread_snap_count_wide(const struct selfread_snap *s,
									selfread_pmc_plus_fn read_pmc_plus)
{
	return read_pmc_plus((uint32_t)s->idx, s->offset);
}

/* Nonzero when the kernel changed the page since the snapshot (short of
 * 2^31 changes between two markers, which would bring the lock back). */
static inline uint32_t selfread_snap_moved(const struct selfread_snap *s)
{
	return s->page->lock ^ (uint32_t)s->lock;
}

#endif
