// SPDX-License-Identifier: GPL-2.0
/* The --list table: column choice, sizes, raw output and its escaping. */
#include <stdlib.h>

#include "status/list_table.h"
#include "unit.h"

static char *render(const struct list_format *f, const struct rd_disk *d,
		    const struct disk_view *v, size_t n)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *out = open_memstream(&buf, &len);

	CHECK(out != NULL);
	if (!out)
		return NULL;
	CHECK(list_print(out, f, d, v, n) == 0);
	CHECK(fclose(out) == 0);
	return buf;
}

static void check_render(const struct list_format *f, const struct rd_disk *d,
			 const struct disk_view *v, size_t n, const char *want)
{
	char *got = render(f, d, v, n);

	CHECK_STR(got, want);
	free(got);
}

static struct list_format fmt(const char *cols, bool raw, bool noheadings, bool bytes)
{
	struct list_format f = { .raw = raw, .noheadings = noheadings, .bytes = bytes };
	char *err = NULL;

	if (cols)
		CHECK(list_format_parse(&f, cols, &err) == 0);
	CHECK(err == NULL);
	free(err);
	return f;
}

static void test_format_parse(void)
{
	struct list_format f = { 0 };
	char *err = NULL;

	CHECK(list_format_parse(&f, "name,Size,USED", &err) == 0);
	CHECK_U64(f.ncols, 3);
	/* "+COL" adds to the defaults (eleven of them) */
	f.ncols = 0;
	CHECK(list_format_parse(&f, "+HOLDERS", &err) == 0);
	CHECK_U64(f.ncols, 12);
	CHECK(list_format_parse(&f, "NAME,BOGUS", &err) < 0);
	CHECK(err && strstr(err, "unknown column 'BOGUS' in --output 'NAME,BOGUS'"));
	CHECK(err && strstr(err, "NAME, KIND, MAJ:MIN, SIZE"));
	free(err);
	CHECK(list_format_parse(&f, "NAME,", &err) < 0);
	CHECK(err && strstr(err, "unknown column ''"));
	free(err);
	list_format_all(&f);
	CHECK_U64(f.ncols, 14);
}

void test_list_table(void)
{
	static char md0[] = "md0", rd0[] = "rd0", rd1[] = "rd1", clean[] = "clean";
	static char recover[] = "recover", mnt[] = "/mnt/a b\n\033[31mred";
	char *holders[] = { md0 };
	struct rd_disk d[] = {
		{ .name = rd0, .index = 0, .size = 2ULL << 30, .has_allocated = true,
		  .allocated = 1536ULL << 20, .preallocated = 0, .has_devnum = true, .major = 252,
		  .holders = holders, .nholders = 1 },
		/* a mount point with a space, a newline and an escape sequence */
		{ .name = rd1, .index = 1, .size = 4096, .has_allocated = true, .allocated = 0,
		  .preallocated = 1, .mountpoint = mnt },
	};
	struct disk_view v[] = {
		{ .mirror = md0, .role = "rebuilding", .array_state = clean,
		  .sync_action = recover, .sync_percent = 42.25 },
		{ .sync_percent = -1 },
	};

	test_format_parse();
	/* an empty list prints nothing, not a lone header */
	check_render(&(struct list_format){ 0 }, d, v, 0, "");
	check_render(&(struct list_format){ 0 }, d, v, 2,
		     "NAME KIND SIZE  USED PREALLOC MIRROR ROLE       STATE SYNC     DONE MOUNTPOINT\n"
		     "rd0  ram    2G  1.5G no       md0    rebuilding clean recover 42.2% \n"
		     "rd1  ram    4K    0B yes                                            /mnt/a b\\x0a\\x1b[31mred\n");
	check_render(&(struct list_format){ .noheadings = true }, d, v, 0, "");
	{
		struct list_format f = fmt("NAME,SIZE,USED", true, true, false);

		check_render(&f, d, v, 2, "rd0 2G 1.5G\nrd1 4K 0B\n");
	}
	{
		struct list_format f = fmt("NAME,SIZE,USED,MAJ:MIN", true, false, true);

		check_render(&f, d, v, 2, "NAME SIZE USED MAJ:MIN\nrd0 2147483648 1610612736 252:0\nrd1 4096 0 \n");
	}
	{
		/* raw: a cell's spaces and control bytes never split or break a line */
		struct list_format f = fmt("NAME,MOUNTPOINT,HOLDERS", true, true, false);

		check_render(&f, d, v, 2, "rd0  md0\nrd1 /mnt/a\\x20b\\x0a\\x1b[31mred \n");
	}
}
