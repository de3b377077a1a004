/* Memory that a start does not touch, kept away from what it does. A
 * start touches a few hundred bytes of the shim's variables, in nearly
 * every file; the linker lays out each file's variables together, so a
 * big array among them spreads the rest over more pages, each a page
 * fault at every start (about 12 us on a VM). COLD puts an array after
 * every file's variables instead, at the end of .bss: as a common symbol,
 * so at file scope, without an initializer, and with a name unique in
 * the shim (its module's prefix). */
#ifndef PMCSHIM_COLD_H
#define PMCSHIM_COLD_H

#define COLD __attribute__((common))

#endif
