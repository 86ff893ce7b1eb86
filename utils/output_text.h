/* SPDX-License-Identifier: GPL-2.0 */
/* Output for people: the --status report (the --list table: list_table.h). */
#ifndef RDCTL_OUTPUT_TEXT_H
#define RDCTL_OUTPUT_TEXT_H

#include <stddef.h>
#include <stdio.h>

#include "md.h"
#include "meminfo.h"
#include "sysfs.h"
#include "view.h"
#include "warnings.h"

/* 0 or -1 on a write error. */
int text_status(FILE *f, const struct module_info *mod, const struct meminfo *mi,
		const struct rd_disk *disks, size_t ndisks,
		const struct md_array *arrays, size_t narrays, const struct warnings *w);

#endif
