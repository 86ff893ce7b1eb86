/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A fresh RAM disk made ready for md's metadata before "mdadm --add".
 *
 * md's bad-block log on a member is a page of 64-bit entries in which
 * all-ones means "no more entries" (an empty log is 0xff bytes). When a
 * member of the array has recorded bad blocks, mdadm gives the superblock
 * it writes on the new device the bad-block-log feature but does not write
 * the log itself, so md reads whatever the device holds there: on a disk
 * fresh from the factory or on a new RAM disk, zeros. Linux 6.7 and later
 * (the rewritten block/badblocks.c) refuse an entry of zero sectors, and
 * super_1_load() then fails the add with EINVAL ("mdadm: add new device
 * failed for /dev/rd0 as 3: Invalid argument"): the RAM member of a mirror
 * whose disk has a bad block would never come back.
 *
 * So the RAM disk's space outside md's data area (before the data offset,
 * its first 16 MiB at most, and after the data: where mdadm keeps the
 * superblock, the bitmap and the log) is filled with 0xff first: what an
 * empty log is, and what mdadm overwrites with the superblock and bitmap.
 */
#ifndef RDCTL_RD_PREPARE_H
#define RDCTL_RD_PREPARE_H

/*
 * Fill rdname's space outside the data area of mdname (the data offset and
 * component size of mdname's members, from sysfs) with 0xff, and sync it.
 * 0, or -errno with *msg (malloc'd).
 */
int rd_prepare_for_md(const char *rdname, const char *mdname, char **msg);

/*
 * Turn on the I/O statistics of a new RAM member, rd<index>
 * (rd_disk_count_io()), so that the reads it serves are counted from its
 * first. A failure costs only
 * the figure, not the mirror: a warning on stderr, no error.
 */
void rd_prepare_count_io(unsigned index);

#endif
