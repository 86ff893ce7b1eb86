// SPDX-License-Identifier: GPL-2.0
/* The size parser and the size printers. */
#include <stdint.h>
#include <stdlib.h>

#include "lib/size.h"
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

/* the whole message, not a part of it */
static void bad_exact(const char *in, const char *want)
{
	uint64_t got = 12345;
	char *err = NULL;
	int r = size_parse(in, &got, &err);

	CHECK(r == -1);
	CHECK(got == 12345);
	CHECK_STR(err, want);
	free(err);
}

/* util-linux's units (strtosize()), fractions, and the nearest valid sizes */
static void new_rules(void)
{
	/* KB, MB, ... are powers of 1000; K, KiB, ... powers of 1024 */
	good("4096KB", 4096000);
	good("4096kb", 4096000);
	good("4096Kb", 4096000);
	good("8GB", 8000000000ULL);
	good("1TB", 1000000000000ULL);
	good("1PB", 1000000000000000ULL);
	good("1EB", 1000000000000000000ULL);
	good("18EB", 18000000000000000000ULL);
	good("4kib", 4096);
	good("4KIB", 4096);
	good("1P", 1ULL << 50);
	good("1p", 1ULL << 50);
	good("1PiB", 1ULL << 50);
	good("1E", 1ULL << 60);
	good("1e", 1ULL << 60);
	good("15EiB", 15ULL << 60);
	good("010", 10ULL << 20);	/* decimal, never octal */
	bad_exact("1MB", "invalid size '1MB': 1000000 bytes is not a multiple of 4 KiB (4096 bytes); "
		  "the nearest valid sizes are 999424 (976 KiB) and 1003520 (980 KiB)");
	bad_exact("8KB", "invalid size '8KB': 8000 bytes is not a multiple of 4 KiB (4096 bytes); "
		  "the nearest valid sizes are 4096 (4 KiB) and 8192 (8 KiB)");
	bad_exact("2GB", "invalid size '2GB': 2000000000 bytes is not a multiple of 4 KiB (4096 bytes); "
		  "the nearest valid sizes are 1999998976 (1953124 KiB) and 2000003072 (1953128 KiB)");
	bad_exact("4kB", "invalid size '4kB': 4000 bytes is not a multiple of 4 KiB (4096 bytes); "
		  "the nearest valid size is 4096 (4 KiB)");
	bad_exact("1K", "invalid size '1K': 1024 bytes is not a multiple of 4 KiB (4096 bytes); "
		  "the nearest valid size is 4096 (4 KiB)");
	bad_exact("12289B", "invalid size '12289B': 12289 bytes is not a multiple of 4 KiB (4096 bytes); "
		  "the nearest valid sizes are 12288 (12 KiB) and 16384 (16 KiB)");
	/* the upper neighbour would be 16 EiB, past UINT64_MAX: only the lower */
	bad_exact("18446744073709551615B", "invalid size '18446744073709551615B': 18446744073709551615 bytes "
		  "is not a multiple of 4 KiB (4096 bytes); the nearest valid size is 18446744073709547520 "
		  "(18014398509481980 KiB)");

	/* fractions, exact to the byte */
	good("1.5G", 1610612736ULL);
	good("0.5M", 524288);
	good("2.25GiB", 2415919104ULL);
	good("1.5", 1572864);			/* bare: MiB */
	good("2.5", 2621440);
	good("1.5T", 1649267441664ULL);
	good("1.024MB", 1024000);
	good("4.096KB", 4096);
	good("0.00390625M", 4096);
	good("1.000000000G", 1ULL << 30);	/* 9 digits */
	good("4096.0B", 4096);
	good("18.4EB", 18400000000000000000ULL);
	good("15.5E", 31ULL << 59);
	bad_exact("0.5MB", "invalid size '0.5MB': 500000 bytes is not a multiple of 4 KiB (4096 bytes); "
		  "the nearest valid sizes are 499712 (488 KiB) and 503808 (492 KiB)");
	bad_exact("1.0001K", "invalid size '1.0001K': 1024.1024 bytes is not a multiple of 4 KiB (4096 bytes); "
		  "the nearest valid size is 4096 (4 KiB)");
	bad_exact("4096.5B", "invalid size '4096.5B': 4096.5 bytes is not a multiple of 4 KiB (4096 bytes); "
		  "the nearest valid sizes are 4096 (4 KiB) and 8192 (8 KiB)");
	bad_exact("0.0001B", "invalid size '0.0001B': 0.0001 bytes is not a multiple of 4 KiB (4096 bytes); "
		  "the nearest valid size is 4096 (4 KiB)");
	bad("0.0", "larger than 0");
	bad("0.000G", "larger than 0");
	bad("1.1234567891G", "invalid size '1.1234567891G': at most 9 digits after the decimal point");
	bad("1.", "invalid size '1.': a decimal point must be followed by a digit");
	bad("1.G", "invalid size '1.G': a decimal point must be followed by a digit");
	bad("1..5G", "invalid size '1..5G': a decimal point must be followed by a digit");
	bad(".5G", "invalid size '.5G': a size starts with a digit (write 0.5G)");
	bad("1,5G", "invalid size '1,5G': the decimal point is '.', not ','");
	bad("1.5.5G", "invalid size '1.5.5G': unknown unit '.5G'");
	bad("-0.5G", "negative");

	/* overflow past UINT64_MAX */
	bad("16E", "invalid size '16E': too large");
	bad("16EiB", "too large");
	bad("19EB", "too large");
	bad("18.5EB", "too large");
	bad("15.99999999999E", "at most 9 digits");
	bad("16.0E", "too large");
	bad("18446744073709551616B", "too large");
	bad("1Z", "invalid size '1Z': unknown unit 'Z'");	/* no size reaches a ZiB */

	/* other forms */
	bad("1e3", "invalid size '1e3': unknown unit 'e3'");
	bad("0x10", "unknown unit 'x10'");
	bad("4096iB", "unknown unit 'iB'");
	bad("4Ki", "unknown unit 'Ki'");
	bad("4KiBB", "unknown unit 'KiBB'");
	bad("4 K", "unknown unit ' K'");
	bad("12x", "invalid size '12x': unknown unit 'x' (");
}

void test_size(void)
{
	char *s;

	good("2048", 2048ULL << 20);
	good("1", 1ULL << 20);
	good("4K", 4096);
	good("4k", 4096);
	good("8KiB", 8192);
	good("512M", 512ULL << 20);
	good("512MiB", 512ULL << 20);
	good("2G", 2ULL << 30);
	good("2g", 2ULL << 30);
	good("2GiB", 2ULL << 30);
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

	new_rules();

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
