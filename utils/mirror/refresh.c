// SPDX-License-Identifier: GPL-2.0
/* --refresh: a RAM member that left its mirror attached and added again. */
#include "mirror/verb.h"

#include <errno.h>
#include <stdlib.h>

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
	int persistent;		/* persistent members in slots, all in sync */
	bool compact;		/* the disks not in the lowest slots: shrink, then grow */
};

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
	if (!rd_parse_name(rm->name, &index) || rd_disk_read(index, &d) < 0)
		return fail_errno(EIO, "cannot read %s's size in %s/block/%s", rm->name, sysfs_root(), rm->name);
	p->rm = rm;
	p->size = d.size;
	p->prealloc = d.preallocated == 1;
	rd_disk_clear(&d);
	/* every persistent member in a slot is in sync now */
	md_count_slots(&c->a, &slotted, &p->persistent, &top);
	p->compact = c->a.raid_disks == p->persistent + 1 && top >= p->persistent;
	return 0;
}

/* The state after a failed step once the RAM member left. Returns the exit code. */
static int without_ram(const struct mirror_ctx *c)
{
	return mirror_failed(xasprintf("%s runs on its disks without its RAM member: rdctl --restore puts it back",
				       c->kname));
}

/* "mdadm --grow MD --raid-devices=n" as a step. 0 or an exit code. */
static int grow_to(struct mirror_run *r, const char *mdpath, int n)
{
	char *rdn = xasprintf("--raid-devices=%d", n);
	int rc = mirror_mdadm(r, false, "--grow", mdpath, rdn, NULL);

	free(rdn);
	return rc;
}

/* The old RAM member out and detached; with compact, the disks packed down. 0 or an exit code. */
static int refresh_take_out(struct mirror_ctx *c, struct mirror_run *r, const struct refresh_plan *p)
{
	char *rdpath = md_dev_path(p->rm->name);
	int rc;

	r->rd = xstrdup(p->rm->name);
	rc = mirror_mdadm(r, false, c->mdpath, "--fail", rdpath, "--remove", rdpath, NULL);
	free(rdpath);
	if (rc)
		return mirror_failed(xasprintf("%s may be marked faulty but still in %s: rdctl --restore puts a fresh one back",
					       r->rd, c->kname));
	rc = mirror_detach(r, false);
	if (rc)
		return mirror_failed(xasprintf("%s runs on its disks; %s is out of it but still attached: rdctl --detach %s, then rdctl --restore",
					       c->kname, r->rd, r->rd));
	free(r->rd);
	r->rd = NULL;
	if (p->compact && ((rc = mdadm_conf_fit_step(r)) || (rc = grow_to(r, c->mdpath, p->persistent))))
		return without_ram(c);
	return 0;
}

/* A fresh RAM disk in: the warm start, or added and recovered. 0 or an exit code; *warm. */
static int refresh_put_back(struct mirror_ctx *c, struct mirror_run *r, const struct refresh_plan *p, bool *warm)
{
	char *rdpath, *why = NULL;
	int rc;

	/* no memory check: the old disk's pages were given back by the detach */
	if ((rc = mirror_attach(r, p->size, p->prealloc)))
		return without_ram(c);
	rdpath = r->rd ? md_dev_path(r->rd) : xasprintf("%s/rdN", dev_root());
	/* the top slot empty (not after a compaction: the grow comes after the add) */
	*warm = !p->compact && mirror_warm_ram(r, c->kname, c->conf.path, &why);
	if (!*warm)
		mirror_note_cold(r, why);
	else
		free(why);
	rc = *warm ? 0 : mirror_add_ram(r, c->mdpath, c->kname, rdpath);
	free(rdpath);
	if (rc) {
		mirror_detach(r, true);
		return without_ram(c);
	}
	if (p->compact && (rc = grow_to(r, c->mdpath, p->persistent + 1)))
		return mirror_failed(xasprintf("%s has %s as a spare: rdctl --restore grows it into the RAM slot",
					       c->kname, r->rd));
	return 0;
}

/* The steps of --refresh and its report. 0 or an exit code. */
static int refresh_steps(struct mirror_ctx *c, struct mirror_run *r, const struct refresh_plan *p)
{
	bool warm = false;
	char *s;
	int rc;

	if ((rc = refresh_take_out(c, r, p)) || (rc = refresh_put_back(c, r, p, &warm)) ||
	    (rc = mirror_finish_sync(r, c->o, c->kname)))
		return rc;
	s = size_mib_str(p->size);
	if (warm)
		rc = mirror_print_summary(r, xasprintf("Refreshed %s: %s (%s), warm start: %s; rdctl copies %s into it, then md recovers what was written during the copy",
						       c->kname, r->rd, s, r->sync ? r->sync : "state unknown", c->kname));
	else
		rc = mirror_print_summary(r, xasprintf("Refreshed %s: %s (%s) added empty%s, %s; md copies the disks into it",
						       c->kname, r->rd, s, p->compact ? " in the highest slot" : "",
						       r->sync ? r->sync : "state unknown"));
	free(s);
	return rc ? rc : mirror_emit(r);
}

int cmd_refresh(const struct mirror_opts *o, const char *array)
{
	struct mirror_ctx c;
	struct mirror_run r;
	struct refresh_plan p = { 0 };
	int rc = mirror_open(&c, o, "refresh", array, true);

	if (rc || (rc = refresh_refused(&c, &p)))
		goto out;
	mirror_ctx_run(&c, &r);
	rc = refresh_steps(&c, &r, &p);
	mirror_run_free(&r);
out:
	mirror_close(&c);
	return rc;
}
