# The region table's handling of odd names (tests/table/run.sh).
$(B)/tests/table:
	mkdir -p $@

$(B)/tests/table/names: tests/table/names.c include/pmcshim.h | $(B)/tests/table
	$(CC) $(APP_FLAGS) -o $@ $< -ldl

TEST_BINS += $(B)/tests/table/names $(B)/pmcshim
EXTRA_SUITES += table=sh+tests/table/run.sh
