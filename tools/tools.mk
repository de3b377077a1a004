# The report reader.
$(B)/pmcshim-report: tools/pmcshim-report.c | $(B)/shim
	$(CC) $(WARN) $(DEFS) $(CFLAGS) -o $@ $< -ljansson
