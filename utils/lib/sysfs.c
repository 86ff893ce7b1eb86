// SPDX-License-Identifier: GPL-2.0
#include "lib/sysfs.h"

#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <rdmirror.h>

#include "lib/mounts.h"
#include "lib/util.h"

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

int list_dir(const char *path, char ***names, size_t *n)
{
	DIR *dir = opendir(path);
	struct dirent *de;
	char **v = NULL;
	size_t cnt = 0;

	*names = NULL;
	*n = 0;
	if (!dir)
		return -errno;
	for (;;) {
		errno = 0;
		de = readdir(dir);
		if (!de)
			break;
		if (de->d_name[0] == '.')
			continue;
		v = xrealloc(v, cnt + 1, sizeof(*v));
		v[cnt++] = xstrdup(de->d_name);
	}
	if (errno) {
		int e = errno;

		free_names(v, cnt);
		closedir(dir);
		return -e;
	}
	if (closedir(dir) < 0) {
		int e = errno;

		free_names(v, cnt);
		return -e;
	}
	if (cnt)
		qsort(v, cnt, sizeof(*v), cmp_str);
	*names = v;
	*n = cnt;
	return 0;
}

void free_names(char **names, size_t n)
{
	for (size_t i = 0; i < n; i++)
		free(names[i]);
	free(names);
}

static bool parse_index(const char *s, unsigned *index)
{
	uint64_t v;

	if (!*s || (s[0] == '0' && s[1]) || !parse_u64(s, &v) || v > UINT32_MAX)
		return false;
	*index = (unsigned)v;
	return true;
}

bool rd_parse_name(const char *arg, unsigned *index)
{
	size_t plen = strlen(RDMIRROR_DISK_PREFIX);

	if (!arg)
		return false;
	if (!strncmp(arg, "/dev/", 5))
		arg += 5;
	if (strncmp(arg, RDMIRROR_DISK_PREFIX, plen))
		return false;
	return parse_index(arg + plen, index);
}

static int read_devnum(const char *dir, struct rd_disk *d)
{
	char *path = xasprintf("%s/dev", dir), *s;
	int r = read_text_file(path, &s);

	free(path);
	if (r < 0)
		return r;
	if (sscanf(s, "%u:%u", &d->major, &d->minor) == 2)
		d->has_devnum = true;
	free(s);
	return 0;
}

/* rdmirror/NAME of a disk: a count, or -1 in *out where there is none. */
static int read_count(const char *dir, const char *name, int64_t *out)
{
	char *path = xasprintf("%s/rdmirror/%s", dir, name);
	uint64_t v;
	int r = read_u64_file(path, &v);

	free(path);
	if (r == -ENOENT)
		return 0;
	if (r < 0)
		return r;
	*out = v > INT64_MAX ? INT64_MAX : (int64_t)v;
	return 0;
}

/* A compressed disk's files (RDMIRROR_ADD_COMPRESS in rdmirror.h): none when it has no compressor file. */
static int read_compressed(const char *dir, struct rd_disk *d)
{
	char *path = xasprintf("%s/rdmirror/compressor", dir);
	int r = read_text_file(path, &d->compressor);

	free(path);
	if (r == -ENOENT) {
		d->compressor = NULL;
		return 0;
	}
	if (r < 0)
		return r;
	if ((r = read_count(dir, "data_bytes", &d->data_bytes)) < 0 ||
	    (r = read_count(dir, "mem_limit", &d->mem_limit)) < 0 ||
	    (r = read_count(dir, "same_pages", &d->same_pages)) < 0 ||
	    (r = read_count(dir, "huge_pages", &d->huge_pages)) < 0)
		return r;
	return read_count(dir, "checksum_errors", &d->checksum_errors);
}

int rd_disk_read(unsigned index, struct rd_disk *d)
{
	char *dir = xasprintf("%s/block/%s%u", sysfs_root(), RDMIRROR_DISK_PREFIX, index);
	char *path;
	uint64_t v;
	int r;

	memset(d, 0, sizeof(*d));
	d->preallocated = -1;
	d->memory_errors = d->replaced_pages = d->refused_writes = -1;
	d->data_bytes = d->mem_limit = d->same_pages = d->huge_pages = d->checksum_errors = -1;
	d->index = index;
	d->name = xasprintf("%s%u", RDMIRROR_DISK_PREFIX, index);

	path = xasprintf("%s/size", dir);
	r = read_u64_file(path, &v);
	free(path);
	if (r < 0) {
		r = (r == -ENOENT) ? -ENODEV : r;
		goto fail;
	}
	if (v > UINT64_MAX / 512) {
		r = -EOVERFLOW;
		goto fail;
	}
	d->size = v * 512;

	path = xasprintf("%s/rdmirror/allocated_bytes", dir);
	r = read_u64_file(path, &v);
	free(path);
	if (r == 0) {
		d->has_allocated = true;
		d->allocated = v;
	} else if (r != -ENOENT) {
		goto fail;
	}

	path = xasprintf("%s/rdmirror/preallocated", dir);
	r = read_u64_file(path, &v);
	free(path);
	if (r == 0)
		d->preallocated = v ? 1 : 0;
	else if (r != -ENOENT)
		goto fail;

	if ((r = read_count(dir, "memory_errors", &d->memory_errors)) < 0 ||
	    (r = read_count(dir, "replaced_pages", &d->replaced_pages)) < 0 ||
	    (r = read_count(dir, "refused_writes", &d->refused_writes)) < 0)
		goto fail;
	if ((r = read_compressed(dir, d)) < 0)
		goto fail;

	path = xasprintf("%s/queue/iostats", dir);
	r = read_u64_file(path, &v);
	free(path);
	if (r == 0)
		d->io_uncounted = v == 0;
	else if (r != -ENOENT)
		goto fail;

	r = read_devnum(dir, d);
	if (r < 0 && r != -ENOENT)
		goto fail;

	path = xasprintf("%s/holders", dir);
	r = list_dir(path, &d->holders, &d->nholders);
	free(path);
	if (r < 0 && r != -ENOENT)
		goto fail;

	if (d->has_devnum) {
		r = mount_point_of(d->major, d->minor, &d->mountpoint);
		if (r < 0 && r != -ENOENT)
			goto fail;
	}
	free(dir);
	return 0;
fail:
	free(dir);
	rd_disk_clear(d);
	return r;
}

int rd_disk_count_io(unsigned index)
{
	char *path = xasprintf("%s/block/%s%u/queue/iostats", sysfs_root(), RDMIRROR_DISK_PREFIX, index);
	int r = write_text_file(path, "1");

	free(path);
	return r;
}

int64_t block_reads(const char *dev)
{
	static const char *const where[] = { "class/block", "block" };

	for (size_t i = 0; i < 2; i++) {
		char *path = xasprintf("%s/%s/%s/stat", sysfs_root(), where[i], dev), *text = NULL;
		unsigned long long n;
		int ok = read_text_file(path, &text) == 0 && sscanf(text, "%llu", &n) == 1;

		free(path);
		free(text);
		if (ok)
			return n > INT64_MAX ? INT64_MAX : (int64_t)n;
	}
	return -1;
}

void rd_disk_clear(struct rd_disk *d)
{
	free(d->name);
	free_names(d->holders, d->nholders);
	free(d->mountpoint);
	free(d->compressor);
	memset(d, 0, sizeof(*d));
}

static int cmp_disk(const void *a, const void *b)
{
	const struct rd_disk *x = a, *y = b;

	return (x->index > y->index) - (x->index < y->index);
}

int rd_disks_list(struct rd_disk **disks, size_t *n)
{
	char *path = xasprintf("%s/block", sysfs_root());
	char **names;
	size_t cnt, nd = 0;
	struct rd_disk *v = NULL;
	int r = list_dir(path, &names, &cnt);

	free(path);
	*disks = NULL;
	*n = 0;
	if (r < 0)
		return r;
	for (size_t i = 0; i < cnt; i++) {
		unsigned index;
		struct rd_disk d;

		if (!rd_parse_name(names[i], &index) || strchr(names[i], '/'))
			continue;
		r = rd_disk_read(index, &d);
		if (r == -ENODEV)	/* removed while we looked */
			continue;
		if (r < 0) {
			rd_disks_free(v, nd);
			free_names(names, cnt);
			return r;
		}
		v = xrealloc(v, nd + 1, sizeof(*v));
		v[nd++] = d;
	}
	free_names(names, cnt);
	if (nd)
		qsort(v, nd, sizeof(*v), cmp_disk);
	*disks = v;
	*n = nd;
	return 0;
}

void rd_disks_free(struct rd_disk *disks, size_t n)
{
	for (size_t i = 0; i < n; i++)
		rd_disk_clear(&disks[i]);
	free(disks);
}

/* parameters/NAME of the module: a count, or -1 where it cannot be read. */
static int64_t module_param_count(const char *module_dir, const char *name)
{
	char *path = xasprintf("%s/parameters/%s", module_dir, name);
	uint64_t v;
	int r = read_u64_file(path, &v);

	free(path);
	if (r < 0)
		return -1;
	return v > INT64_MAX ? INT64_MAX : (int64_t)v;
}

void module_info_read(struct module_info *m)
{
	char *path = xasprintf("%s/module/rdmirror", sysfs_root());
	char *vpath = xasprintf("%s/version", path);
	char *cpath = xasprintf("%s/%s", dev_root(), RDMIRROR_CONTROL_NAME);

	memset(m, 0, sizeof(*m));
	m->loaded = path_exists(path);
	if (m->loaded && read_text_file(vpath, &m->version) < 0)
		m->version = NULL;
	m->control_present = path_exists(cpath);
	m->mem_limit = module_param_count(path, "mem_limit");
	m->mem_used = module_param_count(path, "mem_used");
	m->mem_refused_writes = module_param_count(path, "mem_refused_writes");
	free(path);
	free(vpath);
	free(cpath);
}

void module_info_clear(struct module_info *m)
{
	free(m->version);
	memset(m, 0, sizeof(*m));
}
