// SPDX-License-Identifier: GPL-2.0
/*
 * --convert: an existing mirror gets a RAM member: the RAM disk attached,
 * raid-devices grown by one (the new slot empty), and the warm start
 * brings the disk in (mirror_warm_ram()): rdctl copies the array into it,
 * md recovers what was written meanwhile. Where the warm start cannot be
 * used, the disk is --added (as a spare before the grow, without a bitmap)
 * and md recovers it in full (mirror/steps.h).
 */
#include "cli/commands.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/errors.h"
#include "lib/size.h"
#include "lib/util.h"
#include "md/md_ops.h"
#include "md/md_super.h"
#include "mirror/checks.h"
#include "mirror/conf_steps.h"
#include "mirror/restore.h"
#include "mirror/steps.h"

/*
 * Can the RAM member come in by the warm start? It needs md's write-intent
 * bitmap, to know what is written during the copy: an array without one
 * gets an internal one (the chunk --create gives), said in the plan and in
 * a note. false when that fails: md then recovers the RAM member in full.
 */
static bool warm_bitmap(struct mirror_run *r, const char *kname, const char *mdpath)
{
	if (md_has_internal_bitmap(kname))
		return true;
	if (mirror_mdadm(r, false, "--grow", mdpath, "--bitmap=internal", "--bitmap-chunk=128M", NULL)) {
		mirror_note(r, xasprintf("no internal bitmap could be added to %s (%s): md recovers the RAM member in full",
					 kname, error_message()));
		error_reset();
		return false;
	}
	mirror_note(r, xasprintf("an internal write-intent bitmap %s to %s: the warm start needs it to know what is written while the array is copied into RAM",
				 r->dry_run ? "is added" : "added", kname));
	r->bitmap = "internal";
	return true;
}

int cmd_convert(const struct mirror_opts *o, const char *array)
{
	struct md_array a = { 0 };
	struct mirror_run r;
	const struct md_member *rm;
	char *mdpath = NULL, *kname = NULL, *msg = NULL, *rdpath = NULL, *rdn = NULL, *s, *why = NULL;
	uint64_t need = 0, size;
	bool warm;
	int rc;
	struct conf_file cf;

	conf_file_init(&cf, o->config, o->json);
	if ((rc = mirror_begin(o, "convert")) || (rc = check_kernel_bug(o->ignore_kernel_bug, "convert")) ||
	    (rc = mirror_find_array(array, &mdpath, &kname, &a)))
		goto out_early;
	rc = EXIT_RUNTIME;
	if (refused(EINVAL, refuse_not_raid1(array, &a)))
		goto out_early;
	rm = mirror_rd_member(&a);
	if (rm) {
		bool found = false;

		/* a --convert stopped half way: finish it as the boot's restore would */
		if (!o->dry_run && conf_names_array(&cf, kname)) {
			if (!o->json)
				printf("%s has a RAM member (%s, %s) and is in %s: finishing an interrupted --convert as rdctl --restore does\n",
				       kname, rm->name, md_member_role(rm), cf.path);
			rc = restore_array(o, &cf, kname, &found);
			if (found)
				goto out_early;
		}
		rc = EXIT_RUNTIME;
		fail_errno(EEXIST, "%s has a RAM member already (%s, %s): see rdctl --status", array, rm->name,
			   md_member_role(rm));
		goto out_early;
	}
	for (size_t i = 0; i < a.nmembers; i++) {
		const struct md_member *m = &a.members[i];

		if (m->faulty) {
			fail_errno(EBUSY, "%s has a failed member %s: replace or remove it first (mdadm %s --remove /dev/%s)",
				   array, m->name, mdpath, m->name);
			goto out_early;
		}
		/*
		 * md saw write errors on it: the next spare added becomes its
		 * replacement, and the disk is failed once the copy is done,
		 * instead of the spare filling the new slot.
		 */
		if (m->state && strstr(m->state, "want_replacement")) {
			fail_errno(EBUSY, "%s of %s wants a replacement (md saw write errors on it): md would make the RAM disk its replacement and fail the disk; replace it first (mdadm %s --replace /dev/%s --with DISK) or, if the errors are understood, clear the flag (echo -want_replacement > %s/block/%s/md/dev-%s/state)",
				   m->name, array, mdpath, m->name, sysfs_root(), kname, m->name);
			goto out_early;
		}
		/* md shows a member it recovers as "spare" too, with a slot */
		if (m->slot < 0) {
			fail_errno(EBUSY, "%s has a spare %s: md would put it, not the RAM disk, into the new slot; remove it first (mdadm %s --remove /dev/%s)",
				   array, m->name, mdpath, m->name);
			goto out_early;
		}
	}
	if (a.degraded != 0) {
		fail_errno(EBUSY, "%s is degraded (%d member%s missing): repair it before adding a RAM member", array,
			   a.degraded, a.degraded == 1 ? "" : "s");
		goto out_early;
	}
	if (md_sync_running(&a) || (a.sync_action && strcmp(a.sync_action, "idle"))) {
		fail_errno(EBUSY, "%s is busy with a %s: wait until it ends (mdadm --wait %s)", array,
			   a.sync_action ? a.sync_action : "sync", mdpath);
		goto out_early;
	}
	if (md_member_size(kname, &need, &msg) < 0) {
		fail_errno(EINVAL, "%s", msg);
		goto out_early;
	}
	size = o->auto_size ? need : o->size;
	if (size < need) {
		char *a1 = size_mib_str(size), *a2 = size_mib_str(need);

		fail_errno(EINVAL, "--size %s is smaller than the %s a member of %s needs: use --size auto", a1, a2, array);
		free(a1);
		free(a2);
		goto out_early;
	}
	if ((rc = check_memory(o->ignore_memory, size, "the RAM member")))
		goto out_early;

	mirror_run_init(&r, "convert", kname, o->dry_run, o->json);
	r.uuid = md_uuid_of(kname);
	for (size_t i = 0; i < a.nmembers; i++)
		strv_add(&r.members, &r.nmembers, a.members[i].name);
	if (r.nmembers == 1)
		mirror_note(&r, xasprintf("%s has only one persistent member: one disk failure from losing everything",
					  kname));
	/*
	 * The configuration line first, mdadm.conf next (its num-devices=
	 * must fit the array before and after the grow): an interruption
	 * after any later step leaves what the next --restore, or this
	 * command run again, finishes.
	 */
	r.size = size;
	r.prealloc = o->prealloc;
	rc = conf_add_line(&r, &cf, kname, o->auto_size);
	if (rc) {
		rc = mirror_failed(xasprintf("%s is unchanged", kname));
		goto out;
	}
	rc = mdadm_conf_fit_step(&r);
	if (rc) {
		conf_undo_line(&r, &cf);
		rc = mirror_failed(xasprintf("%s is unchanged", kname));
		goto out;
	}
	rc = mirror_attach(&r, size, o->prealloc);
	if (rc) {
		if (r.rd)
			mirror_detach(&r, true);
		conf_undo_line(&r, &cf);
		rc = mirror_failed(xasprintf("%s is unchanged", kname));
		goto out;
	}
	rdpath = r.rd ? md_dev_path(r.rd) : xasprintf("%s/rdN", dev_root());
	rdn = xasprintf("--raid-devices=%d", a.raid_disks + 1);
	warm = warm_bitmap(&r, kname, mdpath);
	if (warm) {
		/*
		 * The warm start: the grow first leaves the new RAM slot
		 * empty (the array degraded, so md's bitmap keeps every write
		 * from then on), then rdctl copies the array into the RAM
		 * disk and re-adds it (mirror_warm_ram()). (mdadm wants
		 * --force to grow an array into a degraded one.)
		 */
		rc = mirror_mdadm(&r, false, "--grow", mdpath, rdn, "--force", NULL);
		if (rc) {
			mirror_detach(&r, true);
			conf_undo_line(&r, &cf);
			rc = mirror_failed(xasprintf("%s should be as it was: check mdadm --detail %s", kname, mdpath));
			goto out;
		}
		warm = mirror_warm_ram(&r, kname, cf.path, &why);
		if (!warm) {
			mirror_note(&r, xasprintf("no warm start (%s): md recovers %s in full", why,
						  r.rd ? r.rd : "the RAM disk"));
			rc = mirror_add_ram(&r, mdpath, kname, rdpath);
			if (rc) {
				mirror_detach(&r, true);
				rc = mirror_failed(xasprintf("%s runs from its disks with its RAM slot empty: rdctl --restore fills it",
							     kname));
				goto out;
			}
		}
	} else {
		/* A spare first: growing then makes md recover it into the new slot. */
		rc = mirror_add_ram(&r, mdpath, kname, rdpath);
		if (rc) {
			mirror_detach(&r, true);
			conf_undo_line(&r, &cf);
			rc = mirror_failed(xasprintf("%s is unchanged", kname));
			goto out;
		}
		rc = mirror_mdadm(&r, false, "--grow", mdpath, rdn, NULL);
		if (rc) {
			if (!mirror_mdadm(&r, true, mdpath, "--remove", rdpath, NULL))
				mirror_detach(&r, true);
			conf_undo_line(&r, &cf);
			rc = mirror_failed(xasprintf("%s should be as it was: check mdadm --detail %s", kname, mdpath));
			goto out;
		}
	}
	/* (a warm start's daemon makes them write-mostly once rd is in sync: warmup.c) */
	rc = warm ? 0 : mirror_set_write_mostly(&r, &a, true);
	if (rc) {
		rc = mirror_failed(xasprintf("%s has its RAM member %s, but not every disk is write-mostly: reads may go to the disks; retry with rdctl --restore",
					     kname, r.rd));
		goto out;
	}
	/*
	 * With write-behind, md would acknowledge writes once the RAM member
	 * has them, before the disks do: every write must be on disk first.
	 */
	if (a.write_behind > 0) {
		s = xasprintf("%s/block/%s/md/bitmap/backlog", sysfs_root(), kname);
		rc = mirror_sysfs(&r, false, s, "0");
		free(s);
		if (rc) {
			rc = mirror_failed(xasprintf("%s has its RAM member %s, but write-behind is still on: a power cut can lose acknowledged writes; turn it off: echo 0 > %s/block/%s/md/bitmap/backlog",
						     kname, r.rd, sysfs_root(), kname));
			goto out;
		}
		mirror_note(&r, xasprintf("write-behind turned off (it was up to %d writes): every write is on the disks before it is acknowledged",
					  a.write_behind));
	}
	rc = mirror_finish(&r, o, kname, mdpath);
	if (rc)
		goto out;
	s = size_mib_str(r.size);
	rc = mirror_print_summary(&r, xasprintf("Converted %s: %s (%s%s) %s, %s; disks write-mostly; %s %s", kname, r.rd, s,
					 r.prealloc ? ", preallocated" : "",
					 warm ? "warm start (rdctl copies the array into it, then md recovers what was written during the copy)" : "added",
					 r.sync ? r.sync : "state unknown",
					 r.config_changed ? "added to" : "already in", r.config_path));
	free(s);
	if (!rc)
		rc = mirror_emit(&r);
out:
	mirror_run_free(&r);
out_early:
	md_array_clear(&a);
	conf_file_free(&cf);
	free(why);
	free(msg);
	free(rdpath);
	free(rdn);
	free(mdpath);
	free(kname);
	return rc;
}
