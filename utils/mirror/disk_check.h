/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Is a disk fit to become a persistent member of a new mirror? rdctl
 * --create refuses, before it changes anything, a disk that is not a
 * block device, is an rd disk, is in use (mounted, held by md, LVM or
 * dm, or open by anyone with O_EXCL), or holds a signature that wipefs
 * (libblkid) recognises: a file system, a partition table, an md or LVM
 * superblock. --force overrides the signature check only.
 */
#ifndef RDCTL_DISK_CHECK_H
#define RDCTL_DISK_CHECK_H

#include <stdbool.h>
#include <stdint.h>

struct disk_info {
	char *path;		/* as given: "/dev/sdb", "/dev/disk/by-id/..." */
	char *name;		/* kernel name: "sdb" */
	uint64_t size;		/* bytes */
	char *signatures;	/* "ext4 at 0x438, dos at 0x1fe", or NULL when none */
};

/*
 * Look at path. 0 and *d filled; or an exit code with the error recorded
 * (errors.h), naming the disk and what was found on it. With force, a
 * signature is recorded in d->signatures but not refused.
 */
int disk_check(const char *path, bool force, struct disk_info *d);
void disk_info_clear(struct disk_info *d);

#endif
