// SPDX-License-Identifier: GPL-2.0
#include "mirror/warm_record.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "lib/config_edit.h"
#include "lib/seams.h"
#include "lib/util.h"

const char *warm_state_dir(void)
{
	const char *d = seam("RDCTL_STATE_DIR");

	return d && *d ? d : "/var/lib/rdmirror";
}

static char *record_path(const char *uuid)
{
	return xasprintf("%s/warm-%s.sb", warm_state_dir(), uuid);
}

/* 0600: a member's superblock is root's to read */
int warm_record_save(const struct md_super *sb, char **why)
{
	char *path = record_path(sb->uuid);
	int r = file_write_atomic(path, sb->raw, sizeof(sb->raw), 0600, why);

	free(path);
	return r;
}

/* The record of array uuid, read and checked; deleted when take. */
static int record_read(const char *uuid, struct md_super *sb, char **why, bool take)
{
	char *path = record_path(uuid);
	unsigned char *block = xmalloc(MD_SUPER_BLOCK);
	ssize_t n;
	int fd, r;

	*why = NULL;
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		r = -errno;
		if (r != -ENOENT)
			*why = xasprintf("cannot read %s: %s", path, strerror(errno));
		goto out;
	}
	do
		n = read(fd, block, MD_SUPER_BLOCK);
	while (n < 0 && errno == EINTR);
	r = n < 0 ? -errno : 0;
	close(fd);
	/* used once, good or bad; EROFS (root still read-only at boot) is fine */
	if (take && unlink(path) < 0 && errno != ENOENT && errno != EROFS)
		fprintf(stderr, "rdctl: warning: cannot delete %s: %s\n", path, strerror(errno));
	if (n != MD_SUPER_BLOCK) {
		*why = xasprintf("%s is not a record: %s", path, r ? strerror(-r) : "not 4 KiB");
		r = r ? r : -EINVAL;
		goto out;
	}
	r = md_super_parse(block, sb, why);
	if (r == 0 && strcasecmp(sb->uuid, uuid)) {
		*why = xasprintf("%s names array %s", path, sb->uuid);
		r = -EINVAL;
	}
out:
	free(block);
	free(path);
	return r;
}

int warm_record_take(const char *uuid, struct md_super *sb, char **why)
{
	return record_read(uuid, sb, why, true);
}

int warm_record_peek(const char *uuid, struct md_super *sb, char **why)
{
	return record_read(uuid, sb, why, false);
}
