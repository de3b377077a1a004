# Default events chosen for the machine, and events read only through
# read() kept out of the markers' and the function hooks' path
# (tests/defaults/run.sh): one program, built plain (marker pairs) and
# with -finstrument-functions (calls of a function).
$(B)/tests/defaults:
	mkdir -p $@

$(B)/tests/defaults/reads: tests/defaults/reads.c include/pmcshim.h | $(B)/tests/defaults
	$(CC) $(APP_FLAGS) -o $@ $<

$(B)/tests/defaults/reads-fn: tests/defaults/reads.c include/pmcshim.h | $(B)/tests/defaults
	$(CC) $(APP_FLAGS) -DFUNCTIONS -finstrument-functions -o $@ $<

TEST_BINS += $(B)/tests/defaults/reads $(B)/tests/defaults/reads-fn $(B)/pmcshim \
	$(B)/pmcshim-report $(B)/libpmcshim.so
EXTRA_SUITES += defaults=sh+tests/defaults/run.sh
