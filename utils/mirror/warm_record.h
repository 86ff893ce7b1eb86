/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The warm start's record: the superblock a RAM member had when --release
 * took it out of its array (at shutdown), kept on disk for the next boot.
 * With it, --restore can give a fresh RAM disk that member's identity
 * again and re-add it: md then recopies only what its write-intent bitmap
 * marks as written since (warmup.h), instead of the whole member.
 *
 * The file is <state dir>/warm-<array uuid>.sb, 4 KiB, the state dir
 * being RDCTL_STATE_DIR or /var/lib/rdmirror. It is never created there
 * when the directory is missing: at shutdown a separate /var may already
 * be unmounted, and a file written into its mount point would be found
 * by no one.
 */
#ifndef RDCTL_WARM_RECORD_H
#define RDCTL_WARM_RECORD_H

#include "md/md_super.h"

const char *warm_state_dir(void);

/* Keep sb for array uuid. 0, or -errno with *why. */
int warm_record_save(const struct md_super *sb, char **why);

/*
 * Take the record of array uuid: read, check and delete it (a record is
 * used once; a read-only root at boot leaves it, which md's own check of
 * the event count makes harmless). 0 with *sb, -ENOENT when there is
 * none, another -errno with *why when it cannot be used.
 */
int warm_record_take(const char *uuid, struct md_super *sb, char **why);
/* The same, the record left where it is (--restore --dry-run). */
int warm_record_peek(const char *uuid, struct md_super *sb, char **why);

#endif
