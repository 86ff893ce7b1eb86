/* SPDX-License-Identifier: GPL-2.0 */
/*
 * md's bad-block log of a member: /sys/block/mdX/md/dev-Y/bad_blocks
 * (and unacknowledged_bad_blocks), one "SECTOR LENGTH" line a range, in
 * 512-byte sectors of the member's data area. When a write to a member
 * fails and md can record the range instead of failing the member, reads
 * of that range are served by the other members from then on. Where every
 * persistent member of a RAM mirror has a range recorded bad, the RAM
 * member holds the only good copy of it: taking the RAM member out (release,
 * revert, a power cut) loses that data.
 */
#ifndef RDCTL_MD_BADBLOCKS_H
#define RDCTL_MD_BADBLOCKS_H

#include <stddef.h>
#include <stdint.h>

struct md_range {
	uint64_t start, len;	/* sectors */
};

struct md_ranges {
	struct md_range *v;	/* sorted by start, no overlaps */
	size_t n;
	uint64_t sectors;	/* sum of len */
};

/* Parse a bad_blocks file's text ("SECTOR LENGTH" lines; anything else is
 * skipped) and add its ranges to r, kept sorted and merged. */
void md_ranges_parse(struct md_ranges *r, const char *text);
/* Add one range, kept sorted and merged. */
void md_ranges_add(struct md_ranges *r, uint64_t start, uint64_t len);
/* r becomes the part of r that also lies in other. */
void md_ranges_intersect(struct md_ranges *r, const struct md_ranges *other);
/* "20480+8 40960+16" (at most max ranges, then " ..."), malloc'd. */
char *md_ranges_str(const struct md_ranges *r, size_t max);
void md_ranges_clear(struct md_ranges *r);

#endif
