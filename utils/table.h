/* SPDX-License-Identifier: GPL-2.0 */
/* Aligned-column text tables. */
#ifndef RDCTL_TABLE_H
#define RDCTL_TABLE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

struct table;

/* ncols headers; right_align[i] true right-aligns column i (may be NULL). */
struct table *table_new(size_t ncols, const char *const *headers, const bool *right_align);
/* Add a row of ncols cells (copied; NULL prints as "-"). */
void table_add_row(struct table *t, const char *const *cells);
size_t table_rows(const struct table *t);
/*
 * Print header and rows, columns separated by two spaces, no trailing
 * spaces. An empty table prints the header only. Returns 0 or -1 on a
 * write error.
 */
int table_print(const struct table *t, FILE *f);
void table_free(struct table *t);

#endif
