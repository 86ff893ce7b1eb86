/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The module's bound on the memory every rd disk holds together
 * (parameter mem_limit): the finding of a disk that had writes refused
 * for it.
 */
#ifndef RDCTL_MEM_LIMIT_H
#define RDCTL_MEM_LIMIT_H

#include <stddef.h>

#include "lib/sysfs.h"
#include "md/md.h"
#include "status/warnings.h"

/*
 * "ram_mem_limit", CRITICAL, for every disk with refused writes: what it
 * did not take is not on it (a RAM member's array has it on its disks,
 * md having failed the member), and it stays so until the disk is
 * copied afresh or detached. The message gives the limit, what the disks
 * hold, and what to run. A disk md took out of its array is that
 * array's still: left[i], the array disks[i] left (status.h), NULL when
 * none; left itself may be NULL.
 */
void mem_limit_warnings(const struct md_array *arrays, size_t narrays,
			const struct rd_disk *disks, char *const *left, size_t ndisks,
			const struct module_info *mod, struct warnings *w);

#endif
