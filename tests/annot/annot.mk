# Regions from other tools' annotations (tests/annot/run.sh): LIKWID's
# marker API and PAPI's high-level API, programs built against Debian's
# likwid and libpapi-dev (test packages), and an NVTX client of the shim's
# injection entry point. run.sh builds the programs itself, so that
# packages installed by this very `make test` count; without a package's
# headers its tests say they skip.
TEST_DEB_DEPS += likwid libpapi-dev
TEST_BINS += $(B)/pmcshim-report $(B)/libpmcshim.so $(if $(CROSS),,$(B)/asan/libpmcshim.so)
EXTRA_SUITES += annot=sh+tests/annot/run.sh
