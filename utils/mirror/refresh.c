// SPDX-License-Identifier: GPL-2.0
/* --refresh: a RAM member that left its mirror attached and added again. */
#include "mirror/verb.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <rdmirror.h>

#include "lib/config.h"
#include "lib/errors.h"
#include "lib/size.h"
#include "lib/sysfs.h"
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
/* What --refresh puts back: a RAM disk of the old one's size and prealloc. */
struct refresh_plan {
	const struct md_member *rm;
	uint64_t size;
	bool prealloc;
	unsigned comp;		/* a compressed RAM member: its compressor (its bound: worked out anew) */
	int persistent;		/* persistent members in slots, all in sync */
	bool compact;		/* the disks not in the lowest slots: shrink, then grow */
	bool disk;		/* the fast member is a disk: it comes back itself, copied afresh */
};

/* A member disk comes back itself, its size its own. 0, or an exit code. */
static int refresh_disk_plan(struct mirror_ctx *c, struct refresh_plan *p)
{
	char *path = xasprintf("%s/class/block/%s/size", sysfs_root(), p->rm->name);
	uint64_t sectors = 0;
	int r = read_u64_file(path, &sectors);
	int slotted, top;

	free(path);
	if (r < 0)
		return fail_errno(-r, "cannot read the size of %s: %s", p->rm->name, strerror(-r));
	p->size = sectors * 512;
	p->disk = true;
	md_count_slots(&c->a, &slotted, &p->persistent, &top);
	p->compact = c->a.raid_disks == p->persistent + 1 && top >= p->persistent;
	return 0;
}

/* The refusals of --refresh, and its plan. 0, or an exit code with the error recorded. */
static int refresh_refused(struct mirror_ctx *c, struct refresh_plan *p)
{
	const struct md_member *rm = mirror_rd_member(&c->a);
	struct rd_disk d = { 0 };
	struct warmup w;
	int slotted, top;
	unsigned index;

	if (warmup_read(c->kname, &w) == 0) {
		bool alive = w.alive;

		warmup_clear(&w);
		if (alive)
			return fail_errno(EBUSY, "%s is warming up (a copy into its RAM disk runs): wait for it (rdctl --restore --wait), then refresh",
					  c->array);
	}
	if (!rm || rm->slot < 0 || rm->faulty)
		return fail_errno(ENOENT, "%s has no working RAM member to refresh: rdctl --restore adds one", c->array);
	if (refused(EBUSY, refuse_ram_holds_all(&c->a, "refreshing", c->array, c->mdpath)) ||
	    refused(EBUSY, refuse_ram_only(&c->a, "refreshing", c->array, NULL, rm->name, c->mdpath)))
		return EXIT_RUNTIME;
	p->rm = rm;
	if (md_is_disk(rm))
		return refresh_disk_plan(c, p);
	if (!rd_parse_name(rm->name, &index) || rd_disk_read(index, &d) < 0)
		return fail_errno(EIO, "cannot read %s's size in %s/block/%s", rm->name, sysfs_root(), rm->name);
	p->size = d.size;
	p->prealloc = d.preallocated == 1;
	p->comp = d.compressor ? config_comp_parse(d.compressor) : RDMIRROR_COMP_NONE;
	rd_disk_clear(&d);
	if (rm->kind == MD_FAST_COMPRESSED && !p->comp)
		return fail_errno(EIO, "%s is compressed, but its compressor is not one rdctl knows: revert and convert it again", rm->name);
	/* every persistent member in a slot is in sync now */
	md_count_slots(&c->a, &slotted, &p->persistent, &top);
	p->compact = c->a.raid_disks == p->persistent + 1 && top >= p->persistent;
	return 0;
}

/* One --refresh: its plan, and whether the fresh disk came in by the warm start. */
struct refresh_ctx {
	struct mirror_ctx c;
	struct refresh_plan p;
	bool warm;
};

static struct refresh_ctx *refresh_of(struct mirror_ctx *c)
{
	return (struct refresh_ctx *)c;
}

static const struct refresh_ctx *refresh_of_const(const struct mirror_ctx *c)
{
	return (const struct refresh_ctx *)c;
}

static bool compact(const struct mirror_ctx *c)
{
	return refresh_of_const(c)->p.compact;
}

/* "mdadm --grow MD --raid-devices=n" as a step. 0 or an exit code. */
static int grow_to(struct mirror_run *r, const char *mdpath, int n)
{
	char *rdn = xasprintf("--raid-devices=%d", n);
	int rc = mirror_mdadm(r, false, "--grow", mdpath, rdn, NULL);

	free(rdn);
	return rc;
}

/* The old RAM member out and detached; with compact, the disks packed down. */
static int remove_ram(struct mirror_ctx *c)
{
	char *rdpath = md_dev_path(refresh_of(c)->p.rm->name);
	int rc;

	c->r->rd = xstrdup(refresh_of(c)->p.rm->name);
	if (refresh_of(c)->p.disk)
		c->r->member = xstrdup(rdpath);
	rc = mirror_mdadm(c->r, false, c->mdpath, "--fail", rdpath, "--remove", rdpath, NULL);
	free(rdpath);
	return rc;
}

static int detach(struct mirror_ctx *c)
{
	int rc = mirror_detach(c->r, false);

	if (!rc && !refresh_of(c)->p.disk) {
		free(c->r->rd);
		c->r->rd = NULL;
	}
	return rc;
}

static int conf_fit(struct mirror_ctx *c)
{
	return mdadm_conf_fit_step(c->r);
}

static int pack_disks(struct mirror_ctx *c)
{
	return grow_to(c->r, c->mdpath, refresh_of(c)->p.persistent);
}

static bool fresh_ram(const struct mirror_ctx *c)
{
	return !refresh_of_const(c)->p.disk;
}

static bool member_disk(const struct mirror_ctx *c)
{
	return refresh_of_const(c)->p.disk;
}

/* A member disk comes back itself: its old superblock goes, md takes it as a new member. */
static int zero_member(struct mirror_ctx *c)
{
	const struct refresh_plan *p = &refresh_of(c)->p;

	c->rdpath = xstrdup(c->r->member);
	c->r->size = p->size;
	c->r->has_size = true;
	return mirror_mdadm(c->r, false, "--zero-superblock", c->rdpath, NULL);
}

static int warm_or_add(struct mirror_ctx *c)
{
	struct refresh_ctx *v = refresh_of(c);
	char *why = NULL;

	/* the top slot empty (not after a compaction: the grow comes after the add) */
	v->warm = !v->p.compact && mirror_warm_ram(c->r, c->kname, c->conf.path, &why);
	if (!v->warm)
		mirror_note_cold(c->r, why);
	else
		free(why);
	return v->warm ? 0 : mirror_add_ram(c->r, c->mdpath, c->kname, c->rdpath);
}

static int grow_back(struct mirror_ctx *c)
{
	return grow_to(c->r, c->mdpath, refresh_of(c)->p.persistent + 1);
}

static int sync_state(struct mirror_ctx *c)
{
	return mirror_finish_sync(c->r, c->o, c->kname);
}

static int report(struct mirror_ctx *c)
{
	const struct refresh_ctx *v = refresh_of(c);
	struct mirror_run *r = c->r;
	char *s = size_mib_str(v->p.size);
	int rc;

	if (v->warm)
		rc = mirror_print_summary(r, xasprintf("Refreshed %s: %s (%s), warm start: %s; rdctl copies %s into it, then md recovers what was written during the copy",
						       c->kname, r->rd, s, r->sync ? r->sync : "state unknown", c->kname));
	else
		rc = mirror_print_summary(r, xasprintf("Refreshed %s: %s (%s) added empty%s, %s; md copies the disks into it",
						       c->kname, r->rd, s, v->p.compact ? " in the highest slot" : "",
						       r->sync ? r->sync : "state unknown"));
	free(s);
	return rc ? rc : mirror_emit(r);
}

/* What finishes the steps done once one failed (struct verb_step). */
static int failed_remove(struct mirror_ctx *c)
{
	return mirror_failed(xasprintf("%s may be marked faulty but still in %s: rdctl --restore puts a fresh one back",
				       c->r->rd, c->kname));
}

static int failed_detach(struct mirror_ctx *c)
{
	return mirror_failed(xasprintf("%s runs on its disks; %s is out of it but still attached: rdctl --detach %s, then rdctl --restore",
				       c->kname, c->r->rd, c->r->rd));
}

/* The state after a failed step once the RAM member left. Returns the exit code. */
static int without_ram(struct mirror_ctx *c)
{
	return mirror_failed(xasprintf("%s runs on its disks without its RAM member: rdctl --restore puts it back",
				       c->kname));
}

static int failed_add(struct mirror_ctx *c)
{
	mirror_detach(c->r, true);
	return without_ram(c);
}

static int failed_grow_back(struct mirror_ctx *c)
{
	return mirror_failed(xasprintf("%s has %s as a spare: rdctl --restore grows it into the RAM slot",
				       c->kname, c->r->rd));
}

/* The steps of --refresh, in order. */
static const struct verb_step refresh_steps[] = {
	{ "the RAM member failed and removed", NULL, remove_ram, failed_remove },
	{ "the RAM disk detached", NULL, detach, failed_detach },
	{ "mdadm.conf fits the shrink", compact, conf_fit, without_ram },
	{ "the disks packed into the lowest slots", compact, pack_disks, without_ram },
	{ "a fresh RAM disk attached", fresh_ram, mirror_step_attach, without_ram },
	{ "the member disk's old superblock zeroed", member_disk, zero_member, without_ram },
	{ "the warm start, or the disk added", NULL, warm_or_add, failed_add },
	{ "the grow, the spare into the RAM slot", compact, grow_back, failed_grow_back },
	{ "the sync state", NULL, sync_state, NULL },
	{ "the report", NULL, report, NULL },
};

int cmd_refresh(const struct mirror_opts *o, const char *array)
{
	struct refresh_ctx v = { .warm = false };
	struct mirror_ctx *c = &v.c;
	struct mirror_run r;
	int rc = mirror_open(c, o, "refresh", array, true);

	if (rc || (rc = refresh_refused(c, &v.p)))
		goto out;
	mirror_ctx_run(c, &r);
	/* what mirror_step_attach() attaches (no memory check: the old disk's pages were given back by the detach) */
	if (!v.p.disk) {
		r.size = v.p.size;
		r.prealloc = v.p.prealloc;
		r.comp = v.p.comp;
	}
	rc = MIRROR_RUN_STEPS(c, refresh_steps);
	mirror_run_free(&r);
out:
	mirror_close(c);
	return rc;
}
