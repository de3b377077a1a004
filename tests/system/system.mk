# pmcshim --system and --check (tests/system/run.sh), and the launcher's
# cost per process followed (make bench-system: tests/system/bench.sh).
$(B)/tests/system:
	mkdir -p $@

$(B)/tests/system/faulter: tests/system/faulter.c | $(B)/tests/system
	$(CC) $(WARN) $(DEFS) $(CFLAGS) -o $@ $<

TEST_BINS += $(B)/pmcshim $(B)/pmcshim-report $(B)/tests/system/faulter
EXTRA_SUITES += system=sh+tests/system/run.sh

bench-system: $(B)/pmcshim
	@B=$(B) sh tests/system/bench.sh

.PHONY: bench-system
