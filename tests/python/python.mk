# Python markers (python/pmcshim.py): tests/python/run.sh, and their cost
# in make bench (tests/bench/python_markers.py).
TEST_BINS += $(B)/pmcshim $(B)/pmcshim-report $(B)/libpmcshim.so
EXTRA_SUITES += python=sh+tests/python/run.sh

bench-python: all
	@PYTHON="$${PYTHON:-python3}" B=$(B) sh tests/bench/python.sh

bench: bench-python
.PHONY: bench-python
