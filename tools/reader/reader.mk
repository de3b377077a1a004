# The report reader, its tests, fuzz target and benchmark.
#   make                 builds $(B)/pmcshim-report
#   make test            also runs the reader suite and replays the fuzz seeds
#   make fuzz            a longer fuzz run (FUZZ_SECONDS, default 300)
#   make bench-reader    times the reader on a generated 1 000 000-row report file
#   make bench-ranks     times the reader merging 1024 generated rank files
#                        (NRANKS=N: that many; bench-ranks-10k: 10,000)

# The file format is defined once, in preload/format/reportfile.[ch]: the reader
# compiles that module (as tools' object reportfile.o) with -Ipreload.
READER_SRC := tools/reader/pmcshim-report.c tools/reader/data/report_util.c \
	tools/reader/data/report_load.c tools/reader/data/report_read.c tools/reader/data/report_snapshot.c \
	tools/reader/data/report_model.c tools/reader/data/report_symbols.c tools/reader/data/report_runs.c \
	tools/reader/views/report_table.c tools/reader/views/report_formats.c tools/reader/views/report_export.c tools/reader/views/report_diff.c \
	tools/reader/views/report_watch.c tools/reader/cells/report_escape.c tools/reader/cells/report_cells.c tools/reader/cells/report_notes.c \
	tools/reader/cells/report_text.c tools/reader/views/report_ranks.c tools/common/badopt.c \
	tools/reader/views/report_totals.c tools/reader/views/report_metrics.c tools/common/metrics_def.c tools/reader/views/report_repeat.c
READER_SRC += tools/reader/views/report_tree.c tools/reader/views/report_html.c
READER_SRC += tools/reader/data/report_incl.c tools/reader/data/report_values.c
READER_SRC += tools/reader/cells/report_labels.c
READER_SRC += tools/reader/views/report_functions.c
READER_SRC += tools/reader/views/report_system.c
READER_SRC += tools/reader/data/report_sysdata.c
READER_SRC += tools/reader/views/report_html_system.c
READER_SRC += tools/reader/views/report_commands.c
READER_SRC += preload/format/reportfile.c
READER_HDR := $(wildcard tools/*/*.h tools/*/*/*.h) preload/format/reportfile.h preload/base/arch.h
READER_OBJ := $(patsubst preload/%.c,$(B)/tools/%.o,$(READER_SRC:tools/%.c=$(B)/tools/%.o))
READER_INC := -Ipreload -Itools

# Symbolization (elfutils) lives in tools/reader/data/symbolize.c; without it frames
# are named from the report alone.
SYM_SRC := $(wildcard tools/reader/data/symbolize.c)
ifeq ($(SYM_SRC),)
READER_DEFS := -DPMCSHIM_NO_SYMBOLIZE
READER_LIBS := -pthread -lm
else
READER_DEFS :=
# C++ and Rust names: libstdc++'s demangler, linked by the runtime's file
# name (gcc brings libstdc++6; the -dev package with libstdc++.so is g++'s)
READER_LIBS := -ldw -lelf -l:libstdc++.so.6 -pthread -lm
READER_OBJ += $(B)/tools/reader/data/symbolize.o $(B)/tools/reader/data/demangle.o
endif

$(B)/tools:
	mkdir -p $@

$(B)/tools/%.o: tools/%.c $(READER_HDR) | $(B)/tools
	@mkdir -p $(@D)
	$(CC) $(WARN) $(DEFS) $(READER_DEFS) $(READER_INC) $(CFLAGS) $(DEPFLAGS) -pthread -c $< -o $@

$(B)/tools/format/reportfile.o: preload/format/reportfile.c $(READER_HDR) | $(B)/tools
	@mkdir -p $(@D)
	$(CC) $(WARN) $(DEFS) $(CFLAGS) -Ipreload -c $< -o $@

# The HTML page's script and style (report_html.c) as C strings, made from
# tools/reader/views/report_html.js and .css at build time.
HTML_ASSETS := tools/reader/views/report_html.js tools/reader/views/report_html.css
READER_OBJ += $(B)/tools/report_html_assets.o

$(B)/tools/report_html_assets.c: $(HTML_ASSETS) | $(B)/tools
	@! grep -il '</script\|</style' $(HTML_ASSETS) || \
	  { echo "the files above would end the page's element early"; exit 1; }
	{ for f in js css; do echo "const char report_html_$$f[] ="; \
	  sed 's/\\/\\\\/g; s/"/\\"/g; s/?/\\?/g; s/^/"/; s/$$/\\n"/' tools/reader/views/report_html.$$f; \
	  echo ";"; done; } >$@

$(B)/tools/report_html_assets.o: $(B)/tools/report_html_assets.c
	$(CC) $(WARN) $(DEFS) $(CFLAGS) -c $< -o $@

# The system report's page script (report_html_system.c), the same way.
READER_OBJ += $(B)/tools/report_html_system_js.o

$(B)/tools/report_html_system_js.c: tools/reader/views/report_html_system.js | $(B)/tools
	@! grep -il '</script' $< || { echo "$< would end the page's element early"; exit 1; }
	{ echo "const char report_html_system_js[] ="; \
	  sed 's/\\/\\\\/g; s/"/\\"/g; s/?/\\?/g; s/^/"/; s/$$/\\n"/' $<; echo ";"; } >$@

$(B)/tools/report_html_system_js.o: $(B)/tools/report_html_system_js.c
	$(CC) $(WARN) $(DEFS) $(CFLAGS) -c $< -o $@

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

# A known region tree, run under the shim by the tree tests.
$(B)/tests/reader/treeapp: tests/reader/treeapp.c include/pmcshim.h | $(B)/tests/reader
	$(CC) $(WARN) $(DEFS) -O1 -g -Iinclude -o $@ $< -ldl

# Recursion left by longjmp, run under the shim by the view tests.
$(B)/tests/reader/jumpapp: tests/reader/jumpapp.c include/pmcshim.h | $(B)/tests/reader
	$(CC) $(WARN) $(DEFS) -O1 -g -Iinclude -o $@ $< -ldl

# The fuzz target: libFuzzer, ASan, UBSan, with clang (Debian: clang-14,
# libclang-rt-14-dev). Frames are not symbolized in it (no elfutils).
CLANG ?= clang
# (host builds only: the fuzzer runs where it is built)
HAVE_CLANG := $(if $(CROSS),,$(shell command -v $(CLANG) 2>/dev/null))
FUZZ_SRC := tests/reader/fuzz_report.c $(filter-out tools/reader/pmcshim-report.c,$(READER_SRC)) \
	$(B)/tools/report_html_assets.c
FUZZ_SRC += $(B)/tools/report_html_system_js.c

$(B)/tests/reader/fuzz_report: $(FUZZ_SRC) $(READER_HDR) | $(B)/tests/reader
	$(CLANG) -std=c11 -Wall -Wextra -Werror $(DEFS) -DPMCSHIM_NO_SYMBOLIZE -Itools -Ipreload \
	  -g -O1 -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=all -o $@ $(FUZZ_SRC) \
	  -pthread -lm

# Writes synthetic report files: the test inputs, fuzz seeds, benchmark.
$(B)/tests/reader/gen_report: tests/reader/gen_report.c preload/format/reportfile.c preload/format/reportfile.h \
		preload/base/arch.h | $(B)/tests/reader
	$(CC) $(WARN) $(DEFS) -O2 -g -Ipreload -o $@ $< preload/format/reportfile.c

# The live snapshot against a concurrent writer (run by run.sh).
$(B)/tests/reader/test_snapshot: tests/reader/test_snapshot.c $(filter-out $(B)/tools/reader/pmcshim-report.o,$(READER_OBJ)) \
		| $(B)/tests/reader
	$(CC) $(WARN) $(DEFS) $(CFLAGS) -Itools -Ipreload -pthread -o $@ $^ $(READER_LIBS)

# Cuts a file short under the reader at a known point (run by run.sh).
$(B)/tests/reader/shrinker.so: tests/reader/shrinker.c | $(B)/tests/reader
	$(CC) $(WARN) $(DEFS) $(CFLAGS) -shared -fPIC -o $@ $< -ldl

READER_TEST_BINS := $(B)/pmcshim-report $(B)/tests/reader/gen_report $(B)/tests/reader/test_snapshot \
	$(B)/tests/reader/shrinker.so \
	$(B)/tests/reader/stackapp $(B)/tests/reader/stackapp-nodbg $(B)/tests/reader/treeapp \
	$(B)/tests/reader/jumpapp \
	$(B)/libpmcshim.so $(if $(HAVE_CLANG),$(B)/tests/reader/fuzz_report)
TEST_BINS += $(READER_TEST_BINS)
# make test replays the fuzz seeds once each (deterministic); make fuzz explores.
EXTRA_SUITES += reader=sh+tests/reader/run.sh fuzz=sh+tests/reader/fuzz.sh+replay
# The HTML report in Chromium (tests/html/run.sh).
EXTRA_SUITES += html=sh+tests/html/run.sh

FUZZ_SECONDS ?= 300
fuzz: $(B)/tests/reader/fuzz_report $(B)/tests/reader/gen_report
	B=$(B) sh tests/reader/fuzz.sh $(FUZZ_SECONDS)

# --- benchmark ----------------------------------------------------------------
$(B)/tests/reader/floor: tests/reader/floor.c | $(B)/tests/reader
	$(CC) $(WARN) $(DEFS) -O2 -o $@ $<

bench-reader: $(B)/pmcshim-report $(B)/tests/reader/gen_report $(B)/tests/reader/floor
	@B=$(B) sh tests/reader/bench.sh

bench: bench-reader

# The reader on an MPI job's 1024 rank files (tests/reader/bench_ranks.sh);
# memory must grow with the files' bytes, not their number: 10,000 of them
# (bench-ranks-10k) is a big job's, not a stress test's.
NRANKS ?= 1024
bench-ranks: $(B)/pmcshim-report $(B)/tests/reader/gen_report
	@B=$(B) NRANKS=$(NRANKS) sh tests/reader/bench_ranks.sh

bench-ranks-10k: $(B)/pmcshim-report $(B)/tests/reader/gen_report
	@B=$(B) NRANKS=10000 sh tests/reader/bench_ranks.sh

.PHONY: fuzz bench-reader bench-ranks bench-ranks-10k
