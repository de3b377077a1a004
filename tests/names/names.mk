# Names as the source wrote them (tests/names/run.sh): C++ names demangled
# in regions and stacks, long names kept apart, a rebuilt binary said so,
# stacks that begin at the user's marker line. The probe is built by g++
# and by clang++ (Clang writes no .debug_aranges), and once more changed
# (another build-id: "rebuilt after the run"). test_demangle: the
# demangler on C++ and Rust symbols.
NAMEST := $(B)/tests/names
NAMES_CXXFLAGS := -std=c++11 -O1 -g -fopenmp -finstrument-functions -Iinclude -Wall -Wextra

$(NAMEST):
	mkdir -p $@

$(NAMEST)/probe: tests/names/probe.cpp include/pmcshim.h | $(NAMEST)
	$(CXX) $(NAMES_CXXFLAGS) -o $@ $< -ldl

$(NAMEST)/probe-rebuilt: tests/names/probe.cpp include/pmcshim.h | $(NAMEST)
	$(CXX) $(NAMES_CXXFLAGS) -DREBUILT -o $@ $< -ldl

# Clang without OpenMP (libomp is optional here): the lines of its units
$(NAMEST)/probe-clang: tests/names/probe.cpp include/pmcshim.h | $(NAMEST)
	$(if $(HAVE_CLANG),clang++ -std=c++11 -O1 -g -Wno-unknown-pragmas -Iinclude -o $@ $< -ldl,@echo "no clang: $@ not built")

$(NAMEST)/test_demangle: tests/names/test_demangle.c tools/reader/data/demangle.c \
		tools/reader/data/demangle.h tests/harness.h | $(NAMEST)
	$(CC) $(WARN) $(DEFS) -O1 -g -Itools -Itests -o $@ tests/names/test_demangle.c \
	  tools/reader/data/demangle.c -l:libstdc++.so.6

TEST_BINS += $(NAMEST)/probe $(NAMEST)/probe-rebuilt $(NAMEST)/probe-clang \
	$(NAMEST)/test_demangle $(B)/pmcshim $(B)/pmcshim-report
EXTRA_SUITES += names=sh+tests/names/run.sh
