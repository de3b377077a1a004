/* Symbol names as people write them: C++ (Itanium ABI, as GCC and Clang
 * mangle) and Rust's legacy mangling, which is the same scheme with a hash
 * and '$' escapes added. Rust's v0 mangling ("_R...") is not decoded: such
 * names are shown as the symbol table has them. */
#ifndef PMCSHIM_DEMANGLE_H
#define PMCSHIM_DEMANGLE_H

#include <stdbool.h>
#include <stddef.h>

/* The readable form of symbol `name` in out ("_ZN3app6SolverIdE4stepEi"
 * gives "app::Solver<double>::step(int)", "_ZN1r4work17h0123456789abcdefE"
 * "r::work"); a symbol version stays at the end ("...@@GLIBCXX_3.4").
 * False, out untouched, when name is not mangled (a C name) or cannot be
 * decoded. */
bool demangle(const char *name, char *out, size_t outlen);

/* name itself, or its demangled form in buf. */
const char *demangled(const char *name, char *buf, size_t buflen);

#endif
