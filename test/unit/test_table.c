// SPDX-License-Identifier: GPL-2.0
/* The aligned-column renderer. */
#include <stdlib.h>

#include "table.h"
#include "unit.h"

static char *render(const struct table *t)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	CHECK(f != NULL);
	if (!f)
		return NULL;
	CHECK(table_print(t, f) == 0);
	CHECK(fclose(f) == 0);
	return buf;
}

void test_table(void)
{
	static const char *const hdr[] = { "NAME", "SIZE", "STATE" };
	static const bool right[] = { false, true, false };
	static const char *const r1[] = { "rd0", "2 GiB", "clean" };
	static const char *const r2[] = { "rd10", "512 MiB", NULL };
	static const char *const r3[] = { "a-much-longer-name", "1 B", "x" };
	struct table *t;
	char *out;

	/* empty table: header only, no trailing spaces */
	t = table_new(3, hdr, right);
	CHECK(table_rows(t) == 0);
	out = render(t);
	CHECK_STR(out, "NAME  SIZE  STATE\n");
	free(out);

	/* alignment: left columns padded, right column right-aligned, NULL is "-" */
	table_add_row(t, r1);
	table_add_row(t, r2);
	CHECK(table_rows(t) == 2);
	out = render(t);
	CHECK_STR(out,
		  "NAME     SIZE  STATE\n"
		  "rd0     2 GiB  clean\n"
		  "rd10  512 MiB  -\n");
	free(out);

	/* a long cell widens its column for every row */
	table_add_row(t, r3);
	out = render(t);
	CHECK_STR(out,
		  "NAME                   SIZE  STATE\n"
		  "rd0                   2 GiB  clean\n"
		  "rd10                512 MiB  -\n"
		  "a-much-longer-name      1 B  x\n");
	free(out);
	table_free(t);

	/* all left-aligned (right_align NULL), one column */
	t = table_new(1, hdr, NULL);
	table_add_row(t, r1);
	out = render(t);
	CHECK_STR(out, "NAME\nrd0\n");
	free(out);
	table_free(t);
}
