// SPDX-License-Identifier: GPL-2.0
/*
 * --revert: the RAM member failed and removed (only while a persistent
 * member is in sync), raid-devices shrunk, the RAM disk detached.
 */
#include "cli/commands.h"

#include <errno.h>
#include <stdlib.h>

#include "lib/errors.h"
#include "lib/util.h"
#include "md/md_ops.h"
#include "mirror/checks.h"
#include "mirror/conf_steps.h"
#include "mirror/steps.h"
#include "mirror/warmup.h"

/* A warm-up copy into the array's RAM disk is stopped, the disk detached. 0 or -1 (error recorded). */
static int stop_warmup(const char *kname)
{
	char *why = NULL;

	if (warmup_cancel(kname, &why) == 0)
		return 0;
	fail_errno(EBUSY, "%s", why);
	free(why);
	return -1;
}

int cmd_revert(const struct mirror_opts *o, const char *array)
{
	struct md_array a = { 0 };
	struct mirror_run r;
	const struct md_member *rm;
	char *mdpath = NULL, *kname = NULL, *rdpath = NULL, *rdn = NULL;
	size_t in_sync = 0;
	int slotted, persistent, top;
	int rc;
	struct conf_file cf;

	conf_file_init(&cf, o->config, o->json);
	if ((rc = mirror_begin(o, "revert")) || (rc = mirror_find_array(array, &mdpath, &kname, &a)))
		goto out_early;
	rc = EXIT_RUNTIME;
	if (!o->dry_run && stop_warmup(kname))
		goto out_early;
	rm = mirror_rd_member(&a);
	if (!rm && !conf_names_array(&cf, kname)) {
		fail_errno(ENOENT, "%s has no RAM member: nothing to revert", array);
		goto out_early;
	}
	if (rm && refused(EBUSY, refuse_ram_only(&a, "reverting", array, NULL, rm->name, mdpath)))
		goto out_early;
	/* Never take away the only complete copy. */
	for (size_t i = 0; i < a.nmembers; i++) {
		const struct md_member *m = &a.members[i];

		if (m->is_ram || m->faulty)
			continue;
		/* in the array (a slot) but not in sync: md is recovering it */
		if (!m->in_sync && m->slot >= 0) {
			fail_errno(EBUSY, "%s of %s is not in sync yet (%s): until it is, only the RAM member holds all the data; wait (mdadm --wait %s) and try again",
				   m->name, array, m->state ? m->state : "state unknown", mdpath);
			goto out_early;
		}
		in_sync += m->in_sync;
	}
	if (in_sync == 0) {
		fail_errno(EBUSY, "%s has no persistent member in sync: its data is only in RAM, and reverting would lose it; add a disk first (mdadm %s --add DISK)",
			   array, mdpath);
		goto out_early;
	}
	mirror_run_init(&r, "revert", kname, o->dry_run, o->json);
	r.uuid = md_uuid_of(kname);
	for (size_t i = 0; i < a.nmembers; i++)
		if (!a.members[i].is_ram)
			strv_add(&r.members, &r.nmembers, a.members[i].name);
	if (rm) {
		r.rd = xstrdup(rm->name);
		rdpath = md_dev_path(rm->name);
		rc = mirror_mdadm(&r, false, mdpath, "--fail", rdpath, "--remove", rdpath, NULL);
		if (rc) {
			rc = mirror_failed(xasprintf("%s may be marked faulty but still in %s: finish with mdadm %s --remove %s, then rdctl --revert %s again",
						     r.rd, kname, mdpath, rdpath, array));
			goto out;
		}
	} else {
		/* a --revert stopped half way, or a restore that never came:
		 * the configuration still names it; finish what is left */
		mirror_note(&r, xasprintf("%s has no RAM member: finishing the revert (its slot, write-mostly, the configuration line)",
					  kname));
	}
	rc = mdadm_conf_fit_step(&r);
	if (rc) {
		rc = mirror_failed(xasprintf("%s is out of %s, which still counts its slot (degraded); fix mdadm.conf, then rdctl --revert %s again",
					     r.rd ? r.rd : "the RAM member", kname, array));
		goto out;
	}
	/* shrink only a slot that is free: one whose member left (md_member slot >= 0 counted) */
	md_count_slots(&a, &slotted, &persistent, &top);
	if (a.raid_disks > 1 && (rm || slotted < a.raid_disks)) {
		rdn = xasprintf("--raid-devices=%d", a.raid_disks - 1);
		rc = mirror_mdadm(&r, false, "--grow", mdpath, rdn, NULL);
		if (rc) {
			rc = mirror_failed(xasprintf("%s left %s, which still counts its slot (degraded); finish with mdadm --grow %s %s, or put a RAM member back with rdctl --restore",
						     r.rd, kname, mdpath, rdn));
			goto out;
		}
	}
	rc = r.rd ? mirror_detach(&r, false) : 0;
	if (rc) {
		rc = mirror_failed(xasprintf("%s runs on its disks; %s is out of it but still attached: rdctl --detach %s", kname,
					     r.rd, r.rd));
		goto out;
	}
	rc = mirror_set_write_mostly(&r, &a, false);
	if (rc) {
		rc = mirror_failed(xasprintf("%s runs on its disks; some are still write-mostly (reads are not balanced): see rdctl --status",
					     kname));
		goto out;
	}
	rc = conf_remove_lines(&r, &cf, kname);
	if (rc) {
		rc = mirror_failed(xasprintf("%s runs on its disks, but its line in %s is left: remove it by hand, or rdctl --restore will add a RAM member again at the next boot",
					     kname, r.config_path));
		goto out;
	}
	{
		char *s = strv_join(r.members, r.nmembers, " ");

		rc = mirror_print_summary(&r, xasprintf("Reverted %s: %s removed and detached; %s read-balanced again; %s %s",
						 kname, r.rd ? r.rd : "no RAM member", s,
						 r.config_changed ? "removed from" : "nothing to remove from",
						 r.config_path));
		free(s);
	}
	if (!rc)
		rc = mirror_emit(&r);
out:
	mirror_run_free(&r);
out_early:
	md_array_clear(&a);
	conf_file_free(&cf);
	free(rdpath);
	free(rdn);
	free(mdpath);
	free(kname);
	return rc;
}
