// SPDX-License-Identifier: GPL-2.0
/*
 * parse_u64() (utils/lib/util.c), which reads every number rdctl takes from
 * sysfs (size, allocated bytes, md's raid_disks, degraded, slot, offsets),
 * on any string, and read_u64_file() on a file holding the input (as a
 * sysfs attribute does, with its trailing newline). Invariants: parse_u64
 * agrees with a plain reading (decimal digits only, at least one, below
 * 2^64); read_u64_file is parse_u64 of the text without its trailing
 * newlines and blanks, and -EINVAL when that does not parse.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdint.h>

#include "fuzz.h"
#include "lib/util.h"

static bool reference(const char *s, uint64_t *out)
{
	unsigned __int128 v = 0;

	if (!*s)
		return false;
	for (; *s; s++) {
		if (*s < '0' || *s > '9')
			return false;
		v = v * 10 + (unsigned)(*s - '0');
		if (v > UINT64_MAX)
			return false;
	}
	*out = (uint64_t)v;
	return true;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static int fd = -1;
	static char path[64];
	char *s = fuzz_cstr(data, size);
	uint64_t got = 12345, want = 54321, fromfile = 0;
	bool ok = parse_u64(s, &got), ref = reference(s, &want);
	int r;

	FUZZ_CHECK(ok == ref, "parse_u64('%s') = %d, expected %d", s, ok, ref);
	if (ok)
		FUZZ_CHECK(got == want, "parse_u64('%s') = %llu, expected %llu", s,
			   (unsigned long long)got, (unsigned long long)want);
	FUZZ_CHECK(!parse_u64(NULL, &got), "parse_u64(NULL) succeeds");

	if (fd < 0)
		fd = fuzz_memfd(path, sizeof(path));
	fuzz_memfd_set(fd, data, size);
	r = read_u64_file(path, &fromfile);
	if (!memchr(data, '\0', size)) {
		size_t len = strlen(s);

		while (len && (s[len - 1] == '\n' || s[len - 1] == ' '))
			s[--len] = '\0';
		ok = reference(s, &want);
		FUZZ_CHECK(r == (ok ? 0 : -EINVAL), "read_u64_file of '%s' = %d", s, r);
		if (ok)
			FUZZ_CHECK(fromfile == want, "read_u64_file of '%s' = %llu", s, (unsigned long long)fromfile);
	} else {
		FUZZ_CHECK(r == 0 || r == -EINVAL, "read_u64_file = %d", r);
	}
	free(s);
	return 0;
}
