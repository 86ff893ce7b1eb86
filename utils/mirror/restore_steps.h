/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What restore.c's steps and restore_add.c's add of the fast member share:
 * small md and rd operations on one line's array, each failing the line's
 * item (boot_item_fail()).
 */
#ifndef RDCTL_RESTORE_STEPS_H
#define RDCTL_RESTORE_STEPS_H

#include "md/md.h"
#include "mirror/boot.h"

/* The RAM member of a, or NULL. */
const struct md_member *restore_rd_member(const struct md_array *a);

/* rdN detached. 0, or an exit code with the error recorded (lib/errors.h). */
int restore_detach_disk(unsigned index);

/* The item's disks made write-mostly, as words for its summary (malloc'd). */
char *restore_join_wm(const struct boot_item *it);

/*
 * "mdadm --grow DEV --raid-devices=N", after mdadm.conf's entry for the
 * array has lost num-devices= (mdadm_conf_fit_count()). 0, or -1 with the
 * error on the item.
 */
int restore_grow_to(struct boot_item *it, const char *dev, int n);

#endif
