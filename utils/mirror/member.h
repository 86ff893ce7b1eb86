/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A local disk as a mirror's fast member (--member PATH, member=PATH in
 * rdmirror.conf), in the RAM member's place: the highest slot, the disks
 * write-mostly, filled by the warm copy. Its refusals, each written once:
 *   - a kernel name (/dev/sdb, /dev/nvme0n1, /dev/vdb...) can name another
 *     disk after a reboot, and --restore would then write over that one:
 *     only a stable name is taken (/dev/disk/by-id/...), --force or not;
 *   - it must be blank (wipefs finds nothing): --force overrides that only;
 *   - it must hold a member of the array (the smallest disk's size);
 *   - its logical block size must not be larger than the array's: Linux
 *     6.19 and later refuse such a member, older kernels change a live
 *     array's logical block size under its file system.
 */
#ifndef RDCTL_MEMBER_H
#define RDCTL_MEMBER_H

#include <stdbool.h>
#include <stdint.h>

#include "mirror/disk_check.h"

/* NULL when path is a name that stays the disk's across reboots, else why not (malloc'd). */
char *member_refuse_path(const char *path);

/*
 * NULL when a disk of size bytes and logical block lbs (0: unknown) can be
 * the fast member of an array whose members need need bytes and whose
 * logical block is albs (0: unknown), else why not (malloc'd).
 */
char *member_refuse_fit(const char *path, uint64_t size, unsigned lbs, uint64_t need, unsigned alb);

/* The logical block size of kernel block device name, 0 when unknown. */
unsigned member_lbs(const char *name);

/*
 * Every refusal: the path, disk_check() (a block device, not rd, not in
 * use; blank unless force: then d->signatures says what --force destroys),
 * the fit. 0 with *d filled, or an exit code with the error recorded.
 */
int member_check(const char *path, bool force, uint64_t need, unsigned alb, struct disk_info *d);

#endif
