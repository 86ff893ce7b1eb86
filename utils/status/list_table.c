// SPDX-License-Identifier: GPL-2.0
#include "status/list_table.h"

#include <errno.h>
#include <libsmartcols.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "lib/config.h"
#include "lib/util.h"
#include "md/md.h"
#include "status/compressed.h"

enum list_col {
	COL_NAME, COL_KIND, COL_MAJMIN, COL_SIZE, COL_USED, COL_RATIO, COL_PREALLOC, COL_MIRROR, COL_ROLE,
	COL_STATE, COL_SYNC, COL_DONE, COL_MOUNTPOINT, COL_HOLDERS,
};

static const struct {
	const char *name;
	double whint;		/* libsmartcols width hint: < 1 is a share of the line */
	int flags;
	const char *help;
} columns[] = {
	[COL_NAME]	 = { "NAME", 4, 0, "the disk's name (rd0, or a mirror's member disk)" },
	[COL_KIND]	 = { "KIND", 4, 0, "ram, compressed (an rd disk created compressed) or disk (a mirror's member disk)" },
	[COL_MAJMIN]	 = { "MAJ:MIN", 6, 0, "major:minor device number" },
	[COL_SIZE]	 = { "SIZE", 5, SCOLS_FL_RIGHT, "the disk's size" },
	[COL_USED]	 = { "USED", 5, SCOLS_FL_RIGHT, "RAM the disk holds now" },
	[COL_RATIO]	 = { "RATIO", 5, SCOLS_FL_RIGHT, "a compressed disk's data over the RAM it takes (3.02)" },
	[COL_PREALLOC]	 = { "PREALLOC", 3, 0, "all memory allocated at attach (yes/no)" },
	[COL_MIRROR]	 = { "MIRROR", 5, 0, "the md array using the disk (or another holder)" },
	[COL_ROLE]	 = { "ROLE", 6, 0, "active, rebuilding, spare, faulty or member" },
	[COL_STATE]	 = { "STATE", 5, 0, "the mirror's array state (clean, active, ...)" },
	[COL_SYNC]	 = { "SYNC", 4, 0, "the mirror's running sync action (recover, resync, check)" },
	[COL_DONE]	 = { "DONE", 5, SCOLS_FL_RIGHT, "how far that sync action is (42.0%)" },
	[COL_MOUNTPOINT] = { "MOUNTPOINT", 0.3, SCOLS_FL_TRUNC, "where the disk is mounted" },
	[COL_HOLDERS]	 = { "HOLDERS", 6, 0, "every holder of the disk, comma-separated" },
};

#define NCOLUMNS (sizeof(columns) / sizeof(columns[0]))

static const int default_cols[] = {
	COL_NAME, COL_KIND, COL_SIZE, COL_USED, COL_PREALLOC, COL_MIRROR, COL_ROLE, COL_STATE,
	COL_SYNC, COL_DONE, COL_MOUNTPOINT,
};

static int column_id(const char *name, size_t len)
{
	for (size_t i = 0; i < NCOLUMNS; i++)
		if (strlen(columns[i].name) == len && !strncasecmp(columns[i].name, name, len))
			return (int)i;
	return -1;
}

static char *column_names(void)
{
	char *s = xstrdup(""), *t;

	for (size_t i = 0; i < NCOLUMNS; i++) {
		t = xasprintf("%s%s%s", s, i ? ", " : "", columns[i].name);
		free(s);
		s = t;
	}
	return s;
}

static int add_col(struct list_format *f, int id, char **err)
{
	if (f->ncols == LIST_MAX_COLUMNS) {
		*err = xasprintf("too many columns in --output (at most %d)", LIST_MAX_COLUMNS);
		return -1;
	}
	f->cols[f->ncols++] = id;
	return 0;
}

int list_format_parse(struct list_format *f, const char *arg, char **err)
{
	const char *p = arg;

	*err = NULL;
	if (*p == '+') {
		if (f->ncols == 0)
			for (size_t i = 0; i < sizeof(default_cols) / sizeof(default_cols[0]); i++)
				f->cols[f->ncols++] = default_cols[i];
		p++;
	} else {
		f->ncols = 0;
	}
	for (;;) {
		size_t len = strcspn(p, ",");
		int id = column_id(p, len);

		if (id < 0) {
			char *names = column_names();

			*err = xasprintf("unknown column '%.*s' in --output '%s': the columns are %s",
					 (int)len, p, arg, names);
			free(names);
			return -1;
		}
		if (add_col(f, id, err) < 0)
			return -1;
		if (!p[len])
			return 0;
		p += len + 1;
	}
}

void list_format_all(struct list_format *f)
{
	f->ncols = 0;
	for (size_t i = 0; i < NCOLUMNS; i++)
		f->cols[f->ncols++] = (int)i;
}

char *list_columns_help(void)
{
	char *s = xstrdup(""), *t;

	for (size_t i = 0; i < NCOLUMNS; i++) {
		t = xasprintf("%s  %-11s %s\n", s, columns[i].name, columns[i].help);
		free(s);
		s = t;
	}
	return s;
}

/* Sizes as lsblk and zramctl print them: 0B, 4K, 512M, 1.5G. */
static char *size_short(uint64_t bytes)
{
	static const char units[] = "BKMGTPE";
	unsigned u = 0;
	uint64_t whole = bytes;
	unsigned tenth;

	while (whole >= 1024 && u < 6) {
		whole /= 1024;
		u++;
	}
	if (u == 0)
		return xasprintf("%lluB", (unsigned long long)bytes);
	/* one decimal of the remainder, rounded to nearest */
	tenth = (unsigned)(((bytes - (whole << (10 * u))) * 10 + (1ULL << (10 * u - 1))) >> (10 * u));
	if (tenth >= 10) {
		whole++;
		tenth = 0;
	}
	if (tenth == 0)
		return xasprintf("%llu%c", (unsigned long long)whole, units[u]);
	return xasprintf("%llu.%u%c", (unsigned long long)whole, tenth, units[u]);
}

static char *size_cell(const struct list_format *f, uint64_t bytes)
{
	return f->bytes ? xasprintf("%llu", (unsigned long long)bytes) : size_short(bytes);
}

static char *holders_cell(const struct rd_disk *d)
{
	char *s = NULL, *t;

	for (size_t i = 0; i < d->nholders; i++) {
		t = xasprintf("%s%s%s", s ? s : "", s ? "," : "", d->holders[i]);
		free(s);
		s = t;
	}
	return s;
}

const char *list_disk_kind(const struct rd_disk *d)
{
	unsigned index;

	if (!rd_parse_name(d->name, &index))
		return "disk";
	return d->compressor ? "compressed" : "ram";
}

int list_member_disks(const char *config, struct rd_disk **disks, struct disk_view **views, size_t *n)
{
	struct config cfg;
	int r = 0;

	if (config_read(config_path(config), &cfg) < 0) {
		config_free(&cfg);
		return 0;
	}
	for (size_t i = 0; i < cfg.n && r == 0; i++) {
		char *name = cfg.v[i].member ? md_block_name_of(cfg.v[i].member) : NULL;
		char *p;
		uint64_t sectors = 0;
		struct rd_disk *d;

		if (!name)
			continue;
		*disks = xrealloc(*disks, *n + 1, sizeof(**disks));
		*views = xrealloc(*views, *n + 1, sizeof(**views));
		d = &(*disks)[*n];
		memset(d, 0, sizeof(*d));
		d->name = name;
		d->preallocated = -1;
		d->memory_errors = d->replaced_pages = d->refused_writes = -1;
		d->data_bytes = d->mem_limit = d->same_pages = d->huge_pages = d->checksum_errors = -1;
		p = xasprintf("%s/class/block/%s/size", sysfs_root(), name);
		if (read_u64_file(p, &sectors) == 0)
			d->size = sectors * 512;
		free(p);
		p = xasprintf("%s/class/block/%s/holders", sysfs_root(), name);
		r = list_dir(p, &d->holders, &d->nholders);
		free(p);
		if (r == -ENOENT)
			r = 0;
		if (r == 0)
			r = disk_view_read(d, &(*views)[*n]);
		else
			memset(&(*views)[*n], 0, sizeof(**views));
		(*n)++;
	}
	config_free(&cfg);
	return r;
}

/* The cell of column id for one disk: malloc'd, or NULL for an empty cell. */
static char *cell(const struct list_format *f, int id, const struct rd_disk *d,
		  const struct disk_view *v)
{
	switch (id) {
	case COL_NAME:
		return xstrdup(d->name);
	case COL_KIND:
		return xstrdup(list_disk_kind(d));
	case COL_RATIO:
		return compressed_ratio(d) >= 0 ? xasprintf("%.2f", compressed_ratio(d)) : NULL;
	case COL_MAJMIN:
		return d->has_devnum ? xasprintf("%u:%u", d->major, d->minor) : NULL;
	case COL_SIZE:
		return size_cell(f, d->size);
	case COL_USED:
		return d->has_allocated ? size_cell(f, d->allocated) : NULL;
	case COL_PREALLOC:
		return d->preallocated < 0 ? NULL : xstrdup(d->preallocated ? "yes" : "no");
	case COL_MIRROR:
		return v->mirror ? xstrdup(v->mirror) : NULL;
	case COL_ROLE:
		return v->role ? xstrdup(v->role) : NULL;
	case COL_STATE:
		return v->array_state ? xstrdup(v->array_state) : NULL;
	case COL_SYNC:
		return v->sync_action ? xstrdup(v->sync_action) : NULL;
	case COL_DONE:
		return v->sync_percent >= 0 ? xasprintf("%.1f%%", v->sync_percent) : NULL;
	case COL_MOUNTPOINT:
		return d->mountpoint ? xstrdup(d->mountpoint) : NULL;
	case COL_HOLDERS:
		return holders_cell(d);
	default:
		return NULL;
	}
}

static struct libscols_table *new_table(const struct list_format *f, const int *cols, size_t ncols)
{
	struct libscols_table *tb = scols_new_table();

	if (!tb)
		oom();
	scols_table_enable_raw(tb, f->raw);
	scols_table_enable_noheadings(tb, f->noheadings);
	for (size_t i = 0; i < ncols; i++) {
		int flags = columns[cols[i]].flags;

		/* --raw prints whole cells: nothing to truncate */
		if (f->raw)
			flags &= ~SCOLS_FL_TRUNC;
		if (!scols_table_new_column(tb, columns[cols[i]].name, columns[cols[i]].whint, flags))
			oom();
	}
	return tb;
}

int list_print(FILE *out, const struct list_format *f, const struct rd_disk *disks,
	       const struct disk_view *views, size_t n)
{
	const int *cols = f->ncols ? f->cols : default_cols;
	size_t ncols = f->ncols ? f->ncols : sizeof(default_cols) / sizeof(default_cols[0]);
	struct libscols_table *tb;
	int r;

	if (n == 0)
		return 0;
	tb = new_table(f, cols, ncols);
	for (size_t i = 0; i < n; i++) {
		struct libscols_line *ln = scols_table_new_line(tb, NULL);

		if (!ln)
			oom();
		for (size_t c = 0; c < ncols; c++) {
			char *s = cell(f, cols[c], &disks[i], &views[i]);

			/* refer: the table frees the cell */
			if (s && scols_line_refer_data(ln, c, s) < 0)
				oom();
		}
	}
	scols_table_set_stream(tb, out);
	r = scols_print_table(tb);
	scols_unref_table(tb);
	return r < 0 ? -1 : 0;
}
