# Fortran markers (include/pmcshim.f90): tests/fortran/run.sh runs a
# gfortran program (the module compiled with it, as users do) through the
# launcher. Without gfortran the suite says it skipped.
ifeq ($(origin FC),default)
FC := gfortran
endif
HAVE_FC := $(if $(CROSS),,$(shell command -v $(FC) 2>/dev/null))

$(B)/tests/fortran:
	mkdir -p $@

# -J: the module file goes beside the program, not into the sources.
$(B)/tests/fortran/markers: include/pmcshim.f90 tests/fortran/markers.f90 | $(B)/tests/fortran
	$(FC) -std=f2008 -fopenmp -Wall -Wextra $(if $(filter 1,$(WERROR)),-Werror) -O2 -g \
	  -J$(B)/tests/fortran -o $@ include/pmcshim.f90 tests/fortran/markers.f90

TEST_BINS += $(B)/pmcshim $(B)/pmcshim-report $(B)/libpmcshim.so \
	$(if $(HAVE_FC),$(B)/tests/fortran/markers)
EXTRA_SUITES += fortran=sh+tests/fortran/run.sh
