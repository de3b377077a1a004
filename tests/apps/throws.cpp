// Stacks through C++: exceptions thrown and caught, a destructor run as
// one propagates, std::sort with a comparator that marks. Built at -O0,
// -O2 and -O3, -O2 also with frame pointers (tests/tests.mk). Regions:
// throw (before a throw), catch (in the handler), dtor (in a destructor
// while an exception propagates), sort (in std::sort's comparator).
// Prints "throws: done, libunwind loaded: yes|no" and exits 0.
#include <algorithm>
#include <cstdio>
#include <cstring>
#include <stdexcept>
#include <vector>

#include <pmcshim.h>

static volatile int sink;

struct Guard {
	~Guard()
	{
		PMCSHIM_BEGIN("dtor");
		sink++;
		PMCSHIM_END("dtor");
	}
};

__attribute__((noinline)) static void thrower(int n)
{
	PMCSHIM_BEGIN("throw");
	sink += n;
	PMCSHIM_END("throw");
	if (n % 2)
		throw std::runtime_error("odd");
}

__attribute__((noinline)) static void guarded(int n)
{
	Guard g;

	thrower(n);
	sink++;
}

__attribute__((noinline)) static int catcher(int n)
{
	try {
		guarded(n);
	} catch (const std::exception &e) {
		PMCSHIM_BEGIN("catch");
		sink += (int)std::strlen(e.what());
		PMCSHIM_END("catch");
		return 1;
	}
	return 0;
}

__attribute__((noinline)) static void sort_some()
{
	std::vector<int> v;

	for (int i = 0; i < 40; i++)
		v.push_back((i * 7919) % 40);
	std::sort(v.begin(), v.end(), [](int a, int b) {
		PMCSHIM_BEGIN("sort");
		sink++;
		PMCSHIM_END("sort");
		return a < b;
	});
}

static const char *libunwind_loaded()
{
	FILE *f = std::fopen("/proc/self/maps", "r");
	char line[512];
	bool found = false;

	while (f && std::fgets(line, sizeof(line), f))
		found = found || std::strstr(line, "libunwind");
	if (f)
		std::fclose(f);
	return found ? "yes" : "no";
}

int main()
{
	int caught = 0;

	for (int i = 0; i < 6; i++)
		caught += catcher(i);
	sort_some();
	std::printf("throws: done, libunwind loaded: %s\n", caught == 3 ? libunwind_loaded() : "?");
	return 0;
}
