/* The system report's records, read (report_sysdata.h). Read while the
 * launcher writes it, it holds the intervals closed so far. */
#include "report_sysdata.h"

#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define PROG "pmcshim-report"

static void *grow(void *p, size_t n, size_t size)
{
	/* powers of two: one realloc at each doubling */
	if (n & (n - 1))
		return p;
	p = realloc(p, (n ? 2 * n : 1) * size);
	if (!p) {
		fputs(PROG ": out of memory\n", stderr);
		exit(2);
	}
	return p;
}

static int take_entity(struct sys *s, const struct rf_sys_entity *e)
{
	if (e->index != s->nent)
		return -1;	/* entities come in order */
	s->ent = grow(s->ent, s->nent, sizeof(*s->ent));
	memset(&s->ent[s->nent], 0, sizeof(s->ent[0]));
	s->ent[s->nent].first = s->ent[s->nent].last = SIZE_MAX;
	s->ent[s->nent++].e = e;
	return 0;
}

static int take_values(struct sys *s, const struct rf_sys_values *v)
{
	struct sent *e;

	if (v->entity >= s->nent || v->nvalues > RF_EVENTS_MAX ||
	    v->r.size < sizeof(*v) + v->nvalues * sizeof(v->v[0]))
		return -1;
	e = &s->ent[v->entity];
	for (uint32_t i = 0; i < v->nvalues && i < s->nev; i++)
		e->v[i] += v->v[i];
	if (v->busy_ns != UINT64_MAX)
		e->busy += v->busy_ns;
	s->val = grow(s->val, s->nval, sizeof(*s->val));
	s->next = grow(s->next, s->nval, sizeof(*s->next));
	s->next[s->nval] = SIZE_MAX;
	if (e->last != SIZE_MAX)
		s->next[e->last] = s->nval;
	else
		e->first = s->nval;
	e->last = s->nval;
	s->val[s->nval++] = v;
	return 0;
}

static int take_end(struct sys *s, const struct rf_sys_end *x)
{
	if (x->entity >= s->nent)
		return -1;
	if (x->kind == RF_END_EXITED)
		s->ent[x->entity].end_ns = x->at_ns;
	else if (s->ent[x->entity].e->scope == RF_SCOPE_CPU) {
		s->ent[x->entity].offline |= x->kind == RF_END_OFFLINE;
		s->cpuev = grow(s->cpuev, s->ncpuev, sizeof(*s->cpuev));
		s->cpuev[s->ncpuev++] = x;
	}
	return 0;
}

static int take(struct sys *s, const struct rf_record *r)
{
	switch (r->type) {
	case RF_EVENT: {
		const struct rf_event *e = (const void *)r;

		if (e->index < RF_EVENTS_MAX && e->index == s->nev)
			s->ev[s->nev++] = e;
		return 0;
	}
	case RF_SYS_RUN: s->run = (const void *)r; return 0;
	case RF_SYS_ENTITY: return take_entity(s, (const void *)r);
	case RF_SYS_VALUES: return take_values(s, (const void *)r);
	case RF_SYS_END: return take_end(s, (const void *)r);
	case RF_SYS_INTERVAL:
		s->iv = grow(s->iv, s->niv, sizeof(*s->iv));
		s->iv[s->niv++] = (const void *)r;
		return 0;
	default: return 0;
	}
}

/* The header's magic and flags, read() from the file's start: the
 * loader's own reads (pread, the mapping) come after, as without this
 * look. */
int system_is_report(const char *path)
{
	struct rf_header h;
	int fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK), yes;
	struct stat st;

	if (fd < 0)
		return 0;
	yes = fstat(fd, &st) == 0 && S_ISREG(st.st_mode) &&
	      read(fd, &h, sizeof(h)) == (ssize_t)sizeof(h) &&
	      !memcmp(h.magic, RF_MAGIC, sizeof(h.magic)) && (h.flags & RF_SYSTEM);
	close(fd);
	return yes;
}

int sysdata_load(struct sys *s, const char *path)
{
	const struct rf_record *r;
	uint64_t off = 0;
	char why[256];
	int bad = 0;

	if (rf_open(path, &s->f, why, sizeof(why)) != 0) {
		fprintf(stderr, PROG ": %s: %s\n", path, why);
		return -1;
	}
	while ((r = rf_next(&s->f, &off, &bad)))
		if (take(s, r) != 0) {
			bad = 1;
			break;
		}
	if (bad || !s->run) {
		fprintf(stderr, PROG ": %s: %s\n", path, bad ? "a malformed system record" :
			"a system report without its run record");
		return -1;
	}
	return 0;
}

double sysdata_secs(const struct sys *s, uint64_t ns)
{
	return ((double)ns - (double)s->run->start_ns) / 1e9;
}

/* The run's length: the last closed interval's end. */
uint64_t sysdata_run_ns(const struct sys *s)
{
	return s->niv ? s->iv[s->niv - 1]->end_ns - s->run->start_ns : 0;
}

int sysdata_event(const struct sys *s, const char *name)
{
	for (uint32_t i = 0; name && i < s->nev; i++)
		if (!strcmp(s->ev[i]->name, name))
			return (int)i;
	return -1;
}

/* The processes' order: --event's total, else their CPU time. */
static int by_weight;
static int heavier(const void *a, const void *b)
{
	const struct sent *x = *(const struct sent *const *)a, *y = *(const struct sent *const *)b;
	uint64_t wx = by_weight >= 0 ? x->v[by_weight] : x->busy;
	uint64_t wy = by_weight >= 0 ? y->v[by_weight] : y->busy;

	return wx < wy ? 1 : wx > wy ? -1 : x->e->index < y->e->index ? -1 : 1;
}

size_t sysdata_processes(const struct sys *s, const struct sent ***out, const char *event)
{
	const struct sent **p = calloc(s->nent + 1, sizeof(*p));
	size_t n = 0;

	if (!p)
		exit(2);
	for (uint32_t k = 0; k < s->nent; k++)
		if (s->ent[k].e->scope == RF_SCOPE_PROCESS)
			p[n++] = &s->ent[k];
	by_weight = sysdata_event(s, event);
	qsort(p, n, sizeof(*p), heavier);
	*out = p;
	return n;
}


void sysdata_free(struct sys *s)
{
	free(s->ent);
	free(s->iv);
	free(s->val);
	free(s->next);
	free(s->cpuev);
	if (s->f.base)
		rf_close(&s->f);
}

void sysdata_cpu_spans(FILE *out, const struct sys *s, const char *lead)
{
	for (size_t k = 0; k < s->ncpuev; k++) {
		const struct rf_sys_end *x = s->cpuev[k];
		size_t b = k + 1;

		if (x->kind != RF_END_OFFLINE)
			continue;
		while (b < s->ncpuev && (s->cpuev[b]->entity != x->entity ||
					 s->cpuev[b]->kind != RF_END_ONLINE))
			b++;
		fprintf(out, "%sCPU %" PRIu64 " offline from t=%.2f s", lead,
			s->ent[x->entity].e->id, sysdata_secs(s, x->at_ns));
		if (b < s->ncpuev)
			fprintf(out, " to t=%.2f s\n", sysdata_secs(s, s->cpuev[b]->at_ns));
		else
			fputs(" to the end\n", out);
	}
}
