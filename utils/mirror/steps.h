/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The steps that --create, --convert, --revert and --refresh share (each
 * verb: mirror/<verb>.c).
 *
 * The one rule behind every step: md copies a RAID1 from an in-sync
 * member to the others, and a freshly attached RAM disk holds zeros. So
 * the RAM disk only ever joins as a member that md *recovers* (a spare
 * filling a free slot): md then copies disk -> RAM, never RAM -> disk.
 *   create   mdadm --create with the disks, all write-mostly, and the RAM
 *            slot "missing"; then attach and --add the RAM disk.
 *   convert  attach and --add the RAM disk (a spare), then grow
 *            raid-devices by one: md recovers the spare into the new slot.
 *   revert   fail and remove the RAM member (only while a persistent
 *            member is in sync), shrink raid-devices, detach.
 *   refresh  a RAM member that left attached and added again: a recovery.
 * A step that fails is undone where that is safe, and the error says
 * what state the array is in and the command that finishes or undoes it.
 */
#ifndef RDCTL_STEPS_H
#define RDCTL_STEPS_H

#include <stdbool.h>
#include <stddef.h>

#include "md/md.h"
#include "mirror/mirror.h"
#include "mirror/options.h"

/*
 * Root and the lock first (lock.h). A dry run changes nothing: it takes no
 * lock, and needs no root to read what sysfs shows (--convert, --revert);
 * --create's opens the disks (create_dry_root()).
 */
int mirror_begin(const struct mirror_opts *o, const char *verb);

/*
 * ARRAY as the user wrote it: /dev/mdN, mdN or /dev/md/NAME. *path is
 * what mdadm is given; *kname the kernel name when it exists or is
 * fixed by the form (mdN), else NULL. 0 or a usage error.
 */
int mirror_parse_array(const char *arg, char **path, char **kname);

/*
 * An existing, running array, given as mirror_parse_array() takes it or as
 * UUID=... (as mdadm --detail prints it, any case): its kernel name and
 * path, or an error.
 */
int mirror_find_array(const char *arg, char **path, char **kname, struct md_array *a);

struct mirror_ctx;

/*
 * The step that attaches the fresh RAM disk of --create, --convert and
 * --refresh: of c->r's size, preallocation and compression (a compressed
 * one without its bound yet, --refresh's, gets it now); c->rdpath
 * its path (a dry run: DEV/rdN). 0 or an exit code.
 */
int mirror_step_attach(struct mirror_ctx *c);

/* The array's RAM member (rdN), or NULL. */
const struct md_member *mirror_rd_member(const struct md_array *a);

/* "mdadm MD --add /dev/rdN" of the fresh RAM disk, its metadata space
 * made ready first (rd_prepare.h). 0 or an exit code. */
int mirror_add_ram(struct mirror_run *r, const char *mdpath, const char *kname, const char *rdpath);

/*
 * The attached RAM disk r->rd (of r->size) back into kname's empty slot by
 * the warm-up copy (warmup.h), under a superblock made from the array's
 * (warm_super.h): md recovers only what is written during the copy. 1 when
 * it started (or is planned, dry run); 0 with *why when it cannot be used
 * (no internal bitmap, no empty slot, ...): the caller adds the disk, and
 * md recovers it whole.
 */
int mirror_warm_ram(struct mirror_run *r, const char *kname, const char *conf_path, char **why);

/* The note when mirror_warm_ram() gave why (taken; NULL: nothing to say): md recovers the disk in full. */
void mirror_note_cold(struct mirror_run *r, char *why);

/* The RAM member's sync state in words (or the warm-up's), and --wait. */
int mirror_finish_sync(struct mirror_run *r, const struct mirror_opts *o, const char *kname);

/* create and convert, once the RAM member is in: the configuration line,
 * the mdadm.conf check, the sync state (and --wait). 0 or an exit code. */
int mirror_finish(struct mirror_run *r, const struct mirror_opts *o, const char *kname, const char *mdpath);

/* Print the summary text (taken) unless --json or --dry-run. 0 or an exit code. */
int mirror_print_summary(struct mirror_run *r, char *text);

/* Write-mostly on (convert) or off (revert) for every working persistent member. */
int mirror_set_write_mostly(struct mirror_run *r, const struct md_array *a, bool on);

#endif
