# Sampling (PMCSHIM_SAMPLE, pmcshim --sample): tests/sample/run.sh runs
# tests/sample/sampled.c's modes under the shim (and under the ASan+UBSan
# and TSan shims where they are built) and checks the functions section.
#   make bench-sample   the CPU time of a CPU-bound program (xz, else a
#                       bundled loop) with and without --sample
$(B)/tests/sample:
	mkdir -p $@

$(B)/tests/sample/sampled: tests/sample/sampled.c include/pmcshim.h | $(B)/tests/sample
	$(CC) $(WARN) $(DEFS) -O2 -g -Iinclude -pthread -o $@ $< -ldl

$(B)/tests/sample/libsampledlib.so: tests/sample/sampledlib.c | $(B)/tests/sample
	$(CC) $(WARN) $(DEFS) -O2 -g -shared -fPIC -o $@ $<

# TSan needs the program instrumented too.
$(B)/tsan/sample/sampled: tests/sample/sampled.c include/pmcshim.h $(B)/tsan/sample/libsampledlib.so
	mkdir -p $(@D)
	$(CC) $(WARN) $(DEFS) -O2 -g -Iinclude -pthread $(TSAN_FLAGS) -o $@ $< -ldl

$(B)/tsan/sample/libsampledlib.so: tests/sample/sampledlib.c
	mkdir -p $(@D)
	$(CC) $(WARN) $(DEFS) -O2 -g -shared -fPIC $(TSAN_FLAGS) -o $@ $<

TEST_BINS += $(B)/tests/sample/sampled $(B)/tests/sample/libsampledlib.so $(B)/pmcshim $(B)/pmcshim-report $(B)/tests/reader/gen_report \
	$(if $(CROSS),,$(B)/tsan/sample/sampled $(B)/tsan/libpmcshim.so $(B)/asan/libpmcshim.so)
EXTRA_SUITES += sample=sh+tests/sample/run.sh

bench-sample: $(B)/libpmcshim.so $(B)/pmcshim $(B)/pmcshim-report $(B)/tests/sample/sampled
	@B=$(B) sh tests/sample/bench.sh

.PHONY: bench-sample
