/* SPDX-License-Identifier: GPL-2.0 */
/*
 * --restore of a mirror whose fast member is a local disk (member=PATH in
 * rdmirror.conf, mirror/member.h). What the device at PATH holds, told
 * apart by reading it (never by writing), decides:
 *   absent   no device there: the array runs from its disks, a warning
 *            with the command (a blank disk put there later is filled by
 *            the next --restore);
 *   kept     this array's md superblock: "mdadm --re-add", md takes it
 *            back through its bitmap (only what changed since it left);
 *            when md refuses, it is filled as a blank one (it is ours);
 *   blank    wipefs finds nothing: the warm copy fills it as it fills a
 *            RAM disk, md then recovers what changed during the copy;
 *   foreign  anything else (another array's superblock, a file system, a
 *            partition table, in use by another holder): never written,
 *            the item fails with what was found (--status: CRITICAL).
 * Also the hooks restore.c gives it: where a fast member goes.
 */
#ifndef RDCTL_RESTORE_DISK_H
#define RDCTL_RESTORE_DISK_H

#include <stdbool.h>
#include <stdint.h>

#include "lib/config.h"
#include "mirror/boot.h"

enum member_state { MEMBER_ABSENT, MEMBER_KEPT, MEMBER_BLANK, MEMBER_FOREIGN };

/* The actions of the restore report for a member disk (boot_item.action). */
#define ACTION_ABSENT	"absent"
#define ACTION_FOREIGN	"foreign"
#define ACTION_READDED	"re-added"

/* Where restore_add() puts the fast member, and what it says of it. */
struct restore_slot {
	const char *mdname, *dev, *note;
	uint64_t size;
	bool prealloc;
	unsigned comp;		/* compress=: RDMIRROR_COMP_*; 0: uncompressed */
	uint64_t mem_limit;	/* a compressed member's bound (compress.h); 0: not worked out yet */
	bool compacted;		/* the disks moved below the RAM slot */
	bool grow;		/* no slot free: grown by one after the add */
	int raid_disks;
	const char *disk;	/* member=: the blank disk's kernel name, used instead of a RAM disk; NULL: RAM */
};

/* A RAM disk (or s->disk) brought in by the warm start, or added. 0 or -1 (the item failed). restore.c */
int restore_add(struct boot_item *it, const struct config *cfg, const struct restore_slot *s);

/*
 * The state of the device at path for array mdname (array UUID uuid):
 * *what (malloc'd) says what was found (absent, foreign: for the user),
 * *name its kernel name (not absent), *size its bytes.
 */
enum member_state restore_disk_state(const char *path, const char *mdname, const char *uuid, char **what,
				     char **name, uint64_t *size);

/* What restore_disk() would do (--restore --dry-run), from the device's state (malloc'd). */
char *restore_disk_plan(const struct conf_mirror *m, const char *mdname, const char *uuid);

/*
 * Line m's member disk, the array up without a working fast member: as
 * the state of the device says (above). 0, or -1 with the item failed.
 */
int restore_disk(struct boot_item *it, const struct config *cfg, const struct conf_mirror *m, struct restore_slot *s);

#endif
