# The source layout (tests/layout/run.sh): no circle between the folders of
# preload/ and tools/ (through #include, and through calls in the built
# objects), no folder over 15 .c files, no file over 1,000 lines.
TEST_BINS += $(B)/libpmcshim.so $(B)/pmcshim $(B)/pmcshim-report
EXTRA_SUITES += layout=sh+tests/layout/run.sh+$(B)
