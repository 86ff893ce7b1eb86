/* SPDX-License-Identifier: GPL-2.0 */
/*
 * md's version-1 superblock of one member, as the kernel reads it
 * (struct mdp_superblock_1 in include/uapi/linux/raid/md_p.h): what the
 * warm start (warm_record.h, warmup.h) keeps of the RAM member at release,
 * or makes from the array's own (warm_super.h), and gives to the RAM disk
 * before it is re-added.
 */
#ifndef RDCTL_MD_SUPER_H
#define RDCTL_MD_SUPER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* md reads one 4 KiB block at the superblock's offset (super_1_load()) */
#define MD_SUPER_BLOCK	4096

struct md_super {
	unsigned char raw[MD_SUPER_BLOCK];	/* the block as on the member */
	char uuid[36];		/* set_uuid as mdadm prints it: 8:8:8:8 hex */
	uint64_t events;
	uint64_t data_offset, data_size, super_offset;	/* sectors */
	uint32_t feature_map, raid_disks, dev_number;
	int role;		/* dev_roles[dev_number]: the slot, or -1 spare/faulty */
};

/*
 * Parse and check one 4 KiB block: magic 0xa92b4efc, major version 1, a
 * max_dev that fits the block, the checksum (calc_sb_1_csum()), a data
 * area after its own superblock, not a journal. 0, or -EINVAL with *why.
 */
int md_super_parse(const unsigned char *block, struct md_super *sb, char **why);

/*
 * Read the superblock of version ver ("1.0", "1.1", "1.2": the array's
 * md/metadata_version) from the device at path, of size bytes; its
 * super_offset must be where the version puts it. 0, or -errno / -EINVAL
 * with *why.
 */
int md_super_read(const char *path, const char *ver, uint64_t size, struct md_super *sb, char **why);

/*
 * Would sb make a clean re-add of a RAM member of the array with UUID
 * uuid into a device of size bytes? It names that array, had a slot, was
 * in sync (no recovery offset), and its data area fits. true, or false
 * with *why.
 */
bool md_super_fits(const struct md_super *sb, const char *uuid, uint64_t size, char **why);

/*
 * A superblock for a RAM member that md takes back as a returning member
 * (warm_super.h), built from tmpl, the superblock of a member in sync:
 *   - the array's identity and layout as tmpl has them (uuid, level,
 *     raid_disks, bitmap and bad-block log offsets, data_offset);
 *   - desc number nr (one no member of the array holds) in slot slot, a
 *     new device uuid, not write-mostly, no recovery offset;
 *   - super_offset and data_size for a device of size bytes of version
 *     ver ("1.0", "1.1", "1.2"), the data area at least comp sectors
 *     (the array's component size);
 *   - events one below tmpl's (tmpl is written at every event): older
 *     than the array, so super_1_validate() sets Bitmap_sync (a read-only
 *     array does not take it back, rdev_addable()); but never below the
 *     bitmap's events_cleared (cleared, read with tmpl), or
 *     super_1_validate() does not take it back at all. The two meet when
 *     the array has counted no event since its bitmap last cleared a bit
 *     (a clean stop rolls both back to the same event, md_update_sb() and
 *     write_sb(); a degraded start counts none): then events are tmpl's
 *     own. Either way md_add_new_disk() clears In_sync, so md recovers
 *     every chunk the bitmap marks.
 * 0 with *out, or -EINVAL with *why when tmpl cannot serve (a reshape,
 * a cluster, a journal or PPL, no room, cleared after tmpl's events).
 */
int md_super_returning(const struct md_super *tmpl, const char *ver, uint64_t size, uint64_t comp,
		       uint32_t nr, int slot, uint64_t cleared, struct md_super *out, char **why);

/*
 * The events_cleared of the internal bitmap of the member at path whose
 * superblock is sb (bitmap_super_t, at sb's bitmap offset): the event at
 * which md last cleared a bit. 0, or -errno / -EINVAL with *why.
 */
int md_bitmap_events_cleared(const char *path, const struct md_super *sb, uint64_t *cleared, char **why);

/* Has the running array mdname md's internal write-intent bitmap? */
bool md_has_internal_bitmap(const char *mdname);
/* Its md/metadata_version ("1.2"), NULL when unreadable. */
char *md_metadata_version(const char *mdname);

#endif
