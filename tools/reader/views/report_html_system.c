/* --format html of a system report: one page that needs nothing else,
 * drawing each CPU's and each top process's values over the run's time
 * (per interval, the event chosen on the page). The data is the report's
 * --format json document (system_json) inside the page; the page's script
 * is tools/reader/views/report_html_system.js, made into a C string at
 * build time (report_html_system_js.c). */
#include "report_system.h"

#include <stdlib.h>
#include <string.h>

extern const char report_html_system_js[];

static const char style[] =
	"body { font: 13px/1.4 system-ui, sans-serif; margin: 1em; color: #222; }\n"
	"h1 { font-size: 1.3em; margin: 0 0 .3em; }\n"
	"h2 { font-size: 1.05em; margin: 1.2em 0 .4em; }\n"
	".note { color: #666; } .legend span { margin-right: 1em; white-space: nowrap; }\n";

void system_html(FILE *out, const struct sys *s, const char *path, const struct sent **p,
		 size_t n, size_t top)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *mem = open_memstream(&buf, &len);

	if (!mem)
		exit(2);
	system_json(mem, s, path, p, n, top);
	if (fclose(mem))
		exit(2);
	fprintf(out, "<!DOCTYPE html>\n<html><head><meta charset=\"utf-8\">\n"
		"<title>pmcshim --system</title>\n<style>\n%s</style></head>\n<body>\n"
		"<h1 id=\"title\"></h1>\n<div id=\"summary\" class=\"note\"></div>\n"
		"<label>event <select id=\"event\"></select></label>\n"
		"<div id=\"cpu-section\"><h2>Per CPU, per interval</h2><div id=\"cpus\"></div></div>\n"
		"<h2>The heaviest processes, per interval</h2><div id=\"procs\"></div>\n"
		"<script id=\"pmcshim-system-data\" type=\"application/json\">", style);
	/* '<' only in the JSON's strings, where \u003c means the same and
	 * cannot end the element */
	for (char *c = buf, *lt; c < buf + len; c = lt + 1) {
		if (!(lt = memchr(c, '<', (size_t)(buf + len - c)))) {
			fwrite(c, 1, (size_t)(buf + len - c), out);
			break;
		}
		fwrite(c, 1, (size_t)(lt - c), out);
		fputs("\\u003c", out);
	}
	fprintf(out, "</script>\n<script>\n%s</script>\n</body></html>\n", report_html_system_js);
	free(buf);
}
