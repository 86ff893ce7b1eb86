/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What --restore and its --dry-run (restore_plan.h) both ask of a mirror
 * before they change or plan anything: whether its RAM member fits in
 * memory, whether a kept record makes a warm start, and how its sync
 * stands in words.
 */
#ifndef RDCTL_RESTORE_CHECKS_H
#define RDCTL_RESTORE_CHECKS_H

#include <stdbool.h>
#include <stdint.h>

#include "lib/config.h"
#include "md/md.h"
#include "md/md_super.h"
#include "mirror/boot.h"

/* "in sync", "recovery 12.5%", "rebuilding", ... for a summary (malloc'd) */
char *restore_sync_words(const struct md_array *a, const struct md_member *m);

/*
 * Does a RAM member of size bytes fit in memory with the configuration's
 * reserve kept? A compressed one (comp, compress.h): size at the ratio
 * its disk had at the last --release (or, without a record, the bound
 * alone) must fit in the memory spare, and *limit is its bound. 0, or -1
 * with the item refused (action "refused").
 */
int restore_fits(struct boot_item *it, const struct config *cfg, const char *mdname, uint64_t size, unsigned comp,
		 uint64_t *limit);

/*
 * The superblock --release kept of mdname's RAM member, when a warm start
 * can use it (true, *sb). False with *note (malloc'd) saying why a record
 * cannot be used, or with *note NULL when there is none. The record is
 * used up, unless peek (a dry run: read, left where it is).
 */
bool restore_warm_record(const char *mdname, uint64_t size, bool peek, struct md_super *sb, char **note);

/*
 * The RAM member's size for line m of mdname: what a member needs
 * (md_member_size()) with auto, else the configured size, refused when
 * smaller than that. 0 with *size, or -1 with the item failed.
 */
int restore_size(struct boot_item *it, const struct conf_mirror *m, const char *mdname, uint64_t *size);

/*
 * Can a warm start bring mdname's RAM member of size bytes back, and under
 * which superblock (*sb): the one --release kept, else, with none kept and
 * an internal bitmap, one made from the array's (*made true). Never when
 * slots_move (the disks go to other slots first: md would not take that
 * member back), though a kept record is used up then too. False with *note
 * (malloc'd) saying why not, or NULL when there is nothing to say. peek:
 * a kept record is read, not used up (a dry run).
 */
bool restore_warm_choice(const char *mdname, uint64_t size, bool slots_move, bool peek, struct md_super *sb,
			 bool *made, char **note);

#endif
