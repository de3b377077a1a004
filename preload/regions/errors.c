/* Unbalanced markers: counted per thread in RF_ERROR records of the report
 * file, and announced once per kind per process on stderr. */
#include <errno.h>

#include "base/log.h"
#include "report/mapfile.h"
#include "names.h"
#include "regions.h"

static int warned[RF_ERR_KINDS];

static void warn_once(enum rf_error_kind kind, uint32_t region, uint32_t open)
{
	/* closed by an end of a region open below: the end-mismatch says so */
	if (kind == RF_ERR_RESYNC && open)
		return;
	if (__atomic_exchange_n(&warned[kind], 1, __ATOMIC_RELAXED))
		return;
	switch (kind) {
	case RF_ERR_END_MISMATCH:
		log_notice("unbalanced markers: end of '%s' while '%s' is innermost; "
			   "closed '%s', and first the regions open inside it (closed by resync) "
			   "(this kind is warned once; all are in the report)",
			   names_get(region), names_get(open), names_get(region));
		break;
	case RF_ERR_END_UNOPENED:
		log_notice("unbalanced markers: end of '%s', which is not open; ignored "
			   "(this kind is warned once; all are in the report)",
			   names_get(region));
		break;
	case RF_ERR_OPEN_AT_EXIT:
		log_notice("unbalanced markers: '%s' still open when its thread ended; "
			   "not measured (this kind is warned once; all are in the report)",
			   names_get(region));
		break;
	case RF_ERR_TOO_DEEP:
		log_notice("regions nested deeper than %d (at '%s'); deeper ones are "
			   "not measured", FRAMES_MAX, names_get(region));
		break;
	case RF_ERR_RESYNC:
		log_notice("functions left without their exit hook (longjmp, or an exception "
			   "unwound without it): each closed where its thread's stack was seen past "
			   "it (this kind is warned once; all are in the report)");
		break;
	default:
		log_notice("a marker was called while the shim was busy on the same "
			   "thread (signal handler?); ignored");
		break;
	}
}

static struct region_error *error_new(struct region_state *rs, enum rf_error_kind kind,
				      uint32_t region, uint32_t open)
{
	struct region_error *e = arena_alloc(&rs->arena, sizeof(*e));
	struct rf_error *rec = e ? mapfile_append(RF_ERROR, sizeof(*rec)) : NULL;

	if (!rec)
		return NULL;
	rec->thread = rs->thread;
	rec->kind = kind;
	rec->region = region;
	rec->open = open;
	mapfile_publish(rec);
	e->rec = rec;
	e->next = rs->errors;
	rs->errors = e;
	return e;
}

void regions_record_error(struct region_state *rs, enum rf_error_kind kind,
			  uint32_t region, uint32_t open, uint64_t count)
{
	int saved = errno;
	struct region_error *e;

	for (e = rs->errors; e; e = e->next)
		if (e->rec->kind == kind && e->rec->region == region && e->rec->open == open)
			break;
	if (!e)
		e = error_new(rs, kind, region, open);
	if (e)
		__atomic_add_fetch(&e->rec->count, count, __ATOMIC_RELAXED);
	warn_once(kind, region, open);
	errno = saved;
}
