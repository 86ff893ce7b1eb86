/* SPDX-License-Identifier: GPL-2.0 */
/* Refusals shared by the verbs that change memory or mirrors. */
#ifndef RDCTL_CHECKS_H
#define RDCTL_CHECKS_H

#include <stdbool.h>
#include <stdint.h>

#include "md/md.h"

/* Refuse needing more than MemAvailable unless --ignore-memory (what: "attaching this disk"). */
int check_memory(bool ignore_memory, uint64_t need, const char *what);

/*
 * The memory refusal of a verb's RAM member of size: check_memory(); a
 * compressed one (comp) may be larger than RAM and gets its bound
 * instead, c->mem_limit (compress.h), refused when too little is spare.
 * 0 or an exit code with the error recorded.
 */
struct mirror_ctx;
int mirror_check_memory(struct mirror_ctx *c, unsigned comp, uint64_t size);
/* Refuse a kernel with a known md bug that loses a RAM mirror's data, unless --ignore-kernel-bug. */
int check_kernel_bug(bool ignore_kernel_bug, const char *verb);

/*
 * The refusals of the verbs that take a RAM member out or put one in, each
 * written once here: NULL when the array passes, else the refusal's text
 * (malloc'd) for the caller to record (fail_errno(), boot_item_fail()).
 */

/* Record why (taken) as the error, with errno e: true; false when why is NULL. */
bool refused(int e, char *why);

/* Only a RAID1 is mirrored (name: the array as the caller names it). */
char *refuse_not_raid1(const char *name, const struct md_array *a);

/*
 * Ranges that every persistent member has recorded bad (md's bad-block log)
 * exist only in RAM: taking the RAM member rd out (doing: "releasing",
 * "reverting", "refreshing") loses them. subject is what the refusal names
 * ("rd0", or the array as given); of_array, when not NULL, is said as "every
 * disk of of_array"; mdpath is what mdadm is given.
 */
char *refuse_ram_only(const struct md_array *a, const char *doing, const char *subject, const char *of_array,
		      const char *rd, const char *mdpath);

/*
 * Taking the RAM member out (doing: "reverting", "refreshing") needs every
 * persistent member in a slot in sync, and one at least: until then only
 * RAM holds all the data. array: as given; mdpath: what mdadm is given.
 */
char *refuse_ram_holds_all(const struct md_array *a, const char *doing, const char *array, const char *mdpath);

/*
 * --release ARRAY takes out a RAM member or stops a warm-up: an array
 * (kname, given as array) with neither has nothing to release (ENOENT).
 */
char *refuse_nothing_to_release(const struct md_array *a, const char *array, const char *kname);

/*
 * Failing the RAM member rd of a needs a persistent member in sync, not
 * failed (EBUSY): without one, a recovery from RAM still runs and the data
 * is only in RAM. (Weaker than refuse_ram_holds_all(): a disk still
 * recovering beside one in sync does not hold --release back, which runs
 * at shutdown, when the memory goes whatever rdctl does.)
 */
char *refuse_no_disk_in_sync(const struct md_array *a, const char *rd);

#endif
