// SPDX-License-Identifier: GPL-2.0
/*
 * --create: a new mirror of blank disks, all write-mostly, the RAM slot
 * "missing" at first; then the RAM disk attached and brought in by the
 * warm start (rdctl copies the array into it, md recovers what was written
 * meanwhile: mirror/warmup.h), or without a bitmap --added, so md
 * recovers it from the disks (mirror/steps.h).
 */
#include "mirror/verb.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "lib/errors.h"
#include "lib/size.h"
#include "lib/sysfs.h"
#include "lib/util.h"
#include "md/md_ops.h"
#include "mirror/checks.h"
#include "mirror/conf_steps.h"
#include "mirror/disk_check.h"
#include "mirror/restore.h"
#include "mirror/steps.h"

/* A large bitmap chunk: one bitmap update per 128 MiB region written,
 * instead of mdadm's default 64 MiB on small arrays or less. */
#define BITMAP_CHUNK	"128M"
#define LINK_WAIT_MS	3000
#define POLL_MS		100

static int create_dry_root(const struct mirror_opts *o)
{
	if (!o->dry_run || geteuid() == 0)
		return 0;
	return fail(EXIT_RUNTIME, "EPERM",
		    "--create --dry-run needs root: it opens the disks to check that they are blank (run it with sudo)");
}

/* --create: undo the mdadm --create of blank disks: stop, wipe the superblocks. */
static void undo_create(struct mirror_run *r, const char *mdpath, const struct disk_info *d, size_t n)
{
	if (mirror_mdadm(r, true, "--stop", mdpath, NULL))
		return;
	for (size_t i = 0; i < n; i++)
		mirror_mdadm(r, true, "--zero-superblock", d[i].path, NULL);
}

/*
 * The disks' write-mostly flag set (on) or cleared (off) as steps. Cleared
 * before the warm start's copy, so that reads spread over the disks while
 * the RAM slot is empty (the warm-up daemon would clear it too, warmup.c),
 * and first here because md writes its superblocks on this change
 * (state_store() calls md_update_sb(), which counts one event up): an
 * array just made by mdadm --create may hold event count 0 on disk, and
 * the warm start's superblock must be one event older than the array's
 * (md_super_returning() refuses 0). The daemon sets the flag again once
 * the RAM member is in sync; without a warm start, this sets it back.
 */
static int disks_write_mostly(struct mirror_run *r, const char *kname, bool on)
{
	int rc = 0;

	for (size_t i = 0; i < r->nmembers && !rc; i++) {
		char *p = xasprintf("%s/block/%s/md/dev-%s/state", sysfs_root(), kname, r->members[i]);

		rc = mirror_sysfs(r, false, p, on ? "writemostly" : "-writemostly");
		free(p);
	}
	return rc;
}

/* The kernel name behind /dev/md/NAME, which udev links a moment after mdadm --create. */
static char *wait_link(const char *name)
{
	char *k = md_resolve_name(name);

	for (int waited = 0; !k && waited < LINK_WAIT_MS; waited += POLL_MS) {
		util_sleep_ms(POLL_MS);
		k = md_resolve_name(name);
	}
	return k;
}

/*
 * Is kname what an interrupted --create of these disks left: every one of
 * them a write-mostly member, nothing else in it, and one slot more (the
 * RAM slot, missing)? Then running --create again adds its line and
 * finishes it.
 */
static bool created_here(const struct mirror_opts *o, const char *kname, char *const disks[], size_t ndisks)
{
	struct md_array a;
	size_t found = 0;
	bool ours;

	(void)o;
	if (md_array_read(kname, &a) < 0)
		return false;
	ours = a.raid_disks == (int)ndisks + 1 && a.nmembers == ndisks;
	for (size_t i = 0; ours && i < a.nmembers; i++) {
		const struct md_member *m = &a.members[i];
		char *dev = md_dev_path(m->name);
		char *real = realpath(dev, NULL);

		ours = !m->is_ram && m->write_mostly;
		for (size_t j = 0; ours && j < ndisks; j++) {
			char *given = realpath(disks[j], NULL);

			found += given && real && !strcmp(given, real);
			free(given);
		}
		free(real);
		free(dev);
	}
	md_array_clear(&a);
	return ours && found == ndisks;
}

/* One --create: what the verb's steps share. */
struct create_ctx {
	const struct mirror_opts *o;
	const char *array;	/* as the user wrote it */
	char *mdpath, *kname;	/* kname NULL until known (/dev/md/NAME) */
	struct conf_file conf;
	struct disk_info *d;	/* the disks, checked */
	size_t n;
	bool held_data;		/* a disk held a signature (--force) */
};

/*
 * The array exists: a --create stopped after mdadm --create is finished
 * as the boot's restore would (its line added first when these disks are
 * what it left); else refused. An exit code.
 */
static int create_again(struct create_ctx *c, char *const disks[], size_t ndisks)
{
	const struct mirror_opts *o = c->o;
	bool found = false, ours = c->kname && md_has_members(c->kname) && !o->dry_run;
	int rc;

	if (ours && !conf_names_array(&c->conf, c->kname) && created_here(o, c->kname, disks, ndisks))
		conf_adopt_line(&c->conf, c->kname, o->prealloc);
	if (ours && conf_names_array(&c->conf, c->kname)) {
		if (!o->json)
			printf("%s exists and is in %s: finishing an interrupted --create as rdctl --restore does\n",
			       c->kname, c->conf.path);
		rc = restore_array(o, &c->conf, c->kname, &found);
		if (found)
			return rc;
	}
	return fail_errno(EEXIST, "%s exists already: rdctl --convert %s gives a running RAID1 a RAM member", c->array,
			  c->array);
}

/* Each disk blank (or --force) and given once. 0 or an exit code; *smallest. */
static int create_check_disks(struct create_ctx *c, char *const disks[], size_t ndisks, uint64_t *smallest)
{
	int rc;

	c->d = xcalloc(ndisks, sizeof(*c->d));
	while (c->n < ndisks) {
		struct disk_info *d = &c->d[c->n];

		/* counted before the check: disk_check fills d even when it fails */
		rc = disk_check(disks[c->n], c->o->force, d);
		c->n++;
		if (rc)
			return rc;
		for (size_t j = 0; j + 1 < c->n; j++)
			if (!strcmp(c->d[j].name, d->name))
				return fail(EXIT_USAGE, "USAGE", "%s and %s are the same disk (%s): give each disk once",
					    c->d[j].path, d->path, d->name);
		if (d->size < *smallest)
			*smallest = d->size;
		c->held_data |= d->signatures != NULL;
	}
	return 0;
}

/*
 * mdadm --create MD --level=1 ... --write-mostly DISK... missing: every
 * disk write-mostly, the RAM slot missing and the highest, so that md's
 * check/repair, which takes the lowest slot that reads well as the truth
 * (process_checks() in drivers/md/raid1.c), takes a disk. Blank disks
 * need not copy each other first: --assume-clean. Disks that held data
 * (--force) differ where nothing was written since, and md's check would
 * count those mismatches for ever: md resyncs them instead.
 */
static int create_mdadm(struct create_ctx *c, struct mirror_run *r)
{
	const char **args = xcalloc(c->n + 16, sizeof(*args));
	char *rdn = xasprintf("--raid-devices=%zu", c->n + 1);
	size_t k = 0;
	int rc;

	args[k++] = "--create";
	args[k++] = c->mdpath;
	args[k++] = "--run";
	args[k++] = "--level=1";
	args[k++] = "--metadata=1.2";
	args[k++] = rdn;
	if (!c->held_data)
		args[k++] = "--assume-clean";
	if (c->o->bitmap_none) {
		args[k++] = "--bitmap=none";
	} else {
		args[k++] = "--bitmap=internal";
		args[k++] = "--bitmap-chunk=" BITMAP_CHUNK;
	}
	args[k++] = "--write-mostly";
	for (size_t i = 0; i < c->n; i++)
		args[k++] = c->d[i].path;
	args[k++] = "missing";
	args[k] = NULL;
	rc = mirror_mdadmv(r, false, args);
	free(rdn);
	free(args);
	if (rc)
		return mirror_failed(xasprintf("check the disks with mdadm --examine %s", c->d[0].path));
	for (size_t i = 0; i < c->n; i++)
		strv_add(&r->wm, &r->nwm, c->d[i].name);
	return 0;
}

/* The array made: its kernel name, UUID and what a member needs (r->size). 0 or an exit code. */
static int create_array(struct create_ctx *c, struct mirror_run *r)
{
	uint64_t need = 0;
	char *msg = NULL;
	int rc = create_mdadm(c, r);

	if (rc || r->dry_run)
		return rc;
	if (!c->kname)
		c->kname = wait_link(c->array + 8);
	if (!c->kname)
		return fail_errno(ENODEV, "%s did not appear after mdadm --create: see mdadm --detail --scan", c->array);
	free(r->array);
	r->array = xstrdup(c->kname);
	r->uuid = md_uuid_of(c->kname);
	if (md_member_size(c->kname, &need, &msg) < 0) {
		fail_errno(EIO, "%s", msg);
		free(msg);
	} else if (c->o->auto_size) {
		r->size = need;
		return 0;
	} else if (r->size >= need) {
		return 0;
	} else {
		char *a1 = size_mib_str(r->size), *a2 = size_mib_str(need);

		fail_errno(EINVAL, "--size %s is smaller than the %s a member of %s needs: use --size auto", a1, a2,
			   c->array);
		free(a1);
		free(a2);
	}
	undo_create(r, c->mdpath, c->d, c->n);
	return mirror_failed(xasprintf("%s was stopped and its disks wiped again", c->array));
}

/*
 * The RAM disk in by the warm start, as --convert's: the RAM slot has been
 * empty since mdadm --create, so the array is degraded and md's bitmap
 * keeps every write from then on; rdctl copies the array into the RAM
 * disk, re-adds it, and md recovers what was written meanwhile
 * (mirror/warm_super.h says why that holds). Reads spread over the disks
 * until it is in sync. With --bitmap none, or when it cannot start, md
 * recovers an added disk in full. 0 or an exit code (the disk detached); *warm.
 */
static int create_ram(struct create_ctx *c, struct mirror_run *r, bool *warm)
{
	const char *name = c->kname ? c->kname : c->array + strlen("/dev/");
	char *rdpath, *why = NULL;
	int rc = mirror_attach(r, r->size, r->prealloc);

	if (rc) {
		if (r->rd)
			mirror_detach(r, true);
		return rc;
	}
	rdpath = r->rd ? md_dev_path(r->rd) : xasprintf("%s/rdN", dev_root());
	if (!c->o->bitmap_none && !(rc = disks_write_mostly(r, name, false)))
		*warm = mirror_warm_ram(r, name, c->conf.path, &why);
	if (!rc && !*warm) {
		mirror_note_cold(r, why);
		why = NULL;
		if (!c->o->bitmap_none)
			rc = disks_write_mostly(r, name, true);
		if (!rc)
			rc = mirror_add_ram(r, c->mdpath, c->kname, rdpath);
	}
	free(rdpath);
	free(why);
	if (rc)
		mirror_detach(r, true);
	return rc;
}

/*
 * The steps of --create and its report. The configuration line comes
 * right after the array: from there on, an interrupted --create (a kill,
 * a power cut) is finished by the next boot's --restore, or by running the
 * same --create again. 0 or an exit code.
 */
static int create_steps(struct create_ctx *c, struct mirror_run *r)
{
	const char *name;
	bool warm = false, undo_ok = true;
	char *s, *sz;
	int rc = create_array(c, r);

	if (rc)
		return rc;
	name = c->kname ? c->kname : c->array;
	rc = conf_add_line(r, &c->conf, name, c->o->auto_size);
	if (rc) {
		undo_create(r, c->mdpath, c->d, c->n);
		return mirror_failed(xasprintf("%s was stopped and its disks wiped again", c->array));
	}
	if ((rc = create_ram(c, r, &warm))) {
		undo_create(r, c->mdpath, c->d, c->n);
		if (r->config_changed && !r->dry_run)
			conf_undo_line(r, &c->conf);
		for (size_t i = 0; i < r->nsteps; i++)
			undo_ok &= strcmp(r->steps[i].status, "failed") || !r->steps[i].undo;
		return mirror_failed(undo_ok ? xasprintf("undone: %s was stopped and its disks wiped again", c->array)
					     : xasprintf("the undo failed too: see the steps above and mdadm --detail %s",
							 c->mdpath));
	}
	if ((rc = mirror_finish(r, c->o, name, c->mdpath)))
		return rc;
	s = strv_join(r->members, r->nmembers, " ");
	sz = size_mib_str(r->size);
	rc = mirror_print_summary(r, xasprintf("Created %s: %s (%s%s) %s and %s write-mostly, bitmap %s; %s; %s %s",
					       c->kname, r->rd, sz, r->prealloc ? ", preallocated" : "",
					       warm ? "by a warm start (rdctl copies the array into it, then md recovers what was written during the copy)" : "added",
					       s, r->bitmap, r->sync ? r->sync : "state unknown",
					       r->config_changed ? "added to" : "already in", r->config_path));
	free(sz);
	free(s);
	return rc ? rc : mirror_emit(r);
}

/* The notes of the plan: what --force destroys, one disk only, no bitmap. */
static void create_notes(struct create_ctx *c, struct mirror_run *r)
{
	for (size_t i = 0; i < c->n; i++) {
		strv_add(&r->members, &r->nmembers, c->d[i].name);
		if (c->d[i].signatures)
			mirror_note(r, xasprintf("--force: destroying what wipefs found on %s: %s", c->d[i].path,
						 c->d[i].signatures));
	}
	if (c->held_data && c->n > 1)
		mirror_note(r, xstrdup("--force: the disks held data, so md resyncs them to each other (no --assume-clean)"));
	if (c->n == 1)
		mirror_note(r, xasprintf("%s will have only one persistent member: one disk failure from losing everything",
					 c->array));
	if (c->o->bitmap_none)
		mirror_note(r, xstrdup("--bitmap none: after a crash or power cut md resyncs the whole disks, and reads go to the disks until the RAM member is back"));
}

int cmd_create(const struct mirror_opts *o, const char *array, char *const disks[], size_t ndisks)
{
	struct create_ctx c = { .o = o, .array = array };
	struct mirror_run r;
	uint64_t smallest = UINT64_MAX;
	int rc;

	conf_file_init(&c.conf, o->config, o->json);
	if ((rc = mirror_begin(o, "create")) || (rc = create_dry_root(o)) ||
	    (rc = check_kernel_bug(o->ignore_kernel_bug, "create")) ||
	    (rc = mirror_parse_array(array, &c.mdpath, &c.kname)))
		goto out;
	if ((c.kname && md_has_members(c.kname)) || (!strncmp(array, "/dev/md/", 8) && path_exists(c.mdpath))) {
		rc = create_again(&c, disks, ndisks);
		goto out;
	}
	if ((rc = create_check_disks(&c, disks, ndisks, &smallest)))
		goto out;
	/* The RAM member needs at most what the smallest disk holds. */
	if ((rc = check_memory(o->ignore_memory, o->auto_size ? smallest : o->size, "the RAM member")))
		goto out;
	mirror_run_init(&r, "create", c.kname ? c.kname : array, o->dry_run, o->json);
	r.bitmap = o->bitmap_none ? "none" : "internal";
	r.size = o->auto_size ? smallest : o->size;
	r.prealloc = o->prealloc;
	create_notes(&c, &r);
	rc = create_steps(&c, &r);
	mirror_run_free(&r);
out:
	for (size_t i = 0; i < c.n; i++)
		disk_info_clear(&c.d[i]);
	free(c.d);
	conf_file_free(&c.conf);
	free(c.mdpath);
	free(c.kname);
	return rc;
}
