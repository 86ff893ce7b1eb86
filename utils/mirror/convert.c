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

#include "lib/config.h"
#include "lib/errors.h"
#include "lib/size.h"
#include "lib/sysfs.h"
#include "lib/util.h"
#include "md/md_ops.h"
#include "md/md_super.h"
#include "mirror/checks.h"
#include "mirror/conf_steps.h"
#include "mirror/member.h"
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
	if (c->o->member)
		return member_check(c->o->member, c->o->force, need, member_lbs(c->kname), &c->member);
	return mirror_check_memory(c, c->o->compress, *size);
}

/* One --convert: whether the warm start can be tried, and whether it was. */
struct convert_ctx {
	struct mirror_ctx c;
	bool bitmap;		/* md's internal bitmap is there: the warm start path */
	bool warm;		/* the RAM disk came in by the warm start */
};

static struct convert_ctx *convert_of(struct mirror_ctx *c)
{
	return (struct convert_ctx *)c;
}

static const struct convert_ctx *convert_of_const(const struct mirror_ctx *c)
{
	return (const struct convert_ctx *)c;
}

static bool with_bitmap(const struct mirror_ctx *c)
{
	return convert_of_const(c)->bitmap;
}

static bool without_bitmap(const struct mirror_ctx *c)
{
	return !convert_of_const(c)->bitmap;
}

static bool not_warm(const struct mirror_ctx *c)
{
	return !convert_of_const(c)->warm;
}

static bool write_behind_on(const struct mirror_ctx *c)
{
	return c->a.write_behind > 0;
}

/* "mdadm --grow MD --raid-devices=<one more>" (force: into a degraded array). */
static int grow_one_more(struct mirror_ctx *c, bool force)
{
	char *rdn = xasprintf("--raid-devices=%d", c->a.raid_disks + 1);
	int rc = force ? mirror_mdadm(c->r, false, "--grow", c->mdpath, rdn, "--force", NULL)
		       : mirror_mdadm(c->r, false, "--grow", c->mdpath, rdn, NULL);

	free(rdn);
	return rc;
}

/*
 * The configuration line first, mdadm.conf next (its num-devices= must
 * fit the array before and after the grow), then the RAM disk attached:
 * an interruption after any later step leaves what the next --restore,
 * or this command run again, finishes.
 */
static int conf_line(struct mirror_ctx *c)
{
	return conf_add_line(c->r, &c->conf, c->kname, c->o->auto_size);
}

static int conf_fit(struct mirror_ctx *c)
{
	return mdadm_conf_fit_step(c->r);
}

static int bitmap(struct mirror_ctx *c)
{
	convert_of(c)->bitmap = warm_bitmap(c->r, c->kname, c->mdpath);
	return 0;
}

/*
 * The warm start: the grow first leaves the new RAM slot empty (the array
 * degraded, so md's bitmap keeps every write from then on), then rdctl
 * copies the array into the RAM disk and re-adds it (mirror_warm_ram()).
 * (mdadm wants --force to grow an array into a degraded one.) Where it
 * cannot start, the disk is added and md recovers it in full.
 */
static int grow_empty(struct mirror_ctx *c)
{
	return grow_one_more(c, true);
}

static int warm_or_add(struct mirror_ctx *c)
{
	char *why = NULL;

	convert_of(c)->warm = mirror_warm_ram(c->r, c->kname, c->conf.path, &why);
	if (convert_of(c)->warm)
		return 0;
	mirror_note_cold(c->r, why);
	return mirror_add_ram(c->r, c->mdpath, c->kname, c->rdpath);
}

/* Without the warm start: a spare first, then the grow makes md recover it into the new slot. */
static int add_spare(struct mirror_ctx *c)
{
	return mirror_add_ram(c->r, c->mdpath, c->kname, c->rdpath);
}

static int grow_spare(struct mirror_ctx *c)
{
	return grow_one_more(c, false);
}

/*
 * The disks write-mostly (a warm start's daemon does it once rd is in
 * sync: warmup.c), and write-behind off: with it, md would acknowledge
 * writes once the RAM member has them, before the disks do.
 */
static int disks_write_mostly(struct mirror_ctx *c)
{
	return mirror_set_write_mostly(c->r, &c->a, true);
}

static int write_behind_off(struct mirror_ctx *c)
{
	char *s = xasprintf("%s/block/%s/md/bitmap/backlog", sysfs_root(), c->kname);
	int rc = mirror_sysfs(c->r, false, s, "0");

	free(s);
	if (!rc)
		mirror_note(c->r, xasprintf("write-behind turned off (it was up to %d writes): every write is on the disks before it is acknowledged",
					    c->a.write_behind));
	return rc;
}

static int finish(struct mirror_ctx *c)
{
	return mirror_finish(c->r, c->o, c->kname, c->mdpath);
}

static int report(struct mirror_ctx *c)
{
	struct mirror_run *r = c->r;
	char *s = size_mib_str(r->size);
	int rc = mirror_print_summary(r, xasprintf("Converted %s: %s (%s%s%s%s) %s, %s; disks write-mostly; %s %s", c->kname, r->rd, s,
						   r->prealloc ? ", preallocated" : "", r->comp ? ", compressed with " : "",
						   r->comp ? config_comp_name(r->comp) : "",
						   convert_of(c)->warm ? "warm start (rdctl copies the array into it, then md recovers what was written during the copy)" : "added",
						   r->sync ? r->sync : "state unknown",
						   r->config_changed ? "added to" : "already in", r->config_path));

	free(s);
	return rc ? rc : mirror_emit(r);
}

/* What undoes or finishes the steps done once one failed (struct verb_step). */
static int failed_unchanged(struct mirror_ctx *c)
{
	return mirror_failed(xasprintf("%s is unchanged", c->kname));
}

static int failed_undo_attach(struct mirror_ctx *c)
{
	if (c->r->rd)
		mirror_detach(c->r, true);
	conf_undo_line(c->r, &c->conf);
	return failed_unchanged(c);
}

static int failed_undo_add(struct mirror_ctx *c)
{
	mirror_detach(c->r, true);
	conf_undo_line(c->r, &c->conf);
	return failed_unchanged(c);
}

static int failed_undo_grow(struct mirror_ctx *c)
{
	mirror_detach(c->r, true);
	conf_undo_line(c->r, &c->conf);
	return mirror_failed(xasprintf("%s should be as it was: check mdadm --detail %s", c->kname, c->mdpath));
}

static int failed_slot_empty(struct mirror_ctx *c)
{
	mirror_detach(c->r, true);
	return mirror_failed(xasprintf("%s runs from its disks with its RAM slot empty: rdctl --restore fills it",
				       c->kname));
}

static int failed_undo_spare(struct mirror_ctx *c)
{
	if (!mirror_mdadm(c->r, true, c->mdpath, "--remove", c->rdpath, NULL))
		mirror_detach(c->r, true);
	conf_undo_line(c->r, &c->conf);
	return mirror_failed(xasprintf("%s should be as it was: check mdadm --detail %s", c->kname, c->mdpath));
}

static int failed_write_mostly(struct mirror_ctx *c)
{
	return mirror_failed(xasprintf("%s has its RAM member %s, but not every disk is write-mostly: reads may go to the disks; retry with rdctl --restore",
				       c->kname, c->r->rd));
}

static int failed_write_behind(struct mirror_ctx *c)
{
	return mirror_failed(xasprintf("%s has its RAM member %s, but write-behind is still on: a power cut can lose acknowledged writes; turn it off: echo 0 > %s/block/%s/md/bitmap/backlog",
				       c->kname, c->r->rd, sysfs_root(), c->kname));
}

/* The steps of --convert, in order. */
static const struct verb_step convert_steps[] = {
	{ "the configuration line", NULL, conf_line, failed_unchanged },
	{ "mdadm.conf fits the grow", NULL, conf_fit, failed_undo_attach },
	{ "the RAM disk attached", mirror_ctx_ram, mirror_step_attach, failed_undo_attach },
	{ "an internal bitmap for the warm start", NULL, bitmap, NULL },
	{ "the grow, the RAM slot empty", with_bitmap, grow_empty, failed_undo_grow },
	{ "the warm start, or the disk added", with_bitmap, warm_or_add, failed_slot_empty },
	{ "the RAM disk added as a spare", without_bitmap, add_spare, failed_undo_add },
	{ "the grow, md recovers the spare", without_bitmap, grow_spare, failed_undo_spare },
	{ "the disks write-mostly", not_warm, disks_write_mostly, failed_write_mostly },
	{ "write-behind off", write_behind_on, write_behind_off, failed_write_behind },
	{ "the configuration, the sync state", NULL, finish, NULL },
	{ "the report", NULL, report, NULL },
};

int cmd_convert(const struct mirror_opts *o, const char *array)
{
	struct convert_ctx v;
	struct mirror_ctx *c = &v.c;
	struct mirror_run r;
	const struct md_member *rm;
	uint64_t size = 0;
	int rc = mirror_open(c, o, "convert", array, true);

	v.bitmap = v.warm = false;
	if (rc)
		goto out;
	if (refused(EINVAL, refuse_not_raid1(array, &c->a))) {
		rc = EXIT_RUNTIME;
		goto out;
	}
	/* a RAM member already: finished as --restore does, or refused; nothing more either way */
	if ((rm = mirror_rd_member(&c->a))) {
		rc = convert_again(c, rm);
		goto out;
	}
	if ((rc = convert_refused(c, &size)))
		goto out;
	/* (no RAM member: every member is a persistent one) */
	mirror_ctx_run(c, &r);
	if (r.nmembers == 1)
		mirror_note(&r, xasprintf("%s has only one persistent member: one disk failure from losing everything",
					  c->kname));
	r.size = size;
	r.prealloc = o->prealloc;
	r.comp = o->compress;
	r.mem_limit = c->mem_limit;
	if (o->member)
		mirror_ctx_member(c);
	rc = MIRROR_RUN_STEPS(c, convert_steps);
	mirror_run_free(&r);
out:
	mirror_close(c);
	return rc;
}
