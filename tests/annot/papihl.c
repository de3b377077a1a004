/* PAPI's high-level API with two nested regions, 100 each; every call's
 * return value is checked (PAPI_OK expected) and the failures counted. */
#include <papi.h>
#include <stdio.h>

static volatile double sink;

int main(void)
{
	int bad = 0;

	for (int i = 0; i < 100; i++) {
		bad += PAPI_hl_region_begin("outer") != PAPI_OK;
		bad += PAPI_hl_region_begin("inner") != PAPI_OK;
		for (int k = 0; k < 1000; k++)
			sink += k;
		bad += PAPI_hl_read("inner") != PAPI_OK;
		bad += PAPI_hl_region_end("inner") != PAPI_OK;
		bad += PAPI_hl_region_end("outer") != PAPI_OK;
	}
	bad += PAPI_hl_stop() != PAPI_OK;
	printf("papi: %d calls not PAPI_OK\n", bad);
	return 0;
}
