// SPDX-License-Identifier: GPL-2.0
#include "mirror/restore_checks.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "lib/errors.h"
#include "lib/meminfo.h"
#include "lib/size.h"
#include "lib/sysfs.h"
#include "lib/util.h"
#include "md/md_ops.h"
#include "mirror/compress.h"
#include "mirror/warm_record.h"
#include "mirror/warm_super.h"
#include "status/view.h"

char *restore_sync_words(const struct md_array *a, const struct md_member *m)
{
	double pct = md_sync_percent(a);

	if (m->in_sync && !md_sync_running(a))
		return xstrdup("in sync");
	if (pct >= 0)
		return xasprintf("%s %.1f%%", strcmp(a->sync_action, "recover") ? a->sync_action : "recovery", pct);
	if (md_sync_running(a))
		return xasprintf("%s started", strcmp(a->sync_action, "recover") ? a->sync_action : "recovery");
	return xstrdup(md_member_role(m));
}

/* restore_fits() of a compressed member: its ratio kept at --release, or the bound alone (compress.h). */
static int fits_compressed(struct boot_item *it, const struct config *cfg, const char *mdname, uint64_t size,
			   uint64_t *limit)
{
	struct compress_room room;
	char *uuid, *why;

	if (compress_room_read(cfg, &room) < 0)
		return boot_item_fail(it, "ENOENT", xasprintf("not restored: cannot read %s/meminfo to bound a compressed RAM member; %s runs from its disks",
							      proc_root(), mdname));
	uuid = md_uuid_of(mdname);
	why = compress_refuse_restore(&room, uuid, size, limit);
	free(uuid);
	if (!why)
		return 0;
	boot_item_fail(it, "ENOMEM", xasprintf("not restored: %s; %s runs from its disks. Free memory or lower the reserve in %s, then run rdctl --restore",
					       why, mdname, cfg->path));
	it->action = "refused";
	free(why);
	return -1;
}

/*
 * Does a RAM member of size fit? Every rd disk may still fill up to its
 * size (md's recovery writes it whole), and reserve must stay available
 * after that: a member that does not fit is not attached, and the array
 * runs from its disks. 0, or -1 with the item refused.
 */
int restore_fits(struct boot_item *it, const struct config *cfg, const char *mdname, uint64_t size, unsigned comp,
		 uint64_t *limit)
{
	struct meminfo mi;
	struct rd_disk *disks = NULL;
	uint64_t pending = 0, reserve;
	size_t n = 0;
	char *sz, *av, *rs, *pd;

	if (comp)
		return fits_compressed(it, cfg, mdname, size, limit);
	if (meminfo_read(&mi) < 0 || !mi.has_available || !mi.has_total)
		return 0;	/* the module still refuses a disk larger than RAM */
	if (rd_disks_list(&disks, &n) == 0) {
		for (size_t i = 0; i < n; i++) {
			uint64_t held = disks[i].has_allocated ? disks[i].allocated : 0;

			pending += disks[i].size > held ? disks[i].size - held : 0;
		}
		rd_disks_free(disks, n);
	}
	reserve = config_reserve_bytes(cfg, mi.total);
	if (mi.available >= reserve && mi.available - reserve >= pending &&
	    mi.available - reserve - pending >= size)
		return 0;
	sz = size_mib_str(size);
	av = size_mib_str(mi.available / 1048576 * 1048576);
	rs = size_mib_str(reserve / 1048576 * 1048576);
	pd = size_mib_str(pending / 1048576 * 1048576);
	boot_item_fail(it, "ENOMEM",
		       xasprintf("not restored: a %s RAM member does not fit in memory (%s available, %s still to fill in other rd disks, %s kept in reserve%s); %s runs from its disks. Free memory or lower the reserve in %s, then run rdctl --restore",
				 sz, av, pd, rs, cfg->reserve_line ? "" : " by default", mdname, cfg->path));
	it->action = "refused";
	free(sz);
	free(av);
	free(rs);
	free(pd);
	return -1;
}

/*
 * The superblock --release kept of mdname's RAM member, when a warm start
 * can use it: the array has its internal bitmap still and the member's
 * slot is free. Otherwise false, with *note saying why when there was a
 * record (the record is used once either way; peek: read, not used).
 */
bool restore_warm_record(const char *mdname, uint64_t size, bool peek, struct md_super *sb, char **note)
{
	char *uuid = md_uuid_of(mdname), *why = NULL;
	struct md_array a;
	int r;

	*note = NULL;
	if (!uuid)
		return false;
	r = peek ? warm_record_peek(uuid, sb, &why) : warm_record_take(uuid, sb, &why);
	if (r == -ENOENT) {
		free(uuid);
		return false;
	}
	if (r == 0 && md_super_fits(sb, uuid, size, &why) && !md_has_internal_bitmap(mdname))
		why = xstrdup("the array has no internal bitmap any more");
	if (!why && md_array_read(mdname, &a) == 0) {
		for (size_t i = 0; i < a.nmembers && !why; i++)
			if (a.members[i].slot == sb->role)
				why = xasprintf("its slot %d is taken by %s", sb->role, a.members[i].name);
		md_array_clear(&a);
	}
	free(uuid);
	if (why)
		*note = xasprintf("no warm start (%s)", why);
	free(why);
	return !*note;
}

int restore_size(struct boot_item *it, const struct conf_mirror *m, const char *mdname, uint64_t *size)
{
	uint64_t need = 0;
	char *why = NULL;
	int r = md_member_size(mdname, &need, &why);

	if (m->auto_size) {
		if (r < 0)
			return boot_item_fail(it, errno_code(-r), why);
		free(why);
		*size = need;
		return 0;
	}
	free(why);
	*size = m->size;
	if (r == 0 && m->size < need) {
		char *a1 = size_mib_str(m->size), *a2 = size_mib_str(need);

		boot_item_fail(it, "EINVAL", xasprintf("the configured size %s is smaller than the %s a member of %s needs: use auto",
						       a1, a2, mdname));
		free(a1);
		free(a2);
		return -1;
	}
	return 0;
}

bool restore_warm_choice(const char *mdname, uint64_t size, bool slots_move, bool peek, struct md_super *sb,
			 bool *made, char **note)
{
	char *why = NULL;
	bool warm;

	*made = false;
	warm = restore_warm_record(mdname, size, peek, sb, note);
	if (slots_move) {
		if (warm || *note) {
			free(*note);
			*note = xstrdup("no warm start (the disks moved to other slots)");
		}
		return false;
	}
	/* no record (a power cut, a crash, a failed member): one made from the array's */
	if (!warm && !*note && md_has_internal_bitmap(mdname)) {
		*made = warm_super_make(mdname, size, sb, &why) == 0;
		warm = *made;
		if (!warm)
			*note = xasprintf("no warm start (%s)", why);
		free(why);
	}
	return warm;
}
