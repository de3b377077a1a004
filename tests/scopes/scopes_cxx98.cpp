// Compiled only (-std=c++98): the header's C++ guard needs no C++11.
#include <pmcshim.h>

int guarded(int i)
{
	pmcshim::scope s("cxx98");
	PMCSHIM_SCOPE("cxx98-macro");
	return i + 1;
}
