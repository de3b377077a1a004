/* libFuzzer target for the report reader: any bytes are opened as a
 * version-2 report file (rf_open_mem, then the loader); a file that loads
 * is aggregated and printed in every format, exported, and diffed with
 * itself, to /dev/null. What is checked: no crash, no leak, no sanitizer
 * report, and that a file the loader accepts can always be rendered. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "reader/data/report_load.h"
#include "reader/data/report_model.h"
#include "reader/views/report_render.h"
#include "reader/views/report_tree.h"

static FILE *devnull;

static void render(struct model *m, enum out_format f)
{
	switch (f) {
	case F_TABLE: render_table(devnull, m); break;
	case F_CSV: render_csv(devnull, m); break;
	case F_JSON: render_export(devnull, m); break;
	case F_FOLDED: render_folded(devnull, m); break;
	case F_JSON_TABLE: render_json_table(devnull, m); break;
	case F_FOLDED_STACKS: render_folded(devnull, m); break;
	case F_SPEEDSCOPE: render_speedscope(devnull, m); break;
	case F_HTML: render_html(devnull, m); break;
	}
	if (f == F_TABLE)
		render_tree(devnull, m);
}

static void render_all(struct report *r)
{
	struct report *files[2] = { r, r };
	static const uint32_t side[2] = { 0, 1 };
	const char *const names[2] = { "before", "after" };
	char why[512];

	for (int f = F_TABLE; f <= F_HTML; f++) {
		struct opts o = { .threads = true, .by_process = true, .stacks = true,
				  .format = (enum out_format)f, .sort = (enum sort_field)(f * 3 % 10),
				  .top = f == F_JSON_TABLE ? 2 : 0, .has_min_coverage = f == F_TABLE,
				  .min_coverage = 0.5, .min_share = f == F_TABLE ? 0.1 : 0 };
		struct model *m = model_new(files, 1 + (f & 1), &o, why, sizeof(why));

		if (!m)
			abort(); /* no --event given: a model is always possible */
		if (f != F_JSON)
			model_tables(m);
		render(m, (enum out_format)f);
		model_free(m);
		o.threads = o.by_process = o.stacks = false;
		if (f <= F_JSON_TABLE && f != F_FOLDED &&
		    run_diff(devnull, files, 2, side, names, &o, why, sizeof(why)))
			abort();
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char why[600];
	struct report *r;
	/* a mapping is page-aligned: give the loader aligned memory too */
	void *buf = aligned_alloc(8, (size + 7) & ~(size_t)7);

	if (!buf || (!devnull && !(devnull = fopen("/dev/null", "w"))))
		abort();
	memcpy(buf, data, size);
	r = report_load_mem(buf, size, "fuzz", why, sizeof(why));
	if (r)
		render_all(r);
	else if (!why[0] || strchr(why, '\n'))
		abort(); /* a refusal is always one line that says why */
	report_free(r);
	free(buf);
	return 0;
}
