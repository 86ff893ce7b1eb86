// SPDX-License-Identifier: GPL-2.0
/*
 * size_parse() (utils/lib/size.c): the SIZE of --attach, --resize, --size and
 * of each /etc/rdmirror.conf line, on any string. Invariants:
 *   - it returns 0 or -1;
 *   - 0: err is NULL, the size is > 0 and a multiple of 4096, and reads
 *     back the same written in bytes ("<n>B"); a bare number is MiB and
 *     "<digits>B" bytes, exactly;
 *   - -1: err is a non-empty message that names the input (the input is
 *     a C string, so it is the text up to the first NUL byte).
 */
#include <ctype.h>
#include <stdbool.h>
#include <stdint.h>

#include "fuzz.h"
#include "lib/size.h"

/* s is digits only (and at least one); *v its value when it fits in 64 bits */
static bool all_digits(const char *s, size_t len, uint64_t *v, bool *fits)
{
	unsigned __int128 x = 0;

	if (!len)
		return false;
	*fits = true;
	for (size_t i = 0; i < len; i++) {
		if (!isdigit((unsigned char)s[i]))
			return false;
		x = x * 10 + (unsigned)(s[i] - '0');
		if (x > UINT64_MAX) {
			*fits = false;
			x = UINT64_MAX;
		}
	}
	*v = (uint64_t)x;
	return true;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *s = fuzz_cstr(data, size), *err = (char *)1;
	size_t len = strlen(s);
	uint64_t bytes = 0, n;
	bool fits;
	int r = size_parse(s, &bytes, &err);

	FUZZ_CHECK(r == 0 || r == -1, "returned %d for '%s'", r, s);
	if (r == 0) {
		char *again = NULL, *back, *mib, *human;
		uint64_t b2 = 0;

		FUZZ_CHECK(err == NULL, "success for '%s' but err set", s);
		FUZZ_CHECK(bytes > 0, "'%s' gave 0 bytes", s);
		FUZZ_CHECK(bytes % 4096 == 0, "'%s' gave %llu bytes, not a multiple of 4096",
			   s, (unsigned long long)bytes);
		if (all_digits(s, len, &n, &fits))
			FUZZ_CHECK(fits && n <= (UINT64_MAX >> 20) && bytes == n << 20,
				   "bare '%s' (MiB) gave %llu bytes", s, (unsigned long long)bytes);
		if (len > 1 && (s[len - 1] == 'B' || s[len - 1] == 'b') &&
		    all_digits(s, len - 1, &n, &fits))
			FUZZ_CHECK(fits && bytes == n, "'%s' gave %llu bytes", s, (unsigned long long)bytes);
		back = malloc(32);
		if (!back)
			abort();
		snprintf(back, 32, "%lluB", (unsigned long long)bytes);
		FUZZ_CHECK(size_parse(back, &b2, &again) == 0 && b2 == bytes,
			   "'%s' gave %llu bytes, but '%s' reads back as %llu (%s)", s,
			   (unsigned long long)bytes, back, (unsigned long long)b2, again ? again : "");
		free(back);
		mib = size_mib_str(bytes);
		human = size_human(bytes);
		FUZZ_CHECK(mib && *mib && human && *human, "no text for %llu bytes", (unsigned long long)bytes);
		free(mib);
		free(human);
	} else {
		FUZZ_CHECK(err != NULL && err != (char *)1, "failure for '%s' without a message", s);
		FUZZ_CHECK(*err, "failure for '%s' with an empty message", s);
		FUZZ_CHECK(strstr(err, s) != NULL, "the message for '%s' does not name it: %s", s, err);
		free(err);
	}
	free(s);
	return 0;
}
