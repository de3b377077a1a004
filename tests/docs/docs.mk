# The man pages against the code (tests/docs/run.sh): every variable the
# shim and the commands read, every option of each command, documented.
EXTRA_SUITES += docs=sh+tests/docs/run.sh
# docs/reading.md's examples against what their commands print now
# (tests/docs/examples.sh; --update writes them afresh).
TEST_DEB_DEPS += jq
EXTRA_SUITES += docs-examples=sh+tests/docs/examples.sh
# The docs' figures against the kept benchmark output (tests/docs/figures.sh);
# `make figures` runs the benchmarks again and fills the docs from them.
EXTRA_SUITES += docs-figures=sh+tests/docs/figures.sh
figures: all
	@sh tools/build/figures.sh
.PHONY: figures
