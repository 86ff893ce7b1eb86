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
 * reserve kept? 0, or -1 with the item refused (action "refused").
 */
int restore_fits(struct boot_item *it, const struct config *cfg, const char *mdname, uint64_t size);

/*
 * The superblock --release kept of mdname's RAM member, when a warm start
 * can use it (true, *sb). False with *note (malloc'd) saying why a record
 * cannot be used, or with *note NULL when there is none. The record is
 * used up, unless peek (a dry run: read, left where it is).
 */
bool restore_warm_record(const char *mdname, uint64_t size, bool peek, struct md_super *sb, char **note);

#endif
