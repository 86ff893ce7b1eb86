// SPDX-License-Identifier: GPL-2.0
/*
 * --create: a new mirror of blank disks, all write-mostly, the RAM slot
 * "missing" at first; then the RAM disk attached and brought in by the
 * warm start (rdctl copies the array into it, md recovers what was written
 * meanwhile: mirror/warmup.h), or without a bitmap --added, so md
 * recovers it from the disks (mirror/steps.h).
 */
#include "cli/commands.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "lib/errors.h"
#include "lib/size.h"
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

int cmd_create(const struct mirror_opts *o, const char *array, char *const disks[], size_t ndisks)
{
	struct disk_info *d = NULL;
	struct mirror_run r;
	char *mdpath = NULL, *kname = NULL, *s, *msg = NULL, *why = NULL;
	const char **args = NULL;
	uint64_t smallest = UINT64_MAX, need = 0, size;
	size_t n = 0;
	int rc;
	bool undo_ok, warm = false;
	struct conf_file cf;

	conf_file_init(&cf, o->config, o->json);
	if ((rc = mirror_begin(o, "create")) || (rc = create_dry_root(o)) || (rc = check_kernel_bug(o->ignore_kernel_bug, "create")) ||
	    (rc = mirror_parse_array(array, &mdpath, &kname)))
		goto out_early;
	if ((kname && md_has_members(kname)) || (!strncmp(array, "/dev/md/", 8) && path_exists(mdpath))) {
		bool found = false;

		/* a --create stopped after mdadm --create: its line is in the
		 * configuration already; finish it as the boot's restore would */
		if (kname && md_has_members(kname) && !o->dry_run && !conf_names_array(&cf, kname) &&
		    created_here(o, kname, disks, ndisks))
			conf_adopt_line(&cf, kname, o->prealloc);
		if (kname && md_has_members(kname) && !o->dry_run && conf_names_array(&cf, kname)) {
			if (!o->json)
				printf("%s exists and is in %s: finishing an interrupted --create as rdctl --restore does\n",
				       kname, cf.path);
			rc = restore_array(o, &cf, kname, &found);
			if (found)
				goto out_early;
		}
		rc = fail_errno(EEXIST, "%s exists already: rdctl --convert %s gives a running RAID1 a RAM member", array,
				array);
		goto out_early;
	}
	d = xcalloc(ndisks, sizeof(*d));
	while (n < ndisks) {
		/* counted before the check: disk_check fills d[n] even when it fails */
		rc = disk_check(disks[n], o->force, &d[n]);
		n++;
		if (rc)
			goto out_early;
		for (size_t j = 0; j + 1 < n; j++) {
			if (strcmp(d[j].name, d[n - 1].name))
				continue;
			rc = fail(EXIT_USAGE, "USAGE", "%s and %s are the same disk (%s): give each disk once",
				  d[j].path, d[n - 1].path, d[n - 1].name);
			goto out_early;
		}
		if (d[n - 1].size < smallest)
			smallest = d[n - 1].size;
	}
	/* The RAM member needs at most what the smallest disk holds. */
	size = o->auto_size ? smallest : o->size;
	if ((rc = check_memory(o->ignore_memory, size, "the RAM member")))
		goto out_early;

	mirror_run_init(&r, "create", kname ? kname : array, o->dry_run, o->json);
	r.bitmap = o->bitmap_none ? "none" : "internal";
	for (size_t i = 0; i < n; i++) {
		strv_add(&r.members, &r.nmembers, d[i].name);
		if (d[i].signatures)
			mirror_note(&r, xasprintf("--force: destroying what wipefs found on %s: %s", d[i].path,
						  d[i].signatures));
	}
	if (n == 1)
		mirror_note(&r, xasprintf("%s will have only one persistent member: one disk failure from losing everything",
					  array));
	if (o->bitmap_none)
		mirror_note(&r, xstrdup("--bitmap none: after a crash or power cut md resyncs the whole disks, and reads go to the disks until the RAM member is back"));

	/* mdadm --create MD --level=1 ... --write-mostly DISK... missing:
	 * every disk write-mostly, the RAM slot missing and the highest, so
	 * that md's check/repair, which takes the lowest slot that reads
	 * well as the truth (process_checks() in drivers/md/raid1.c), takes
	 * a disk. The disks are blank, so --assume-clean: they need not
	 * copy each other first. */
	args = xcalloc(n + 16, sizeof(*args));
	{
		size_t k = 0;
		char *rdn = xasprintf("--raid-devices=%zu", n + 1);

		args[k++] = "--create";
		args[k++] = mdpath;
		args[k++] = "--run";
		args[k++] = "--level=1";
		args[k++] = "--metadata=1.2";
		args[k++] = rdn;
		args[k++] = "--assume-clean";
		if (o->bitmap_none) {
			args[k++] = "--bitmap=none";
		} else {
			args[k++] = "--bitmap=internal";
			args[k++] = "--bitmap-chunk=" BITMAP_CHUNK;
		}
		args[k++] = "--write-mostly";
		for (size_t i = 0; i < n; i++)
			args[k++] = d[i].path;
		args[k++] = "missing";
		args[k] = NULL;
		rc = mirror_mdadmv(&r, false, args);
		free(rdn);
	}
	if (rc) {
		rc = mirror_failed(xasprintf("check the disks with mdadm --examine %s", d[0].path));
		goto out;
	}
	for (size_t i = 0; i < n; i++)
		strv_add(&r.wm, &r.nwm, d[i].name);
	if (!r.dry_run) {
		if (!kname)
			kname = wait_link(array + 8);
		if (!kname) {
			rc = fail_errno(ENODEV, "%s did not appear after mdadm --create: see mdadm --detail --scan",
					array);
			goto out;
		}
		free(r.array);
		r.array = xstrdup(kname);
		r.uuid = md_uuid_of(kname);
		if (md_member_size(kname, &need, &msg) < 0) {
			rc = fail_errno(EIO, "%s", msg);
			undo_create(&r, mdpath, d, n);
			rc = mirror_failed(xasprintf("%s was stopped and its disks wiped again", array));
			goto out;
		}
		if (o->auto_size) {
			size = need;
		} else if (size < need) {
			char *a1 = size_mib_str(size), *a2 = size_mib_str(need);

			fail_errno(EINVAL, "--size %s is smaller than the %s a member of %s needs: use --size auto", a1, a2,
				   array);
			free(a1);
			free(a2);
			undo_create(&r, mdpath, d, n);
			rc = mirror_failed(xasprintf("%s was stopped and its disks wiped again", array));
			goto out;
		}
	}
	/*
	 * The configuration line first: from here on, an interrupted
	 * --create (a kill, a power cut) is finished by the next boot's
	 * --restore, or by running the same --create again.
	 */
	r.size = size;
	r.prealloc = o->prealloc;
	rc = conf_add_line(&r, &cf, kname ? kname : array, o->auto_size);
	if (rc) {
		undo_create(&r, mdpath, d, n);
		rc = mirror_failed(xasprintf("%s was stopped and its disks wiped again", array));
		goto out;
	}
	rc = mirror_attach(&r, size, o->prealloc);
	if (!rc) {
		char *rdpath = r.rd ? md_dev_path(r.rd) : xasprintf("%s/rdN", dev_root());

		/*
		 * The warm start, as --convert's: the RAM slot has been empty
		 * since mdadm --create, so the array is degraded and md's
		 * bitmap keeps every write from then on; rdctl copies the
		 * array into the RAM disk, re-adds it, and md recovers what
		 * was written meanwhile (mirror/warm_super.h says why that
		 * holds). Reads spread over the disks until it is in sync.
		 * With --bitmap none, or when it cannot start, md recovers
		 * an added disk in full.
		 */
		const char *name = kname ? kname : array + strlen("/dev/");

		if (!o->bitmap_none && !(rc = disks_write_mostly(&r, name, false)))
			warm = mirror_warm_ram(&r, name, cf.path, &why);
		if (!rc && !warm) {
			if (why)
				mirror_note(&r, xasprintf("no warm start (%s): md recovers %s in full", why,
							  r.rd ? r.rd : "the RAM disk"));
			if (!o->bitmap_none)
				rc = disks_write_mostly(&r, name, true);
			if (!rc)
				rc = mirror_add_ram(&r, mdpath, kname, rdpath);
		}
		free(rdpath);
		if (rc)
			mirror_detach(&r, true);
	} else if (r.rd) {
		mirror_detach(&r, true);
	}
	if (rc) {
		undo_ok = true;
		undo_create(&r, mdpath, d, n);
		if (r.config_changed && !r.dry_run)
			conf_undo_line(&r, &cf);
		for (size_t i = 0; i < r.nsteps; i++)
			undo_ok &= strcmp(r.steps[i].status, "failed") || !r.steps[i].undo;
		rc = mirror_failed(undo_ok ? xasprintf("undone: %s was stopped and its disks wiped again", array)
					   : xasprintf("the undo failed too: see the steps above and mdadm --detail %s", mdpath));
		goto out;
	}
	rc = mirror_finish(&r, o, kname ? kname : array, mdpath);
	if (rc)
		goto out;
	s = strv_join(r.members, r.nmembers, " ");
	{
		char *sz = size_mib_str(r.size);

		rc = mirror_print_summary(&r, xasprintf("Created %s: %s (%s%s) %s and %s write-mostly, bitmap %s; %s; %s %s",
						 kname, r.rd, sz, r.prealloc ? ", preallocated" : "",
						 warm ? "by a warm start (rdctl copies the array into it, then md recovers what was written during the copy)" : "added",
						 s, r.bitmap, r.sync ? r.sync : "state unknown",
						 r.config_changed ? "added to" : "already in", r.config_path));
		free(sz);
	}
	free(s);
	if (!rc)
		rc = mirror_emit(&r);
out:
	mirror_run_free(&r);
out_early:
	for (size_t i = 0; i < n && d; i++)
		disk_info_clear(&d[i]);
	free(d);
	conf_file_free(&cf);
	free(args);
	free(msg);
	free(why);
	free(mdpath);
	free(kname);
	return rc;
}
