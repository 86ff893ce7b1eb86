// SPDX-License-Identifier: GPL-2.0
#include "status/kernel_bugs.h"

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>

#include "lib/seams.h"
#include "lib/util.h"

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
static const char recovery_read_text[] =
	"md/raid1 in Linux 6.9 to 6.10.6 and 6.11-rc1 to rc3 can read the RAM member's unrecovered part during its recovery (data corruption, fixed by c916ca35308d in 6.10.7 and 6.11)";

/*
 * e879a0d9cb08 "md/raid1,raid10: don't ignore IO flags" (v6.15-rc1;
 * backported to 6.14.2 and 6.6.136) let a REQ_NOWAIT from above (io_uring,
 * RWF_NOWAIT direct I/O) reach the members. rd refuses a NOWAIT write with
 * BLK_STS_AGAIN when it has no page allocated for it and none is free
 * without reclaim (rd_io.c), as brd does. md then took the refusal for a
 * write error: it flags the RAM member WriteErrorSeen and rewrites, and
 * fails it where it cannot record bad blocks. 9f346f7d4ea7 (v6.16-rc1,
 * 6.15.3) stopped that, but still counted the failed write as done: the
 * RAM member, md's first choice for reads, can miss the write and return
 * the old data. 5fa31c499281 "md/raid1,raid10: strip REQ_NOWAIT from
 * member bios" (v6.16-rc6, 6.15.7) ended both. 6.12.46 took all three at
 * once; no 6.6.y release with the fix was found (November 2026), so every
 * 6.6 from 6.6.136 is listed.
 */
static const char nowait_lost_text[] =
	"md/raid1 in Linux 6.15.3 to 6.15.6 and 6.16-rc1 to rc5 counts a member's refused non-blocking (NOWAIT) write as done: the RAM member, which refuses one when it has no page ready, can miss the write and return old data (data corruption, fixed by 5fa31c499281 in 6.15.7 and 6.16)";
static const char nowait_error_text[] =
	"md/raid1 in Linux 6.14.2 to 6.14.11, 6.15-rc1 to 6.15.2 and 6.6.136 and later 6.6 releases takes a member's refused non-blocking (NOWAIT) write for a write error: the RAM member, which refuses one when it has no page ready, can be failed out of the array (fixed by 5fa31c499281 in 6.15.7 and 6.16)";

/*
 * 93dec51e716d "md/raid1: fix data lost for writemostly rdev" (v6.17-rc5;
 * 6.16.6): with write-behind on, alloc_behind_master_bio() made the bio
 * for a write-mostly member with no operation, so the clone sent to the
 * disk went out as a read and the write never reached it. It came with
 * e879a0d9cb08 (v6.15-rc1, 6.14.2); 6.12.46 and 6.6.136 took the fix with
 * it. rdctl turns write-behind off (--create, --convert), so this is a
 * --status finding for an array that has it on again, not a refusal.
 */
static const char write_behind_text[] =
	"md/raid1 in Linux 6.14.2 to 6.14.11, 6.15, 6.16 to 6.16.5 and 6.17-rc1 to rc4 sends a write-behind write to a write-mostly disk as a read: the disks never get the data (data loss, fixed by 93dec51e716d in 6.16.6 and 6.17)";

struct kernel_rel {
	unsigned maj, min, patch, rc;
};

/* "6.10.3-amd64", "6.16.0-rc1": the numbers, and where they end in *end */
static bool rel_numbers(const char *rel, struct kernel_rel *k, const char **end)
{
	int pos = 0;

	*k = (struct kernel_rel){ 0 };
	if (sscanf(rel, "%u.%u%n", &k->maj, &k->min, &pos) != 2)
		return false;
	rel += pos;
	if (rel[0] == '.' && sscanf(rel, ".%u%n", &k->patch, &pos) == 1)
		rel += pos;
	if (!strncmp(rel, "-rc", 3))
		k->rc = (unsigned)strtoul(rel + 3, NULL, 10);
	*end = rel;
	return true;
}

bool kernel_upstream_release(const char *rel, const char *version, unsigned *maj, unsigned *min,
			     unsigned *patch, unsigned *rc)
{
	struct kernel_rel k, d;
	const char *end, *deb;

	if (!rel_numbers(rel, &k, &end))
		return false;
	/* Debian's own word: the source package's version, "Debian 6.1.158-1" */
	deb = version ? strstr(version, " Debian ") : NULL;
	if (deb && rel_numbers(deb + 8, &d, &end) && d.maj == k.maj && d.min == k.min && d.patch > 0) {
		k = d;
	} else if (k.patch == 0 && k.rc == 0 && end[0] == '-' && end[1] >= '0' && end[1] <= '9') {
		/* X.Y.0-N...: an ABI or build number, not a stable release */
		return false;
	}
	*maj = k.maj;
	*min = k.min;
	*patch = k.patch;
	*rc = k.rc;
	return true;
}

/*
 * The running kernel's upstream release (kernel_upstream_release()); rel
 * NULL: $RDCTL_KERNEL_RELEASE (tests) or uname -r, with /proc/version.
 * False when it cannot be told (*release then names the kernel).
 */
static bool running_release(const char *rel, struct kernel_rel *k, const char **release)
{
	static struct utsname u;
	char *path, *version = NULL;
	bool known;

	if (!rel)
		rel = seam("RDCTL_KERNEL_RELEASE");	/* the tests' stand-in kernel */
	if (!rel || !*rel) {
		if (uname(&u) < 0)
			return false;
		rel = u.release;
	}
	*release = rel;
	path = xasprintf("%s/version", proc_root());
	if (read_text_file(path, &version) < 0)
		version = NULL;
	free(path);
	known = kernel_upstream_release(rel, version, &k->maj, &k->min, &k->patch, &k->rc);
	free(version);
	return known;
}

/* rel as uname -r prints it; NULL: the running kernel. False: unknown. */
static bool kernel_rel_parse(const char *rel, struct kernel_rel *k)
{
	const char *release;

	*k = (struct kernel_rel){ 0 };
	return running_release(rel, k, &release);
}

char *kernel_md_bug_unknown(const char *rel)
{
	struct kernel_rel k;
	const char *release = NULL;
	unsigned maj = 0, min = 0;

	if (running_release(rel, &k, &release) || !release || sscanf(release, "%u.%u", &maj, &min) != 2)
		return NULL;
	/* the series whose upstream or backported md met the bugs below */
	if (maj < 6 || (maj == 6 && min < 6))
		return NULL;
	return xasprintf("kernel %s does not say which upstream stable release it carries (a distribution's build of %u.%u with its own backports): whether its md has the bugs rdctl refuses is unknown; look in its changelog for c916ca35308d, 5fa31c499281 and 93dec51e716d (the md/raid1 fixes), or for 9f3ced792203 and e879a0d9cb08 without them",
			 release, maj, min);
}

const char *kernel_md_write_behind_bug(const char *rel)
{
	struct kernel_rel k;

	if (!kernel_rel_parse(rel, &k) || k.maj != 6)
		return NULL;
	if ((k.min == 14 && k.rc == 0 && k.patch >= 2) || k.min == 15 ||
	    (k.min == 16 && (k.rc > 0 || k.patch <= 5)) || (k.min == 17 && k.rc > 0 && k.rc < 5))
		return write_behind_text;
	return NULL;
}

const char *kernel_md_bug(const char *rel)
{
	struct kernel_rel k;
	unsigned min, patch, rc;

	if (!kernel_rel_parse(rel, &k) || k.maj != 6)
		return NULL;
	min = k.min;
	patch = k.patch;
	rc = k.rc;
	if (min == 9 || (min == 10 && patch < 7) || (min == 11 && rc > 0 && rc < 4))
		return recovery_read_text;
	if ((min == 15 && rc == 0 && patch >= 3 && patch <= 6) ||
	    (min == 16 && rc > 0 && rc < 6))
		return nowait_lost_text;
	if ((min == 14 && patch >= 2) || (min == 15 && (rc > 0 || patch <= 2)) ||
	    (min == 6 && patch >= 136))
		return nowait_error_text;
	return NULL;
}
