/* SPDX-License-Identifier: GPL-2.0 */
/* Where a block device is mounted, from <proc>/self/mountinfo. */
#ifndef RDCTL_MOUNTS_H
#define RDCTL_MOUNTS_H

/*
 * Find the first mount of device major:minor. Returns 1 and a malloc'd
 * mount point in *where, 0 when not mounted, -errno when mountinfo cannot
 * be read.
 */
int mount_point_of(unsigned major, unsigned minor, char **where);

/* Decode the octal escapes (\040 etc.) of a mountinfo field in place. */
void mountinfo_unescape(char *s);

#endif
