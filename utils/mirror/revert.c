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

/* One --revert: the RAM member it takes out, NULL when only its traces are left. */
struct revert_ctx {
	struct mirror_ctx c;
	const struct md_member *rm;
};

static const struct md_member *rm_of(const struct mirror_ctx *c)
{
	return ((const struct revert_ctx *)c)->rm;
}

static bool attached(const struct mirror_ctx *c)
{
	return c->r->rd != NULL;
}

/* The RAM member failed and removed. */
static int remove_ram(struct mirror_ctx *c)
{
	const struct md_member *rm = rm_of(c);
	char *rdpath;
	int rc;

	if (!rm) {
		/* a --revert stopped half way, or a restore that never came:
		 * the configuration still names it; finish what is left */
		mirror_note(c->r, xasprintf("%s has no RAM member: finishing the revert (its slot, write-mostly, the configuration line)",
					    c->kname));
		return 0;
	}
	c->r->rd = xstrdup(rm->name);
	rdpath = md_dev_path(rm->name);
	/* a member disk leaves with its data as it is: nothing detached (mirror_detach()) */
	if (md_is_disk(rm))
		c->r->member = xstrdup(rdpath);
	rc = mirror_mdadm(c->r, false, c->mdpath, "--fail", rdpath, "--remove", rdpath, NULL);
	free(rdpath);
	return rc;
}

static int conf_fit(struct mirror_ctx *c)
{
	return mdadm_conf_fit_step(c->r);
}

/* "--raid-devices=<one less>" */
static char *one_less(const struct mirror_ctx *c)
{
	return xasprintf("--raid-devices=%d", c->a.raid_disks - 1);
}

/* Its slot taken away: raid-devices one less, when a slot is free. */
static int shrink(struct mirror_ctx *c)
{
	int slotted, persistent, top, rc;
	char *rdn;

	/* shrink only a slot that is free: one whose member left (md_member slot >= 0 counted) */
	md_count_slots(&c->a, &slotted, &persistent, &top);
	if (c->a.raid_disks <= 1 || (!rm_of(c) && slotted >= c->a.raid_disks))
		return 0;
	rdn = one_less(c);
	rc = mirror_mdadm(c->r, false, "--grow", c->mdpath, rdn, NULL);
	free(rdn);
	return rc;
}

static int detach(struct mirror_ctx *c)
{
	return mirror_detach(c->r, false);
}

static int read_balanced(struct mirror_ctx *c)
{
	return mirror_set_write_mostly(c->r, &c->a, false);
}

static int conf_lines(struct mirror_ctx *c)
{
	return conf_remove_lines(c->r, &c->conf, c->kname);
}

static int report(struct mirror_ctx *c)
{
	struct mirror_run *r = c->r;
	char *s = strv_join(r->members, r->nmembers, " ");
	int rc = mirror_print_summary(r, xasprintf("Reverted %s: %s removed%s; %s read-balanced again; %s %s",
						   c->kname, r->rd ? r->rd : "no RAM member",
						   r->member ? " (a disk: its data is left as it is)" : " and detached", s,
						   r->config_changed ? "removed from" : "nothing to remove from", r->config_path));

	free(s);
	return rc ? rc : mirror_emit(r);
}

/* What finishes the steps done once one failed (struct verb_step). */
static int failed_remove(struct mirror_ctx *c)
{
	char *rdpath = md_dev_path(rm_of(c)->name);
	int rc = mirror_failed(xasprintf("%s may be marked faulty but still in %s: finish with mdadm %s --remove %s, then rdctl --revert %s again",
					 c->r->rd, c->kname, c->mdpath, rdpath, c->array));

	free(rdpath);
	return rc;
}

static int failed_conf_fit(struct mirror_ctx *c)
{
	return mirror_failed(xasprintf("%s is out of %s, which still counts its slot (degraded); fix mdadm.conf, then rdctl --revert %s again",
				       c->r->rd ? c->r->rd : "the RAM member", c->kname, c->array));
}

static int failed_shrink(struct mirror_ctx *c)
{
	char *rdn = one_less(c);
	int rc = mirror_failed(xasprintf("%s left %s, which still counts its slot (degraded); finish with mdadm --grow %s %s, or put a RAM member back with rdctl --restore",
					 c->r->rd, c->kname, c->mdpath, rdn));

	free(rdn);
	return rc;
}

static int failed_detach(struct mirror_ctx *c)
{
	return mirror_failed(xasprintf("%s runs on its disks; %s is out of it but still attached: rdctl --detach %s",
				       c->kname, c->r->rd, c->r->rd));
}

static int failed_read_balanced(struct mirror_ctx *c)
{
	return mirror_failed(xasprintf("%s runs on its disks; some are still write-mostly (reads are not balanced): see rdctl --status",
				       c->kname));
}

static int failed_conf_lines(struct mirror_ctx *c)
{
	return mirror_failed(xasprintf("%s runs on its disks, but its line in %s is left: remove it by hand, or rdctl --restore will add a RAM member again at the next boot",
				       c->kname, c->r->config_path));
}

/* The steps of --revert, in order. */
static const struct verb_step revert_steps[] = {
	{ "the RAM member failed and removed", NULL, remove_ram, failed_remove },
	{ "mdadm.conf fits the shrink", NULL, conf_fit, failed_conf_fit },
	{ "raid-devices one less", NULL, shrink, failed_shrink },
	{ "the RAM disk detached", attached, detach, failed_detach },
	{ "the disks read-balanced", NULL, read_balanced, failed_read_balanced },
	{ "the configuration line removed", NULL, conf_lines, failed_conf_lines },
	{ "the report", NULL, report, NULL },
};

int cmd_revert(const struct mirror_opts *o, const char *array)
{
	struct revert_ctx v;
	struct mirror_ctx *c = &v.c;
	struct mirror_run r;
	int rc = mirror_open(c, o, "revert", array, false);

	if (!rc && !o->dry_run && stop_warmup(c->kname))
		rc = EXIT_RUNTIME;
	if (rc)
		goto out;
	v.rm = mirror_rd_member(&c->a);
	rc = revert_refused(c, v.rm);
	if (rc)
		goto out;
	mirror_ctx_run(c, &r);
	rc = MIRROR_RUN_STEPS(c, revert_steps);
	mirror_run_free(&r);
out:
	mirror_close(c);
	return rc;
}
