/* Loading a version-2 report file (preload/format/reportfile.h) into struct
 * report: one walk over the records collects the small ones (events,
 * threads, names, stacks, modules, errors) and files each site's offset
 * under the thread index it names; then every site is checked against
 * what the walk found (records may come in any order). Every problem
 * becomes a one-line reason that says which record (by its offset) and
 * what is wrong with it. The file's bytes, a copy nothing changes under
 * us, come from report_read.c. */
#include "report_load.h"

#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>

#include "report_read.h"

struct ld {
	struct report *r;
	const struct rf_file *f;
	bool failed;
	char why[512];
	/* the small records of the first walk */
	const struct rf_thread **thr;
	const struct rf_name **nam;
	const struct rf_stack **stk;
	const struct rf_module **mod;
	const struct rf_error **err;
	const struct rf_origin **ori;
	const struct rf_event *evrec[RF_EVENTS_MAX];
	size_t nthr, nnam, nstk, nmod, nerr, nori;
	size_t cthr, cnam, cstk, cmod, cerr, cori;
	/* sites by the thread index they name, before threads are known */
	struct bucket {
		uint32_t *off;
		size_t n, cap;
	} *bucket;
	size_t nbucket, cbucket;
	uint32_t *thread_at;		/* [rf_thread.index] -> threads[], or UINT32_MAX */
	size_t nthread_at;
};

static bool PRINTF(2, 3) bad(struct ld *L, const char *fmt, ...)
{
	va_list ap;

	if (L->failed)
		return false;
	L->failed = true;
	va_start(ap, fmt);
	vsnprintf(L->why, sizeof(L->why), fmt, ap);
	va_end(ap);
	return false;
}

static uint64_t offset_of(const struct ld *L, const void *rec)
{
	return (uint64_t)((const unsigned char *)rec - L->f->base);
}

/* A fixed-size text field: NUL-terminated in a sound file, but never read
 * past its end whatever the file holds. */
static const char *field(struct report *r, const char *s, size_t size)
{
	return pool_strndup(&r->pool, s, strnlen(s, size));
}

#define FIELD(r, arr) field(r, arr, sizeof(arr))

/* ---- the header ---------------------------------------------------------- */

static uint64_t mono_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static const char *state_text(struct report *r, const struct rf_header *h)
{
	char b[300];

	switch (r->state) {
	case RF_RUNNING:
		if (r->live)
			return "running";
		return r->unsure ? "running, or ended without exit (the file has no boot id to "
				   "tell)" : "ended without exit (killed or crashed)";
	case RF_EXITED:
		return "exited";
	case RF_EXECED:
		snprintf(b, sizeof(b), "exec'd %.*s", (int)strnlen(h->exec_target,
			 sizeof(h->exec_target)), h->exec_target);
		return pool_strdup(&r->pool, b);
	default:
		return "_exit";
	}
}

static void load_argv(struct report *r, const struct rf_header *h)
{
	size_t at = 0, cap = 0;

	for (uint32_t i = 0; i < h->argc && at < sizeof(h->argv); i++) {
		size_t n = strnlen(h->argv + at, sizeof(h->argv) - at);

		r->argv = grow(r->argv, &cap, r->argc + 1, sizeof(*r->argv));
		r->argv[r->argc++] = pool_strndup(&r->pool, h->argv + at, n);
		at += n + 1;
	}
	r->argv_truncated = h->argv_truncated || r->argc < h->argc;
}

static void load_mpi(struct report *r, const struct rf_header *h)
{
	uint32_t st = __atomic_load_n(&h->mpi_state, __ATOMIC_RELAXED);

	r->mpi = (st & RF_MPI_INITIALIZED) && h->mpi_size && h->mpi_rank < h->mpi_size;
	r->mpi_rank = h->mpi_rank, r->mpi_size = h->mpi_size;
	r->mpi_finalized = st & RF_MPI_FINALIZED;
	r->mpi_finalized_twice = st & RF_MPI_FINALIZED_TWICE;
	r->mpi_library = FIELD(r, h->mpi_library);
}

static bool load_header(struct ld *L)
{
	struct report *r = L->r;
	const struct rf_header *h = L->f->h;

	r->state = rf_state(h);
	if (r->state < RF_RUNNING || r->state > RF_QUICK_EXIT)
		return bad(L, "corrupt header: unknown process state %" PRIu32, r->state);
	if (h->nevents > RF_EVENTS_MAX)
		return bad(L, "corrupt header: %" PRIu32 " events (at most %d)", h->nevents,
			   RF_EVENTS_MAX);
	r->state_text = state_text(r, h);
	r->pid = h->pid, r->ppid = h->ppid, r->has_ppid = true;
	r->forked = h->flags & RF_FORKED, r->full = h->flags & RF_FULL;
	if (h->flags & RF_CUT)
		r->cuts = h->cuts ? h->cuts : 1, r->cut_size = h->cut_size, r->cut_lost = h->cut_lost;
	r->serialized = h->flags & RF_SERIALIZED, r->barrier = FIELD(r, h->barrier);
	r->tree = h->flags & RF_TREE;
	r->fn_sampled = h->flags & RF_FN_SAMPLED;
	r->start_ns = h->start_real_ns;
	r->has_end = r->state != RF_RUNNING;
	r->end_ns = r->has_end ? h->end_real_ns : 0;
	if (r->has_end && h->end_mono_ns >= h->start_mono_ns)
		r->wall_ns = h->end_mono_ns - h->start_mono_ns, r->has_wall = true;
	else if (r->live && mono_now() >= h->start_mono_ns)
		r->wall_ns = mono_now() - h->start_mono_ns, r->has_wall = true;
	r->before_wall_ns = r->forked ? 0 : h->before_wall_ns;
	r->ticks_per_ns = rf_ticks_per_ns(h);
	/* a damaged header can hold any double: no tick counter runs below
	 * 1 kHz or above 1 THz */
	if (!(r->ticks_per_ns >= 1e-6 && r->ticks_per_ns <= 1e3))
		r->ticks_per_ns = 0;
	r->ns_per_tick = r->ticks_per_ns > 0 ? 1 / r->ticks_per_ns : 0;
	r->host = FIELD(r, h->host), r->executable = FIELD(r, h->executable);
	r->exec_target = FIELD(r, h->exec_target), r->shim_version = FIELD(r, h->shim_version);
	r->clock_source = FIELD(r, h->clock_source), r->user_read = FIELD(r, h->user_read);
	r->stack_depth = h->stack_depth;
	load_mpi(r, h);
	for (size_t k = 0; k < sizeof(r->dropped) / sizeof(r->dropped[0]); k++)
		r->dropped[k] = __atomic_load_n(&h->dropped[k], __ATOMIC_RELAXED);
	r->nev = h->nevents;
	load_argv(r, h);
	return true;
}

/* ---- the first walk: small records -------------------------------------- */

static bool check_name(struct ld *L, const struct rf_record *rec)
{
	const struct rf_name *n = (const void *)rec;

	if (n->id == 0 || (uint64_t)n->len + 1 > rec->size - offsetof(struct rf_name, text) ||
	    n->text[n->len])
		return bad(L, "corrupt name record at offset %" PRIu64, offset_of(L, rec));
	return true;
}

static bool check_origin(struct ld *L, const struct rf_record *rec)
{
	const struct rf_origin *o = (const void *)rec;

	if (o->id == 0 || o->source >= RF_FROM_KINDS)
		return bad(L, "corrupt origin record at offset %" PRIu64, offset_of(L, rec));
	return true;
}

static bool check_stack(struct ld *L, const struct rf_record *rec)
{
	const struct rf_stack *s = (const void *)rec;

	if (sizeof(*s) + (uint64_t)s->nframes * 8 > rec->size)
		return bad(L, "corrupt stack record at offset %" PRIu64 ": %u frames do not fit",
			   offset_of(L, rec), s->nframes);
	if (s->id >= NO_STACK)
		return bad(L, "corrupt stack record at offset %" PRIu64, offset_of(L, rec));
	return true;
}

static bool check_module(struct ld *L, const struct rf_record *rec)
{
	const struct rf_module *m = (const void *)rec;
	size_t room = rec->size - offsetof(struct rf_module, path);

	if (strnlen(m->path, room) == room)
		return bad(L, "corrupt module record at offset %" PRIu64 ": path not terminated",
			   offset_of(L, rec));
	return true;
}

static bool check_event(struct ld *L, const struct rf_record *rec)
{
	const struct rf_event *e = (const void *)rec;

	if (e->index >= L->r->nev)
		return bad(L, "event record at offset %" PRIu64 ": index %" PRIu32
			   " but the header lists %zu events", offset_of(L, rec), e->index, L->r->nev);
	if (L->evrec[e->index])
		return bad(L, "event %" PRIu32 " recorded twice", e->index);
	L->evrec[e->index] = e;
	return true;
}

static bool id_ok(const struct ld *L, uint64_t id, size_t minsize);

static bool check_site(struct ld *L, const struct rf_record *rec)
{
	const struct rf_site *s = (const void *)rec;

	struct bucket *b;

	if (s->nvalues < 1 || s->nvalues > 1 + RF_EVENTS_MAX ||
	    rf_site_size(s->nvalues) > rec->size)
		return bad(L, "corrupt site record at offset %" PRIu64 ": %" PRIu32
			   " values do not fit", offset_of(L, rec), s->nvalues);
	if (!id_ok(L, s->thread, sizeof(struct rf_thread)))
		return bad(L, "site at offset %" PRIu64 ": unknown thread %" PRIu32,
			   offset_of(L, rec), s->thread);
	if (s->thread >= L->nbucket) {
		L->bucket = grow(L->bucket, &L->cbucket, (size_t)s->thread + 1, sizeof(*L->bucket));
		memset(L->bucket + L->nbucket, 0, (s->thread + 1 - L->nbucket) * sizeof(*L->bucket));
		L->nbucket = (size_t)s->thread + 1;
	}
	b = &L->bucket[s->thread];
	b->off = grow(b->off, &b->cap, b->n + 1, sizeof(*b->off));
	b->off[b->n++] = (uint32_t)offset_of(L, rec);
	return true;
}

/* A thread's sampled stacks (--sample): its table whole, kept as it is. */
static bool check_samples(struct ld *L, const struct rf_record *rec)
{
	const struct rf_samples *s = (const void *)rec;
	struct report *r = L->r;

	if (!rf_samples_ok(s))
		return bad(L, "corrupt samples record at offset %" PRIu64 ": %" PRIu32 " slots of %"
			   PRIu32 " bytes do not fit", offset_of(L, rec), s->nslots, s->slot_size);
	r->samples = grow(r->samples, &r->csamples, r->nsamples + 1, sizeof(*r->samples));
	r->samples[r->nsamples++] = s;
	return true;
}

#define KEEP(L, arr, n, cap, rec) \
	((L)->arr = grow((L)->arr, &(L)->cap, (L)->n + 1, sizeof(*(L)->arr)), \
	 (L)->arr[(L)->n++] = (const void *)(rec), true)

static bool first_record(struct ld *L, const struct rf_record *rec)
{
	switch (rec->type) {
	case RF_EVENT: return check_event(L, rec);
	case RF_THREAD: return KEEP(L, thr, nthr, cthr, rec);
	case RF_NAME: return check_name(L, rec) && KEEP(L, nam, nnam, cnam, rec);
	case RF_STACK: return check_stack(L, rec) && KEEP(L, stk, nstk, cstk, rec);
	case RF_MODULE: return check_module(L, rec) && KEEP(L, mod, nmod, cmod, rec);
	case RF_SITE: return check_site(L, rec);
	case RF_ERROR: return KEEP(L, err, nerr, cerr, rec);
	case RF_ORIGIN: return check_origin(L, rec) && KEEP(L, ori, nori, cori, rec);
	case RF_SAMPLES: return check_samples(L, rec);
	default: return true;
	}
}

static bool walk_error(struct ld *L, uint64_t off)
{
	const struct rf_record *rec = (const void *)(L->f->base + off);

	return bad(L, "corrupt record at offset %" PRIu64 " (size %" PRIu32 ", type %u)%s", off,
		   rec->size, rec->type, off + rec->size > L->f->tail ?
		   ": it runs past the end of the file" : "");
}

static bool first_walk(struct ld *L)
{
	uint64_t off = 0;
	const struct rf_record *rec;
	int badrec;

	while ((rec = rf_next(L->f, &off, &badrec)))
		if (!first_record(L, rec))
			return false;
	off = off ? off : RF_HEADER_SIZE;
	/* a file cut short: its records end where it does, the last one
	 * perhaps in part; what the header counts past that is missing */
	if (L->f->h->tail > L->f->tail && (!badrec || off + ((const struct rf_record *)
	    (const void *)(L->f->base + off))->size > L->f->tail)) {
		L->r->missing = L->f->h->tail - off;
		return true;
	}
	return !badrec || walk_error(L, off);
}

/* ---- events, names, modules, stacks -------------------------------------- */

static void load_events(struct ld *L)
{
	struct report *r = L->r;

	r->ev = xcalloc(r->nev, sizeof(*r->ev));
	for (size_t i = 0; i < r->nev; i++) {
		const struct rf_event *e = L->evrec[i];
		char b[32];

		if (!e) { /* the header counts it, its record is not done (yet) */
			snprintf(b, sizeof(b), "event%zu", i);
			r->ev[i] = (struct rep_event){ .name = pool_strdup(&r->pool, b),
						       .source = "unavailable",
						       .reason = "no event record" };
			continue;
		}
		r->ev[i].name = FIELD(r, e->name);
		r->ev[i].source = rf_source_name(L->f->h, e->source);
		r->ev[i].reason = e->reason[0] ? FIELD(r, e->reason) : NULL;
		r->ev[i].type = e->type, r->ev[i].config = e->config;
		r->ev[i].exclude_kernel = e->exclude_kernel;
		r->ev[i].per_thread = rf_event_per_thread(e);
		if (e->r.size >= RF_EVENT_SIZE_V1 && e->mode_note[0]) /* older shims: no note */
			r->ev[i].mode_note = FIELD(r, e->mode_note);
	}
}

/* Ids are 1, 2, ... (stacks 0, 1, ...); no more of them than records fit. */
static bool id_ok(const struct ld *L, uint64_t id, size_t minsize)
{
	return id <= L->f->tail / minsize + 1;
}

/* An origin whose name is not recorded yet (a live file) is left out; one
 * whose prefix runs past its name is refused. */
static bool load_origins(struct ld *L)
{
	struct report *r = L->r;

	r->origins = xcalloc(r->nname_ids ? r->nname_ids : 1, sizeof(*r->origins));
	for (size_t i = 0; i < L->nori; i++) {
		const struct rf_origin *o = L->ori[i];

		if (o->id >= r->nname_ids || !r->names[o->id])
			continue;
		if (r->origins[o->id])
			return bad(L, "origin of name %" PRIu32 " recorded twice", o->id);
		if (o->prefix > strlen(r->names[o->id]))
			return bad(L, "origin of name %" PRIu32 ": prefix of %" PRIu32
				   " bytes in a shorter name", o->id, o->prefix);
		r->origins[o->id] = o;
	}
	return true;
}

static bool load_names(struct ld *L)
{
	struct report *r = L->r;

	for (size_t i = 0; i < L->nnam; i++) {
		if (!id_ok(L, L->nam[i]->id, sizeof(struct rf_name) + 1))
			return bad(L, "name record: id %" PRIu32 " out of range", L->nam[i]->id);
		if (L->nam[i]->id >= r->nname_ids)
			r->nname_ids = (size_t)L->nam[i]->id + 1;
	}
	r->names = xcalloc(r->nname_ids, sizeof(*r->names));
	for (size_t i = 0; i < L->nnam; i++) {
		if (r->names[L->nam[i]->id])
			return bad(L, "name id %" PRIu32 " recorded twice", L->nam[i]->id);
		r->names[L->nam[i]->id] = L->nam[i]->text;
	}
	return load_origins(L);
}

static int by_lo(const void *a, const void *b)
{
	const struct rep_module *x = a, *y = b;

	if (x->lo != y->lo)
		return x->lo < y->lo ? -1 : 1;
	return x->order < y->order ? -1 : x->order > y->order;
}

static void load_modules(struct ld *L)
{
	struct report *r = L->r;

	r->nmodules = L->nmod;
	r->modules = xcalloc(r->nmodules, sizeof(*r->modules));
	for (size_t i = 0; i < L->nmod; i++) {
		const struct rf_module *m = L->mod[i];

		r->modules[i] = (struct rep_module){ m->id, m->path, FIELD(r, m->build_id),
						     m->base, m->lo, m->hi, m->gen, (uint32_t)i };
	}
	qsort(r->modules, r->nmodules, sizeof(*r->modules), by_lo);
}

/* Whether module a is a better answer than b for an address of gen:
 * not past it, and newer (a later generation, or at the same one a later
 * record). */
static bool newer_within(const struct rep_module *a, const struct rep_module *b, uint32_t gen)
{
	if (a->gen > gen)
		return false;
	return !b || a->gen > b->gen || (a->gen == b->gen && a->order > b->order);
}

/* Of the modules starting at or below pc (ranges of one generation do
 * not overlap; those of unloaded modules may), the newest holding it
 * within gen. */
int32_t rep_module_of(const struct report *r, uint64_t pc, uint32_t gen)
{
	size_t lo = 0, hi = r->nmodules;
	const struct rep_module *best = NULL;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (r->modules[mid].lo <= pc)
			lo = mid + 1;
		else
			hi = mid;
	}
	for (size_t i = lo; i-- > 0;)
		if (pc < r->modules[i].hi && newer_within(&r->modules[i], best, gen))
			best = &r->modules[i];
	return best ? (int32_t)(best - r->modules) : -1;
}

static bool load_stacks(struct ld *L)
{
	struct report *r = L->r;

	for (size_t i = 0; i < L->nstk; i++) {
		if (!id_ok(L, L->stk[i]->id, sizeof(struct rf_stack)))
			return bad(L, "stack record: id %" PRIu32 " out of range", L->stk[i]->id);
		if (L->stk[i]->id >= r->nstacks)
			r->nstacks = (size_t)L->stk[i]->id + 1;
	}
	r->stacks = xcalloc(r->nstacks, sizeof(*r->stacks));
	r->stackrec = xcalloc(r->nstacks, sizeof(*r->stackrec));
	for (size_t i = 0; i < L->nstk; i++) {
		const struct rf_stack *s = L->stk[i];

		if (r->stacks[s->id].present)
			return bad(L, "stack id %" PRIu32 " recorded twice", s->id);
		r->stacks[s->id] = (struct rep_stack){ r->nframes, s->nframes, s->method, true };
		r->stackrec[s->id] = s;
		r->nframes += s->nframes;
	}
	return true;
}

/* Built on first use, not at load: the default table never needs them,
 * and a big file has megabytes of them. A cache, so the report stays
 * logically const. */
const struct rep_frame *rep_frames(const struct report *cr)
{
	struct report *r = (struct report *)(uintptr_t)cr;

	if (r->frames || !r->nframes)
		return r->frames;
	r->frames = xcalloc(r->nframes, sizeof(*r->frames));
	for (size_t id = 0; id < r->nstacks; id++) {
		const struct rf_stack *s = r->stackrec[id];

		for (size_t k = 0; s && k < s->nframes; k++) {
			int32_t m = rep_module_of(r, s->pc[k], rf_stack_gen(s));

			r->frames[r->stacks[id].first + k] = (struct rep_frame){
				s->pc[k], m < 0 ? 0 : s->pc[k] - r->modules[m].base, m, NULL };
		}
	}
	return r->frames;
}

/* ---- threads ------------------------------------------------------------- */

static struct rep_total total_of(const struct rf_thread *t, const struct rep_thread *o,
				 size_t e, bool killed)
{
	struct rep_total x = { .status = "unavailable" };

	if (!o->slot[e] && !(o->thread_mask >> e & 1))
		return x;
	if (!o->has_totals && o->has_live && killed && o->slot[e]) {	/* as of its last publish */
		x.value = o->live[o->slot[e] - 1], x.has_value = true;
		x.status = "last update";
		return x;
	}
	if (!o->has_totals)
		return (struct rep_total){ .status = "none" };
	if (t->total_status == RF_TOTAL_LOST)
		return (struct rep_total){ .status = "lost" };
	x.enabled = t->enabled[e], x.running = t->running[e], x.has_times = true;
	if (!x.running) {
		x.status = "not counted";
		return x;
	}
	x.value = t->totals[e], x.has_value = true;
	x.status = x.running < x.enabled ? "multiplexed" : "counted";
	if (x.running < x.enabled)
		x.scaled = rep_scale(x.value, x.enabled, x.running), x.has_scaled = true;
	return x;
}

static bool thread_slots(struct ld *L, const struct rf_thread *t, struct rep_thread *o)
{
	uint32_t mask = t->open_mask, n = 1;

	if (L->r->nev < 32 && ((mask | t->thread_mask) >> L->r->nev))
		return bad(L, "thread %" PRIu32 ": events open that the header does not list",
			   t->index);
	if (mask & t->thread_mask)
		return bad(L, "thread %" PRIu32 ": events counted both per region and per "
			   "thread only", t->index);
	o->thread_mask = t->thread_mask;
	for (size_t e = 0; e < L->r->nev; e++)
		o->slot[e] = (mask >> e & 1) ? (uint8_t)n++ : 0;
	if (t->nvalues != n)
		return bad(L, "thread %" PRIu32 ": %" PRIu32 " values per site, but %" PRIu32
			   " (wall time and its open events) expected", t->index, t->nvalues, n);
	o->nvalues = n;
	return true;
}

static const char *thread_state_name(uint32_t s)
{
	return s == RF_T_RUNNING ? "running" : s == RF_T_EXITED ? "exited" :
	       s == RF_T_SNAPSHOT ? "snapshot" : NULL;
}

/* The running counts a thread of a process that ended without a word
 * published last (rf_thread.live), when whole. */
static void live_totals(const struct rf_thread *t, struct rep_thread *o)
{
	uint32_t seq;

	if (t->r.size < sizeof(*t))
		return;
	seq = __atomic_load_n(&t->live_seq, __ATOMIC_ACQUIRE);
	if (!seq || seq & 1)	/* never published, or killed while publishing */
		return;
	memcpy(o->live, t->live, sizeof(o->live));
	o->live_ticks = t->live_ticks;
	rf_fence(__ATOMIC_ACQUIRE);
	o->has_live = __atomic_load_n(&t->live_seq, __ATOMIC_RELAXED) == seq;
}

static bool load_thread(struct ld *L, const struct rf_thread *t, struct rep_thread *o)
{
	struct report *r = L->r;
	uint32_t state = rf_thread_state(t);

	o->state = thread_state_name(state);
	if (!o->state)
		return bad(L, "thread %" PRIu32 ": unknown state %" PRIu32, t->index, state);
	if (!thread_slots(L, t, o))
		return false;
	o->index = t->index, o->tid = t->tid, o->main = t->is_main;
	o->setup = t->lazy ? "lazy" : "start";
	o->name = FIELD(r, t->name), o->lost_reason = FIELD(r, t->lost_reason);
	o->has_totals = state != RF_T_RUNNING && t->total_status != RF_TOTAL_NONE;
	if (state == RF_T_RUNNING)	/* (--watch reads them while it runs) */
		live_totals(t, o);
	o->has_cpu = state != RF_T_RUNNING && t->cpu_ns != UINT64_MAX;
	o->has_begin = t->r.size >= RF_THREAD_SIZE_V1 && t->begin_cpu_ns != UINT64_MAX &&
		       t->setup_cpu_ns != UINT64_MAX && t->begin_cpu_ns <= t->setup_cpu_ns;
	o->begin_cpu_ns = o->has_begin ? t->begin_cpu_ns : 0;
	o->setup_cpu_ns = o->has_begin ? t->setup_cpu_ns : 0;
	o->cpu_ns = o->has_cpu ? t->cpu_ns : 0;
	o->has_faults = t->r.size >= sizeof(*t) && t->begin_faults != UINT64_MAX;
	o->begin_faults = o->has_faults ? t->begin_faults : 0;
	o->has_end_faults = o->has_faults && state != RF_T_RUNNING && t->end_faults != UINT64_MAX &&
			    t->end_faults >= t->begin_faults;
	o->end_faults = o->has_end_faults ? t->end_faults : 0;
	if (state != RF_T_RUNNING && t->end_mono_ns >= t->start_mono_ns)
		o->wall_ns = t->end_mono_ns - t->start_mono_ns, o->has_wall = true;
	else if (state == RF_T_RUNNING && r->live && mono_now() >= t->start_mono_ns)
		o->wall_ns = mono_now() - t->start_mono_ns, o->has_wall = true;
	o->coverage = t->coverage;
	if (__atomic_load_n(&t->calib_calls, __ATOMIC_ACQUIRE)) {
		o->has_calib = r->calibrated = true;
		memcpy(o->calib_in, t->calib_in, sizeof(o->calib_in));
		memcpy(o->calib_child, t->calib_child, sizeof(o->calib_child));
	}
	if (t->r.size >= sizeof(*t) && __atomic_load_n(&t->calib_fn_calls, __ATOMIC_ACQUIRE)) {
		o->has_fn_calib = r->calibrated = true;
		memcpy(o->calib_fn_in, t->calib_fn_in, sizeof(o->calib_fn_in));
		memcpy(o->calib_fn_child, t->calib_fn_child, sizeof(o->calib_fn_child));
	}
	o->totals = xcalloc(r->nev, sizeof(*o->totals));
	for (size_t e = 0; e < r->nev; e++)
		o->totals[e] = total_of(t, o, e, r->state == RF_RUNNING && !r->live && !r->unsure);
	return true;
}

static int by_index(const void *a, const void *b)
{
	const struct rf_thread *x = *(const struct rf_thread *const *)a;
	const struct rf_thread *y = *(const struct rf_thread *const *)b;

	if (x->index != y->index)
		return x->index < y->index ? -1 : 1;
	return x < y ? -1 : x > y;	/* the later record last */
}

static bool load_threads(struct ld *L)
{
	struct report *r = L->r;

	if (L->nthr > 1) /* qsort must not see the NULL of an empty array */
		qsort(L->thr, L->nthr, sizeof(*L->thr), by_index);
	r->threads = xcalloc(L->nthr, sizeof(*r->threads));
	if (L->nthr && !id_ok(L, L->thr[L->nthr - 1]->index, sizeof(struct rf_thread)))
		return bad(L, "thread record: index %" PRIu32 " out of range",
			   L->thr[L->nthr - 1]->index);
	L->nthread_at = L->nthr ? (size_t)L->thr[L->nthr - 1]->index + 1 : 0;
	L->thread_at = xmalloc(L->nthread_at * sizeof(*L->thread_at));
	memset(L->thread_at, 0xff, L->nthread_at * sizeof(*L->thread_at));
	for (size_t i = 0, j; i < L->nthr; i = j) {
		size_t pick = i;

		/* a thread's record twice (the repair of a cut file can put
		 * one back from its log, or leave a zeroed one, tid 0): the
		 * later of the thread's is read, and said; two threads under
		 * one index are corrupt */
		for (j = i + 1; j < L->nthr && L->thr[j]->index == L->thr[i]->index; j++) {
			if (L->thr[j]->tid == L->thr[pick]->tid || !L->thr[pick]->tid)
				pick = j;
			else if (L->thr[j]->tid)
				return bad(L, "thread %" PRIu32 " recorded twice", L->thr[i]->index);
		}
		r->thread_dups += j - i - 1;
		if (!load_thread(L, L->thr[pick], &r->threads[r->nthreads]))
			return false;
		L->thread_at[L->thr[pick]->index] = (uint32_t)r->nthreads++;
	}
	return true;
}

/* ---- region ids no record names ----------------------------------------- */

/* A row (or error) that names a region id no RF_NAME record has is shown
 * under "(unknown id N)", with a note: the rest of the file is as good
 * as ever. An id inside the file's range gets its entry in place; one
 * past it an entry after the file's own (rep_region finds it). */
static bool named(const struct report *r, uint32_t id)
{
	return id < r->nfile_ids && r->names[id];
}

struct unknown_ids {
	uint32_t *id;
	size_t n, cap;
};

static void note_id(struct report *r, struct unknown_ids *u, uint32_t id)
{
	if (named(r, id))
		return;
	r->nunnamed++;
	if (u->n == u->cap) {
		u->cap = u->cap ? 2 * u->cap : 16;
		u->id = xrealloc(u->id, u->cap * sizeof(*u->id));
	}
	u->id[u->n++] = id;
}

static int by_id(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;

	return x < y ? -1 : x > y;
}

static const char *unknown_name(struct report *r, uint32_t id)
{
	char b[32];

	snprintf(b, sizeof(b), "(unknown id %" PRIu32 ")", id);
	return pool_strdup(&r->pool, b);
}

/* Each distinct id of u: its entry in names[]. */
static void add_unknown(struct report *r, struct unknown_ids *u)
{
	size_t n = 0;

	if (u->n > 1)	/* (qsort must not see the NULL of an empty array) */
		qsort(u->id, u->n, sizeof(*u->id), by_id);
	for (size_t i = 0; i < u->n; i++) {
		if (i && u->id[i] == u->id[i - 1])
			continue;
		if (u->id[i] < r->nfile_ids)
			r->names[u->id[i]] = unknown_name(r, u->id[i]);
		else
			u->id[n++] = u->id[i];
	}
	r->unknown = u->id, r->nunknown = n;
	if (n)
		r->names = xrealloc(r->names, (r->nfile_ids + n) * sizeof(*r->names));
	for (size_t k = 0; k < n; k++)
		r->names[r->nfile_ids + k] = unknown_name(r, u->id[k]);
	r->nname_ids = r->nfile_ids + n;
}

static void resolve_ids(struct ld *L)
{
	struct report *r = L->r;
	struct unknown_ids u = { 0 };

	r->nfile_ids = r->nname_ids;
	for (size_t i = 0; i < L->nerr; i++) {
		if (L->err[i]->region)
			note_id(r, &u, L->err[i]->region);
		if (L->err[i]->open)
			note_id(r, &u, L->err[i]->open);
	}
	for (size_t i = 0; i < L->nbucket; i++)
		for (size_t j = 0; j < L->bucket[i].n; j++)
			note_id(r, &u, ((const struct rf_site *)(const void *)
					(r->base + L->bucket[i].off[j]))->region);
	add_unknown(r, &u);
}

/* ---- errors -------------------------------------------------------------- */

static const char *region_name(const struct report *r, uint32_t id)
{
	return r->names[rep_region(r, id)];
}

static bool load_errors(struct ld *L)
{
	struct report *r = L->r;

	r->errors = xcalloc(L->nerr, sizeof(*r->errors));
	for (size_t i = 0; i < L->nerr; i++, r->nerrors++) {
		const struct rf_error *e = L->err[i];
		struct rep_error *o = &r->errors[i];
		char b[32];

		if (e->thread >= L->nthread_at || L->thread_at[e->thread] == UINT32_MAX)
			return bad(L, "error record: unknown thread %" PRIu32, e->thread);
		snprintf(b, sizeof(b), "kind-%" PRIu32, e->kind);
		o->kind = e->kind < RF_ERR_KINDS ? rf_error_name(e->kind) : pool_strdup(&r->pool, b);
		o->tid = r->threads[L->thread_at[e->thread]].tid;
		o->region = e->region ? region_name(r, e->region) : "";
		o->open = e->open ? region_name(r, e->open) : NULL;
		o->count = __atomic_load_n(&e->count, __ATOMIC_RELAXED);
	}
	return true;
}

/* ---- sites --------------------------------------------------------------- */

/* A site's references, now that every record is in. */
static bool site_ok(struct ld *L, const struct rf_site *s, const struct rep_thread *t)
{
	const struct report *r = L->r;

	if (s->stack >= r->nstacks || !r->stacks[s->stack].present)
		return bad(L, "site at offset %" PRIu64 ": unknown stack %" PRIu32,
			   offset_of(L, s), s->stack);
	if (s->nvalues != t->nvalues)
		return bad(L, "site at offset %" PRIu64 ": %" PRIu32 " values, its thread has %"
			   PRIu32, offset_of(L, s), s->nvalues, t->nvalues);
	return true;
}

/* (report_load.h) */
bool rep_below_calibration(const struct report *r, const struct rep_thread *t,
			   const struct rf_site *s)
{
	uint64_t in, child;

	for (uint32_t i = 0; s->calls && i < s->nvalues && rep_calib_of(r, t, s, i, &in, &child);
	     i++) {
		uint64_t own = rep_times(s->calls, in);
		uint64_t children = rep_times(s->child_calls, child);
		uint64_t excl = rep_scaled(t, s, i).excl;

		/* (incl only counts outermost activations: a recursive row's
		 * is 0 by design, so excl, which every call adds to, tells) */
		if (rep_cover(t, s, i) != REP_NEVER && (excl < own || excl - own < children))
			return true;
	}
	return false;
}

/* The row of a parent site: rows are in file order, and a parent is
 * written before its children, so it is one of the rows before `row`
 * (which also rules out a cycle). A site whose parent is not (a damaged
 * file: a cycle, or an offset that is no site) becomes outermost and is
 * counted: the rest of the tree and every other view stay as they are. */
static void parent_row(struct report *r, const struct rep_thread *t, size_t row)
{
	uint32_t want = rep_site(r, t, row)->parent;
	size_t lo = 0, hi = row;

	t->parent[row] = NO_PARENT;
	if (!want)
		return;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (t->rows[mid] < want)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo < row && t->rows[lo] == want)
		t->parent[row] = (uint32_t)lo;
	else
		r->nbroken_parents++;
}

/* Each bucket becomes its thread's rows. */
static bool load_sites(struct ld *L)
{
	struct report *r = L->r;

	for (size_t i = 0; i < L->nbucket; i++) {
		struct bucket *b = &L->bucket[i];
		struct rep_thread *t;

		if (!b->n)
			continue;
		if (i >= L->nthread_at || L->thread_at[i] == UINT32_MAX)
			return bad(L, "site at offset %" PRIu32 ": unknown thread %zu", b->off[0], i);
		t = &r->threads[L->thread_at[i]];
		t->rows = b->off, t->nrows = b->n;
		*b = (struct bucket){ 0 };
		if (r->tree)
			t->parent = xmalloc(t->nrows * sizeof(*t->parent));
		for (size_t j = 0; j < t->nrows; j++) {
			if (!site_ok(L, rep_site(r, t, j), t))
				return false;
			if (r->tree)
				parent_row(r, t, j);
			r->npartial += rep_site_partial(rep_site(r, t, j));
			r->nbelow += rep_below_calibration(r, t, rep_site(r, t, j));
		}
	}
	return true;
}

/* ---- values -------------------------------------------------------------- */

/* ---- the whole ------------------------------------------------------------ */

static void ld_free(struct ld *L)
{
	free(L->thr), free(L->nam), free(L->stk), free(L->mod), free(L->err), free(L->ori);
	free(L->thread_at);
	for (size_t i = 0; i < L->nbucket; i++)
		free(L->bucket[i].off);
	free(L->bucket);
}

static bool load(struct ld *L)
{
	if (L->f->tail > RF_MAX_SIZE)
		return bad(L, "corrupt header: tail beyond the 4 GiB limit");
	return load_header(L) && first_walk(L) && (load_events(L), true) && load_names(L) &&
	       (load_modules(L), true) && load_stacks(L) && load_threads(L) &&
	       (resolve_ids(L), true) && load_errors(L) && load_sites(L);
}

/* r->file is set; fills the rest, or frees r and says why. */
static struct report *finish(struct report *r, char *why, size_t whylen)
{
	struct ld L = { .r = r, .f = &r->file };
	bool ok;

	r->base = r->file.base;
	ok = load(&L);
	ld_free(&L);
	if (!ok) {
		snprintf(why, whylen, "%s", L.why);
		report_free(r);
		return NULL;
	}
	return r;
}

struct report *report_load_mem(const void *buf, size_t len, const char *name, char *why,
			       size_t whylen)
{
	struct report *r = xcalloc(1, sizeof(*r));

	r->path = pool_strdup(&r->pool, name);
	if (rf_open_mem(buf, len, &r->file, why, whylen) != 0) {
		report_free(r);
		return NULL;
	}
	return finish(r, why, whylen);
}

struct report *report_load_file(const char *path, char *why, size_t whylen)
{
	struct report *r = xcalloc(1, sizeof(*r));

	r->path = pool_strdup(&r->pool, path);
	if (!report_read_file(r, path, why, whylen)) {
		report_free(r);
		return NULL;
	}
	return finish(r, why, whylen);
}

void report_free(struct report *r)
{
	if (!r)
		return;
	for (size_t i = 0; i < r->nthreads; i++)
		free(r->threads[i].totals), free(r->threads[i].rows), free(r->threads[i].parent);
	free(r->threads), free(r->ev), free(r->names), free(r->origins), free(r->stacks), free(r->frames);
	free(r->unknown);
	free(r->stackrec);
	free(r->samples);
	free(r->modules), free(r->errors), free(r->argv);
	rf_close(&r->file);
	if (r->snapshot_mapped)
		munmap(r->snapshot, r->snapshot_mapped);
	else
		free(r->snapshot);
	pool_free(&r->pool);
	free(r);
}
