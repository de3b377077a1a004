/* rfdump FILE: every record of a report file, one line each, as the
 * shim's tests check them (the user's reader is tools/pmcshim-report).
 *   process STATE LIVENESS pid=N flags=N dropped=FULL,BUSY,EARLY,NAMES target=T
 *   thread INDEX tid=N state=S totals=S cpu=N nvalues=N lost=yes|no calib=IN+CHILD,...
 *   site THREAD REGION stack=N calls=N children=N wall=INCL[,EVENT_INCL...] partial=0|1
 *   error THREAD KIND REGION count=N
 *   stack ID method=M frames=N
 *   module ID PATH */
#include <stdio.h>
#include <string.h>

#include "../preload/format/reportfile.h"

static const char *names[1 << 16];

static void print_site(const struct rf_site *s)
{
	struct rf_stat v[RF_EVENTS_MAX + 1];
	uint64_t calls;
	int whole = rf_site_read(s, &calls, v, RF_EVENTS_MAX + 1);

	printf("site %u %s stack=%u calls=%llu children=%llu wall=%llu", s->thread,
	       s->region < (1 << 16) && names[s->region] ? names[s->region] : "?", s->stack,
	       (unsigned long long)calls, (unsigned long long)s->child_calls,
	       (unsigned long long)v[0].incl);
	for (uint32_t i = 1; i < s->nvalues && i <= RF_EVENTS_MAX; i++)
		printf(",%llu", (unsigned long long)v[i].incl);
	printf(" partial=%d\n", !whole);
}

static void print_record(const struct rf_file *f, const struct rf_record *r)
{
	switch (r->type) {
	case RF_NAME: {
		const struct rf_name *n = (const void *)r;
		if (n->id < (1 << 16))
			names[n->id] = n->text;
		break;
	}
	case RF_THREAD: {
		const struct rf_thread *t = (const void *)r;
		printf("thread %u tid=%u state=%u totals=%u cpu=%lld nvalues=%u lost=%s calib=",
		       t->index, t->tid, rf_thread_state(t), t->total_status,
		       t->cpu_ns == UINT64_MAX ? -1LL : (long long)t->cpu_ns, t->nvalues,
		       t->lost_reason[0] ? "yes" : "no");
		for (uint32_t i = 0; t->calib_calls && i < t->nvalues && i <= RF_EVENTS_MAX; i++)
			printf("%s%llu+%llu", i ? "," : "", (unsigned long long)t->calib_in[i],
			       (unsigned long long)t->calib_child[i]);
		printf("%s\n", t->calib_calls ? "" : "none");
		break;
	}
	case RF_SITE:
		print_site((const void *)r);
		break;
	case RF_ERROR: {
		const struct rf_error *e = (const void *)r;
		printf("error %u %s %s count=%llu\n", e->thread, rf_error_name(e->kind),
		       e->region < (1 << 16) && names[e->region] ? names[e->region] : "-",
		       (unsigned long long)e->count);
		break;
	}
	case RF_STACK: {
		const struct rf_stack *s = (const void *)r;
		printf("stack %u method=%s frames=%u\n", s->id, rf_stack_method_name(s->method),
		       s->nframes);
		break;
	}
	case RF_MODULE: {
		const struct rf_module *m = (const void *)r;
		printf("module %u %s\n", m->id, m->path);
		break;
	}
	case RF_EVENT: {
		const struct rf_event *e = (const void *)r;
		printf("event %u %s source=%s\n", e->index, e->name,
		       rf_source_name(f->h, e->source));
		break;
	}
	}
}

int main(int argc, char **argv)
{
	struct rf_file f;
	char why[256];
	uint64_t off = 0;
	int bad = 0;
	const struct rf_record *r;
	static const char *const live[] = { "live", "gone", "unknown" };

	if (argc != 2) {
		fprintf(stderr, "usage: rfdump FILE\n");
		return 2;
	}
	if (rf_open(argv[1], &f, why, sizeof(why)) != 0) {
		fprintf(stderr, "rfdump: %s: %s\n", argv[1], why);
		return 2;
	}
	printf("process %s %s pid=%llu flags=%u dropped=%llu,%llu,%llu,%llu target=%s\n",
	       rf_state_name(rf_state(f.h)), live[rf_liveness(f.h)],
	       (unsigned long long)f.h->pid, f.h->flags,
	       (unsigned long long)f.h->dropped[RF_DROP_FULL],
	       (unsigned long long)f.h->dropped[RF_DROP_BUSY],
	       (unsigned long long)f.h->dropped[RF_DROP_EARLY],
	       (unsigned long long)f.h->dropped[RF_DROP_NAMES],
	       f.h->exec_target[0] ? f.h->exec_target : "-");
	while ((r = rf_next(&f, &off, &bad)))
		print_record(&f, r);
	if (bad)
		printf("malformed record at %llu\n", (unsigned long long)off);
	rf_close(&f);
	return bad ? 1 : 0;
}
