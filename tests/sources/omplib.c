/* A library that uses OpenMP (libgomp is its dependency), for
 * ompload: loaded with RTLD_LOCAL, libgomp is not in the global scope. */
int omplib_team(void);

int omplib_team(void)
{
	int n = 0;

#pragma omp parallel reduction(+ : n)
	n += 1;
	return n;
}
