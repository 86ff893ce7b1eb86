// SPDX-License-Identifier: GPL-2.0
/*
 * --revert: the RAM member failed and removed (only while a persistent
 * member is in sync), raid-devices shrunk, the RAM disk detached.
 */
#include "mirror/verb.h"

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

/* The refusals of --revert: 0, or an exit code with the error recorded. */
static int revert_refused(struct mirror_ctx *c, const struct md_member *rm)
{
	if (!rm && !conf_names_array(&c->conf, c->kname))
		return fail_errno(ENOENT, "%s has no RAM member: nothing to revert", c->array);
	/* never take away the only complete copy, or the only good copy of a range */
	if ((rm && refused(EBUSY, refuse_ram_only(&c->a, "reverting", c->array, NULL, rm->name, c->mdpath))) ||
	    refused(EBUSY, refuse_ram_holds_all(&c->a, "reverting", c->array, c->mdpath)))
		return EXIT_RUNTIME;
	return 0;
}

/* The RAM member failed and removed, as a step. 0 or an exit code. */
static int revert_remove(struct mirror_ctx *c, struct mirror_run *r, const struct md_member *rm)
{
	char *rdpath;
	int rc;

	if (!rm) {
		/* a --revert stopped half way, or a restore that never came:
		 * the configuration still names it; finish what is left */
		mirror_note(r, xasprintf("%s has no RAM member: finishing the revert (its slot, write-mostly, the configuration line)",
					 c->kname));
		return 0;
	}
	r->rd = xstrdup(rm->name);
	rdpath = md_dev_path(rm->name);
	rc = mirror_mdadm(r, false, c->mdpath, "--fail", rdpath, "--remove", rdpath, NULL);
	if (rc)
		rc = mirror_failed(xasprintf("%s may be marked faulty but still in %s: finish with mdadm %s --remove %s, then rdctl --revert %s again",
					     r->rd, c->kname, c->mdpath, rdpath, c->array));
	free(rdpath);
	return rc;
}

/* Its slot taken away: raid-devices one less, when a slot is free. 0 or an exit code. */
static int revert_shrink(struct mirror_ctx *c, struct mirror_run *r, bool had_rm)
{
	int slotted, persistent, top, rc;
	char *rdn;

	rc = mdadm_conf_fit_step(r);
	if (rc)
		return mirror_failed(xasprintf("%s is out of %s, which still counts its slot (degraded); fix mdadm.conf, then rdctl --revert %s again",
					       r->rd ? r->rd : "the RAM member", c->kname, c->array));
	/* shrink only a slot that is free: one whose member left (md_member slot >= 0 counted) */
	md_count_slots(&c->a, &slotted, &persistent, &top);
	if (c->a.raid_disks <= 1 || (!had_rm && slotted >= c->a.raid_disks))
		return 0;
	rdn = xasprintf("--raid-devices=%d", c->a.raid_disks - 1);
	rc = mirror_mdadm(r, false, "--grow", c->mdpath, rdn, NULL);
	if (rc)
		rc = mirror_failed(xasprintf("%s left %s, which still counts its slot (degraded); finish with mdadm --grow %s %s, or put a RAM member back with rdctl --restore",
					     r->rd, c->kname, c->mdpath, rdn));
	free(rdn);
	return rc;
}

/* The steps of --revert, each failure saying what finishes it. 0 or an exit code. */
static int revert_steps(struct mirror_ctx *c, struct mirror_run *r, const struct md_member *rm)
{
	char *s;
	int rc;

	if ((rc = revert_remove(c, r, rm)) || (rc = revert_shrink(c, r, rm != NULL)))
		return rc;
	rc = r->rd ? mirror_detach(r, false) : 0;
	if (rc)
		return mirror_failed(xasprintf("%s runs on its disks; %s is out of it but still attached: rdctl --detach %s",
					       c->kname, r->rd, r->rd));
	rc = mirror_set_write_mostly(r, &c->a, false);
	if (rc)
		return mirror_failed(xasprintf("%s runs on its disks; some are still write-mostly (reads are not balanced): see rdctl --status",
					       c->kname));
	rc = conf_remove_lines(r, &c->conf, c->kname);
	if (rc)
		return mirror_failed(xasprintf("%s runs on its disks, but its line in %s is left: remove it by hand, or rdctl --restore will add a RAM member again at the next boot",
					       c->kname, r->config_path));
	s = strv_join(r->members, r->nmembers, " ");
	rc = mirror_print_summary(r, xasprintf("Reverted %s: %s removed and detached; %s read-balanced again; %s %s",
					       c->kname, r->rd ? r->rd : "no RAM member", s,
					       r->config_changed ? "removed from" : "nothing to remove from", r->config_path));
	free(s);
	return rc ? rc : mirror_emit(r);
}

int cmd_revert(const struct mirror_opts *o, const char *array)
{
	struct mirror_ctx c;
	struct mirror_run r;
	const struct md_member *rm;
	int rc = mirror_open(&c, o, "revert", array, false);

	if (!rc && !o->dry_run && stop_warmup(c.kname))
		rc = EXIT_RUNTIME;
	if (rc)
		goto out;
	rm = mirror_rd_member(&c.a);
	rc = revert_refused(&c, rm);
	if (rc)
		goto out;
	mirror_ctx_run(&c, &r);
	rc = revert_steps(&c, &r, rm);
	mirror_run_free(&r);
out:
	mirror_close(&c);
	return rc;
}
