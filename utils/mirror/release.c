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
#include "mirror/steps.h"
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

static void release_member(const struct md_array *a, const struct md_member *m, struct boot_report *rep,
			   bool dry_run)
{
	struct boot_item *it = boot_item_new(rep, a->name);
	char *dev = md_dev_path(a->name), *path = md_dev_path(m->name), *msg = NULL, *kept = NULL;
	bool safe = false;
	unsigned index;
	int fd, r, rc;

	it->rd = xstrdup(m->name);
	for (size_t i = 0; i < a->nmembers; i++)
		safe |= !a->members[i].is_ram && a->members[i].in_sync && !a->members[i].faulty;
	if (!safe) {
		boot_item_fail(it, "EBUSY",
			       xasprintf("not releasing %s: no persistent member of %s is in sync, so the data is only in RAM; wait for the recovery (rdctl --status)",
					 m->name, a->name));
		goto out;
	}
	if (ram_only_refusal(it, a, m->name, "releasing"))
		goto out;
	if (dry_run) {
		kept = record_plan(a, m);
		it->action = "planned";
		it->summary = xasprintf("would release %s: mdadm %s --fail %s --remove %s; %s; detach %s", m->name,
					dev, path, path, kept, m->name);
		goto out;
	}
	if ((r = mdadm_call(NULL, &msg, dev, "--fail", path, "--remove", path, NULL)) < 0) {
		boot_item_fail(it, errno_code(-r), msg);
		msg = NULL;
		goto out;
	}
	for (int waited = 0; !member_gone(a->name, m->name) && waited < GONE_WAIT_MS; waited += POLL_MS)
		util_sleep_ms(POLL_MS);
	kept = keep_record(a, m);
	if (!rd_parse_name(m->name, &index)) {
		boot_item_fail(it, "EINVAL", xasprintf("%s is not an rd disk name", m->name));
		goto out;
	}
	rc = control_open(false, &fd);
	if (rc) {
		boot_item_take_error(it);
		goto out;
	}
	r = ctl_remove(fd, index);
	if (close(fd) < 0 && r == 0)
		r = -errno;
	if (r < 0) {
		boot_item_fail(it, errno_code(-r), xasprintf("removed %s from %s, but detaching it failed: %s",
							     m->name, a->name, strerror(-r)));
		goto out;
	}
	it->action = "released";
	it->summary = xasprintf("released %s (failed, removed, detached%s%s)", m->name, kept ? "; " : "",
				kept ? kept : "");
out:
	free(kept);
	free(msg);
	free(dev);
	free(path);
}

/* Warm-up copies still running: stopped, their disks detached. */
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
		struct warmup w;
		char *path = NULL, *kname = NULL;

		rc = mirror_find_array(arrays[i], &path, &kname, &a);
		free(path);
		if (rc)
			break;
		if (!mirror_rd_member(&a) && warmup_read(kname, &w) < 0)
			rc = fail_errno(ENOENT, "%s has no RAM member to release", arrays[i]);
		else if (!mirror_rd_member(&a))
			warmup_clear(&w);
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
		for (size_t j = 0; j < all[i].nmembers && is_wanted(&wanted, all[i].name); j++)
			if (all[i].members[j].is_ram)
				release_member(&all[i], &all[i].members[j], &rep, o->dry_run);
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
