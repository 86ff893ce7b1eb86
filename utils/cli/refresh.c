// SPDX-License-Identifier: GPL-2.0
/* --refresh: a RAM member that left its mirror attached and added again. */
#include "cli/commands.h"

#include <errno.h>
#include <stdlib.h>

#include "lib/errors.h"
#include "lib/size.h"
#include "lib/util.h"
#include "md/md_ops.h"
#include "mirror/checks.h"
#include "mirror/conf_steps.h"
#include "mirror/steps.h"
#include "mirror/warmup.h"

/*
 * --refresh: the RAM member afresh from the disks, live. After a memory
 * error, or mismatches that md's check counted, the RAM copy is suspect;
 * and a RAM member in a slot below a disk (a mirror made by an older rdctl
 * or by hand) is the truth for md's repair. Both are mended the same way:
 *   fail and remove the RAM member (only while a persistent member is in
 *   sync, and no range is held only in RAM), detach it;
 *   with the disks not in the lowest slots, shrink raid-devices to them
 *   (md packs them down, raid1_reshape()), then the RAM slot comes back
 *   on top with the grow;
 *   attach an empty disk of the same size and bring it back by the warm-up
 *   copy (mirror_warm_ram(): rdctl copies the array into it, md then
 *   recovers what was written meanwhile); after a compaction, or without
 *   an internal bitmap, add it: md recovers it from the disks. Reads go to
 *   the disks until it is in sync again.
 */
int cmd_refresh(const struct mirror_opts *o, const char *array)
{
	struct md_array a = { 0 };
	struct mirror_run r;
	const struct md_member *rm;
	struct rd_disk d = { 0 };
	char *mdpath = NULL, *kname = NULL, *rdpath = NULL, *rdn = NULL, *s, *why = NULL;
	unsigned index;
	int rc, slotted, persistent, top, raid_disks;
	bool prealloc = false, compact, warm;
	struct warmup w;
	uint64_t size;
	struct conf_file cf;

	conf_file_init(&cf, o->config, o->json);
	if ((rc = mirror_begin(o, "refresh")) || (rc = check_kernel_bug(o->ignore_kernel_bug, "refresh")) ||
	    (rc = mirror_find_array(array, &mdpath, &kname, &a)))
		goto out_early;
	rc = EXIT_RUNTIME;
	rm = mirror_rd_member(&a);
	if (warmup_read(kname, &w) == 0) {
		bool alive = w.alive;

		warmup_clear(&w);
		if (alive) {
			fail_errno(EBUSY, "%s is warming up (a copy into its RAM disk runs): wait for it (rdctl --restore --wait), then refresh",
				   array);
			goto out_early;
		}
	}
	if (!rm || rm->slot < 0 || rm->faulty) {
		fail_errno(ENOENT, "%s has no working RAM member to refresh: rdctl --restore adds one", array);
		goto out_early;
	}
	for (size_t i = 0; i < a.nmembers; i++) {
		const struct md_member *m = &a.members[i];

		if (m->is_ram || m->faulty || m->slot < 0)
			continue;
		if (!m->in_sync) {
			fail_errno(EBUSY, "%s of %s is not in sync yet: until it is, only the RAM member holds all the data; wait (mdadm --wait %s) and try again",
				   m->name, array, mdpath);
			goto out_early;
		}
	}
	/* every persistent member in a slot is in sync now */
	md_count_slots(&a, &slotted, &persistent, &top);
	if (persistent == 0) {
		fail_errno(EBUSY, "%s has no persistent member in sync: its data is only in RAM, and a refresh would lose it",
			   array);
		goto out_early;
	}
	if (refused(EBUSY, refuse_ram_only(&a, "refreshing", array, NULL, rm->name, mdpath)))
		goto out_early;
	if (!rd_parse_name(rm->name, &index) || rd_disk_read(index, &d) < 0) {
		fail_errno(EIO, "cannot read %s's size in %s/block/%s", rm->name, sysfs_root(), rm->name);
		goto out_early;
	}
	size = d.size;
	prealloc = d.preallocated == 1;
	rd_disk_clear(&d);
	raid_disks = a.raid_disks;
	compact = raid_disks == persistent + 1 && top >= persistent;

	mirror_run_init(&r, "refresh", kname, o->dry_run, o->json);
	r.uuid = md_uuid_of(kname);
	for (size_t i = 0; i < a.nmembers; i++)
		if (!a.members[i].is_ram)
			strv_add(&r.members, &r.nmembers, a.members[i].name);
	r.rd = xstrdup(rm->name);
	rdpath = md_dev_path(rm->name);
	rc = mirror_mdadm(&r, false, mdpath, "--fail", rdpath, "--remove", rdpath, NULL);
	if (rc) {
		rc = mirror_failed(xasprintf("%s may be marked faulty but still in %s: rdctl --restore puts a fresh one back",
					     r.rd, kname));
		goto out;
	}
	rc = mirror_detach(&r, false);
	if (rc) {
		rc = mirror_failed(xasprintf("%s runs on its disks; %s is out of it but still attached: rdctl --detach %s, then rdctl --restore",
					     kname, r.rd, r.rd));
		goto out;
	}
	free(r.rd);
	r.rd = NULL;
	if (compact) {
		rc = mdadm_conf_fit_step(&r);
		if (!rc) {
			rdn = xasprintf("--raid-devices=%d", persistent);
			rc = mirror_mdadm(&r, false, "--grow", mdpath, rdn, NULL);
			free(rdn);
			rdn = NULL;
		}
		if (rc) {
			rc = mirror_failed(xasprintf("%s runs on its disks without its RAM member: rdctl --restore puts it back",
						     kname));
			goto out;
		}
		raid_disks = persistent;
	}
	/* no memory check: the old disk's pages were given back by the detach */
	if ((rc = mirror_attach(&r, size, prealloc))) {
		rc = mirror_failed(xasprintf("%s runs on its disks without its RAM member: rdctl --restore puts it back",
					     kname));
		goto out;
	}
	free(rdpath);
	rdpath = r.rd ? md_dev_path(r.rd) : xasprintf("%s/rdN", dev_root());
	/* the top slot empty (not after a compaction: the grow comes after the add) */
	warm = !compact && mirror_warm_ram(&r, kname, cf.path, &why);
	if (!warm && why)
		mirror_note(&r, xasprintf("no warm start (%s): md recovers %s in full", why, r.rd ? r.rd : "it"));
	rc = warm ? 0 : mirror_add_ram(&r, mdpath, kname, rdpath);
	if (rc) {
		mirror_detach(&r, true);
		rc = mirror_failed(xasprintf("%s runs on its disks without its RAM member: rdctl --restore puts it back",
					     kname));
		goto out;
	}
	if (compact) {
		rdn = xasprintf("--raid-devices=%d", raid_disks + 1);
		rc = mirror_mdadm(&r, false, "--grow", mdpath, rdn, NULL);
		if (rc) {
			rc = mirror_failed(xasprintf("%s has %s as a spare: rdctl --restore grows it into the RAM slot",
						     kname, r.rd));
			goto out;
		}
	}
	rc = mirror_finish_sync(&r, o, kname);
	if (rc)
		goto out;
	s = size_mib_str(size);
	if (warm)
		rc = mirror_print_summary(&r, xasprintf("Refreshed %s: %s (%s), warm start: %s; rdctl copies %s into it, then md recovers what was written during the copy",
						 kname, r.rd, s, r.sync ? r.sync : "state unknown", kname));
	else
		rc = mirror_print_summary(&r, xasprintf("Refreshed %s: %s (%s) added empty%s, %s; md copies the disks into it",
						 kname, r.rd, s, compact ? " in the highest slot" : "",
						 r.sync ? r.sync : "state unknown"));
	free(s);
	if (!rc)
		rc = mirror_emit(&r);
out:
	mirror_run_free(&r);
out_early:
	md_array_clear(&a);
	conf_file_free(&cf);
	free(why);
	free(rdpath);
	free(rdn);
	free(mdpath);
	free(kname);
	return rc;
}
