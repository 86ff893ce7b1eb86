// SPDX-License-Identifier: GPL-2.0
#include "md/md.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <rdmirror.h>

#include "lib/config.h"
#include "lib/sysfs.h"
#include "lib/util.h"

bool md_name_is_rd(const char *name)
{
	unsigned index;

	return !strchr(name, '/') && rd_parse_name(name, &index);
}

enum md_kind md_member_kind(const char *name)
{
	char *path;
	bool comp;

	if (md_name_is_fast_disk(name))
		return MD_FAST_DISK;
	if (!md_name_is_rd(name))
		return MD_PERSISTENT;
	path = xasprintf("%s/block/%s/rdmirror/compressor", sysfs_root(), name);
	comp = path_exists(path);
	free(path);
	return comp ? MD_FAST_COMPRESSED : MD_FAST_RAM;
}

const char *md_kind_name(enum md_kind k)
{
	switch (k) {
	case MD_FAST_RAM:
		return "ram";
	case MD_FAST_COMPRESSED:
		return "compressed";
	case MD_FAST_DISK:
		return "disk";
	case MD_PERSISTENT:
		break;
	}
	return "persistent";
}

static char **fast_disks;
static size_t nfast_disks;

void md_fast_disk_add(const char *name)
{
	if (!name || md_name_is_fast_disk(name))
		return;
	fast_disks = xrealloc(fast_disks, nfast_disks + 1, sizeof(*fast_disks));
	fast_disks[nfast_disks++] = xstrdup(name);
}

bool md_name_is_fast_disk(const char *name)
{
	for (size_t i = 0; i < nfast_disks; i++)
		if (!strcmp(fast_disks[i], name))
			return true;
	return false;
}

char *md_block_name_of(const char *path)
{
	char *real = realpath(path, NULL), *base, *name;

	if (!real)
		return NULL;
	base = strrchr(real, '/');
	name = xstrdup(base ? base + 1 : real);
	free(real);
	return name;
}

void md_fast_disks_from_config(const struct config *c)
{
	for (size_t i = 0; i < c->n; i++) {
		char *name = c->v[i].member ? md_block_name_of(c->v[i].member) : NULL;

		md_fast_disk_add(name);
		free(name);
	}
}

/* Read an optional string attribute: ENOENT/EINVAL/EIO give NULL, other errors fail. */
static int read_opt_str(const char *dir, const char *attr, char **out)
{
	char *path = xasprintf("%s/%s", dir, attr);
	int r = read_text_file(path, out);

	free(path);
	if (r == -ENOENT || r == -EINVAL || r == -EIO || r == -ENXIO || r == -EBUSY) {
		*out = NULL;
		return 0;
	}
	return r;
}

/* An optional number attribute, at most max: -1 when absent, unparsable or above max. */
static int read_opt_num(const char *dir, const char *attr, uint64_t max, int64_t *out)
{
	char *s;
	uint64_t v;
	int r = read_opt_str(dir, attr, &s);

	*out = -1;
	if (r < 0)
		return r;
	if (s && parse_u64(s, &v) && v <= max)
		*out = (int64_t)v;
	free(s);
	return 0;
}

static int read_opt_int(const char *dir, const char *attr, int *out)
{
	int64_t v;
	int r = read_opt_num(dir, attr, INT32_MAX, &v);

	*out = (int)v;
	return r;
}

static bool has_flag(const char *list, const char *flag)
{
	size_t fl = strlen(flag);

	for (const char *p = list; p && *p; ) {
		const char *end = strchr(p, ',');
		size_t len = end ? (size_t)(end - p) : strlen(p);

		if (len == fl && !strncmp(p, flag, fl))
			return true;
		p = end ? end + 1 : NULL;
	}
	return false;
}

static int read_member(const char *mddir, const char *entry, struct md_member *m)
{
	char *dir = xasprintf("%s/%s", mddir, entry);
	int r;

	memset(m, 0, sizeof(*m));
	m->name = xstrdup(entry + 4);	/* skip "dev-" */
	m->kind = md_member_kind(m->name);
	r = read_opt_str(dir, "state", &m->state);
	if (r == 0)
		r = read_opt_int(dir, "slot", &m->slot);
	if (r == 0)
		r = read_opt_num(dir, "offset", INT64_MAX, &m->data_offset);
	for (size_t i = 0; i < 2 && r == 0; i++) {
		char *bb = NULL;

		r = read_opt_str(dir, i ? "unacknowledged_bad_blocks" : "bad_blocks", &bb);
		if (bb)
			md_ranges_parse(&m->bad, bb);
		free(bb);
	}
	free(dir);
	if (r < 0) {
		free(m->name);
		free(m->state);
		md_ranges_clear(&m->bad);
		memset(m, 0, sizeof(*m));
		return r;
	}
	m->write_mostly = has_flag(m->state, "write_mostly");
	m->in_sync = has_flag(m->state, "in_sync");
	m->spare = has_flag(m->state, "spare");
	m->write_error = has_flag(m->state, "write_error");
	/*
	 * md's state_show() prints "faulty" for Faulty and also for a member
	 * with unacknowledged bad blocks, "in_sync" for In_sync, and "spare"
	 * only without Faulty (and Journal, which raid1 has none of). A
	 * member that is not Faulty is In_sync or not: "in_sync" or "spare".
	 * raid1_error() clears In_sync before it sets Faulty, and
	 * raid1_spare_active() sets In_sync only without Faulty. So "faulty"
	 * with neither is md's Faulty, and with either a member md keeps.
	 */
	m->faulty = has_flag(m->state, "faulty") && !m->in_sync && !m->spare;
	return 0;
}

static int read_sync_completed(const char *dir, struct md_array *a)
{
	char *s;
	unsigned long long done, total;
	char tail;
	int r = read_opt_str(dir, "sync_completed", &s);

	if (r < 0)
		return r;
	if (s && sscanf(s, "%llu / %llu%c", &done, &total, &tail) == 2 && total > 0) {
		a->has_sync = true;
		a->sync_done = done;
		a->sync_total = total;
	}
	free(s);
	return 0;
}

int md_array_read(const char *name, struct md_array *a)
{
	char *dir = xasprintf("%s/block/%s/md", sysfs_root(), name);
	char **names = NULL, *s = NULL;
	size_t cnt = 0;
	uint64_t v;
	int r;

	memset(a, 0, sizeof(*a));
	a->name = xstrdup(name);
	r = list_dir(dir, &names, &cnt);
	if (r < 0) {
		r = (r == -ENOENT || r == -ENOTDIR) ? -ENODEV : r;
		goto out;
	}
	if ((r = read_opt_str(dir, "level", &a->level)) < 0 ||
	    (r = read_opt_str(dir, "array_state", &a->array_state)) < 0 ||
	    (r = read_opt_int(dir, "raid_disks", &a->raid_disks)) < 0 ||
	    (r = read_opt_int(dir, "degraded", &a->degraded)) < 0 ||
	    (r = read_opt_str(dir, "sync_action", &a->sync_action)) < 0 ||
	    (r = read_opt_int(dir, "bitmap/backlog", &a->write_behind)) < 0 ||
	    (r = read_sync_completed(dir, a)) < 0 ||
	    (r = read_opt_str(dir, "sync_speed", &s)) < 0)
		goto out;
	if (s && parse_u64(s, &v)) {
		a->has_speed = true;
		a->sync_speed = v;
	}
	for (size_t i = 0; i < cnt; i++) {
		struct md_member m;

		if (strncmp(names[i], "dev-", 4) || !names[i][4])
			continue;
		r = read_member(dir, names[i], &m);
		if (r < 0)
			goto out;
		a->members = xrealloc(a->members, a->nmembers + 1, sizeof(*a->members));
		a->members[a->nmembers++] = m;
	}
	r = 0;
out:
	free(s);
	free(dir);
	free_names(names, cnt);
	if (r < 0)
		md_array_clear(a);
	return r;
}

void md_array_clear(struct md_array *a)
{
	for (size_t i = 0; i < a->nmembers; i++) {
		free(a->members[i].name);
		free(a->members[i].state);
		md_ranges_clear(&a->members[i].bad);
	}
	free(a->members);
	free(a->name);
	free(a->level);
	free(a->array_state);
	free(a->sync_action);
	memset(a, 0, sizeof(*a));
}

int md_arrays_with_rd(struct md_array **arrays, size_t *n)
{
	char *path = xasprintf("%s/block", sysfs_root());
	char **names;
	size_t cnt, na = 0;
	struct md_array *v = NULL;
	int r = list_dir(path, &names, &cnt);

	free(path);
	*arrays = NULL;
	*n = 0;
	if (r < 0)
		return r;
	for (size_t i = 0; i < cnt; i++) {
		struct md_array a;
		bool has_rd = false;
		char *mddir = xasprintf("%s/block/%s/md", sysfs_root(), names[i]);
		bool is_md = path_exists(mddir);

		free(mddir);
		if (!is_md)
			continue;
		r = md_array_read(names[i], &a);
		if (r == -ENODEV)
			continue;
		if (r < 0) {
			md_arrays_free(v, na);
			free_names(names, cnt);
			return r;
		}
		for (size_t j = 0; j < a.nmembers; j++)
			has_rd |= md_is_fast(&a.members[j]);
		if (!has_rd) {
			md_array_clear(&a);
			continue;
		}
		v = xrealloc(v, na + 1, sizeof(*v));
		v[na++] = a;
	}
	free_names(names, cnt);
	*arrays = v;
	*n = na;
	return 0;
}

void md_arrays_free(struct md_array *arrays, size_t n)
{
	for (size_t i = 0; i < n; i++)
		md_array_clear(&arrays[i]);
	free(arrays);
}

bool md_sync_running(const struct md_array *a)
{
	const char *s = a->sync_action;

	return s && (!strcmp(s, "resync") || !strcmp(s, "recover") || !strcmp(s, "reshape"));
}

double md_sync_percent(const struct md_array *a)
{
	if (!a->has_sync || !a->sync_action || !strcmp(a->sync_action, "idle"))
		return -1;
	return (double)a->sync_done * 100.0 / (double)a->sync_total;
}

int64_t md_sync_eta(const struct md_array *a)
{
	uint64_t left;

	if (md_sync_percent(a) < 0 || !a->has_speed || a->sync_speed == 0)
		return -1;
	left = a->sync_total > a->sync_done ? a->sync_total - a->sync_done : 0;
	/* sectors of 512 bytes at KiB/s: seconds = left / 2 / speed */
	return (int64_t)(left / 2 / a->sync_speed);
}

void md_ram_only_ranges(const struct md_array *a, struct md_ranges *out)
{
	bool ram = false, first = true;

	memset(out, 0, sizeof(*out));
	for (size_t i = 0; i < a->nmembers; i++)
		ram |= md_is_fast(&a->members[i]) && a->members[i].in_sync && !a->members[i].faulty;
	if (!ram)
		return;
	for (size_t i = 0; i < a->nmembers; i++) {
		const struct md_member *m = &a->members[i];

		if (md_is_fast(m) || m->faulty || !m->in_sync)
			continue;
		if (first) {
			for (size_t j = 0; j < m->bad.n; j++)
				md_ranges_add(out, m->bad.v[j].start, m->bad.v[j].len);
			first = false;
		} else {
			md_ranges_intersect(out, &m->bad);
		}
		if (!out->n)
			return;
	}
}

bool md_ram_slot_low(const struct md_array *a)
{
	int ram = -1, top = -1;

	for (size_t i = 0; i < a->nmembers; i++) {
		const struct md_member *m = &a->members[i];

		if (m->faulty || m->slot < 0)
			continue;
		if (md_is_fast(m))
			ram = m->slot;
		else if (m->slot > top)
			top = m->slot;
	}
	return ram >= 0 && ram < top;
}

void md_count_slots(const struct md_array *a, int *slotted, int *persistent, int *top_persistent)
{
	*slotted = *persistent = 0;
	*top_persistent = -1;
	for (size_t i = 0; i < a->nmembers; i++) {
		const struct md_member *m = &a->members[i];

		if (m->faulty || m->slot < 0)
			continue;
		(*slotted)++;
		if (md_is_fast(m))
			continue;
		(*persistent)++;
		if (m->slot > *top_persistent)
			*top_persistent = m->slot;
	}
}
