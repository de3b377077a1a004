/* A plugin for the plugins app, built twice: PLUGIN_NAME is "plugin-alpha"
 * in plugin-a.so and "plugin-bravo" in plugin-b.so (the same length, so
 * the literal lies at the same offset in both). */
#include <pmcshim.h>

const char *plugin_name(void)
{
	return PLUGIN_NAME;
}

void plugin_mark(void)
{
	pmcshim_begin_name(PLUGIN_NAME);
	pmcshim_end_name(PLUGIN_NAME);
}
