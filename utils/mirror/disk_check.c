// SPDX-License-Identifier: GPL-2.0
#include "mirror/disk_check.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "lib/errors.h"
#include "lib/mounts.h"
#include "lib/proc.h"
#include "lib/sysfs.h"
#include "lib/util.h"
#include "md/md.h"

void disk_info_clear(struct disk_info *d)
{
	free(d->path);
	free(d->name);
	free(d->signatures);
	memset(d, 0, sizeof(*d));
}

/* The kernel name of block device major:minor, from /sys/dev/block/M:m. */
static char *kernel_name(unsigned maj, unsigned min)
{
	char *link = xasprintf("%s/dev/block/%u:%u", sysfs_root(), maj, min);
	char *target = NULL, *base, *name = NULL;
	ssize_t n, cap = 128;

	for (;;) {
		target = xrealloc(target, (size_t)cap, 1);
		n = readlink(link, target, (size_t)cap);
		if (n < 0 || n < cap)
			break;
		cap *= 2;
	}
	if (n > 0) {
		target[n] = '\0';
		base = strrchr(target, '/');
		name = xstrdup(base ? base + 1 : target);
	}
	free(target);
	free(link);
	return name;
}

/* "ext4 at 0x438, dos at 0x1fe" from wipefs, NULL when it found none. */
static int signatures_of(const char *path, char **sigs)
{
	static const char *const args[] = { "wipefs", "--noheadings", "--output", "TYPE,OFFSET" };
	char *argv[6];
	struct proc_result res;
	char *s = NULL, *save = NULL;
	int r;

	for (size_t i = 0; i < 4; i++)
		argv[i] = xstrdup(args[i]);
	argv[4] = xstrdup(path);
	argv[5] = NULL;
	r = proc_run(argv, &res);
	for (size_t i = 0; i < 5; i++)
		free(argv[i]);

	*sigs = NULL;
	if (r < 0 || res.status != 0) {
		char *line = last_line(res.err);

		r = fail_errno(r < 0 ? -r : EIO, "cannot look for signatures on %s: wipefs %s", path,
			       line ? line : "failed");
		free(line);
		proc_result_clear(&res);
		return r;
	}
	for (char *l = strtok_r(res.out, "\n", &save); l; l = strtok_r(NULL, "\n", &save)) {
		char *sp = strchr(l, ' '), *t;

		if (sp)
			*sp++ = '\0';
		while (sp && *sp == ' ')
			sp++;
		t = xasprintf("%s%s%s%s%s", s ? s : "", s ? ", " : "", l, sp && *sp ? " at " : "",
			      sp ? sp : "");
		free(s);
		s = t;
	}
	proc_result_clear(&res);
	*sigs = s;
	return 0;
}

/* Who holds it: "md1", "dm-0", or a partition's holder; NULL when nobody. */
static char *holder_of(const char *name)
{
	char *dir = xasprintf("%s/class/block/%s/holders", sysfs_root(), name), **names, *h = NULL;
	size_t n;

	if (list_dir(dir, &names, &n) == 0) {
		if (n)
			h = xstrdup(names[0]);
		free_names(names, n);
	}
	free(dir);
	return h;
}

int disk_check(const char *path, bool force, struct disk_info *d)
{
	struct stat st;
	unsigned maj, min;
	uint64_t sectors;
	char *p, *where = NULL, *holder;
	int fd, r;

	memset(d, 0, sizeof(*d));
	d->path = xstrdup(path);
	if (stat(path, &st) < 0)
		return fail_errno(errno, "cannot use %s: %s", path, strerror(errno));
	if (!S_ISBLK(st.st_mode))
		return fail_errno(ENOTBLK, "%s is not a block device: give a whole disk or a partition, for example /dev/sdb",
				  path);
	maj = major(st.st_rdev);
	min = minor(st.st_rdev);
	d->name = kernel_name(maj, min);
	if (!d->name)
		return fail_errno(ENODEV, "%s (%u:%u) is not in %s/dev/block: is it a block device of this machine?",
				  path, maj, min, sysfs_root());
	if (md_name_is_rd(d->name))
		return fail_errno(EINVAL, "%s is an rd disk: a mirror's persistent members must be disks that keep their data (rdctl attaches the RAM member itself)",
				  path);
	p = xasprintf("%s/class/block/%s/size", sysfs_root(), d->name);
	r = read_u64_file(p, &sectors);
	free(p);
	if (r < 0)
		return fail_errno(-r, "cannot read the size of %s: %s", path, strerror(-r));
	d->size = sectors * 512;
	if (d->size == 0)
		return fail_errno(EINVAL, "%s has no media (size 0)", path);
	/* The kernel's own answer first: O_EXCL fails with EBUSY on a block
	 * device that is mounted, an md/dm/LVM member, or opened O_EXCL. */
	holder = holder_of(d->name);
	r = mount_point_of(maj, min, &where);
	if (holder)
		r = fail_errno(EBUSY, "%s is in use: it is held by %s (see %s/class/block/%s/holders)",
			       path, holder, sysfs_root(), d->name);
	else if (r > 0)
		r = fail_errno(EBUSY, "%s is in use: it is mounted on %s", path, where);
	free(holder);
	free(where);
	if (r)
		return r;
	fd = open(path, O_RDONLY | O_EXCL | O_CLOEXEC);
	if (fd < 0)
		return fail_errno(errno, errno == EBUSY ? "%s is in use (open exclusively by another program, or a partition of it is in use): %s"
							: "cannot open %s: %s",
				  path, strerror(errno));
	if (close(fd) < 0)
		return fail_errno(errno, "closing %s failed: %s", path, strerror(errno));
	r = signatures_of(path, &d->signatures);
	if (r)
		return r;
	if (d->signatures && !force)
		return fail_errno(EEXIST, "%s is not blank: wipefs finds %s; rdctl --create would destroy it. Use --convert for an existing RAID1, or wipe it (wipefs -a %s) or give --force if its contents are unwanted",
				  path, d->signatures, path);
	return 0;
}
