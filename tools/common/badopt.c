/* One line for a refused option, the same in both commands. */
#include "badopt.h"

#include <getopt.h>
#include <stdio.h>
#include <string.h>

void badopt_say(const char *prog, char *const *argv, int c)
{
	const char *arg = argv[optind - 1];

	/* optopt: the short option, or a long option's val; 0 for an
	 * unknown long option, whose text is then the last argument read */
	if (c == ':')
		fprintf(stderr, "%s: %s: needs a value (--help lists the options)\n", prog, arg);
	else if (optopt > 0 && optopt < 256 && strncmp(arg, "--", 2))
		fprintf(stderr, "%s: -%c: unknown option (--help lists them)\n", prog, optopt);
	else
		fprintf(stderr, "%s: %s: unknown option, or one that takes no value "
			"(--help lists them)\n", prog, arg);
}
