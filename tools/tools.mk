# The report reader, its tests, fuzz target and benchmark.
#   make                 builds $(B)/pmcshim-report
#   make test            also runs the reader suite and a short fuzz run
#   make fuzz            a longer fuzz run (FUZZ_SECONDS, default 300)
#   make bench-reader    times the reader on a generated 100 000-row report

READER_SRC := tools/pmcshim-report.c tools/report_util.c tools/report_json.c \
	tools/report_load.c tools/report_model.c tools/report_symbols.c \
	tools/report_table.c tools/report_formats.c tools/report_diff.c \
	tools/report_escape.c
READER_HDR := $(wildcard tools/*.h)
READER_OBJ := $(READER_SRC:tools/%.c=$(B)/tools/%.o)

# Symbolization (elfutils) lives in tools/symbolize.c; without it frames
# are named from the report alone.
SYM_SRC := $(wildcard tools/symbolize.c)
ifeq ($(SYM_SRC),)
READER_DEFS := -DPMCSHIM_NO_SYMBOLIZE
READER_LIBS := -ljansson -pthread
else
READER_DEFS :=
READER_LIBS := -ljansson -ldw -lelf -pthread
READER_OBJ += $(B)/tools/symbolize.o
endif

$(B)/tools:
	mkdir -p $@

$(B)/tools/%.o: tools/%.c $(READER_HDR) | $(B)/tools
	$(CC) $(WARN) $(DEFS) $(READER_DEFS) $(CFLAGS) $(DEPFLAGS) -pthread -c $< -o $@

$(B)/pmcshim-report: $(READER_OBJ)
	$(CC) $(CFLAGS) -o $@ $(READER_OBJ) $(READER_LIBS)

# --- tests ------------------------------------------------------------------
# tests/reader/run.sh: golden outputs of every format on a committed sample,
# diff and merge of crafted reports, malformed inputs, and --stacks on a
# test program built here with -g.
$(B)/tests/reader:
	mkdir -p $@

$(B)/tests/reader/stackapp: tests/reader/stackapp.c include/pmcshim.h | $(B)/tests/reader
	$(CC) $(WARN) $(DEFS) -O0 -g -Iinclude -o $@ $< -ldl

# The same without debug info: frames then say function+offset, and why.
$(B)/tests/reader/stackapp-nodbg: tests/reader/stackapp.c include/pmcshim.h | $(B)/tests/reader
	$(CC) $(WARN) $(DEFS) -O0 -g0 -Iinclude -o $@ $< -ldl

# The fuzz target: libFuzzer, ASan, UBSan, with clang (Debian: clang-14,
# libclang-rt-14-dev). Frames are not symbolized in it (no elfutils).
CLANG ?= clang
# (host builds only: the fuzzer runs where it is built)
HAVE_CLANG := $(if $(CROSS),,$(shell command -v $(CLANG) 2>/dev/null))
FUZZ_SRC := tests/reader/fuzz_report.c $(filter-out tools/pmcshim-report.c,$(READER_SRC))

$(B)/tests/reader/fuzz_report: $(FUZZ_SRC) $(READER_HDR) | $(B)/tests/reader
	$(CLANG) -std=c11 -Wall -Wextra -Werror $(DEFS) -DPMCSHIM_NO_SYMBOLIZE -Itools -g -O1 \
	  -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=all -o $@ $(FUZZ_SRC) \
	  -ljansson -pthread

READER_TEST_BINS := $(B)/pmcshim-report $(B)/tests/reader/stackapp $(B)/tests/reader/stackapp-nodbg \
	$(B)/libpmcshim.so $(if $(HAVE_CLANG),$(B)/tests/reader/fuzz_report)
TEST_BINS += $(READER_TEST_BINS)
EXTRA_SUITES += reader=sh+tests/reader/run.sh fuzz=sh+tests/reader/fuzz.sh+10

FUZZ_SECONDS ?= 300
fuzz: $(B)/tests/reader/fuzz_report
	B=$(B) sh tests/reader/fuzz.sh $(FUZZ_SECONDS)

# --- benchmark ----------------------------------------------------------------
$(B)/gen_big: tests/reader/gen_big.c | $(B)/tools
	$(CC) $(WARN) $(DEFS) -O2 -o $@ $<

bench-reader: $(B)/pmcshim-report $(B)/gen_big
	@B=$(B) sh tests/reader/bench.sh

bench: bench-reader

.PHONY: fuzz bench-reader
