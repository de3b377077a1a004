/* badids: markers by id with ids that no region() call returned, among
 * good regions: 10 pairs of "good", each with, inside it, a pair of id
 * 100000 and an end of id 4294967295; then begin_id(0) and end_id(0)
 * (0: "no id", what region() returns when it cannot give one). */
#include <stdio.h>

#include <pmcshim.h>

int main(void)
{
	pmcshim_api_fn get;
	const struct pmcshim_api *api;
	unsigned good;

	*(void **)&get = dlsym(RTLD_DEFAULT, "pmcshim_api");
	if (!get || !(api = get(PMCSHIM_API_VERSION)))
		return printf("badids: no shim\n"), 0;
	good = api->region("good");
	for (int i = 0; i < 10; i++) {
		api->begin_id(good);
		api->begin_id(100000);
		api->end_id(100000);
		api->end_id(4294967295u);
		api->end_id(good);
	}
	api->begin_id(0);
	api->end_id(0);
	printf("badids: done\n");
	return 0;
}
