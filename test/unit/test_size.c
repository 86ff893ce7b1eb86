// SPDX-License-Identifier: GPL-2.0
/* The size parser and the size printers. */
#include <stdint.h>
#include <stdlib.h>

#include "size.h"
#include "unit.h"

static void good(const char *in, uint64_t want)
{
	uint64_t got = 0;
	char *err = NULL;
	int r = size_parse(in, &got, &err);

	if (r != 0)
		fprintf(stderr, "  size_parse(\"%s\"): %s\n", in, err);
	CHECK(r == 0 && err == NULL);
	CHECK_U64(got, want);
	free(err);
}

static void bad(const char *in, const char *needle)
{
	uint64_t got = 12345;
	char *err = NULL;
	int r = size_parse(in, &got, &err);

	CHECK(r == -1);
	CHECK(got == 12345);
	CHECK(err != NULL);
	if (err && !strstr(err, needle))
		fprintf(stderr, "  size_parse(\"%s\"): message \"%s\" lacks \"%s\"\n", in, err, needle);
	CHECK(err && strstr(err, needle));
	free(err);
}

void test_size(void)
{
	char *s;

	good("2048", 2048ULL << 20);
	good("1", 1ULL << 20);
	good("4K", 4096);
	good("4k", 4096);
	good("8KiB", 8192);
	good("8KB", 8192);
	good("512M", 512ULL << 20);
	good("512MiB", 512ULL << 20);
	good("2G", 2ULL << 30);
	good("2g", 2ULL << 30);
	good("2GiB", 2ULL << 30);
	good("2GB", 2ULL << 30);
	good("1T", 1ULL << 40);
	good("1TiB", 1ULL << 40);
	good("4096B", 4096);
	good("8192b", 8192);
	good("16777215T", 16777215ULL << 40);

	bad("", "empty");
	bad(NULL, "empty");
	bad("-1", "negative");
	bad("-2G", "negative");
	bad("0", "larger than 0");
	bad("0G", "larger than 0");
	bad("00", "larger than 0");
	bad("12x", "unknown unit 'x'");
	bad("12GX", "unknown unit 'GX'");
	bad("12Gi", "unknown unit 'Gi'");
	bad("1.5G", "unknown unit '.5G'");
	bad("G", "starts with a digit");
	bad(" 12", "starts with a digit");
	bad("12 ", "unknown unit ' '");
	bad("+12", "starts with a digit");
	bad("99999999999999999999", "too large");
	bad("16777216T", "too large");
	bad("17179869184G", "too large");
	bad("1K", "not a multiple of 4 KiB");
	bad("4097B", "not a multiple of 4 KiB");
	bad("100B", "not a multiple of 4 KiB");

	s = size_mib_str(2048ULL << 20);
	CHECK_STR(s, "2048 MiB");
	free(s);
	s = size_mib_str(12288);
	CHECK_STR(s, "12 KiB");
	free(s);
	s = size_human(0);
	CHECK_STR(s, "0 B");
	free(s);
	s = size_human(1023);
	CHECK_STR(s, "1023 B");
	free(s);
	s = size_human(4096);
	CHECK_STR(s, "4 KiB");
	free(s);
	s = size_human(512ULL << 20);
	CHECK_STR(s, "512 MiB");
	free(s);
	s = size_human(3ULL << 29);
	CHECK_STR(s, "1.5 GiB");
	free(s);
	s = size_human((1ULL << 30) + 1);
	CHECK_STR(s, "1.0 GiB");
	free(s);
	s = size_human(2ULL << 40);
	CHECK_STR(s, "2 TiB");
	free(s);
}
