// SPDX-License-Identifier: GPL-2.0
#include "fake_tree.h"

#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "lib/util.h"

static int mkdir_p(char *path)
{
	for (char *p = path + 1; *p; p++) {
		if (*p != '/')
			continue;
		*p = '\0';
		if (mkdir(path, 0755) < 0 && errno != EEXIST) {
			perror(path);
			*p = '/';
			return -1;
		}
		*p = '/';
	}
	if (mkdir(path, 0755) < 0 && errno != EEXIST) {
		perror(path);
		return -1;
	}
	return 0;
}

int fake_mkdir(const char *root, const char *rel)
{
	char *path = xasprintf("%s/%s", root, rel);
	int r = mkdir_p(path);

	free(path);
	return r;
}

int fake_write(const char *root, const char *rel, const char *content)
{
	char *path = xasprintf("%s/%s", root, rel);
	char *slash = strrchr(path, '/');
	size_t len = strlen(content);
	int fd, r = -1;

	*slash = '\0';
	if (mkdir_p(path) < 0)
		goto out;
	*slash = '/';
	fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	if (fd < 0) {
		perror(path);
		goto out;
	}
	if (write(fd, content, len) != (ssize_t)len) {
		perror(path);
		close(fd);
		goto out;
	}
	r = close(fd);
out:
	free(path);
	return r;
}

static const char *const files[][2] = {
	{ "sys/block/rd0/size", "4194304\n" },
	{ "sys/block/rd0/dev", "252:0\n" },
	{ "sys/block/rd0/rdmirror/allocated_bytes", "536870912\n" },
	{ "sys/block/rd0/rdmirror/preallocated", "0\n" },
	{ "sys/block/rd0/rdmirror/memory_errors", "2\n" },
	{ "sys/block/rd0/rdmirror/replaced_pages", "1\n" },
	{ "sys/block/rd1/size", "262144\n" },
	{ "sys/block/rd1/dev", "252:1\n" },
	{ "sys/block/rd1/rdmirror/allocated_bytes", "134217728\n" },
	{ "sys/block/rd1/rdmirror/preallocated", "1\n" },
	{ "sys/block/rd2/size", "2048\n" },
	{ "sys/block/rd2/dev", "252:2\n" },
	{ "sys/block/md0/size", "4194304\n" },
	{ "sys/block/md0/dev", "9:0\n" },
	{ "sys/block/md0/md/level", "raid1\n" },
	{ "sys/block/md0/md/array_state", "active\n" },
	{ "sys/block/md0/md/raid_disks", "3\n" },
	{ "sys/block/md0/md/degraded", "0\n" },
	{ "sys/block/md0/md/sync_action", "resync\n" },
	{ "sys/block/md0/md/sync_completed", "1048576 / 4194304\n" },
	{ "sys/block/md0/md/sync_speed", "102400\n" },
	{ "sys/block/md0/md/dev-rd0/state", "in_sync\n" },
	{ "sys/block/md0/md/dev-rd0/slot", "0\n" },
	{ "sys/block/md0/md/dev-sdb/state", "in_sync,write_mostly\n" },
	{ "sys/block/md0/md/dev-sdb/slot", "1\n" },
	{ "sys/block/md0/md/dev-sdc/state", "in_sync\n" },
	{ "sys/block/md0/md/dev-sdc/slot", "2\n" },
	{ "sys/block/md1/md/level", "raid1\n" },
	{ "sys/block/md1/md/array_state", "clean\n" },
	{ "sys/block/md1/md/raid_disks", "2\n" },
	{ "sys/block/md1/md/degraded", "0\n" },
	{ "sys/block/md1/md/sync_action", "idle\n" },
	{ "sys/block/md1/md/sync_completed", "none\n" },
	{ "sys/block/md1/md/sync_speed", "none\n" },
	{ "sys/block/md1/md/dev-sda/state", "in_sync\n" },
	{ "sys/block/md1/md/dev-sdd/state", "in_sync\n" },
	{ "sys/block/sda/size", "1000000\n" },
	{ "sys/module/rdmirror/version", RDCTL_BUILD_ID "\n" },
	{ "proc/meminfo",
	  "MemTotal:       16777216 kB\n"
	  "MemFree:         2097152 kB\n"
	  "MemAvailable:    1048576 kB\n"
	  "Buffers:            1024 kB\n" },
	{ "proc/self/mountinfo",
	  "22 1 8:1 / / rw,relatime shared:1 - ext4 /dev/sda1 rw\n"
	  "36 22 252:1 / /mnt/rd\\040one rw,relatime shared:5 - ext4 /dev/rd1 rw\n" },
};

int fake_tree_build(const char *root)
{
	for (size_t i = 0; i < sizeof(files) / sizeof(files[0]); i++)
		if (fake_write(root, files[i][0], files[i][1]) < 0)
			return -1;
	if (fake_mkdir(root, "sys/block/rd0/holders/md0") < 0 ||
	    fake_mkdir(root, "sys/block/rd1/holders") < 0 ||
	    fake_mkdir(root, "sys/block/rd2/holders") < 0 ||
	    fake_mkdir(root, "dev") < 0)
		return -1;
	return 0;
}

void fake_tree_env(const char *root)
{
	char *s = xasprintf("%s/sys", root), *p = xasprintf("%s/proc", root), *d = xasprintf("%s/dev", root);

	if (setenv("RDCTL_SYSFS_ROOT", s, 1) || setenv("RDCTL_PROC_ROOT", p, 1) ||
	    setenv("RDCTL_DEV_ROOT", d, 1)) {
		perror("setenv");
		exit(1);
	}
	free(s);
	free(p);
	free(d);
}

static int rm_one(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
	(void)st;
	(void)ftw;
	if ((flag == FTW_DP ? rmdir(path) : unlink(path)) < 0) {
		perror(path);
		return -1;
	}
	return 0;
}

int fake_tree_remove(const char *root)
{
	return nftw(root, rm_one, 16, FTW_DEPTH | FTW_PHYS);
}
