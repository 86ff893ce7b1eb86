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

#include "lib/config.h"
#include "lib/errors.h"
#include "lib/size.h"
#include "lib/sysfs.h"
#include "lib/util.h"
#include "md/md_ops.h"
#include "mirror/checks.h"
#include "mirror/conf_steps.h"
#include "mirror/disk_check.h"
#include "mirror/member.h"
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

		ours = !md_is_fast(m) && m->write_mostly;
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

/*
 * One --create: its context (struct mirror_ctx, without c.a: the array is
 * made by a step; c.kname NULL until known, /dev/md/NAME) and the disks.
 */
struct create_ctx {
	struct mirror_ctx c;
	struct disk_info *d;	/* the disks, checked */
	size_t n;
	bool held_data;		/* a disk held a signature (--force) */
	bool warm;		/* the RAM disk came in by the warm start */
	char *why;		/* why not, from mirror_warm_ram() */
};

static struct create_ctx *create_of(struct mirror_ctx *c)
{
	return (struct create_ctx *)c;
}

static const struct create_ctx *create_of_const(const struct mirror_ctx *c)
{
	return (const struct create_ctx *)c;
}

/*
 * The array exists: a --create stopped after mdadm --create is finished
 * as the boot's restore would (its line added first when these disks are
 * what it left); else refused. An exit code.
 */
static int create_again(struct mirror_ctx *c, char *const disks[], size_t ndisks)
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
static int create_check_disks(struct create_ctx *v, char *const disks[], size_t ndisks, uint64_t *smallest)
{
	int rc;

	v->d = xcalloc(ndisks, sizeof(*v->d));
	while (v->n < ndisks) {
		struct disk_info *d = &v->d[v->n];

		/* counted before the check: disk_check fills d even when it fails */
		rc = disk_check(disks[v->n], v->c.o->force, d);
		v->n++;
		if (rc)
			return rc;
		for (size_t j = 0; j + 1 < v->n; j++)
			if (!strcmp(v->d[j].name, d->name))
				return fail(EXIT_USAGE, "USAGE", "%s and %s are the same disk (%s): give each disk once",
					    v->d[j].path, d->path, d->name);
		if (d->size < *smallest)
			*smallest = d->size;
		v->held_data |= d->signatures != NULL;
	}
	return 0;
}

/*
 * --member: the disk checked (member.h) against the smallest disk, and the
 * largest logical block of the disks (the array's); not one of the disks.
 */
static int create_check_member(struct create_ctx *v, uint64_t smallest)
{
	struct mirror_ctx *c = &v->c;
	unsigned alb = 0, l;
	int rc;

	for (size_t i = 0; i < v->n; i++)
		if ((l = member_lbs(v->d[i].name)) > alb)
			alb = l;
	if ((rc = member_check(c->o->member, c->o->force, smallest, alb, &c->member)))
		return rc;
	for (size_t i = 0; i < v->n; i++)
		if (!strcmp(v->d[i].name, c->member.name))
			return fail(EXIT_USAGE, "USAGE", "%s and --member %s are the same disk (%s): the fast member is another disk",
				    v->d[i].path, c->member.path, c->member.name);
	return 0;
}

/* The array's name in the configuration and for mdadm: kname once known, else ARRAY as given. */
static const char *array_name(const struct mirror_ctx *c)
{
	return c->kname ? c->kname : c->array;
}

/* The array's name in sysfs for the warm start: kname, or the NAME of /dev/NAME. */
static const char *sysfs_name(const struct mirror_ctx *c)
{
	return c->kname ? c->kname : c->array + strlen("/dev/");
}

static bool not_dry_run(const struct mirror_ctx *c)
{
	return !c->o->dry_run;
}

static bool with_bitmap(const struct mirror_ctx *c)
{
	return !c->o->bitmap_none;
}

static bool not_warm(const struct mirror_ctx *c)
{
	return !create_of_const(c)->warm;
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
static int create_mdadm(struct mirror_ctx *c)
{
	const struct create_ctx *v = create_of(c);
	const char **args = xcalloc(v->n + 16, sizeof(*args));
	char *rdn = xasprintf("--raid-devices=%zu", v->n + 1);
	size_t k = 0;
	int rc;

	args[k++] = "--create";
	args[k++] = c->mdpath;
	args[k++] = "--run";
	args[k++] = "--level=1";
	args[k++] = "--metadata=1.2";
	args[k++] = rdn;
	if (!v->held_data)
		args[k++] = "--assume-clean";
	if (c->o->bitmap_none) {
		args[k++] = "--bitmap=none";
	} else {
		args[k++] = "--bitmap=internal";
		args[k++] = "--bitmap-chunk=" BITMAP_CHUNK;
	}
	args[k++] = "--write-mostly";
	for (size_t i = 0; i < v->n; i++)
		args[k++] = v->d[i].path;
	args[k++] = "missing";
	args[k] = NULL;
	rc = mirror_mdadmv(c->r, false, args);
	free(rdn);
	free(args);
	if (rc)
		return rc;
	for (size_t i = 0; i < v->n; i++)
		strv_add(&c->r->wm, &c->r->nwm, v->d[i].name);
	return 0;
}

/* The array made: its kernel name and UUID. */
static int array_found(struct mirror_ctx *c)
{
	struct mirror_run *r = c->r;

	if (!c->kname)
		c->kname = wait_link(c->array + 8);
	if (!c->kname)
		return fail_errno(ENODEV, "%s did not appear after mdadm --create: see mdadm --detail --scan", c->array);
	free(r->array);
	r->array = xstrdup(c->kname);
	r->uuid = md_uuid_of(c->kname);
	return 0;
}

/* What a member of the array needs (r->size). */
static int member_size(struct mirror_ctx *c)
{
	struct mirror_run *r = c->r;
	uint64_t need = 0;
	char *msg = NULL, *a1, *a2;
	int rc;

	if (md_member_size(c->kname, &need, &msg) < 0) {
		rc = fail_errno(EIO, "%s", msg);
		free(msg);
		return rc;
	}
	if (c->o->member)
		return refused(EINVAL, member_refuse_fit(c->member.path, c->member.size, 0, need, 0)) ? EXIT_RUNTIME : 0;
	if (c->o->auto_size) {
		r->size = need;
		return 0;
	}
	if (r->size >= need)
		return 0;
	a1 = size_mib_str(r->size);
	a2 = size_mib_str(need);
	rc = fail_errno(EINVAL, "--size %s is smaller than the %s a member of %s needs: use --size auto", a1, a2,
			c->array);
	free(a1);
	free(a2);
	return rc;
}

/*
 * The configuration line comes right after the array: from there on, an
 * interrupted --create (a kill, a power cut) is finished by the next
 * boot's --restore, or by running the same --create again.
 */
static int conf_line(struct mirror_ctx *c)
{
	return conf_add_line(c->r, &c->conf, array_name(c), c->o->auto_size);
}

/*
 * The RAM disk in by the warm start, as --convert's: the RAM slot has been
 * empty since mdadm --create, so the array is degraded and md's bitmap
 * keeps every write from then on; rdctl copies the array into the RAM
 * disk, re-adds it, and md recovers what was written meanwhile
 * (mirror/warm_super.h says why that holds). Reads spread over the disks
 * until it is in sync. With --bitmap none, or when it cannot start, md
 * recovers an added disk in full.
 */
static int disks_read_balanced(struct mirror_ctx *c)
{
	return disks_write_mostly(c->r, sysfs_name(c), false);
}

static int warm_start(struct mirror_ctx *c)
{
	struct create_ctx *v = create_of(c);

	v->warm = mirror_warm_ram(c->r, sysfs_name(c), c->conf.path, &v->why);
	return 0;
}

/* No warm start: the note, and the disks write-mostly again (not with --bitmap none: they still are). */
static int disks_back(struct mirror_ctx *c)
{
	struct create_ctx *v = create_of(c);

	mirror_note_cold(c->r, v->why);
	v->why = NULL;
	return c->o->bitmap_none ? 0 : disks_write_mostly(c->r, sysfs_name(c), true);
}

static int add(struct mirror_ctx *c)
{
	return mirror_add_ram(c->r, c->mdpath, c->kname, c->rdpath);
}

static int finish(struct mirror_ctx *c)
{
	return mirror_finish(c->r, c->o, array_name(c), c->mdpath);
}

static int report(struct mirror_ctx *c)
{
	struct mirror_run *r = c->r;
	char *s = strv_join(r->members, r->nmembers, " ");
	char *sz = size_mib_str(r->size);
	int rc = mirror_print_summary(r, xasprintf("Created %s: %s (%s%s%s%s) %s and %s write-mostly, bitmap %s; %s; %s %s",
						   c->kname, r->rd, sz, r->prealloc ? ", preallocated" : "",
						   r->comp ? ", compressed with " : "", r->comp ? config_comp_name(r->comp) : "",
						   create_of(c)->warm ? "by a warm start (rdctl copies the array into it, then md recovers what was written during the copy)" : "added",
						   s, r->bitmap, r->sync ? r->sync : "state unknown",
						   r->config_changed ? "added to" : "already in", r->config_path));

	free(sz);
	free(s);
	return rc ? rc : mirror_emit(r);
}

/* What undoes the steps done once one failed (struct verb_step). */
static int failed_mdadm(struct mirror_ctx *c)
{
	return mirror_failed(xasprintf("check the disks with mdadm --examine %s", create_of(c)->d[0].path));
}

static int failed_undo_create(struct mirror_ctx *c)
{
	const struct create_ctx *v = create_of(c);

	undo_create(c->r, c->mdpath, v->d, v->n);
	return mirror_failed(xasprintf("%s was stopped and its disks wiped again", c->array));
}

/* The array stopped, its disks wiped, its line taken out again: whether the undo worked. */
static int failed_undone(struct mirror_ctx *c)
{
	const struct create_ctx *v = create_of(c);
	struct mirror_run *r = c->r;
	bool undo_ok = true;

	undo_create(r, c->mdpath, v->d, v->n);
	if (r->config_changed && !r->dry_run)
		conf_undo_line(r, &c->conf);
	for (size_t i = 0; i < r->nsteps; i++)
		undo_ok &= strcmp(r->steps[i].status, "failed") || !r->steps[i].undo;
	return mirror_failed(undo_ok ? xasprintf("undone: %s was stopped and its disks wiped again", c->array)
				     : xasprintf("the undo failed too: see the steps above and mdadm --detail %s",
						 c->mdpath));
}

static int failed_attach(struct mirror_ctx *c)
{
	if (c->r->rd)
		mirror_detach(c->r, true);
	return failed_undone(c);
}

static int failed_detach(struct mirror_ctx *c)
{
	mirror_detach(c->r, true);
	return failed_undone(c);
}

/* The steps of --create, in order (a dry run plans what it can without the array). */
static const struct verb_step create_steps[] = {
	{ "mdadm --create, the RAM slot missing", NULL, create_mdadm, failed_mdadm },
	{ "the array's name", not_dry_run, array_found, NULL },
	{ "the RAM member's size", not_dry_run, member_size, failed_undo_create },
	{ "the configuration line", NULL, conf_line, failed_undo_create },
	{ "the RAM disk attached", mirror_ctx_ram, mirror_step_attach, failed_attach },
	{ "the disks read-balanced for the copy", with_bitmap, disks_read_balanced, failed_detach },
	{ "the warm start", with_bitmap, warm_start, NULL },
	{ "no warm start: the disks write-mostly", not_warm, disks_back, failed_detach },
	{ "no warm start: the RAM disk added", not_warm, add, failed_detach },
	{ "the configuration, the sync state", NULL, finish, NULL },
	{ "the report", NULL, report, NULL },
};

/* The notes of the plan: what --force destroys, one disk only, no bitmap. */
static void create_notes(const struct create_ctx *v, struct mirror_run *r)
{
	const struct mirror_ctx *c = &v->c;

	for (size_t i = 0; i < v->n; i++) {
		strv_add(&r->members, &r->nmembers, v->d[i].name);
		if (v->d[i].signatures)
			mirror_note(r, xasprintf("--force: destroying what wipefs found on %s: %s", v->d[i].path,
						 v->d[i].signatures));
	}
	if (v->held_data && v->n > 1)
		mirror_note(r, xstrdup("--force: the disks held data, so md resyncs them to each other (no --assume-clean)"));
	if (v->n == 1)
		mirror_note(r, xasprintf("%s will have only one persistent member: one disk failure from losing everything",
					 c->array));
	if (c->o->bitmap_none)
		mirror_note(r, xstrdup("--bitmap none: after a crash or power cut md resyncs the whole disks, and reads go to the disks until the RAM member is back"));
}

int cmd_create(const struct mirror_opts *o, const char *array, char *const disks[], size_t ndisks)
{
	struct create_ctx v = { .n = 0 };
	struct mirror_ctx *c = &v.c;
	struct mirror_run r;
	uint64_t smallest = UINT64_MAX;
	int rc;

	mirror_ctx_init(c, o, "create", array);
	if ((rc = mirror_begin(o, "create")) || (rc = create_dry_root(o)) ||
	    (rc = check_kernel_bug(o->ignore_kernel_bug, "create")) ||
	    (rc = mirror_parse_array(array, &c->mdpath, &c->kname)))
		goto out;
	if ((c->kname && md_has_members(c->kname)) || (!strncmp(array, "/dev/md/", 8) && path_exists(c->mdpath))) {
		rc = create_again(c, disks, ndisks);
		goto out;
	}
	/* (a kernel name first: nothing else is looked at then) */
	if (o->member && refused(EINVAL, member_refuse_path(o->member))) {
		rc = EXIT_RUNTIME;
		goto out;
	}
	if ((rc = create_check_disks(&v, disks, ndisks, &smallest)))
		goto out;
	if (o->member)
		rc = create_check_member(&v, smallest);
	/* The RAM member needs at most what the smallest disk holds. */
	else
		rc = mirror_check_memory(c, o->compress, o->auto_size ? smallest : o->size);
	if (rc)
		goto out;
	mirror_run_init(&r, "create", c->kname ? c->kname : array, o->dry_run, o->json);
	c->r = &r;
	r.bitmap = o->bitmap_none ? "none" : "internal";
	r.size = o->auto_size ? smallest : o->size;
	r.prealloc = o->prealloc;
	r.comp = o->compress;
	r.mem_limit = c->mem_limit;
	create_notes(&v, &r);
	if (o->member)
		mirror_ctx_member(c);
	rc = MIRROR_RUN_STEPS(c, create_steps);
	mirror_run_free(&r);
out:
	for (size_t i = 0; i < v.n; i++)
		disk_info_clear(&v.d[i]);
	free(v.d);
	free(v.why);
	mirror_close(c);
	return rc;
}
