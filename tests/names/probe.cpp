// The names a C++ program's report must show as the source wrote them: a
// template's member function as a function region (-finstrument-functions),
// as the outlined function of its OpenMP parallel region, and in the stack
// of a marker it holds; a second instantiation whose name is long, two
// whose long names differ only inside their template arguments.
#include <cstdio>
#include <map>
#include <string>
#include <vector>

#include <pmcshim.h>

namespace app {
template <typename T> struct Solver {
	T x{};
	__attribute__((noinline)) void step(int n)
	{
		pmcshim::scope s("solve");	// the marker's line
		double acc = 0;
#pragma omp parallel for reduction(+ : acc)
		for (int i = 0; i < n; i++)
			acc += i * 0.5;
		x = x + static_cast<T>(acc > 0);
	}
};

// Long names: the same member of two instantiations whose arguments differ
// only deep inside.
template <typename K, typename V> struct Table {
	std::map<K, std::vector<std::map<std::string, V>>> rows;
	__attribute__((noinline)) size_t count(const K &k) { return rows.count(k); }
};
} // namespace app

int main()
{
	app::Solver<double> s;
	app::Table<std::string, int> a;
	app::Table<std::string, long> b;

	for (int i = 0; i < 3; i++)
		s.step(1000);
	std::printf("probe: %g %zu %zu\n", s.x, a.count("x"), b.count("y"));
#ifdef REBUILT
	std::printf("rebuilt\n");
#endif
	return 0;
}
