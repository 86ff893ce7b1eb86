// SPDX-License-Identifier: GPL-2.0
/*
 * --convert: an existing mirror gets a RAM member: the RAM disk attached,
 * raid-devices grown by one (the new slot empty), and the warm start
 * brings the disk in (mirror_warm_ram()): rdctl copies the array into it,
 * md recovers what was written meanwhile. Where the warm start cannot be
 * used, the disk is --added (as a spare before the grow, without a bitmap)
 * and md recovers it in full (mirror/steps.h).
 */
#include "mirror/verb.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/errors.h"
#include "lib/size.h"
#include "lib/sysfs.h"
#include "lib/util.h"
#include "md/md_ops.h"
#include "md/md_super.h"
#include "mirror/checks.h"
#include "mirror/conf_steps.h"
#include "mirror/restore.h"
#include "mirror/steps.h"
#include "status/view.h"

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

/*
 * An array with a RAM member already: a --convert stopped half way (the
 * configuration names the array) is finished as the boot's restore would.
 * An exit code; refused otherwise.
 */
static int convert_again(struct mirror_ctx *c, const struct md_member *rm)
{
	bool found = false;
	int rc;

	if (!c->o->dry_run && conf_names_array(&c->conf, c->kname)) {
		if (!c->o->json)
			printf("%s has a RAM member (%s, %s) and is in %s: finishing an interrupted --convert as rdctl --restore does\n",
			       c->kname, rm->name, md_member_role(rm), c->conf.path);
		rc = restore_array(c->o, &c->conf, c->kname, &found);
		if (found)
			return rc;
	}
	return fail_errno(EEXIST, "%s has a RAM member already (%s, %s): see rdctl --status", c->array, rm->name,
			  md_member_role(rm));
}

/* The members md would misuse: a failed one, one that wants a replacement, a spare. */
static int convert_members_refused(struct mirror_ctx *c)
{
	for (size_t i = 0; i < c->a.nmembers; i++) {
		const struct md_member *m = &c->a.members[i];

		if (m->faulty)
			return fail_errno(EBUSY, "%s has a failed member %s: replace or remove it first (mdadm %s --remove /dev/%s)",
					  c->array, m->name, c->mdpath, m->name);
		/*
		 * md saw write errors on it: the next spare added becomes its
		 * replacement, and the disk is failed once the copy is done,
		 * instead of the spare filling the new slot.
		 */
		if (m->state && strstr(m->state, "want_replacement"))
			return fail_errno(EBUSY, "%s of %s wants a replacement (md saw write errors on it): md would make the RAM disk its replacement and fail the disk; replace it first (mdadm %s --replace /dev/%s --with DISK) or, if the errors are understood, clear the flag (echo -want_replacement > %s/block/%s/md/dev-%s/state)",
					  m->name, c->array, c->mdpath, m->name, sysfs_root(), c->kname, m->name);
		/* md shows a member it recovers as "spare" too, with a slot */
		if (m->slot < 0)
			return fail_errno(EBUSY, "%s has a spare %s: md would put it, not the RAM disk, into the new slot; remove it first (mdadm %s --remove /dev/%s)",
					  c->array, m->name, c->mdpath, m->name);
	}
	return 0;
}

/* The refusals of --convert, and the RAM member's size. 0, or an exit code with the error recorded. */
static int convert_refused(struct mirror_ctx *c, uint64_t *size)
{
	struct md_array *a = &c->a;
	uint64_t need = 0;
	char *msg = NULL;
	int rc;

	if ((rc = convert_members_refused(c)))
		return rc;
	if (a->degraded != 0)
		return fail_errno(EBUSY, "%s is degraded (%d member%s missing): repair it before adding a RAM member",
				  c->array, a->degraded, a->degraded == 1 ? "" : "s");
	if (md_sync_running(a) || (a->sync_action && strcmp(a->sync_action, "idle")))
		return fail_errno(EBUSY, "%s is busy with a %s: wait until it ends (mdadm --wait %s)", c->array,
				  a->sync_action ? a->sync_action : "sync", c->mdpath);
	if (md_member_size(c->kname, &need, &msg) < 0) {
		rc = fail_errno(EINVAL, "%s", msg);
		free(msg);
		return rc;
	}
	*size = c->o->auto_size ? need : c->o->size;
	if (*size < need) {
		char *a1 = size_mib_str(*size), *a2 = size_mib_str(need);

		rc = fail_errno(EINVAL, "--size %s is smaller than the %s a member of %s needs: use --size auto", a1, a2,
				c->array);
		free(a1);
		free(a2);
		return rc;
	}
	return check_memory(c->o->ignore_memory, *size, "the RAM member");
}

/*
 * The configuration line first, mdadm.conf next (its num-devices= must
 * fit the array before and after the grow), then the RAM disk attached:
 * an interruption after any later step leaves what the next --restore,
 * or this command run again, finishes. Each undone when a later one fails.
 */
static int convert_prepare(struct mirror_ctx *c, struct mirror_run *r)
{
	int rc = conf_add_line(r, &c->conf, c->kname, c->o->auto_size);

	if (rc)
		return mirror_failed(xasprintf("%s is unchanged", c->kname));
	rc = mdadm_conf_fit_step(r);
	if (!rc)
		rc = mirror_attach(r, r->size, r->prealloc);
	if (rc) {
		if (r->rd)
			mirror_detach(r, true);
		conf_undo_line(r, &c->conf);
		return mirror_failed(xasprintf("%s is unchanged", c->kname));
	}
	return 0;
}

/*
 * The warm start: the grow first leaves the new RAM slot empty (the array
 * degraded, so md's bitmap keeps every write from then on), then rdctl
 * copies the array into the RAM disk and re-adds it (mirror_warm_ram()).
 * (mdadm wants --force to grow an array into a degraded one.) Where it
 * cannot start, the disk is added and md recovers it in full. *warm.
 */
static int convert_warm(struct mirror_ctx *c, struct mirror_run *r, const char *rdpath, const char *rdn, bool *warm)
{
	char *why = NULL;
	int rc = mirror_mdadm(r, false, "--grow", c->mdpath, rdn, "--force", NULL);

	if (rc) {
		mirror_detach(r, true);
		conf_undo_line(r, &c->conf);
		return mirror_failed(xasprintf("%s should be as it was: check mdadm --detail %s", c->kname, c->mdpath));
	}
	*warm = mirror_warm_ram(r, c->kname, c->conf.path, &why);
	if (*warm)
		return 0;
	mirror_note_cold(r, why);
	rc = mirror_add_ram(r, c->mdpath, c->kname, rdpath);
	if (rc) {
		mirror_detach(r, true);
		return mirror_failed(xasprintf("%s runs from its disks with its RAM slot empty: rdctl --restore fills it",
					       c->kname));
	}
	return 0;
}

/* Without the warm start: a spare first, then the grow makes md recover it into the new slot. */
static int convert_cold(struct mirror_ctx *c, struct mirror_run *r, const char *rdpath, const char *rdn)
{
	int rc = mirror_add_ram(r, c->mdpath, c->kname, rdpath);

	if (rc) {
		mirror_detach(r, true);
		conf_undo_line(r, &c->conf);
		return mirror_failed(xasprintf("%s is unchanged", c->kname));
	}
	rc = mirror_mdadm(r, false, "--grow", c->mdpath, rdn, NULL);
	if (rc) {
		if (!mirror_mdadm(r, true, c->mdpath, "--remove", rdpath, NULL))
			mirror_detach(r, true);
		conf_undo_line(r, &c->conf);
		return mirror_failed(xasprintf("%s should be as it was: check mdadm --detail %s", c->kname, c->mdpath));
	}
	return 0;
}

/*
 * The disks write-mostly (a warm start's daemon does it once rd is in
 * sync: warmup.c), and write-behind off: with it, md would acknowledge
 * writes once the RAM member has them, before the disks do.
 */
static int convert_disks(struct mirror_ctx *c, struct mirror_run *r, bool warm)
{
	char *s;
	int rc = warm ? 0 : mirror_set_write_mostly(r, &c->a, true);

	if (rc)
		return mirror_failed(xasprintf("%s has its RAM member %s, but not every disk is write-mostly: reads may go to the disks; retry with rdctl --restore",
					       c->kname, r->rd));
	if (c->a.write_behind <= 0)
		return 0;
	s = xasprintf("%s/block/%s/md/bitmap/backlog", sysfs_root(), c->kname);
	rc = mirror_sysfs(r, false, s, "0");
	free(s);
	if (rc)
		return mirror_failed(xasprintf("%s has its RAM member %s, but write-behind is still on: a power cut can lose acknowledged writes; turn it off: echo 0 > %s/block/%s/md/bitmap/backlog",
					       c->kname, r->rd, sysfs_root(), c->kname));
	mirror_note(r, xasprintf("write-behind turned off (it was up to %d writes): every write is on the disks before it is acknowledged",
				 c->a.write_behind));
	return 0;
}

/* The steps of --convert and its report. 0 or an exit code. */
static int convert_steps(struct mirror_ctx *c, struct mirror_run *r)
{
	char *rdpath, *rdn, *s;
	bool warm = false;
	int rc = convert_prepare(c, r);

	if (rc)
		return rc;
	rdpath = r->rd ? md_dev_path(r->rd) : xasprintf("%s/rdN", dev_root());
	rdn = xasprintf("--raid-devices=%d", c->a.raid_disks + 1);
	if (warm_bitmap(r, c->kname, c->mdpath))
		rc = convert_warm(c, r, rdpath, rdn, &warm);
	else
		rc = convert_cold(c, r, rdpath, rdn);
	free(rdpath);
	free(rdn);
	if (rc || (rc = convert_disks(c, r, warm)) || (rc = mirror_finish(r, c->o, c->kname, c->mdpath)))
		return rc;
	s = size_mib_str(r->size);
	rc = mirror_print_summary(r, xasprintf("Converted %s: %s (%s%s) %s, %s; disks write-mostly; %s %s", c->kname, r->rd, s,
					       r->prealloc ? ", preallocated" : "",
					       warm ? "warm start (rdctl copies the array into it, then md recovers what was written during the copy)" : "added",
					       r->sync ? r->sync : "state unknown",
					       r->config_changed ? "added to" : "already in", r->config_path));
	free(s);
	return rc ? rc : mirror_emit(r);
}

int cmd_convert(const struct mirror_opts *o, const char *array)
{
	struct mirror_ctx c;
	struct mirror_run r;
	const struct md_member *rm;
	uint64_t size = 0;
	int rc = mirror_open(&c, o, "convert", array, true);

	if (rc)
		goto out;
	if (refused(EINVAL, refuse_not_raid1(array, &c.a))) {
		rc = EXIT_RUNTIME;
		goto out;
	}
	/* a RAM member already: finished as --restore does, or refused; nothing more either way */
	if ((rm = mirror_rd_member(&c.a))) {
		rc = convert_again(&c, rm);
		goto out;
	}
	if ((rc = convert_refused(&c, &size)))
		goto out;
	/* (no RAM member: every member is a persistent one) */
	mirror_ctx_run(&c, &r);
	if (r.nmembers == 1)
		mirror_note(&r, xasprintf("%s has only one persistent member: one disk failure from losing everything",
					  c.kname));
	r.size = size;
	r.prealloc = o->prealloc;
	rc = convert_steps(&c, &r);
	mirror_run_free(&r);
out:
	mirror_close(&c);
	return rc;
}
