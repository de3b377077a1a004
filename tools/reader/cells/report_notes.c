/* See report_notes.h. */
#include "report_notes.h"

#include <inttypes.h>
#include <string.h>

#include "report_cells.h"

bool note_calibration(FILE *out, const struct report *r)
{
	const struct rep_thread *t = NULL;
	char b[32];

	for (size_t i = 0; i < r->nthreads && !t; i++)
		if (r->threads[i].has_calib)
			t = &r->threads[i];
	if (!t || r->raw) {
		if (t)
			fprintf(out, "#   raw: values as measured, the markers' own cost included\n");
		return false;
	}
	fprintf(out, "#   calibrated: the markers' own cost taken out, per call");
	if (r->ns_per_tick > 0)
		fprintf(out, " wall %s", fmt_num(b, rep_ns(r, t->calib_in[0]), H_TIME));
	/* each with its unit: a time event's in time, a count's in its event */
	for (size_t e = 0; e < r->nev; e++)
		if (t->slot[e] && event_is_time(r->ev[e].name))
			fprintf(out, ", %s %s", r->ev[e].name,
				fmt_num(b, t->calib_in[t->slot[e]], H_TIME));
		else if (t->slot[e])
			fprintf(out, ", %" PRIu64 " %s", t->calib_in[t->slot[e]], r->ev[e].name);
	if (t->has_fn_calib && r->ns_per_tick > 0)
		fprintf(out, "; the function hooks' wall %s",
			fmt_num(b, rep_ns(r, t->calib_fn_in[0]), H_TIME));
	fprintf(out, " (and per child call in its parent's excl); --raw shows measured values\n");
	return true;
}

void note_fn_sampled(FILE *out, const struct report *r)
{
	const struct rf_samples *s = r->nsamples ? r->samples[0] : NULL;
	/* task-clock:u: the kernel's time was not this user's to sample */
	bool user = s && !strncmp(s->event_name, "task-clock:u", sizeof(s->event_name));
	char b[32];

	if (!r->fn_sampled)
		return;
	fprintf(out, "#   functions counted, not timed (PMCSHIM_FUNCTIONS=sampled): exact calls; "
		"their time is %s from %s samples", user ? "user-space CPU time (system calls' "
		"left out)" : "CPU time", user ? "task-clock:u" : "task-clock");
	if (s && s->period)
		fprintf(out, " (one every %s of a thread's CPU)", fmt_num(b, s->period, H_TIME));
	fprintf(out, ", not wall time, the hooks' own left out; no min or max, no event "
		"values\n");
}

void note_below(FILE *out, size_t n)
{
	if (n)
		fprintf(out, "#   %zu row%s below the markers' own cost (shorter than their noise): "
			"shown as 0\n", n, n == 1 ? "" : "s");
}

void note_short(FILE *out, const struct report *r)
{
	if (r->missing)
		fprintf(out, "#   cut short: %" PRIu64 " bytes of records missing (%s)\n", r->missing,
			r->shrank ? "the file shrank while being read" :
			"the file ends before its records do");
	else if (r->shrank)
		fprintf(out, "#   the file shrank while being read (%" PRIu64 " to %" PRIu64
			" bytes): read as far as it went\n", r->size_was, r->size_now);
	if (r->cuts)
		fprintf(out, "#   cut to %" PRIu64 " bytes while the program ran (%" PRIu32
			" time%s), and put back: the counts made before that in %" PRIu64
			" bytes of records are lost\n", r->cut_size, r->cuts,
			r->cuts == 1 ? "" : "s", r->cut_lost);
}

/* Whether error i of r is about a region that an earlier one of kind is. */
static bool region_seen(const struct report *r, size_t i, const char *kind)
{
	for (size_t j = 0; j < i; j++)
		if (!strcmp(r->errors[j].kind, kind) &&
		    !strcmp(r->errors[j].region, r->errors[i].region))
			return true;
	return false;
}

uint64_t resync_calls(const struct report *r, size_t *regions)
{
	const char *kind = rf_error_name(RF_ERR_RESYNC);
	uint64_t calls = 0;

	*regions = 0;
	for (size_t i = 0; i < r->nerrors; i++)
		if (!strcmp(r->errors[i].kind, kind)) {
			calls += r->errors[i].count;
			*regions += !region_seen(r, i, kind);
		}
	return calls;
}

void note_resync(FILE *out, const struct report *r)
{
	size_t regions;
	uint64_t calls = resync_calls(r, &regions);

	if (calls)
		fprintf(out, "#   %" PRIu64 " call%s closed by resync in %zu region%s: their end was "
			"not seen (a longjmp, an exception, the end of a region open around them), "
			"so each ends where the thread was seen past it (see the marker errors)\n",
			calls, calls == 1 ? "" : "s", regions, regions == 1 ? "" : "s");
}
