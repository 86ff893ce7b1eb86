// SPDX-License-Identifier: GPL-2.0
#include "mirror/warm_super.h"

#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "lib/sysfs.h"
#include "lib/util.h"
#include "md/md.h"
#include "md/md_ops.h"

/* dev_roles[] holds at most this many numbers in md's 4 KiB block */
#define MAX_NUMBERS	((MD_SUPER_BLOCK - 256) / 2)

/* The superblock of member name of the array (metadata ver). 0 or -errno with *why. */
static int member_super(const char *name, const char *ver, struct md_super *sb, char **why)
{
	char *node = xasprintf("%s/class/block/%s/size", sysfs_root(), name), *path;
	uint64_t sectors;
	int r = read_u64_file(node, &sectors);

	free(node);
	if (r < 0) {
		*why = xasprintf("cannot read the size of %s: %s", name, strerror(-r));
		return r;
	}
	path = md_dev_path(name);
	r = md_super_read(path, ver, sectors * 512, sb, why);
	free(path);
	return r;
}

int warm_super_make(const char *mdname, uint64_t size, struct md_super *sb, char **why)
{
	char *uuid = md_uuid_of(mdname), *ver = md_metadata_version(mdname), *dir;
	bool used[MAX_NUMBERS] = { false }, have_tmpl = false;
	struct md_super tmpl, m;
	struct md_array a;
	char *tmpl_path = NULL;
	uint64_t comp_kib = 0, cleared = 0;
	uint32_t nr;
	int r, slot = -1;

	*why = NULL;
	if (!uuid || !ver) {
		*why = xstrdup("the array's UUID or metadata version is unknown");
		r = -EINVAL;
		goto out;
	}
	if (!md_has_internal_bitmap(mdname)) {
		*why = xstrdup("the array has no internal bitmap");
		r = -EINVAL;
		goto out;
	}
	dir = xasprintf("%s/block/%s/md/component_size", sysfs_root(), mdname);
	r = read_u64_file(dir, &comp_kib);
	free(dir);
	if (r < 0 || (r = md_array_read(mdname, &a)) < 0) {
		*why = xasprintf("cannot read %s: %s", mdname, strerror(-r));
		goto out;
	}
	for (int s = a.raid_disks - 1; s >= 0 && slot < 0; s--) {
		slot = s;
		for (size_t i = 0; i < a.nmembers; i++)
			if (a.members[i].slot == s)
				slot = -1;
	}
	/* every member's number, and a member in sync to take the rest from */
	for (size_t i = 0; i < a.nmembers && r == 0; i++) {
		const struct md_member *mb = &a.members[i];

		r = member_super(mb->name, ver, &m, why);
		if (r < 0)
			break;
		if (!md_uuid_same(m.uuid, uuid)) {
			*why = xasprintf("%s's superblock names array %s", mb->name, m.uuid);
			r = -EINVAL;
		} else if (m.dev_number < MAX_NUMBERS) {
			used[m.dev_number] = true;
		}
		if (r == 0 && !have_tmpl && !md_is_fast(mb) && mb->in_sync && !mb->faulty && m.role == mb->slot) {
			tmpl = m;
			tmpl_path = md_dev_path(mb->name);
			have_tmpl = true;
		}
	}
	md_array_clear(&a);
	if (r < 0)
		goto out;
	if (slot < 0 || !have_tmpl) {
		*why = xstrdup(slot < 0 ? "no slot of the array is empty" : "no member is in sync");
		r = -EINVAL;
		goto out;
	}
	for (nr = 0; nr < MAX_NUMBERS && used[nr]; nr++)
		;
	r = md_bitmap_events_cleared(tmpl_path, &tmpl, &cleared, why);
	if (r == 0)
		r = md_super_returning(&tmpl, ver, size, comp_kib * 2, nr, slot, cleared, sb, why);
	if (r == 0 && !md_super_fits(sb, uuid, size, why))
		r = -EINVAL;
out:
	free(tmpl_path);
	free(uuid);
	free(ver);
	return r;
}
