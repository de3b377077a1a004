// The header from C++: macros, function forms, a marker in a template.
#include <cstdio>
#include <string>

#include <pmcshim.h>

template <typename T> static T twice(T x)
{
	PMCSHIM_BEGIN("twice");
	T r = x + x;
	PMCSHIM_END("twice");
	return r;
}

int main()
{
	std::string name = "dynamic-" + std::to_string(twice(21));
	pmcshim_begin_name(name.c_str());
	int v = twice(1);
	pmcshim_end_name(name.c_str());
	std::printf("cxx: %d %s\n", v, pmcshim_active() ? "active" : "inactive");
	return 0;
}
