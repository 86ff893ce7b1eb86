// SPDX-License-Identifier: GPL-2.0
/*
 * --release: the shutdown side. For every md array with an rd member (not
 * only the configured ones):
 *   mdadm /dev/mdX --fail /dev/rdN --remove /dev/rdN
 * then detach rdN.
 *
 * Why this is enough for the next boot to start the array at once, with
 * no wait for mdadm's last-resort timer:
 *  - the kernel rewrites the superblocks of the remaining members after the
 *    removal; super_1_sync() (drivers/md/md.c) first sets every dev_roles[]
 *    entry to MD_DISK_ROLE_SPARE (0xffff; MD_DISK_ROLE_FAULTY 0xfffe in older
 *    kernels) and then writes a role only for the devices still in the array,
 *    so the removed RAM member has no role below raid_disks any more;
 *  - mdadm computes working_disks from those roles: getinfo_super1()
 *    (super1.c) counts "role < raid_disks" entries, so it is the number of
 *    persistent members;
 *  - udev's incremental assembly (64-md-raid-assembly.rules: mdadm
 *    --incremental) starts the array as soon as
 *    "active_disks >= info.array.working_disks" (Incremental.c), i.e. when
 *    every persistent member is there; --assemble uses the same count
 *    (Assemble.c: req_cnt = content->array.working_disks). Only arrays left
 *    with MD_STARTED=unsafe get the 30 s mdadm-last-resort@ timer.
 * The array then runs degraded (raid_disks still counts the RAM slot) until
 * --restore adds a RAM disk back into that slot. Shrinking raid_disks on
 * release (mdadm --grow -n N-1) is therefore not needed; it would rewrite
 * the array geometry at every shutdown and boot for no gain.
 * After a power cut there was no release: the superblocks still count the
 * RAM member as working, incremental assembly waits, and --restore starts
 * the array with mdadm --run once only the RAM member is missing.
 *
 * A RAM member is not released when no persistent member is in sync (a
 * recovery from RAM onto the disks still runs): failing it would lose the
 * data that exists only in RAM.
 *
 * Between the removal and the detach, the superblock of a RAM member that
 * was in sync, in an array with an internal bitmap, is kept on disk
 * (warm_record.h): the next --restore re-adds a copy under that identity,
 * and md recovers only what the bitmap marks as written since (warmup.h).
 * A warm-up copy still running is stopped first, and its disk detached.
 */
#include "mirror/release.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "lib/errors.h"
#include "lib/lock.h"
#include "lib/sysfs.h"
#include "lib/util.h"
#include "md/md.h"
#include "md/md_ops.h"
#include "mirror/boot.h"
#include "mirror/checks.h"
#include "mirror/compress.h"
#include "mirror/steps.h"
#include "mirror/verb.h"
#include "mirror/warm_record.h"
#include "mirror/warmup.h"
#include "rd/control.h"

#define GONE_WAIT_MS	5000
#define POLL_MS		100

static bool member_gone(const char *mdname, const char *rd)
{
	char *path = xasprintf("%s/block/%s/md/dev-%s", sysfs_root(), mdname, rd);
	bool gone = !path_exists(path);

	free(path);
	return gone;
}

/*
 * Ranges that every persistent member has recorded bad (md's bad-block
 * log) exist only in RAM: failing the RAM member loses them. Refuse, and
 * say it loudly: at shutdown this line is what the journal keeps of the
 * data lost with the power. true when refused.
 */
bool ram_only_refusal(struct boot_item *it, const struct md_array *a, const char *rd, const char *verb)
{
	char *mdpath = md_dev_path(a->name), *why = refuse_ram_only(a, verb, rd, a->name, rd, mdpath);

	free(mdpath);
	if (!why)
		return false;
	boot_item_fail(it, "EBUSY", why);
	return true;
}

/*
 * Keep the superblock of RAM member m, out of a now, for a warm start.
 * Returns the words for the summary: what was kept, or why not.
 */
static char *keep_record(const struct md_array *a, const struct md_member *m)
{
	struct md_super sb;
	char *ver = NULL, *uuid = NULL, *path = NULL, *node, *why = NULL, *s;
	uint64_t sectors = 0;

	if (!m->in_sync || !md_has_internal_bitmap(a->name))
		return NULL;	/* md could not take it back: a full recovery either way */
	if (!path_exists(warm_state_dir()))
		return xasprintf("no warm start: %s is missing", warm_state_dir());
	node = xasprintf("%s/block/%s/size", sysfs_root(), m->name);
	if (read_u64_file(node, &sectors) < 0)
		why = xasprintf("cannot read %s", node);
	free(node);
	ver = md_metadata_version(a->name);
	uuid = md_uuid_of(a->name);
	path = md_dev_path(m->name);
	if (!why && (!ver || !uuid))
		why = xstrdup("metadata version or UUID unknown");
	if (!why && md_super_read(path, ver, sectors * 512, &sb, &why) == 0 &&
	    md_super_fits(&sb, uuid, sectors * 512, &why))
		warm_record_save(&sb, &why);
	s = why ? xasprintf("no warm start: %s", why) : xstrdup("superblock kept for a warm start");
	free(why);
	free(ver);
	free(uuid);
	free(path);
	return s;
}

/* What --release would keep of m for a warm start (keep_record()'s tests, nothing written). */
static char *record_plan(const struct md_array *a, const struct md_member *m)
{
	if (!m->in_sync || !md_has_internal_bitmap(a->name))
		return xstrdup("no superblock kept (md could not take it back)");
	if (!path_exists(warm_state_dir()))
		return xasprintf("no warm start: %s is missing", warm_state_dir());
	return xasprintf("its superblock kept in %s for a warm start", warm_state_dir());
}

/*
 * One array's release (struct verb_step over c): each RAM member of c.a
 * in turn taken out, with its line in the report. c.rdpath is the RAM
 * member's path; c.r stays NULL: a failure goes on the member's line
 * (boot_item_fail()), and the next array is released all the same.
 */
struct release_ctx {
	struct mirror_ctx c;
	const struct md_member *m;	/* the RAM member taken out, of c.a */
	struct boot_item *it;		/* its line in the report */
	char *kept;			/* what was kept of it for a warm start, or why not */
	unsigned index;			/* rdN's N */
	int fd;				/* the control device, once open */
	int err;			/* the detach's errno, once it failed */
};

static struct release_ctx *release_of(struct mirror_ctx *c)
{
	return (struct release_ctx *)c;
}

static bool planning(const struct mirror_ctx *c)
{
	return c->o->dry_run;
}

static bool releasing(const struct mirror_ctx *c)
{
	return !c->o->dry_run;
}

/* The refusals (checks.h): failing the RAM member must not lose what only it holds. */
static int disk_in_sync(struct mirror_ctx *c)
{
	struct release_ctx *v = release_of(c);
	char *why = refuse_no_disk_in_sync(&c->a, v->m->name);

	if (!why)
		return 0;
	boot_item_fail(v->it, "EBUSY", why);
	return EXIT_RUNTIME;
}

static int nothing_only_in_ram(struct mirror_ctx *c)
{
	struct release_ctx *v = release_of(c);

	return ram_only_refusal(v->it, &c->a, v->m->name, "releasing") ? EXIT_RUNTIME : 0;
}

/* --dry-run: what the steps below would do; the last step of a plan. */
static int plan(struct mirror_ctx *c)
{
	struct release_ctx *v = release_of(c);
	const char *rd = v->m->name;

	v->kept = record_plan(&c->a, v->m);
	v->it->action = "planned";
	v->it->summary = xasprintf("would release %s: mdadm %s --fail %s --remove %s; %s; detach %s", rd, c->mdpath,
				   c->rdpath, c->rdpath, v->kept, rd);
	return 0;
}

static int fail_remove(struct mirror_ctx *c)
{
	struct release_ctx *v = release_of(c);
	char *msg = NULL;
	int r = mdadm_call(NULL, &msg, c->mdpath, "--fail", c->rdpath, "--remove", c->rdpath, NULL);

	if (r < 0) {
		boot_item_fail(v->it, errno_code(-r), msg);
		return EXIT_RUNTIME;
	}
	free(msg);
	return 0;
}

/* md takes the member out of sysfs after mdadm returns: the record is kept once it is gone. */
static int wait_gone(struct mirror_ctx *c)
{
	const char *rd = release_of(c)->m->name;

	for (int waited = 0; !member_gone(c->kname, rd) && waited < GONE_WAIT_MS; waited += POLL_MS)
		util_sleep_ms(POLL_MS);
	return 0;
}

/*
 * A compressed member's ratio (its data_bytes over allocated_bytes), kept
 * for the next --restore's memory check (compress.h). The words for the
 * summary, or NULL when there is nothing to keep (an empty disk).
 */
static char *keep_ratio(const char *kname, const char *rd)
{
	struct rd_disk d;
	unsigned index;
	char *uuid, *why = NULL, *s;

	if (!rd_parse_name(rd, &index) || rd_disk_read(index, &d) < 0)
		return NULL;
	uuid = md_uuid_of(kname);
	if (!uuid || d.data_bytes <= 0 || !d.has_allocated || !d.allocated) {
		rd_disk_clear(&d);
		free(uuid);
		return NULL;
	}
	if (compress_ratio_save(uuid, (uint64_t)d.data_bytes, d.allocated, &why) == 0)
		s = xasprintf("its compression ratio %.2f:1 kept", (double)d.data_bytes / (double)d.allocated);
	else
		s = xasprintf("its compression ratio not kept: %s", why);
	free(why);
	free(uuid);
	rd_disk_clear(&d);
	return s;
}

static int keep(struct mirror_ctx *c)
{
	struct release_ctx *v = release_of(c);
	char *ratio = v->m->kind == MD_FAST_COMPRESSED ? keep_ratio(c->kname, v->m->name) : NULL;

	v->kept = keep_record(&c->a, v->m);
	if (ratio) {
		char *s = v->kept ? xasprintf("%s; %s", v->kept, ratio) : ratio;

		if (v->kept) {
			free(v->kept);
			free(ratio);
		}
		v->kept = s;
	}
	return 0;
}

static int rd_index(struct mirror_ctx *c)
{
	struct release_ctx *v = release_of(c);

	if (rd_parse_name(v->m->name, &v->index))
		return 0;
	boot_item_fail(v->it, "EINVAL", xasprintf("%s is not an rd disk name", v->m->name));
	return EXIT_RUNTIME;
}

static int open_control(struct mirror_ctx *c)
{
	struct release_ctx *v = release_of(c);

	if (!control_open(false, &v->fd))
		return 0;
	boot_item_take_error(v->it);
	return EXIT_RUNTIME;
}

static int detach(struct mirror_ctx *c)
{
	struct release_ctx *v = release_of(c);
	int r = ctl_remove(v->fd, v->index);

	if (close(v->fd) < 0 && r == 0)
		r = -errno;
	v->err = -r;
	return r < 0 ? EXIT_RUNTIME : 0;
}

static int report(struct mirror_ctx *c)
{
	struct release_ctx *v = release_of(c);

	v->it->action = "released";
	v->it->summary = xasprintf("released %s (failed, removed, detached%s%s)", v->m->name, v->kept ? "; " : "",
				   v->kept ? v->kept : "");
	return 0;
}

/*
 * What undoes or finishes the steps done once one failed (struct
 * verb_step); the failed step has put its error on the member's line.
 * Nothing is undone: --release runs at shutdown, and what it leaves is
 * what the next boot's --restore starts from.
 */
static int failed_unchanged(struct mirror_ctx *c)
{
	(void)c;
	/* the array keeps its RAM member, in sync: the memory stays in use */
	return EXIT_RUNTIME;
}

static int failed_attached(struct mirror_ctx *c)
{
	(void)c;
	/*
	 * out of the array, its superblock kept (or not): the array runs
	 * from its disks, the RAM disk stays attached until rdctl --detach
	 */
	return EXIT_RUNTIME;
}

static int failed_detach(struct mirror_ctx *c)
{
	struct release_ctx *v = release_of(c);

	boot_item_fail(v->it, errno_code(v->err), xasprintf("removed %s from %s, but detaching it failed: %s",
							     v->m->name, c->kname, strerror(v->err)));
	return failed_attached(c);
}

/* The steps of --release for one RAM member, in order. */
static const struct verb_step release_steps[] = {
	{ "a persistent member in sync", NULL, disk_in_sync, failed_unchanged },
	{ "no range only in RAM", NULL, nothing_only_in_ram, failed_unchanged },
	{ "the plan", planning, plan, NULL },
	{ "failed and removed from the array", releasing, fail_remove, failed_unchanged },
	{ "gone from md", releasing, wait_gone, NULL },
	{ "its superblock kept for a warm start", releasing, keep, NULL },
	{ "its rd index", releasing, rd_index, failed_attached },
	{ "the control device open", releasing, open_control, failed_attached },
	{ "detached", releasing, detach, failed_detach },
	{ "the report line", releasing, report, NULL },
};

/* Every RAM member of a, taken (moved: a is left empty), released, each with its line in rep. */
static void release_array(const struct mirror_opts *o, struct md_array *a, struct boot_report *rep)
{
	struct release_ctx v = { .fd = -1 };
	struct mirror_ctx *c = &v.c;

	mirror_ctx_init(c, o, "release", a->name);
	c->a = *a;
	*a = (struct md_array){ 0 };
	c->kname = xstrdup(c->a.name);
	c->array = c->kname;
	c->mdpath = md_dev_path(c->kname);
	for (size_t j = 0; j < c->a.nmembers; j++) {
		if (!md_is_fast(&c->a.members[j]))
			continue;
		v.m = &c->a.members[j];
		v.it = boot_item_new(rep, c->kname);
		v.it->rd = xstrdup(v.m->name);
		c->rdpath = md_dev_path(v.m->name);
		(void)MIRROR_RUN_STEPS(c, release_steps);
		free(c->rdpath);
		c->rdpath = NULL;
		free(v.kept);
		v.kept = NULL;
	}
	mirror_close(c);
}

/* The arrays --release was given (kernel names), or all when none. */
struct wanted {
	char **names;
	size_t n;
};

static bool is_wanted(const struct wanted *w, const char *mdname)
{
	if (!w->n)
		return true;
	for (size_t i = 0; i < w->n; i++)
		if (!strcmp(w->names[i], mdname))
			return true;
	return false;
}

/* Warm-up copies still running: stopped, their disks detached. */
static void stop_warmups(struct boot_report *rep, const struct wanted *wanted, bool dry_run)
{
	char **names = warmup_arrays();

	for (size_t i = 0; names[i]; i++) {
		struct boot_item *it;
		struct warmup w;
		char *why = NULL;
		bool recovering = false;

		if (!is_wanted(wanted, names[i])) {
			free(names[i]);
			continue;
		}
		it = boot_item_new(rep, names[i]);
		if (warmup_read(names[i], &w) == 0) {
			it->rd = xstrdup(w.rd);
			recovering = w.recovering;
			warmup_clear(&w);
		}
		if (dry_run) {
			it->action = "planned";
			it->summary = recovering ? xasprintf("would stop the warm-up (md recovering %s)", it->rd)
				      : xasprintf("would stop the warm-up copy and detach %s", it->rd ? it->rd : "its RAM disk");
		} else if (warmup_cancel(names[i], &why) < 0) {
			boot_item_fail(it, "EBUSY", why);
		} else {
			it->action = "released";
			/* (once md has the disk, it is the array's release that takes it out) */
			it->summary = recovering ? xasprintf("warm-up stopped during md's recovery of %s", it->rd)
				      : it->rd ? xasprintf("warm-up copy stopped, %s detached", it->rd)
				      : xstrdup("warm-up copy stopped");
		}
		free(names[i]);
	}
	free(names);
}

int cmd_release(const struct mirror_opts *o, char *const arrays[], size_t n)
{
	struct wanted wanted = { .names = xcalloc(n + 1, sizeof(char *)), .n = 0 };
	struct boot_report rep = { 0 };
	struct md_array *all;
	size_t nall;
	int r, rc = o->dry_run ? 0 : change_begin("release");

	for (size_t i = 0; i < n && !rc; i++) {
		struct md_array a;
		char *path = NULL, *kname = NULL;

		rc = mirror_find_array(arrays[i], &path, &kname, &a);
		free(path);
		if (rc)
			break;
		if (refused(ENOENT, refuse_nothing_to_release(&a, arrays[i], kname)))
			rc = EXIT_RUNTIME;
		md_array_clear(&a);
		wanted.names[wanted.n++] = kname;
	}
	if (rc)
		goto out;
	stop_warmups(&rep, &wanted, o->dry_run);
	r = md_arrays_with_rd(&all, &nall);
	if (r < 0) {
		rc = fail_errno(-r, "cannot read the md arrays in %s/block: %s", sysfs_root(), strerror(-r));
		goto out;
	}
	for (size_t i = 0; i < nall; i++)
		if (is_wanted(&wanted, all[i].name))
			release_array(o, &all[i], &rep);
	md_arrays_free(all, nall);
	/* a plan with no step says so, rather than nothing */
	if (o->dry_run && !o->json && rep.n == 0 && printf("nothing to release: no md array has a RAM member\n") < 0)
		rc = fail_errno(EIO, "cannot write to standard output");
	if (!rc)
		rc = boot_report_emit(&rep, "release", NULL, o->json);
out:
	boot_report_free(&rep);
	for (size_t i = 0; i < wanted.n; i++)
		free(wanted.names[i]);
	free(wanted.names);
	return rc;
}
