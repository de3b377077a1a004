#include "report_snapshot.h"

#include <string.h>

#include "report_util.h"

/* Skipped bytes as records a walk skips too (type 0 is no type). */
static void filler(unsigned char *at, uint64_t len)
{
	while (len >= sizeof(struct rf_record)) {
		uint64_t n = len > (UINT64_C(1) << 30) ? (UINT64_C(1) << 30) : len;
		struct rf_record r = { .size = (uint32_t)n, .type = 0, .done = 0 };

		memcpy(at, &r, sizeof(r));
		at += n, len -= n;
	}
}

static void copy_site(unsigned char *dst, const struct rf_record *src)
{
	const struct rf_site *s = (const void *)src;
	struct rf_site *d = (void *)dst;
	uint64_t calls, children;
	int ok;

	if (src->size < rf_site_size(s->nvalues))
		return; /* malformed: left as it is for the loader to refuse */
	/* rf_site_read waits out a writer preempted inside a marker (about a
	 * second at most) before calling the site mid-update */
	ok = rf_site_read_children(s, &calls, &children, d->v, d->nvalues);
	d->seq = ok ? 0 : 1; /* odd: still mid-update (or its writer died) */
	d->calls = calls;
	d->child_calls = children;
}

/* The thread's totals are complete once its state says so: the state
 * first (acquire), then the rest. */
static void copy_record(unsigned char *dst, const struct rf_record *src)
{
	uint32_t tstate = src->type == RF_THREAD ? rf_thread_state((const void *)src) : 0;

	memcpy(dst, src, src->size);
	((struct rf_record *)(void *)dst)->done = 1;
	if (src->type == RF_SITE)
		copy_site(dst, src);
	else if (src->type == RF_THREAD)
		((struct rf_thread *)(void *)dst)->state = tstate;
	else if (src->type == RF_ERROR)
		((struct rf_error *)(void *)dst)->count =
			__atomic_load_n(&((const struct rf_error *)(const void *)src)->count,
					__ATOMIC_RELAXED);
}

unsigned char *report_snapshot(const struct rf_file *f, size_t *len)
{
	unsigned char *buf = xmalloc(f->tail);
	uint32_t state = rf_state(f->h);
	uint64_t off = 0, prev = RF_HEADER_SIZE;
	const struct rf_record *r;
	int bad;

	memcpy(buf, f->base, RF_HEADER_SIZE);
	((struct rf_header *)(void *)buf)->state = state; /* end fields valid with it */
	((struct rf_header *)(void *)buf)->tail = f->tail;
	while ((r = rf_next(f, &off, &bad))) {
		uint64_t at = (uint64_t)((const unsigned char *)r - f->base);

		filler(buf + prev, at - prev);
		copy_record(buf + at, r);
		prev = off;
	}
	if (bad) /* the loader says what is wrong with it */
		memcpy(buf + prev, f->base + prev, f->tail - prev);
	else
		filler(buf + prev, f->tail - prev);
	*len = f->tail;
	return buf;
}
