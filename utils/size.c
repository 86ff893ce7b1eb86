// SPDX-License-Identifier: GPL-2.0
#include "size.h"

#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "util.h"

#define SIZE_ALIGN 4096ULL

static int bad(char **err, char *msg)
{
	*err = msg;
	return -1;
}

int size_parse(const char *s, uint64_t *bytes, char **err)
{
	const char *p = s, *suffix;
	uint64_t v = 0, mult;
	int shift;

	*err = NULL;
	if (!s || !*s)
		return bad(err, xstrdup("empty size: give a size such as 2048 (MiB) or 2G"));
	if (*s == '-')
		return bad(err, xasprintf("invalid size '%s': a size cannot be negative", s));
	if (*s < '0' || *s > '9')
		return bad(err, xasprintf("invalid size '%s': a size starts with a digit, for example 2048 (MiB) or 2G", s));
	for (; *p >= '0' && *p <= '9'; p++) {
		unsigned d = (unsigned)(*p - '0');

		if (v > (UINT64_MAX - d) / 10)
			return bad(err, xasprintf("invalid size '%s': number too large", s));
		v = v * 10 + d;
	}
	suffix = p;
	if (*suffix == '\0') {
		shift = 20;			/* bare number: MiB */
	} else if (!strcasecmp(suffix, "B")) {
		shift = 0;
	} else {
		switch (*suffix) {
		case 'k': case 'K': shift = 10; break;
		case 'm': case 'M': shift = 20; break;
		case 'g': case 'G': shift = 30; break;
		case 't': case 'T': shift = 40; break;
		default: shift = -1; break;
		}
		if (shift < 0 || (suffix[1] != '\0' && strcasecmp(suffix + 1, "B") &&
				  strcasecmp(suffix + 1, "iB")))
			return bad(err, xasprintf("invalid size '%s': unknown unit '%s' (use K, M, G or T, or none for MiB)",
						  s, suffix));
	}
	if (v == 0)
		return bad(err, xasprintf("invalid size '%s': the size must be larger than 0", s));
	mult = 1ULL << shift;
	if (v > UINT64_MAX / mult)
		return bad(err, xasprintf("invalid size '%s': number too large", s));
	v *= mult;
	if (v % SIZE_ALIGN)
		return bad(err, xasprintf("invalid size '%s': %llu bytes is not a multiple of 4 KiB (4096 bytes)",
					  s, (unsigned long long)v));
	*bytes = v;
	return 0;
}

char *size_mib_str(uint64_t bytes)
{
	if (bytes % (1ULL << 20) == 0)
		return xasprintf("%llu MiB", (unsigned long long)(bytes >> 20));
	if (bytes % 1024 == 0)
		return xasprintf("%llu KiB", (unsigned long long)(bytes >> 10));
	return xasprintf("%llu B", (unsigned long long)bytes);
}

char *size_human(uint64_t bytes)
{
	static const char *const units[] = { "B", "KiB", "MiB", "GiB", "TiB", "PiB", "EiB" };
	unsigned u = 0;
	uint64_t whole = bytes, rem = 0;

	while (whole >= 1024 && u < 6) {
		rem = whole % 1024;
		whole /= 1024;
		u++;
	}
	if (u == 0)
		return xasprintf("%llu B", (unsigned long long)bytes);
	if (rem == 0 && bytes % (1ULL << (10 * u)) == 0)
		return xasprintf("%llu %s", (unsigned long long)whole, units[u]);
	{
		/* one decimal, rounded to nearest */
		unsigned tenth = (unsigned)((rem * 10 + 512) / 1024);

		if (tenth >= 10) {
			whole++;
			tenth -= 10;
		}
		return xasprintf("%llu.%u %s", (unsigned long long)whole, tenth, units[u]);
	}
}
