/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A fake /sys, /proc and /dev under one directory, for the unit tests and
 * the valgrind runs (use with RDCTL_SYSFS_ROOT=ROOT/sys, RDCTL_PROC_ROOT=
 * ROOT/proc, RDCTL_DEV_ROOT=ROOT/dev). Contents:
 *   rd0  2 GiB, 512 MiB allocated, member of md0 (in_sync)
 *   rd1  128 MiB, preallocated, mounted on "/mnt/rd one"
 *   rd2  1 MiB, no rdmirror/ attributes (unknown), unused
 *   md0  raid1 of rd0 + sdb (write-mostly) + sdc (not), resync at 25%
 *   md1  raid1 of sda + sdd: no rd member
 *   meminfo: 16 GiB total, 1 GiB available; module rdmirror VERSION (rdctl's) loaded
 */
#ifndef RDCTL_FAKE_TREE_H
#define RDCTL_FAKE_TREE_H

/* Write content to ROOT/rel, creating the directories on the way. 0 or -1. */
int fake_write(const char *root, const char *rel, const char *content);
int fake_mkdir(const char *root, const char *rel);
/* Build the standard tree above. 0 or -1. */
int fake_tree_build(const char *root);
/* Point the RDCTL_*_ROOT variables at ROOT. */
void fake_tree_env(const char *root);
/* rm -rf ROOT. 0 or -1. */
int fake_tree_remove(const char *root);

#endif
