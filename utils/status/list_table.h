/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The --list table: its columns, the -o/--output choice, and printing
 * through libsmartcols (the library util-linux prints lsblk and zramctl
 * with), which escapes unsafe bytes and gives --raw and --noheadings.
 */
#ifndef RDCTL_LIST_TABLE_H
#define RDCTL_LIST_TABLE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "lib/sysfs.h"
#include "status/view.h"

#define LIST_MAX_COLUMNS 32

struct list_format {
	int cols[LIST_MAX_COLUMNS];	/* column ids, in print order */
	size_t ncols;			/* 0: the default columns */
	bool raw, noheadings, bytes;
};

/*
 * Parse a -o/--output argument: "NAME,SIZE" replaces the columns, "+MOUNTPOINT"
 * appends to the defaults (as lsblk). Names are case-insensitive. 0, or -1
 * with *err set to a malloc'd message naming the bad column and the valid ones.
 */
int list_format_parse(struct list_format *f, const char *arg, char **err);
/* Select every column (--output-all). */
void list_format_all(struct list_format *f);
/* The column names and what each holds, one per line, for --help. malloc'd. */
char *list_columns_help(void);

/* "ram", "compressed" or "disk" (a mirror's member disk): the KIND of --list. */
const char *list_disk_kind(const struct rd_disk *d);

/*
 * The member disks the configuration (config: --config, or NULL) names,
 * appended to disks and views as --list shows them: kind disk, their
 * size, their mirror. 0 or -errno.
 */
int list_member_disks(const char *config, struct rd_disk **disks, struct disk_view **views, size_t *n);

/* Print the table to f; nothing at all when n == 0. 0 or -1 on a write error. */
int list_print(FILE *f, const struct list_format *fmt, const struct rd_disk *disks,
	       const struct disk_view *views, size_t n);

#endif
