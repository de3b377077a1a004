/* OpenMP regions, with no source change: GCC's libgomp through its
 * interposed entry points (openmp.c), LLVM's libomp through OMPT
 * (ompt.c). */
#ifndef PMCSHIM_OPENMP_H
#define PMCSHIM_OPENMP_H

/* PMCSHIM_OPENMP: 0 leaves every OpenMP entry point to the runtime alone. */
void openmp_setup(int enabled);

#endif
