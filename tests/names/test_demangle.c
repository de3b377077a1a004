/* The demangler (tools/reader/data/demangle.c) on symbols as GCC, Clang and
 * rustc write them. The Rust symbols are rustc 1.x's (legacy mangling,
 * its default), taken from `nm` of a program it built. */
#include "harness.h"
#include "reader/data/demangle.h"

/* name demangles to want (NULL: is left alone) */
static int gives(const char *name, const char *want)
{
	char out[512] = "untouched";
	bool ok = demangle(name, out, sizeof(out));

	if (want ? ok && strcmp(out, want) == 0 : !ok && strcmp(out, "untouched") == 0)
		return 1;
	printf("    %s: got %s '%s', want %s\n", name, ok ? "true" : "false", out,
	       want ? want : "false, out untouched");
	return 0;
}

static void test_cxx(void)
{
	CHECK(gives("_ZN3app6SolverIdE4stepEi", "app::Solver<double>::step(int)"), "a member");
	CHECK(gives("_ZN3geo4MeshIdE6updateEi", "geo::Mesh<double>::update(int)"), "the issue's");
	CHECK(gives("_ZN3app6SolverIdE4stepEi._omp_fn.0",
		    "app::Solver<double>::step(int) [clone ._omp_fn.0]"), "an outlined body");
	CHECK(gives("_ZNKSt9bad_alloc4whatEv@@GLIBCXX_3.4", "std::bad_alloc::what() const@@GLIBCXX_3.4"),
	      "a versioned symbol");
	CHECK(gives("_ZL3foov", "foo()"), "a static function");
}

static void test_rust_legacy(void)
{
	CHECK(gives("_ZN1r4work17h5d6f1e2a3b4c5d6eE", "r::work"), "the hash dropped");
	CHECK(gives("_ZN55_$LT$r..W$LT$T$GT$$u20$as$u20$core..ops..drop..Drop$GT$4drop"
		    "17h08778581e5df19deE", "<r::W<T> as core::ops::drop::Drop>::drop"),
	      "escapes written out");
	/* not a hash (15 digits): a C++ name, left as C++ says it */
	CHECK(gives("_ZN1r4work16h5d6f1e2a3b4c5d6E", "r::work::h5d6f1e2a3b4c5d6"), "C++ as it is");
}

static void test_left_alone(void)
{
	CHECK(gives("main", NULL), "a C name");
	CHECK(gives("_start", NULL), "crt1's");
	CHECK(gives("_Z", NULL), "too short");
	CHECK(gives("_Zjunk", NULL), "not valid");
	/* Rust's v0 mangling is not decoded (demangle.h) */
	CHECK(gives("_RNvCs1234_7mycrate3foo", NULL), "Rust v0");
	CHECK(gives("", NULL), "empty");
	CHECK(!demangle(NULL, (char[8]){ 0 }, 8), "NULL");
}

static void test_small_buffer(void)
{
	char out[8];

	CHECK(demangle("_ZN3app6SolverIdE4stepEi", out, sizeof(out)) && strcmp(out, "app::So") == 0,
	      "cut to the buffer: '%s'", out);
}

int main(void)
{
	RUN(test_cxx);
	RUN(test_rust_legacy);
	RUN(test_left_alone);
	RUN(test_small_buffer);
	return t_done("demangle");
}
