// The C++ guard: pmcshim::scope and PMCSHIM_SCOPE ended by an exception
// unwinding through them, by return, and at the end of the block.
#include <cstdio>
#include <stdexcept>
#include <string>

#include <pmcshim.h>

static void throws(int i)
{
	pmcshim::scope s("throws");
	if (i % 2)
		throw std::runtime_error("odd");
}

static int macro_form(int i)
{
	PMCSHIM_SCOPE("macro");
	if (i == 0)
		throw std::out_of_range("zero");
	return i;
}

int main()
{
	int caught = 0;

	for (int i = 0; i < 4; i++) {
		try {
			throws(i);
		} catch (const std::exception &) {
			caught++;
		}
		try {
			macro_form(i);
		} catch (const std::exception &) {
			caught++;
		}
	}
	{
		std::string name = "dynamic-" + std::to_string(caught);
		pmcshim::scope s(name.c_str());
	}
	PMCSHIM_BEGIN("after");
	PMCSHIM_END("after");
	std::printf("scopes_cxx: caught %d\n", caught);
	return 0;
}
