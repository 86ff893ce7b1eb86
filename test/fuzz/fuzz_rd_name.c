// SPDX-License-Identifier: GPL-2.0
/*
 * rd_parse_name() (utils/lib/sysfs.c), the rdN argument of --detach, --resize,
 * --flush, and md_name_is_rd() (utils/md/md.c), which sorts md members into
 * RAM and persistent ones, on any string. Invariant: both agree with a
 * plain reading of the rules: "rdN" or "/dev/rdN" (md_name_is_rd: "rdN"
 * only), N decimal, no sign, no leading zero, at most UINT32_MAX.
 */
#include <stdbool.h>
#include <stdint.h>

#include <rdmirror.h>

#include "fuzz.h"
#include "md/md.h"
#include "lib/sysfs.h"

static bool reference(const char *s, unsigned *index)
{
	size_t plen = strlen(RDMIRROR_DISK_PREFIX);
	uint64_t v = 0;

	if (!strncmp(s, "/dev/", 5))
		s += 5;
	if (strncmp(s, RDMIRROR_DISK_PREFIX, plen))
		return false;
	s += plen;
	if (!*s || (s[0] == '0' && s[1]))
		return false;
	for (; *s; s++) {
		if (*s < '0' || *s > '9')
			return false;
		v = v * 10 + (unsigned)(*s - '0');
		if (v > UINT32_MAX)
			return false;
	}
	*index = (unsigned)v;
	return true;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *s = fuzz_cstr(data, size);
	unsigned got = 0xdeadbeef, want = 0xfeedface;
	bool ok = rd_parse_name(s, &got), ref = reference(s, &want);

	FUZZ_CHECK(ok == ref, "rd_parse_name('%s') = %d, expected %d", s, ok, ref);
	if (ok)
		FUZZ_CHECK(got == want, "rd_parse_name('%s') gave index %u, expected %u", s, got, want);
	FUZZ_CHECK(md_name_is_rd(s) == (ref && !strchr(s, '/')), "md_name_is_rd('%s') = %d", s, md_name_is_rd(s));
	free(s);
	return 0;
}
