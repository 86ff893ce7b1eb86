/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The warm start without a kept record (a power cut, a crash, a RAM member
 * failed and dropped): a superblock for the RAM member made from the
 * array's own, with which the warm-up copy (warmup.h) brings a fresh RAM
 * disk back as a returning member of the empty RAM slot.
 *
 * What must hold for md to recover every chunk written since the copy's
 * first read, and the kernel functions that make it hold:
 *   - the RAM slot is empty from before the copy begins until md takes the
 *     disk back, so the array is degraded all that time (mddev->degraded,
 *     raised in raid1_error() or at a degraded start, lowered only in
 *     raid1_spare_active() once a recovery is done);
 *   - md keeps the bit of every write made while degraded: bitmap_endwrite()
 *     sets NEEDED when mddev->degraded (6.12, 7.x); on 6.1
 *     md_bitmap_endwrite() is told success false for an r1_bio with
 *     R1BIO_Degraded, which raid1_write_request() sets for an empty slot;
 *     and a resync meanwhile clears none: raid1_sync_request() tells
 *     the bitmap's start_sync "still degraded" for an empty slot;
 *   - the re-add (md_add_new_disk()) clears In_sync and keeps the role
 *     super_1_validate() read as saved_raid_disk, so raid1_add_disk()
 *     leaves conf->fullsync off and raid1_sync_request() recovers exactly
 *     the chunks whose bit is set (and skips the others).
 * The superblock's event count only decides whether md takes the disk
 * back (super_1_validate(): not older than the bitmap's events_cleared);
 * when md refuses, the daemon adds the disk as a new member and md
 * recovers it in full.
 */
#ifndef RDCTL_WARM_SUPER_H
#define RDCTL_WARM_SUPER_H

#include <stdint.h>

#include "md/md_super.h"

/*
 * The superblock for a RAM disk of size bytes in mdname's highest empty
 * slot, from a member in sync (md_super_returning()), with a desc number
 * no member's superblock holds. 0 with *sb, or -errno with *why (no
 * internal bitmap, no empty slot, a member's superblock unreadable, ...).
 */
int warm_super_make(const char *mdname, uint64_t size, struct md_super *sb, char **why);

#endif
