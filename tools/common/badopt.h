/* The two commands' one line for an option getopt_long refused. */
#ifndef PMCSHIM_BADOPT_H
#define PMCSHIM_BADOPT_H

/* After getopt_long returned c ('?' or ':') with opterr 0 and an option
 * string starting with ':': one line on stderr, "prog: OPTION: what is
 * wrong (--help lists them)"; the whole usage would bury it. */
void badopt_say(const char *prog, char *const *argv, int c);

#endif
