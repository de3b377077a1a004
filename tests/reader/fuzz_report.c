/* libFuzzer target for the report reader: any bytes are loaded as a
 * report; a report that loads is aggregated and printed in every format
 * (and diffed with itself), to /dev/null. Checked besides "no crash, no
 * leak, no sanitizer report": the two ways of parsing (piece by piece, and
 * the whole document at once) agree on whether the input is a valid report
 * and on what it holds. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "report_load.h"
#include "report_model.h"
#include "report_render.h"

static FILE *devnull;

static size_t total_rows(const struct report *r)
{
	size_t n = 0;

	for (size_t i = 0; i < r->nthreads; i++)
		n += r->threads[i].nrows;
	return n;
}

static void agree(const struct report *a, const struct report *b, const char *wa,
		  const char *wb)
{
	if (!a != !b) {
		fprintf(stderr, "split and whole parses disagree: '%s' vs '%s'\n", wa, wb);
		abort();
	}
	if (a && (a->nev != b->nev || a->nthreads != b->nthreads || a->nstacks != b->nstacks ||
		  a->nframes != b->nframes || total_rows(a) != total_rows(b))) {
		fprintf(stderr, "split and whole parses load different reports\n");
		abort();
	}
}

static void render_all(struct report *r)
{
	struct report *files[2] = { r, r };
	char why[512];

	for (int f = F_TABLE; f <= F_FOLDED; f++) {
		struct opts o = { .threads = true, .by_process = true, .stacks = true,
				  .format = (enum out_format)f, .sort = (enum sort_field)(f * 3 % 10),
				  .top = f == F_JSON ? 2 : 0 };
		struct model *m = model_new(files, 1 + (f & 1), &o, why, sizeof(why));

		if (!m)
			abort(); /* no --event given: a model is always possible */
		model_tables(m);
		if (f == F_TABLE)
			render_table(devnull, m);
		else if (f == F_CSV)
			render_csv(devnull, m);
		else if (f == F_JSON)
			render_json(devnull, m);
		else
			render_folded(devnull, m);
		model_free(m);
		o.threads = o.by_process = o.stacks = false;
		if (f != F_FOLDED && run_diff(devnull, r, r, &o, why, sizeof(why)))
			abort();
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char why1[600], why2[600];
	struct report *split, *whole;

	if (!devnull && !(devnull = fopen("/dev/null", "w")))
		abort();
	split = report_load_buf((const char *)data, size, "fuzz", 1, why1, sizeof(why1));
	whole = report_load_buf((const char *)data, size, "fuzz", -1, why2, sizeof(why2));
	agree(split, whole, split ? "" : why1, whole ? "" : why2);
	if (split)
		render_all(split);
	report_free(split);
	report_free(whole);
	return 0;
}
