# Fortran markers (include/pmcshim.f90): tests/fortran/run.sh runs a
# gfortran program (the module compiled with it, as users do) through the
# launcher. Without gfortran the suite says it skipped: the compiler is
# looked for when the program is made, after `make test` installed the
# tests' packages.
ifeq ($(origin FC),default)
FC := gfortran
endif

$(B)/tests/fortran:
	mkdir -p $@

# -J: the module file goes beside the program, not into the sources.
FORTRAN_TEST_CMD = $(FC) -std=f2008 -fopenmp -Wall -Wextra $(if $(filter 1,$(WERROR)),-Werror) \
	-O2 -g -J$(B)/tests/fortran -o $@ include/pmcshim.f90 tests/fortran/markers.f90
$(B)/tests/fortran/markers: include/pmcshim.f90 tests/fortran/markers.f90 | $(B)/tests/fortran
	@if command -v $(firstword $(FC)) >/dev/null 2>&1; then \
	  echo '$(FORTRAN_TEST_CMD)'; $(FORTRAN_TEST_CMD); \
	else echo "$(FC) not found: the Fortran suite will skip"; fi

ifeq ($(CROSS),)
TEST_BINS += $(B)/pmcshim $(B)/pmcshim-report $(B)/libpmcshim.so $(B)/tests/fortran/markers
EXTRA_SUITES += fortran=sh+tests/fortran/run.sh
endif
