/* SPDX-License-Identifier: GPL-2.0 */
/* The restore's steps on the array: assembled and running, write-mostly set. */
#ifndef RDCTL_ASSEMBLE_H
#define RDCTL_ASSEMBLE_H

#include "lib/config.h"
#include "mirror/boot.h"

/*
 * Step 1: find the array of m and make sure it runs. 0 and *mdname, or -1
 * with the error on the item. *note gets a remark for the summary (or NULL).
 */
int restore_bring_up(struct boot_item *it, const struct conf_mirror *m, char **mdname, char **note);
/*
 * The same for --restore --dry-run, nothing waited for or run: 0 and
 * *mdname when the array runs; 1 with *plan (what step 1 would do; *mdname
 * when it is known) when it does not; -errno with *plan the error.
 */
int restore_plan_bring_up(const struct conf_mirror *m, char **mdname, char **plan);
/*
 * Step 5: every working persistent member of mdname write-mostly, never
 * the RAM member; the ones set are named in it->wm. 0, or -1 with the
 * error on the item.
 */
int restore_fix_write_mostly(struct boot_item *it, const char *mdname);

#endif
