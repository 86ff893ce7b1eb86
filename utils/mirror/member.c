// SPDX-License-Identifier: GPL-2.0
#include "mirror/member.h"

#include <ctype.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "lib/errors.h"
#include "lib/size.h"
#include "lib/sysfs.h"
#include "lib/util.h"
#include "md/md.h"

/* Kernel names that the probe order gives out afresh at each boot. */
static const char *const kernel_prefixes[] = { "sd", "vd", "xvd", "hd", "nvme", "mmcblk", "dm-", "loop" };

static bool is_kernel_name(const char *name)
{
	for (size_t i = 0; i < sizeof(kernel_prefixes) / sizeof(kernel_prefixes[0]); i++) {
		size_t n = strlen(kernel_prefixes[i]);

		if (strncmp(name, kernel_prefixes[i], n))
			continue;
		for (const char *p = name + n; *p; p++)
			if (!isalnum((unsigned char)*p))
				return false;
		return true;
	}
	return false;
}

/* The /dev/disk/by-id names of the disk path leads to, ", "-separated, or NULL. */
static char *by_id_names(const char *path)
{
	char *dir = xasprintf("%s/disk/by-id", dev_root()), *want = md_block_name_of(path), **names, *s = NULL;
	size_t n;

	if (want && list_dir(dir, &names, &n) == 0) {
		for (size_t i = 0; i < n; i++) {
			char *p = xasprintf("%s/%s", dir, names[i]), *got = md_block_name_of(p), *t;

			if (got && !strcmp(got, want)) {
				t = xasprintf("%s%s%s", s ? s : "", s ? ", " : "", p);
				free(s);
				s = t;
			}
			free(got);
			free(p);
		}
		free_names(names, n);
	}
	free(want);
	free(dir);
	return s;
}

char *member_refuse_path(const char *path)
{
	size_t dl = strlen(dev_root());
	char *ids, *why;

	if (path[0] != '/')
		return xasprintf("--member %s: give the disk's absolute path, a stable one such as /dev/disk/by-id/nvme-...",
				 path);
	if (strncmp(path, dev_root(), dl) || path[dl] != '/' || strchr(path + dl + 1, '/') ||
	    !is_kernel_name(path + dl + 1))
		return NULL;
	ids = by_id_names(path);
	why = xasprintf("--member %s: a kernel name can name another disk after a reboot, and rdctl --restore would write over that one; give a stable name: %s%s",
			path, ids ? ids : "one under ", ids ? "" : "/dev/disk/by-id");
	free(ids);
	return why;
}

char *member_refuse_fit(const char *path, uint64_t size, unsigned lbs, uint64_t need, unsigned alb)
{
	char *a, *b, *why;

	if (size < need) {
		a = size_mib_str(size);
		b = size_mib_str(need);
		why = xasprintf("%s (%s) is smaller than the %s a member of the array needs", path, a, b);
		free(a);
		free(b);
		return why;
	}
	if (lbs && alb && lbs > alb)
		return xasprintf("%s has %u-byte logical blocks, larger than the array's %u: Linux 6.19 and later refuse it as a member, older kernels change the logical block size of the running array under its file system; use a disk with %u-byte logical blocks (or reformat its namespace: nvme format --lbaf)",
				 path, lbs, alb, alb);
	return NULL;
}

unsigned member_lbs(const char *name)
{
	char *p = xasprintf("%s/class/block/%s/queue/logical_block_size", sysfs_root(), name);
	uint64_t v = 0;

	if (read_u64_file(p, &v) < 0 || v > 65536)
		v = 0;
	free(p);
	return (unsigned)v;
}

int member_check(const char *path, bool force, uint64_t need, unsigned alb, struct disk_info *d)
{
	char *why = member_refuse_path(path);
	int rc;

	if (why) {
		rc = fail_errno(EINVAL, "%s", why);
		free(why);
		return rc;
	}
	rc = disk_check(path, true, d);
	if (rc)
		return rc;
	if (d->signatures && !force)
		return fail_errno(EEXIST, "%s is not blank: wipefs finds %s; making it the fast member would destroy it. Wipe it (wipefs -a %s) or give --force if its contents are unwanted",
				  path, d->signatures, path);
	why = member_refuse_fit(path, d->size, member_lbs(d->name), need, alb);
	if (why) {
		rc = fail_errno(EINVAL, "%s", why);
		free(why);
	}
	return rc;
}
