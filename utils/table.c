// SPDX-License-Identifier: GPL-2.0
#include "table.h"

#include <stdlib.h>
#include <string.h>

#include "util.h"

struct table {
	size_t ncols, nrows;
	char **headers;
	bool *right;
	char ***rows;
};

struct table *table_new(size_t ncols, const char *const *headers, const bool *right_align)
{
	struct table *t = xcalloc(1, sizeof(*t));

	t->ncols = ncols;
	t->headers = xcalloc(ncols, sizeof(char *));
	t->right = xcalloc(ncols, sizeof(bool));
	for (size_t i = 0; i < ncols; i++) {
		t->headers[i] = xstrdup(headers[i] ? headers[i] : "");
		t->right[i] = right_align ? right_align[i] : false;
	}
	return t;
}

void table_add_row(struct table *t, const char *const *cells)
{
	char **row = xcalloc(t->ncols, sizeof(char *));

	for (size_t i = 0; i < t->ncols; i++)
		row[i] = xstrdup(cells[i] ? cells[i] : "-");
	t->rows = xrealloc(t->rows, t->nrows + 1, sizeof(*t->rows));
	t->rows[t->nrows++] = row;
}

size_t table_rows(const struct table *t)
{
	return t->nrows;
}

static int print_row(const struct table *t, const size_t *width, char *const *cells, FILE *f)
{
	for (size_t i = 0; i < t->ncols; i++) {
		size_t len = strlen(cells[i]);
		size_t pad = width[i] - len;
		bool last = i + 1 == t->ncols;

		if (t->right[i] && fprintf(f, "%*s", (int)pad, "") < 0)
			return -1;
		if (fputs(cells[i], f) == EOF)
			return -1;
		if (!t->right[i] && !last && fprintf(f, "%*s", (int)pad, "") < 0)
			return -1;
		if (!last && fputs("  ", f) == EOF)
			return -1;
	}
	return fputc('\n', f) == EOF ? -1 : 0;
}

int table_print(const struct table *t, FILE *f)
{
	size_t *width = xcalloc(t->ncols, sizeof(size_t));
	int r = 0;

	for (size_t i = 0; i < t->ncols; i++) {
		width[i] = strlen(t->headers[i]);
		for (size_t j = 0; j < t->nrows; j++) {
			size_t len = strlen(t->rows[j][i]);

			if (len > width[i])
				width[i] = len;
		}
	}
	if (print_row(t, width, t->headers, f) < 0)
		r = -1;
	for (size_t j = 0; r == 0 && j < t->nrows; j++)
		if (print_row(t, width, t->rows[j], f) < 0)
			r = -1;
	free(width);
	return r;
}

void table_free(struct table *t)
{
	if (!t)
		return;
	for (size_t j = 0; j < t->nrows; j++) {
		for (size_t i = 0; i < t->ncols; i++)
			free(t->rows[j][i]);
		free(t->rows[j]);
	}
	for (size_t i = 0; i < t->ncols; i++)
		free(t->headers[i]);
	free(t->rows);
	free(t->headers);
	free(t->right);
	free(t);
}
