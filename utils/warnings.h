/* SPDX-License-Identifier: GPL-2.0 */
/* The warnings --status shows: what a user of a RAM mirror must know. */
#ifndef RDCTL_WARNINGS_H
#define RDCTL_WARNINGS_H

#include <stddef.h>

#include "md.h"
#include "meminfo.h"
#include "sysfs.h"

struct warning {
	const char *code;	/* stable identifier, see rdctl.8 */
	char *array;		/* "md0" or NULL */
	char *device;		/* "sdc", "rd0" or NULL */
	char *message;		/* one line for people */
};

struct warnings {
	struct warning *v;
	size_t n;
};

/*
 * Compute the warnings:
 *   not_write_mostly   a persistent member is not write-mostly
 *   one_persistent     only one persistent member
 *   no_persistent      no persistent member at all (data lives in RAM only)
 *   ram_over_available an rd disk still needs more memory than is available
 *   sync_running       resync/recovery/reshape running
 *   degraded           the array is degraded
 *   ram_not_in_sync    an rd member is not in sync (faulty, spare, rebuilding)
 *   kernel_md_bug      the running kernel has a known md bug (kernel_bugs.h)
 *   want_replacement   a persistent member had write errors (md will replace it)
 *   ram_write_error    the RAM member failed a write and md kept it (bad blocks)
 *   write_behind       md acknowledges writes before the disks have them
 */
void warnings_compute(const struct md_array *arrays, size_t narrays,
		      const struct rd_disk *disks, size_t ndisks,
		      const struct meminfo *mi, struct warnings *w);
void warnings_free(struct warnings *w);

#endif
