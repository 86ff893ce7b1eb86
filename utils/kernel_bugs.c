// SPDX-License-Identifier: GPL-2.0
#include "kernel_bugs.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>

/*
 * Linux 6.9 split md/raid1's read_balance() (9f3ced792203 "factor out
 * choose_bb_rdev()", dfa8ecd167c1 "factor out choose_slow_rdev()", both
 * first in v6.9-rc1) and lost the check that a member under recovery is
 * only read below its recovery offset. When the only in-sync members are
 * write-mostly, reads of the recovering member's unrecovered part are
 * served from it: every read of a RAM member that rdctl has just added
 * (after each boot) may return zeros. Fixed by c916ca35308d "md/raid1: Fix
 * data corruption for degraded array with slow disk" (CVE-2024-45023) in
 * v6.11-rc4 and in 6.10.7; 6.9.y reached its end of life without the fix.
 * 6.8 and older, 6.1.y and 6.6.y never had the split.
 *
 * The same split made a degraded array whose members are all write-mostly
 * crash in bio_split (36a5c03f2327, fixed in v6.11-rc1): the array after a
 * reboot, before the RAM member is back. It lies in the same range.
 */
static const char bug_text[] =
	"md/raid1 in Linux 6.9 to 6.10.6 and 6.11-rc1 to rc3 can read the RAM member's unrecovered part during its recovery (data corruption, fixed by c916ca35308d in 6.10.7 and 6.11)";

const char *kernel_md_bug(const char *rel)
{
	struct utsname u;
	unsigned maj, min, patch = 0, rc = 0;
	int pos = 0;

	if (!rel)
		rel = getenv("RDCTL_KERNEL_RELEASE");	/* the tests' stand-in kernel */
	if (!rel || !*rel) {
		if (uname(&u) < 0)
			return NULL;
		rel = u.release;
	}
	if (sscanf(rel, "%u.%u%n", &maj, &min, &pos) != 2)
		return NULL;
	rel += pos;
	if (rel[0] == '.' && sscanf(rel, ".%u%n", &patch, &pos) == 1)
		rel += pos;
	if (!strncmp(rel, "-rc", 3))
		rc = (unsigned)strtoul(rel + 3, NULL, 10);
	if (maj != 6)
		return NULL;
	if (min == 9 || (min == 10 && patch < 7) || (min == 11 && rc > 0 && rc < 4))
		return bug_text;
	return NULL;
}
