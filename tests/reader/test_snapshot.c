/* The live-file snapshot (tools/reader/data/report_snapshot.c) against a writer that
 * runs at the same time, as the shim does: one thread keeps updating a
 * site under its sequence count and appends new sites (body, done, tail);
 * the main thread snapshots and loads the file over and over.
 *
 * The writer keeps an invariant in every site: wall incl = 2 x calls and
 * event incl = 3 x calls. Every snapshot must load, and every site in it
 * must hold the invariant: a torn copy would break it. The outcome does
 * not depend on timing (how many updates land between snapshots varies;
 * what must hold does not: the loop goes on until the writer has appended
 * 100 sites, however the two threads are scheduled). Exit 0 and an "ok"
 * line, or "FAIL" and exit 1. */
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "reader/data/report_load.h"
#include "reader/data/report_snapshot.h"

#define FILE_SIZE (1 << 20)
#define SNAPSHOTS 2000		/* at least; and until 100 sites were seen */

static _Alignas(4096) unsigned char file[FILE_SIZE];
static atomic_int stop;

static void *add(uint64_t *tail, size_t size, uint16_t type)
{
	struct rf_record *r = (void *)(file + *tail);

	r->size = (uint32_t)size, r->type = type;
	*tail += size;
	return r;
}

static void publish(struct rf_header *h, void *rec, uint64_t tail)
{
	__atomic_store_n(&((struct rf_record *)rec)->done, 1, __ATOMIC_RELEASE);
	__atomic_store_n(&h->tail, tail, __ATOMIC_RELEASE);
}

/* Header, one event, one thread, a name, a stack: all a site needs. */
static uint64_t setup(void)
{
	struct rf_header *h = (void *)file;
	uint64_t tail = RF_HEADER_SIZE;
	struct rf_event *e = add(&tail, sizeof(*e), RF_EVENT);
	struct rf_thread *t = add(&tail, sizeof(*t), RF_THREAD);
	struct rf_name *n = add(&tail, rf_align(sizeof(*n) + 2), RF_NAME);
	struct rf_stack *s = add(&tail, sizeof(*s) + 8, RF_STACK);

	memcpy(h->magic, RF_MAGIC, 8);
	h->version = RF_VERSION, h->header_size = RF_HEADER_SIZE, h->state = RF_RUNNING;
	h->nevents = 1;
	strcpy(e->name, "instructions"), e->source = RF_SOURCE_READ;
	t->open_mask = 1, t->nvalues = 2, t->state = RF_T_RUNNING;
	n->id = 1, n->len = 1, n->text[0] = 'r';
	s->nframes = 1, s->pc[0] = 0x1000;
	e->r.done = t->r.done = n->r.done = s->r.done = 1;
	h->tail = tail;
	return tail;
}

static void bump(struct rf_site *s)
{
	uint32_t seq = rf_site_write_begin(s);
	s->calls++;
	s->v[0].incl += 2;
	s->v[1].incl += 3;
	rf_site_write_end(s, seq);
}

/* Updates the first site; every so often appends another and updates it. */
static void *writer(void *arg)
{
	struct rf_header *h = (void *)file;
	uint64_t tail = *(uint64_t *)arg;
	struct rf_site *first = NULL, *last = NULL;

	for (unsigned long i = 0; !atomic_load(&stop); i++) {
		if (!first || (i % 64 == 0 && tail + rf_site_size(2) <= FILE_SIZE)) {
			last = add(&tail, rf_site_size(2), RF_SITE);
			last->thread = 0, last->region = 1, last->stack = 0, last->nvalues = 2;
			publish(h, last, tail);
			first = first ? first : last;
		}
		bump(first);
		bump(last);
	}
	return NULL;
}

static int check(const struct report *r)
{
	const struct rep_thread *t = &r->threads[0];

	for (size_t j = 0; j < t->nrows; j++) {
		const struct rf_site *s = rep_site(r, t, j);

		if (rep_site_partial(s)) /* the writer stayed inside an update: said, not torn */
			continue;
		if (s->v[0].incl != 2 * s->calls || s->v[1].incl != 3 * s->calls) {
			printf("FAIL snapshot-consistent (row %zu: calls %llu, wall %llu, event %llu)\n",
			       j, (unsigned long long)s->calls, (unsigned long long)s->v[0].incl,
			       (unsigned long long)s->v[1].incl);
			return 1;
		}
	}
	return 0;
}

int main(void)
{
	uint64_t tail = setup();
	pthread_t w;
	size_t most = 0;
	int failed = 0;

	pthread_create(&w, NULL, writer, &tail);
	for (int i = 0; (i < SNAPSHOTS || most < 100) && !failed; i++) {
		struct rf_file f;
		char why[300];
		size_t len;
		unsigned char *copy;
		struct report *r;

		if (rf_open_mem(file, FILE_SIZE, &f, why, sizeof(why)) != 0) {
			printf("FAIL snapshot-open (%s)\n", why);
			failed = 1;
			break;
		}
		copy = report_snapshot(&f, &len);
		r = report_load_mem(copy, len, "live", why, sizeof(why));
		if (!r) {
			printf("FAIL snapshot-loads (%s)\n", why);
			failed = 1;
		} else {
			failed = check(r);
			most = r->threads[0].nrows > most ? r->threads[0].nrows : most;
		}
		report_free(r);
		free(copy);
		sched_yield(); /* one core: let the writer on */
	}
	atomic_store(&stop, 1);
	pthread_join(w, NULL);
	if (!failed)
		printf("ok   snapshot-consistent (snapshots of a file being written, up to %zu "
		       "sites)\n", most);
	return failed;
}
