/* The report's JSON writer: escaping and structure. */
#include <stdio.h>
#include <stdlib.h>

#include "../preload/json.h"
#include "harness.h"

static char *capture_string(const char *s)
{
	static char buf[512];
	FILE *f = fmemopen(buf, sizeof(buf), "w");

	json_write_string(f, s);
	fclose(f);
	return buf;
}

static void test_escapes(void)
{
	CHECK(strcmp(capture_string("a\"b\\c"), "\"a\\\"b\\\\c\"") == 0, "%s", capture_string("a\"b\\c"));
	CHECK(strcmp(capture_string("l1\nl2\tx\r"), "\"l1\\nl2\\tx\\r\"") == 0, "newline/tab");
	CHECK(strcmp(capture_string("\x01\x1f\x7f"), "\"\\u0001\\u001f\\u007f\"") == 0,
	      "control: %s", capture_string("\x01\x1f\x7f"));
	CHECK(strcmp(capture_string(NULL), "\"\"") == 0, "NULL is empty");
}

static void test_utf8(void)
{
	CHECK(strcmp(capture_string("caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x98\x80"),
		     "\"caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x98\x80\"") == 0, "valid UTF-8 kept");
	CHECK(strcmp(capture_string("a\xff" "b"), "\"a\\ufffdb\"") == 0, "invalid byte replaced");
	CHECK(strcmp(capture_string("\xc3"), "\"\\ufffd\"") == 0, "truncated sequence");
	CHECK(strcmp(capture_string("\xc0\xaf"), "\"\\ufffd\\ufffd\"") == 0, "overlong");
	CHECK(strcmp(capture_string("\xed\xa0\x80"), "\"\\ufffd\\ufffd\\ufffd\"") == 0, "surrogate");
}

static void test_structure(void)
{
	char buf[512];
	FILE *f = fmemopen(buf, sizeof(buf), "w");
	struct json j;

	json_init(&j, f);
	json_object(&j, NULL);
	json_u64(&j, "n", 18446744073709551615ull);
	json_array_compact(&j, "a");
	json_i64(&j, NULL, -3);
	json_null(&j, NULL);
	json_double(&j, NULL, 1.0 / 0.0);
	json_end(&j);
	json_object(&j, "o");
	json_end(&j);
	json_hex(&j, "h", 255);
	json_bool(&j, "b", 1);
	json_end(&j);
	fclose(f);
	CHECK(strcmp(buf, "{\n  \"n\": 18446744073709551615,\n  \"a\": [-3, null, null],\n"
			  "  \"o\": {},\n  \"h\": \"0xff\",\n  \"b\": true\n}") == 0, "got:\n%s", buf);
}

int main(void)
{
	RUN(test_escapes);
	RUN(test_utf8);
	RUN(test_structure);
	return t_done("json");
}
