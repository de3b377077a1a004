/* Unbalanced markers: counted per thread for the report, and announced
 * once per kind per process on stderr. */
#include <stdlib.h>

#include "log.h"
#include "names.h"
#include "regions.h"

static int warned[ERR_KINDS];

const char *regions_error_name(enum region_error kind)
{
	static const char *const names[ERR_KINDS] = {
		[ERR_END_MISMATCH] = "end-mismatch",
		[ERR_END_UNOPENED] = "end-unopened",
		[ERR_OPEN_AT_EXIT] = "open-at-exit",
		[ERR_REENTRANT] = "reentrant",
		[ERR_TOO_DEEP] = "too-deep",
	};
	return (unsigned)kind < ERR_KINDS ? names[kind] : "?";
}

static void warn_once(enum region_error kind, uint32_t region, uint32_t open)
{
	if (__atomic_exchange_n(&warned[kind], 1, __ATOMIC_RELAXED))
		return;
	switch (kind) {
	case ERR_END_MISMATCH:
		log_notice("unbalanced markers: end of '%s' while '%s' is innermost; "
			   "closed '%s', dropped the regions inside it "
			   "(this kind is warned once; all are in the report)",
			   names_get(region), names_get(open), names_get(region));
		break;
	case ERR_END_UNOPENED:
		log_notice("unbalanced markers: end of '%s', which is not open; ignored "
			   "(this kind is warned once; all are in the report)",
			   names_get(region));
		break;
	case ERR_OPEN_AT_EXIT:
		log_notice("unbalanced markers: '%s' still open when its thread ended; "
			   "not measured (this kind is warned once; all are in the report)",
			   names_get(region));
		break;
	case ERR_TOO_DEEP:
		log_notice("regions nested deeper than %d (at '%s'); deeper ones are "
			   "not measured", FRAMES_MAX, names_get(region));
		break;
	default:
		log_notice("a marker was called while the shim was busy on the same "
			   "thread (signal handler?); ignored");
		break;
	}
}

void regions_record_error(struct region_state *rs, enum region_error kind,
			  uint32_t region, uint32_t open, uint64_t count)
{
	struct region_error_rec *e;

	pthread_mutex_lock(&rs->lock);
	for (e = rs->errors; e; e = e->next)
		if (e->kind == kind && e->region == region && e->open == open)
			break;
	if (!e && (e = calloc(1, sizeof(*e))) != NULL) {
		e->kind = kind;
		e->region = region;
		e->open = open;
		e->next = rs->errors;
		rs->errors = e;
	}
	if (e)
		e->count += count;
	pthread_mutex_unlock(&rs->lock);
	warn_once(kind, region, open);
}
