// SPDX-License-Identifier: GPL-2.0
/* The /etc/rdmirror.conf parser: every good and bad line form, line numbers. */
#include <stdlib.h>

#include "config.h"
#include "unit.h"
#include "util.h"

static void good_lines(void)
{
	struct config c;

	config_parse_text("/etc/rdmirror.conf",
			  "# ARRAY  SIZE  OPTIONS\n"
			  "\n"
			  "   \t  \n"
			  "UUID=79387934:AAAAD032:f56c6261:de230a86   auto   prealloc\n"
			  "/dev/md/data 2G   # a comment after the line\n"
			  "md1\t512\n"
			  "/dev/md10 1TiB PREALLOC\n"
			  "/dev/md0 4096K\r\n"
			  "#md2 auto\n"
			  "md3 AUTO", &c);
	CHECK_U64(c.nerrs, 0);
	CHECK_U64(c.n, 6);
	if (c.n == 6) {
		CHECK(c.v[0].kind == CONF_UUID);
		CHECK_STR(c.v[0].uuid, "79387934:aaaad032:f56c6261:de230a86");
		CHECK(c.v[0].auto_size && c.v[0].prealloc);
		CHECK_U64(c.v[0].line, 4);
		CHECK(c.v[1].kind == CONF_MDNAME);
		CHECK_STR(c.v[1].name, "data");
		CHECK_U64(c.v[1].size, 2ULL << 30);
		CHECK(!c.v[1].auto_size && !c.v[1].prealloc);
		CHECK(c.v[2].kind == CONF_DEVICE);
		CHECK_STR(c.v[2].name, "md1");
		CHECK_U64(c.v[2].size, 512ULL << 20);
		CHECK_STR(c.v[3].name, "md10");
		CHECK_U64(c.v[3].size, 1ULL << 40);
		CHECK(c.v[3].prealloc);
		CHECK_STR(c.v[4].name, "md0");
		CHECK_STR(c.v[4].spec, "/dev/md0");
		CHECK_U64(c.v[4].size, 4ULL << 20);
		CHECK_STR(c.v[5].name, "md3");
		CHECK(c.v[5].auto_size);
		CHECK_U64(c.v[5].line, 10);
	}
	config_free(&c);
	config_parse_text("empty", "", &c);
	CHECK_U64(c.n + c.nerrs, 0);
	config_free(&c);
}

/* one bad line between two good ones: the error names the line, the good ones stay */
static void bad_line(const char *line, const char *want)
{
	char *text = xasprintf("md0 auto\n%s\nmd1 1G\n", line);
	struct config c;

	config_parse_text("f", text, &c);
	CHECK_U64(c.n, 2);
	CHECK_U64(c.nerrs, 1);
	if (c.nerrs == 1) {
		CHECK_U64(c.errs[0].line, 2);
		CHECK_STR(c.errs[0].message, want);
	}
	config_free(&c);
	free(text);
}

void test_config(void)
{
	good_lines();
	bad_line("md5", "'md5' has no size: expected ARRAY SIZE [prealloc], SIZE 'auto' or a size such as 2G");
	bad_line("sda auto", "invalid array 'sda': expected /dev/mdN, mdN, /dev/md/NAME or UUID=xxxxxxxx:xxxxxxxx:xxxxxxxx:xxxxxxxx");
	bad_line("/dev/sda auto", "invalid array '/dev/sda': expected /dev/mdN, mdN, /dev/md/NAME or UUID=xxxxxxxx:xxxxxxxx:xxxxxxxx:xxxxxxxx");
	bad_line("md01 auto", "invalid array 'md01': expected /dev/mdN, mdN, /dev/md/NAME or UUID=xxxxxxxx:xxxxxxxx:xxxxxxxx:xxxxxxxx");
	bad_line("mdx auto", "invalid array 'mdx': expected /dev/mdN, mdN, /dev/md/NAME or UUID=xxxxxxxx:xxxxxxxx:xxxxxxxx:xxxxxxxx");
	bad_line("/dev/md/ auto", "invalid array '/dev/md/': expected /dev/md/NAME");
	bad_line("/dev/md/a/b auto", "invalid array '/dev/md/a/b': expected /dev/md/NAME");
	bad_line("UUID=1234 auto", "invalid UUID '1234': expected 4 groups of 8 hex digits separated by ':', as mdadm --detail prints it");
	bad_line("UUID=79387934:aaaad032:f56c6261:de230a8g auto",
		 "invalid UUID '79387934:aaaad032:f56c6261:de230a8g': expected 4 groups of 8 hex digits separated by ':', as mdadm --detail prints it");
	bad_line("UUID=79387934-aaaad032-f56c6261-de230a86 auto",
		 "invalid UUID '79387934-aaaad032-f56c6261-de230a86': expected 4 groups of 8 hex digits separated by ':', as mdadm --detail prints it");
	bad_line("md2 0", "invalid size '0': the size must be larger than 0 (or 'auto')");
	bad_line("md2 5K", "invalid size '5K': 5120 bytes is not a multiple of 4 KiB (4096 bytes) (or 'auto')");
	bad_line("md2 2X", "invalid size '2X': unknown unit 'X' (use K, M, G or T, or none for MiB) (or 'auto')");
	bad_line("md2 -1", "invalid size '-1': a size cannot be negative (or 'auto')");
	bad_line("md2 auto prealloc fast", "unknown option 'fast': the only option is prealloc");
	bad_line("/dev/md0 2G", "/dev/md0 is already configured on line 1");
	bad_line("a b c d e f g h i j k l m n o p q", "too many words: expected ARRAY SIZE [prealloc]");
	CHECK(config_uuid_valid("79387934:aaaad032:f56c6261:de230a86"));
	CHECK(!config_uuid_valid("79387934:aaaad032:f56c6261:de230a86:"));
	CHECK(!config_uuid_valid(""));
}
