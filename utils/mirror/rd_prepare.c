// SPDX-License-Identifier: GPL-2.0
#include "mirror/rd_prepare.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <rdmirror.h>

#include "lib/sysfs.h"
#include "lib/util.h"
#include "md/md.h"
#include "md/md_ops.h"
#include "status/rd_record.h"

#define CHUNK	(64U << 10)
/*
 * mdadm keeps the superblock, the bitmap and the log at the start of the
 * space before the data (metadata 1.1, 1.2), within a few MiB even with a
 * large bitmap; the data offset itself may be 128 MiB, which is not filled
 * (it would take that much RAM for nothing).
 */
#define HEAD_MAX	(16ULL << 20)

static int read_u64_attr(const char *path, uint64_t *v)
{
	char *s = NULL;
	int r = read_text_file(path, &s);

	if (r == 0 && !parse_u64(s, v))
		r = -EINVAL;
	free(s);
	return r;
}

/* 0xff over [from, to) of fd. 0 or -errno. */
static int fill(int fd, uint64_t from, uint64_t to)
{
	static unsigned char ones[CHUNK];

	memset(ones, 0xff, sizeof(ones));
	while (from < to) {
		size_t n = to - from < CHUNK ? (size_t)(to - from) : CHUNK;
		ssize_t w = pwrite(fd, ones, n, (off_t)from);

		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0)
			return w < 0 ? -errno : -EIO;
		from += (uint64_t)w;
	}
	return 0;
}

int rd_prepare_for_md(const char *rdname, const char *mdname, char **msg)
{
	struct md_array a;
	uint64_t offset = 0, comp_kib = 0, rd_sectors = 0, head, tail;
	bool found = false;
	char *path;
	int fd, r;

	*msg = NULL;
	/* (which array it is for: --status names it should md never have it, or drop it) */
	if (md_name_is_rd(rdname))
		rd_record_write(rdname, mdname);
	if (md_array_read(mdname, &a) == 0) {
		/* the data offset of a persistent member: mdadm gives the new
		 * member the same layout */
		for (size_t i = 0; i < a.nmembers && !found; i++) {
			if (md_is_fast(&a.members[i]))
				continue;
			path = xasprintf("%s/block/%s/md/dev-%s/offset", sysfs_root(), mdname, a.members[i].name);
			found = read_u64_attr(path, &offset) == 0;
			free(path);
		}
		md_array_clear(&a);
	}
	path = xasprintf("%s/block/%s/md/component_size", sysfs_root(), mdname);
	if (!found || read_u64_attr(path, &comp_kib) < 0) {
		free(path);
		return 0;	/* nothing known to fill: mdadm and md as they are */
	}
	free(path);
	path = xasprintf("%s/block/%s/size", sysfs_root(), rdname);
	if (read_u64_attr(path, &rd_sectors) < 0)
		rd_sectors = 0;
	free(path);
	head = offset * 512;
	tail = head + comp_kib * 1024;
	path = md_dev_path(rdname);
	fd = open(path, O_WRONLY | O_CLOEXEC);
	if (fd < 0) {
		r = -errno;
		*msg = xasprintf("cannot open %s to prepare it for md: %s", path, strerror(errno));
		free(path);
		return r;
	}
	r = fill(fd, 0, head < HEAD_MAX ? head : HEAD_MAX);
	if (r == 0 && rd_sectors * 512 > tail)
		r = fill(fd, tail, rd_sectors * 512);
	if (r == 0 && fsync(fd) < 0)
		r = -errno;
	if (close(fd) < 0 && r == 0)
		r = -errno;
	if (r < 0)
		*msg = xasprintf("cannot prepare %s for md (0xff over its metadata space): %s", path, strerror(-r));
	free(path);
	return r;
}

void rd_prepare_count_io(unsigned index)
{
	int r = rd_disk_count_io(index);

	if (r < 0)
		fprintf(stderr, "rdctl: warning: cannot turn on the I/O statistics of %s%u (%s): the reads it serves will not be counted\n",
			RDMIRROR_DISK_PREFIX, index, strerror(-r));
}
