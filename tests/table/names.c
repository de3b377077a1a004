/* Region names a table must not print as they are: terminal control
 * sequences, a very long name, three long names that differ only at their
 * end, and a non-ASCII one that must stay. */
#include <stdio.h>
#include <string.h>

#include <pmcshim.h>

static void region(const char *name)
{
	pmcshim_begin_name(name);
	pmcshim_end_name(name);
}

int main(void)
{
	char longname[201];

	memset(longname, 'a', 200);
	memcpy(longname, "long-", 5);
	longname[200] = '\0';
	region("\x1b[2Jclear\r\n");
	region("tab\there\x7f\xc2\x9b");
	region(longname);
	for (int i = 1; i <= 3; i++) {
		char step[300];

		snprintf(step, sizeof(step), "phase/%.150s/step-%d", longname + 5, i);
		region(step);
	}
	region("gr\xc3\xbc\xc3\x9f" "e");	/* "grüße" */
	return 0;
}
