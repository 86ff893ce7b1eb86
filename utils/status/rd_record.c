// SPDX-License-Identifier: GPL-2.0
#include "status/rd_record.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "lib/config_edit.h"
#include "lib/sysfs.h"
#include "lib/util.h"
#include "md/md_ops.h"

static char *record_path(const char *rd)
{
	return xasprintf("%s/rd-%s.array", run_dir(), rd);
}

/* /sys/block/<rd>/diskseq as text, NULL when the kernel shows none. */
static char *diskseq(const char *rd)
{
	char *path = xasprintf("%s/block/%s/diskseq", sysfs_root(), rd), *s = NULL;
	uint64_t v;

	if (read_u64_file(path, &v) == 0)
		s = xasprintf("%llu", (unsigned long long)v);
	free(path);
	return s;
}

int rd_record_write(const char *rd, const char *mdname)
{
	char *seq = diskseq(rd), *uuid, *path, *text, *msg = NULL;
	int r;

	if (!seq)
		return -ENOENT;
	uuid = md_uuid_of(mdname);
	if (!uuid || (mkdir(run_dir(), 0755) < 0 && errno != EEXIST)) {
		r = uuid ? -errno : -ENOENT;
		free(uuid);
		free(seq);
		return r;
	}
	path = record_path(rd);
	text = xasprintf("%s %s\n", uuid, seq);
	r = config_write_atomic(path, text, &msg);
	free(msg);
	free(text);
	free(path);
	free(uuid);
	free(seq);
	return r;
}

char *rd_record_uuid(const char *rd)
{
	char *path = record_path(rd), *text = NULL, *seq = diskseq(rd), *uuid = NULL;
	char u[64], s[32];

	if (seq && read_text_file(path, &text) == 0 && sscanf(text, "%63s %31s", u, s) == 2 && !strcmp(s, seq))
		uuid = xstrdup(u);
	free(text);
	free(seq);
	free(path);
	return uuid;
}
