// SPDX-License-Identifier: GPL-2.0
/*
 * --create, --convert, --revert: make and unmake a RAM mirror.
 *
 * The one rule behind every step: md copies a RAID1 from an in-sync
 * member to the others, and a freshly attached RAM disk holds zeros. So
 * the RAM disk only ever joins as a member that md *recovers* (a spare
 * filling a free slot): md then copies disk -> RAM, never RAM -> disk.
 *   create   mdadm --create with the disks, all write-mostly, and the RAM
 *            slot "missing"; then attach and --add the RAM disk.
 *   convert  attach and --add the RAM disk (a spare), then grow
 *            raid-devices by one: md recovers the spare into the new slot.
 *   revert   fail and remove the RAM member (only while a persistent
 *            member is in sync), shrink raid-devices, detach.
 * A step that fails is undone where that is safe, and the error says
 * what state the array is in and the command that finishes or undoes it.
 */
#include "cli/commands.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

#include "lib/config.h"
#include "lib/config_edit.h"
#include "mirror/disk_check.h"
#include "lib/errors.h"
#include "status/kernel_bugs.h"
#include "lib/lock.h"
#include "md/md.h"
#include "md/md_ops.h"
#include "md/mdadm_conf.h"
#include "mirror/mirror.h"
#include "lib/proc.h"
#include "mirror/rd_prepare.h"
#include "lib/size.h"
#include "lib/sysfs.h"
#include "lib/util.h"
#include "status/view.h"
#include "mirror/warmup.h"

/* A large bitmap chunk: one bitmap update per 128 MiB region written,
 * instead of mdadm's default 64 MiB on small arrays or less. */
#define BITMAP_CHUNK	"128M"
#define LINK_WAIT_MS	3000
#define POLL_MS		100

/*
 * Root and the lock first (lock.h). A dry run changes nothing: it takes no
 * lock, and needs no root to read what sysfs shows (--convert, --revert);
 * --create's opens the disks (create_dry_root()).
 */
static int begin(const struct opts *o, const char *verb)
{
	return o->dry_run ? 0 : change_begin(verb);
}

static int create_dry_root(const struct opts *o)
{
	if (!o->dry_run || geteuid() == 0)
		return 0;
	return fail(EXIT_RUNTIME, "EPERM",
		    "--create --dry-run needs root: it opens the disks to check that they are blank (run it with sudo)");
}

/* Refuse on a kernel whose md is known to lose a RAM mirror's data. */
int check_kernel_bug(const struct opts *o, const char *verb)
{
	const char *bug = kernel_md_bug(NULL);

	if (!bug || o->force)
		return 0;
	return fail_errno(EOPNOTSUPP, "refusing --%s on this kernel: %s; upgrade the kernel, or give --force to run anyway",
			  verb, bug);
}

/*
 * ARRAY as the user wrote it: /dev/mdN, mdN or /dev/md/NAME. *path is
 * what mdadm is given; *kname the kernel name when it exists or is
 * fixed by the form (mdN), else NULL. 0 or a usage error.
 */
static int parse_array(const char *arg, char **path, char **kname)
{
	const char *w = arg;

	*path = NULL;
	*kname = NULL;
	if (!strncmp(w, "/dev/md/", 8) && w[8] && !strchr(w + 8, '/')) {
		*path = xasprintf("%s/md/%s", dev_root(), w + 8);
		*kname = md_resolve_name(w + 8);
		return 0;
	}
	if (!strncmp(w, "/dev/", 5))
		w += 5;
	if (!strncmp(w, "md", 2) && w[2] >= '0' && w[2] <= '9' && strspn(w + 2, "0123456789") == strlen(w + 2) &&
	    (w[2] != '0' || !w[3])) {
		*kname = xstrdup(w);
		*path = md_dev_path(w);
		return 0;
	}
	return fail(EXIT_USAGE, "USAGE", "invalid array '%s': expected /dev/mdN, mdN or /dev/md/NAME", arg);
}

/* An existing, running array: its kernel name and path, or an error. */
static int find_array(const char *arg, char **path, char **kname, struct md_array *a)
{
	int r = parse_array(arg, path, kname);

	if (r)
		return r;
	if (!*kname || !md_has_members(*kname))
		return fail_errno(ENODEV, "no array %s: see cat /proc/mdstat", arg);
	r = md_array_read(*kname, a);
	if (r < 0)
		return fail_errno(-r, "cannot read %s/block/%s/md: %s", sysfs_root(), *kname, strerror(-r));
	if (!a->array_state || !strcmp(a->array_state, "inactive") || !strcmp(a->array_state, "clear")) {
		r = fail_errno(ENXIO, "%s is not running (state %s): start it first (mdadm --run %s)", arg,
			       a->array_state ? a->array_state : "unknown", *path);
		md_array_clear(a);
		return r;
	}
	return 0;
}

static const struct md_member *rd_member_of(const struct md_array *a)
{
	for (size_t i = 0; i < a->nmembers; i++)
		if (a->members[i].is_ram)
			return &a->members[i];
	return NULL;
}

/* Does config entry m name the array kname (uuid may be NULL)? */
static bool conf_names(const struct conf_mirror *m, const char *kname, const char *uuid)
{
	char *k;
	bool same;

	switch (m->kind) {
	case CONF_UUID:
		return uuid && md_uuid_same(m->uuid, uuid);
	case CONF_DEVICE:
		return !strcmp(m->name, kname);
	case CONF_MDNAME:
		k = md_resolve_name(m->name);
		same = k && !strcmp(k, kname);
		free(k);
		return same;
	}
	return false;
}

static const char *config_path(const struct opts *o)
{
	return o->config ? o->config : CONFIG_DEFAULT_PATH;
}

/* The configuration's text, byte for byte, and its parse. 0 or an exit code. */
static int config_load(struct mirror_run *r, char **text, struct config *c)
{
	char *msg = NULL;
	int e = config_file_load(r->config_path, text, &msg);

	if (e < 0) {
		e = fail_errno(-e, "%s", msg);
		free(msg);
		return e;
	}
	config_parse_text(r->config_path, *text, c);
	return 0;
}

/* Replace the configuration with next (taken); the last step is this edit. */
static int config_store(struct mirror_run *r, char *next)
{
	char *msg = NULL, *now = NULL, *ignored = NULL;
	int e = config_write_atomic(r->config_path, next, &msg);

	if (e < 0 && config_file_load(r->config_path, &now, &ignored) == 0 && !strcmp(now, next)) {
		/* failed after the rename (syncing the directory): the new
		 * text is in place, it may only not survive a crash yet */
		mirror_note(r, msg);
		msg = NULL;
		e = 0;
	}
	free(now);
	free(ignored);
	free(next);
	if (e < 0) {
		r->steps[r->nsteps - 1].status = "failed";
		e = fail_errno(-e, "%s", msg);
		free(msg);
		return e;
	}
	r->config_changed = true;
	return 0;
}

/* Add the array's line to the configuration unless a line names it already. */
static int config_add(struct mirror_run *r, const struct opts *o, const char *kname, bool auto_size)
{
	char *text = NULL;
	struct config c;
	int rc;

	r->config_path = xstrdup(config_path(o));
	if (r->dry_run) {
		r->config_line = r->uuid ? config_line_for(r->uuid, auto_size, r->size, r->prealloc)
					 : xasprintf("UUID=<the new array's UUID> %s%s", auto_size ? "auto" : "SIZE",
						     r->prealloc ? " prealloc" : "");
		mirror_step(r, false, xasprintf("# add to %s: %s", r->config_path, r->config_line));
		return 0;
	}
	if (!r->uuid)
		return fail_errno(EIO, "cannot find the UUID of %s (mdadm --detail --export): add its line to %s by hand",
				  kname, r->config_path);
	r->config_line = config_line_for(r->uuid, auto_size, r->size, r->prealloc);
	rc = config_load(r, &text, &c);
	if (rc)
		return rc;
	for (size_t i = 0; i < c.n; i++) {
		if (!conf_names(&c.v[i], kname, r->uuid))
			continue;
		mirror_note(r, xasprintf("%s names %s already on line %d (%s): left as it is",
					 r->config_path, kname, c.v[i].line, c.v[i].spec));
		config_free(&c);
		free(text);
		return 0;
	}
	config_free(&c);
	mirror_step(r, false, xasprintf("# add to %s: %s", r->config_path, r->config_line));
	rc = config_store(r, config_text_append(text, r->config_line));
	free(text);
	return rc;
}

/* Remove every line that names the array. */
static int config_remove(struct mirror_run *r, const struct opts *o, const char *kname)
{
	char *text = NULL;
	struct config c;
	int *lines = NULL, rc;
	size_t n = 0;

	r->config_path = xstrdup(config_path(o));
	rc = config_load(r, &text, &c);
	if (rc)
		return rc;
	for (size_t i = 0; i < c.n; i++) {
		if (!conf_names(&c.v[i], kname, r->uuid))
			continue;
		lines = xrealloc(lines, n + 1, sizeof(*lines));
		lines[n++] = c.v[i].line;
		mirror_step(r, false, xasprintf("# remove line %d of %s: %s", c.v[i].line, r->config_path, c.v[i].spec));
	}
	config_free(&c);
	if (n == 0)
		mirror_note(r, xasprintf("%s has no line for %s: nothing to remove", r->config_path, kname));
	else if (!r->dry_run)
		rc = config_store(r, config_text_drop_lines(text, lines, n));
	free(lines);
	free(text);
	return rc;
}

/* Take back the line config_add() added (an undo step). */
static void config_undo(struct mirror_run *r)
{
	char *text = NULL, *msg = NULL;
	struct config c;

	if (config_file_load(r->config_path, &text, &msg) < 0) {
		free(msg);
		return;
	}
	config_parse_text(r->config_path, text, &c);
	for (size_t i = c.n; i-- > 0; ) {
		int line = c.v[i].line;
		char *next;

		if (!c.v[i].uuid || !r->uuid || !md_uuid_same(c.v[i].uuid, r->uuid))
			continue;
		mirror_step(r, true, xasprintf("# remove line %d of %s: %s", line, r->config_path, c.v[i].spec));
		next = config_text_drop_lines(text, &line, 1);
		if (config_write_atomic(r->config_path, next, &msg) < 0) {
			r->steps[r->nsteps - 1].status = "failed";
			free(msg);
			msg = NULL;
		} else {
			r->config_changed = false;
		}
		free(next);
		break;
	}
	config_free(&c);
	free(text);
}

/*
 * Will the array assemble at boot under its name? udev assembles any array
 * it finds from the superblocks; mdadm.conf (and the initramfs copy of it)
 * gives it a fixed name. An array the file does not list is not added to
 * it here (which name it gets is the administrator's call): tell them the
 * line.
 */
static void check_mdadm_conf(struct mirror_run *r, const char *mdpath)
{
	const char *path = mdadm_conf_path();
	char *out = NULL, *text = NULL, *msg = NULL;

	if (r->dry_run || !r->uuid)
		return;
	/* the file mdadm reads and mdadm_conf_update() edits, read as mdadm
	 * reads it (continuation lines, any case, abbreviated keywords) */
	r->mdadm_conf_listed = path && config_file_load(path, &text, &msg) == 0 &&
			       mdadm_conf_lookup(text, r->uuid, NULL, NULL) > 0;
	free(text);
	free(msg);
	if (r->mdadm_conf_listed)
		return;
	if (mdadm_call(&out, NULL, "--detail", "--brief", mdpath, NULL) == 0) {
		char *line = last_line(out), *save = NULL, *kept = NULL;

		/* The RAM member shows as a spare while md recovers it: no
		 * "spares=1" for mdadm.conf. */
		for (char *w = line ? strtok_r(line, " ", &save) : NULL; w; w = strtok_r(NULL, " ", &save)) {
			char *t;

			if (!strncmp(w, "spares=", 7))
				continue;
			t = xasprintf("%s%s%s", kept ? kept : "", kept ? " " : "", w);
			free(kept);
			kept = t;
		}
		free(line);
		r->mdadm_conf_line = kept;
	}
	free(out);
	mirror_note(r, xasprintf("%s is not in mdadm.conf: udev still assembles it at boot (rdctl --restore finds it by UUID), but to keep its name add this line to /etc/mdadm/mdadm.conf and run update-initramfs -u: %s",
				 r->array, r->mdadm_conf_line ? r->mdadm_conf_line : "(see mdadm --detail --brief)"));
}

/* "mdadm MD --add /dev/rdN" of the fresh RAM disk, its metadata space
 * made ready first (rd_prepare.h). 0 or an exit code. */
static int add_ram(struct mirror_run *r, const char *mdpath, const char *kname, const char *rdpath)
{
	char *msg = NULL;
	int e;

	if (!r->dry_run && r->rd && kname && (e = rd_prepare_for_md(r->rd, kname, &msg)) < 0) {
		e = fail_errno(-e, "%s", msg);
		free(msg);
		return e;
	}
	return mirror_mdadm(r, false, mdpath, "--add", rdpath, NULL);
}

/* The RAM member's sync state in words, and --wait. */
static int finish_sync(struct mirror_run *r, const struct opts *o, const char *kname)
{
	struct md_array a;
	const struct md_member *m;
	char *msg = NULL;

	if (r->dry_run || !r->rd)
		return 0;
	if (o->wait) {
		int e;

		/* every change is made: the wait need not hold others off */
		lock_release();
		e = md_wait_in_sync(kname, r->rd, isatty(2) == 1, md_wait_bound(o->timeout), &msg);

		if (e < 0) {
			e = fail_errno(-e, "%s", msg);
			free(msg);
			return e;
		}
	}
	if (md_array_read(kname, &a) < 0)
		return 0;
	m = rd_member_of(&a);
	if (m && m->in_sync && !md_sync_running(&a)) {
		r->sync = xstrdup("in sync");
	} else if (m) {
		double pct = md_sync_percent(&a);

		r->sync = pct >= 0 ? xasprintf("recovery %.1f%%", pct) : xstrdup("recovery started");
	}
	md_array_clear(&a);
	return 0;
}

/* create and convert, once the RAM member is in: the configuration line,
 * the mdadm.conf check, the sync state (and --wait). 0 or an exit code. */
static int finish_mirror(struct mirror_run *r, const struct opts *o, const char *kname, const char *mdpath)
{
	check_mdadm_conf(r, mdpath);
	return finish_sync(r, o, kname);
}

/*
 * One change of the array's mdadm.conf entry (n: num-devices=n, or
 * MDADM_CONF_DROP), as a step, then the initramfs made again. Nothing
 * when no entry names the array with a count. 0 or an exit code.
 */
static int mdadm_conf_step(struct mirror_run *r, int n)
{
	const char *path = mdadm_conf_path();
	struct mirror_step *st;
	bool changed = false;
	char *msg = NULL, *cmd = NULL;
	int e;

	if (!path || !r->uuid)
		return 0;
	e = mdadm_conf_update(path, r->uuid, n, -1, true, &changed, &msg);
	if (e < 0) {
		mirror_note(r, xasprintf("cannot check %s: %s", path, msg));
		return 0;
	}
	if (!changed)
		return 0;
	st = mirror_step(r, false, n == MDADM_CONF_DROP ?
			 xasprintf("# %s: drop num-devices= from the ARRAY line of UUID %s (it then fits the array before and after the change)",
				   path, r->uuid) :
			 xasprintf("# %s: num-devices=%d in the ARRAY line of UUID %s", path, n, r->uuid));
	if (!r->dry_run) {
		e = mdadm_conf_update(path, r->uuid, n, -1, false, &changed, &msg);
		if (e < 0) {
			st->status = "failed";
			e = fail_errno(-e, "%s", msg);
			free(msg);
			return e;
		}
	}
	if (initramfs_refresh(true, &cmd, &msg) < 0 || !cmd) {
		free(cmd);
		free(msg);
		return 0;
	}
	free(msg);
	msg = NULL;
	st = mirror_step(r, false, cmd);
	cmd = NULL;
	if (r->dry_run)
		return 0;
	e = initramfs_refresh(false, &cmd, &msg);
	if (e > 0) {
		st->status = "planned";
		mirror_note(r, xasprintf("the initramfs may carry the old %s: run %s", path, cmd));
	} else if (e < 0) {
		st->status = "failed";
		mirror_note(r, msg);
		msg = NULL;
	}
	free(cmd);
	free(msg);
	return 0;
}

/* Does a line of the configuration name the array kname? */
static bool config_names_array(const struct opts *o, const char *kname)
{
	struct config c;
	char *uuid = NULL;
	bool named = false;

	if (config_read(config_path(o), &c) < 0) {
		config_free(&c);
		return false;
	}
	for (size_t i = 0; i < c.n && !named; i++) {
		if (c.v[i].kind == CONF_UUID && !uuid)
			uuid = md_uuid_of(kname);
		named = conf_names(&c.v[i], kname, uuid);
	}
	free(uuid);
	config_free(&c);
	return named;
}

/*
 * Before the array's device count changes: an mdadm.conf entry that names
 * it with num-devices= (older installs have them) loses that word, and the
 * initramfs copy is made again. Dropped, not rewritten: the entry then fits
 * the array before and after the change (a reboot at any moment assembles
 * it), and after any later change too; mdadm.conf(5) makes the word
 * optional, and mdadm takes the count from the superblocks.
 */
static int mdadm_conf_fit(struct mirror_run *r)
{
	return mdadm_conf_step(r, MDADM_CONF_DROP);
}

static int print_summary(struct mirror_run *r, char *text)
{
	int rc = 0;

	if (!r->json && !r->dry_run && printf("%s\n", text) < 0)
		rc = fail_errno(EIO, "cannot write to standard output");
	free(text);
	return rc;
}

static char *join(char **v, size_t n, const char *sep)
{
	char *s = xstrdup("");

	for (size_t i = 0; i < n; i++) {
		char *t = xasprintf("%s%s%s", s, i ? sep : "", v[i]);

		free(s);
		s = t;
	}
	return s;
}

/* --create: undo the mdadm --create of blank disks: stop, wipe the superblocks. */
static void undo_create(struct mirror_run *r, const char *mdpath, const struct disk_info *d, size_t n)
{
	if (mirror_mdadm(r, true, "--stop", mdpath, NULL))
		return;
	for (size_t i = 0; i < n; i++)
		mirror_mdadm(r, true, "--zero-superblock", d[i].path, NULL);
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
static bool created_here(const struct opts *o, const char *kname, char *const disks[], size_t ndisks)
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

/* Add the line of the array kname to the configuration (auto size). */
static void config_adopt(const struct opts *o, const char *kname)
{
	char *uuid = md_uuid_of(kname), *text = NULL, *msg = NULL, *line, *next;

	if (!uuid)
		return;
	line = config_line_for(uuid, true, 0, o->prealloc);
	if (config_file_load(config_path(o), &text, &msg) == 0) {
		next = config_text_append(text, line);
		if (config_write_atomic(config_path(o), next, &msg) == 0 && !o->json)
			printf("# add to %s: %s\n", config_path(o), line);
		free(next);
	}
	free(msg);
	free(text);
	free(line);
	free(uuid);
}

int cmd_create(const struct opts *o, const char *array, char *const disks[], size_t ndisks)
{
	struct disk_info *d = NULL;
	struct mirror_run r;
	char *mdpath = NULL, *kname = NULL, *s, *msg = NULL;
	const char **args = NULL;
	uint64_t smallest = UINT64_MAX, need = 0, size;
	size_t n = 0;
	int rc;
	bool undo_ok;

	if ((rc = begin(o, "create")) || (rc = create_dry_root(o)) || (rc = check_kernel_bug(o, "create")) ||
	    (rc = parse_array(array, &mdpath, &kname)))
		goto out_early;
	if ((kname && md_has_members(kname)) || (!strncmp(array, "/dev/md/", 8) && path_exists(mdpath))) {
		bool found = false;

		/* a --create stopped after mdadm --create: its line is in the
		 * configuration already; finish it as the boot's restore would */
		if (kname && md_has_members(kname) && !o->dry_run && !config_names_array(o, kname) &&
		    created_here(o, kname, disks, ndisks))
			config_adopt(o, kname);
		if (kname && md_has_members(kname) && !o->dry_run && config_names_array(o, kname)) {
			if (!o->json)
				printf("%s exists and is in %s: finishing an interrupted --create as rdctl --restore does\n",
				       kname, config_path(o));
			rc = restore_array(o, kname, &found);
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
	if ((rc = check_memory(o, size, "the RAM member")))
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
	rc = config_add(&r, o, kname ? kname : array, o->auto_size);
	if (rc) {
		undo_create(&r, mdpath, d, n);
		rc = mirror_failed(xasprintf("%s was stopped and its disks wiped again", array));
		goto out;
	}
	rc = mirror_attach(&r, size, o->prealloc);
	if (!rc) {
		char *rdpath = r.rd ? md_dev_path(r.rd) : xasprintf("%s/rdN", dev_root());

		rc = add_ram(&r, mdpath, kname, rdpath);
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
			config_undo(&r);
		for (size_t i = 0; i < r.nsteps; i++)
			undo_ok &= strcmp(r.steps[i].status, "failed") || !r.steps[i].undo;
		rc = mirror_failed(undo_ok ? xasprintf("undone: %s was stopped and its disks wiped again", array)
					   : xasprintf("the undo failed too: see the steps above and mdadm --detail %s", mdpath));
		goto out;
	}
	rc = finish_mirror(&r, o, kname ? kname : array, mdpath);
	if (rc)
		goto out;
	s = join(r.members, r.nmembers, " ");
	{
		char *sz = size_mib_str(r.size);

		rc = print_summary(&r, xasprintf("Created %s: %s (%s%s) and %s write-mostly, bitmap %s; %s; %s %s",
						 kname, r.rd, sz, r.prealloc ? ", preallocated" : "", s, r.bitmap,
						 r.sync ? r.sync : "state unknown",
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
	free(args);
	free(msg);
	free(mdpath);
	free(kname);
	return rc;
}

/* Write-mostly on (convert) or off (revert) for every working persistent member. */
static int set_write_mostly(struct mirror_run *r, const struct md_array *a, bool on)
{
	for (size_t i = 0; i < a->nmembers; i++) {
		const struct md_member *m = &a->members[i];
		char *path;
		int rc;

		if (m->is_ram || m->faulty || m->write_mostly == on)
			continue;
		path = xasprintf("%s/block/%s/md/dev-%s/state", sysfs_root(), a->name, m->name);
		rc = mirror_sysfs(r, false, path, on ? "writemostly" : "-writemostly");
		free(path);
		if (rc)
			return rc;
		strv_add(&r->wm, &r->nwm, m->name);
	}
	return 0;
}

int cmd_convert(const struct opts *o, const char *array)
{
	struct md_array a = { 0 };
	struct mirror_run r;
	const struct md_member *rm;
	char *mdpath = NULL, *kname = NULL, *msg = NULL, *rdpath = NULL, *rdn = NULL, *s;
	uint64_t need = 0, size;
	int rc;

	if ((rc = begin(o, "convert")) || (rc = check_kernel_bug(o, "convert")) ||
	    (rc = find_array(array, &mdpath, &kname, &a)))
		goto out_early;
	rc = EXIT_RUNTIME;
	if (!a.level || strcmp(a.level, "raid1")) {
		fail_errno(EINVAL, "%s is %s, not raid1: rdmirror mirrors only RAID1", array, a.level ? a.level : "of an unknown level");
		goto out_early;
	}
	rm = rd_member_of(&a);
	if (rm) {
		bool found = false;

		/* a --convert stopped half way: finish it as the boot's restore would */
		if (!o->dry_run && config_names_array(o, kname)) {
			if (!o->json)
				printf("%s has a RAM member (%s, %s) and is in %s: finishing an interrupted --convert as rdctl --restore does\n",
				       kname, rm->name, md_member_role(rm), config_path(o));
			rc = restore_array(o, kname, &found);
			if (found)
				goto out_early;
		}
		rc = EXIT_RUNTIME;
		fail_errno(EEXIST, "%s has a RAM member already (%s, %s): see rdctl --status", array, rm->name,
			   md_member_role(rm));
		goto out_early;
	}
	for (size_t i = 0; i < a.nmembers; i++) {
		const struct md_member *m = &a.members[i];

		if (m->faulty) {
			fail_errno(EBUSY, "%s has a failed member %s: replace or remove it first (mdadm %s --remove /dev/%s)",
				   array, m->name, mdpath, m->name);
			goto out_early;
		}
		/*
		 * md saw write errors on it: the next spare added becomes its
		 * replacement, and the disk is failed once the copy is done,
		 * instead of the spare filling the new slot.
		 */
		if (m->state && strstr(m->state, "want_replacement")) {
			fail_errno(EBUSY, "%s of %s wants a replacement (md saw write errors on it): md would make the RAM disk its replacement and fail the disk; replace it first (mdadm %s --replace /dev/%s --with DISK) or, if the errors are understood, clear the flag (echo -want_replacement > %s/block/%s/md/dev-%s/state)",
				   m->name, array, mdpath, m->name, sysfs_root(), kname, m->name);
			goto out_early;
		}
		/* md shows a member it recovers as "spare" too, with a slot */
		if (m->slot < 0) {
			fail_errno(EBUSY, "%s has a spare %s: md would put it, not the RAM disk, into the new slot; remove it first (mdadm %s --remove /dev/%s)",
				   array, m->name, mdpath, m->name);
			goto out_early;
		}
	}
	if (a.degraded != 0) {
		fail_errno(EBUSY, "%s is degraded (%d member%s missing): repair it before adding a RAM member", array,
			   a.degraded, a.degraded == 1 ? "" : "s");
		goto out_early;
	}
	if (md_sync_running(&a) || (a.sync_action && strcmp(a.sync_action, "idle"))) {
		fail_errno(EBUSY, "%s is busy with a %s: wait until it ends (mdadm --wait %s)", array,
			   a.sync_action ? a.sync_action : "sync", mdpath);
		goto out_early;
	}
	if (md_member_size(kname, &need, &msg) < 0) {
		fail_errno(EINVAL, "%s", msg);
		goto out_early;
	}
	size = o->auto_size ? need : o->size;
	if (size < need) {
		char *a1 = size_mib_str(size), *a2 = size_mib_str(need);

		fail_errno(EINVAL, "--size %s is smaller than the %s a member of %s needs: use --size auto", a1, a2, array);
		free(a1);
		free(a2);
		goto out_early;
	}
	if ((rc = check_memory(o, size, "the RAM member")))
		goto out_early;

	mirror_run_init(&r, "convert", kname, o->dry_run, o->json);
	r.uuid = md_uuid_of(kname);
	for (size_t i = 0; i < a.nmembers; i++)
		strv_add(&r.members, &r.nmembers, a.members[i].name);
	if (r.nmembers == 1)
		mirror_note(&r, xasprintf("%s has only one persistent member: one disk failure from losing everything",
					  kname));
	/*
	 * The configuration line first, mdadm.conf next (its num-devices=
	 * must fit the array before and after the grow): an interruption
	 * after any later step leaves what the next --restore, or this
	 * command run again, finishes.
	 */
	r.size = size;
	r.prealloc = o->prealloc;
	rc = config_add(&r, o, kname, o->auto_size);
	if (rc) {
		rc = mirror_failed(xasprintf("%s is unchanged", kname));
		goto out;
	}
	rc = mdadm_conf_fit(&r);
	if (rc) {
		config_undo(&r);
		rc = mirror_failed(xasprintf("%s is unchanged", kname));
		goto out;
	}
	rc = mirror_attach(&r, size, o->prealloc);
	if (rc) {
		if (r.rd)
			mirror_detach(&r, true);
		config_undo(&r);
		rc = mirror_failed(xasprintf("%s is unchanged", kname));
		goto out;
	}
	rdpath = r.rd ? md_dev_path(r.rd) : xasprintf("%s/rdN", dev_root());
	/* A spare first: growing then makes md recover it into the new slot. */
	rc = add_ram(&r, mdpath, kname, rdpath);
	if (rc) {
		mirror_detach(&r, true);
		config_undo(&r);
		rc = mirror_failed(xasprintf("%s is unchanged", kname));
		goto out;
	}
	rdn = xasprintf("--raid-devices=%d", a.raid_disks + 1);
	rc = mirror_mdadm(&r, false, "--grow", mdpath, rdn, NULL);
	if (rc) {
		if (!mirror_mdadm(&r, true, mdpath, "--remove", rdpath, NULL))
			mirror_detach(&r, true);
		config_undo(&r);
		rc = mirror_failed(xasprintf("%s should be as it was: check mdadm --detail %s", kname, mdpath));
		goto out;
	}
	rc = set_write_mostly(&r, &a, true);
	if (rc) {
		rc = mirror_failed(xasprintf("%s has its RAM member %s, but not every disk is write-mostly: reads may go to the disks; retry with rdctl --restore",
					     kname, r.rd));
		goto out;
	}
	/*
	 * With write-behind, md would acknowledge writes once the RAM member
	 * has them, before the disks do: every write must be on disk first.
	 */
	if (a.write_behind > 0) {
		s = xasprintf("%s/block/%s/md/bitmap/backlog", sysfs_root(), kname);
		rc = mirror_sysfs(&r, false, s, "0");
		free(s);
		if (rc) {
			rc = mirror_failed(xasprintf("%s has its RAM member %s, but write-behind is still on: a power cut can lose acknowledged writes; turn it off: echo 0 > %s/block/%s/md/bitmap/backlog",
						     kname, r.rd, sysfs_root(), kname));
			goto out;
		}
		mirror_note(&r, xasprintf("write-behind turned off (it was up to %d writes): every write is on the disks before it is acknowledged",
					  a.write_behind));
	}
	rc = finish_mirror(&r, o, kname, mdpath);
	if (rc)
		goto out;
	s = size_mib_str(r.size);
	rc = print_summary(&r, xasprintf("Converted %s: %s (%s%s) added, %s; disks write-mostly; %s %s", kname, r.rd, s,
					 r.prealloc ? ", preallocated" : "", r.sync ? r.sync : "state unknown",
					 r.config_changed ? "added to" : "already in", r.config_path));
	free(s);
	if (!rc)
		rc = mirror_emit(&r);
out:
	mirror_run_free(&r);
out_early:
	md_array_clear(&a);
	free(msg);
	free(rdpath);
	free(rdn);
	free(mdpath);
	free(kname);
	return rc;
}

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

int cmd_revert(const struct opts *o, const char *array)
{
	struct md_array a = { 0 };
	struct mirror_run r;
	const struct md_member *rm;
	char *mdpath = NULL, *kname = NULL, *rdpath = NULL, *rdn = NULL;
	size_t in_sync = 0;
	int slotted, persistent, top;
	int rc;

	if ((rc = begin(o, "revert")) || (rc = find_array(array, &mdpath, &kname, &a)))
		goto out_early;
	rc = EXIT_RUNTIME;
	if (!o->dry_run && stop_warmup(kname))
		goto out_early;
	rm = rd_member_of(&a);
	if (!rm && !config_names_array(o, kname)) {
		fail_errno(ENOENT, "%s has no RAM member: nothing to revert", array);
		goto out_early;
	}
	if (rm) {
		struct md_ranges only;

		md_ram_only_ranges(&a, &only);
		if (only.n) {
			char *ranges = md_ranges_str(&only, 8);

			fail_errno(EBUSY, "not reverting %s: every disk has recorded bad blocks at sectors %s (md's bad_blocks): %s holds the only good copy of them; give md a good copy first: mdadm %s --add NEWDISK (md copies them from RAM), or --replace the disk",
				   array, ranges, rm->name, mdpath);
			free(ranges);
			md_ranges_clear(&only);
			goto out_early;
		}
	}
	/* Never take away the only complete copy. */
	for (size_t i = 0; i < a.nmembers; i++) {
		const struct md_member *m = &a.members[i];

		if (m->is_ram || m->faulty)
			continue;
		/* in the array (a slot) but not in sync: md is recovering it */
		if (!m->in_sync && m->slot >= 0) {
			fail_errno(EBUSY, "%s of %s is not in sync yet (%s): until it is, only the RAM member holds all the data; wait (mdadm --wait %s) and try again",
				   m->name, array, m->state ? m->state : "state unknown", mdpath);
			goto out_early;
		}
		in_sync += m->in_sync;
	}
	if (in_sync == 0) {
		fail_errno(EBUSY, "%s has no persistent member in sync: its data is only in RAM, and reverting would lose it; add a disk first (mdadm %s --add DISK)",
			   array, mdpath);
		goto out_early;
	}
	mirror_run_init(&r, "revert", kname, o->dry_run, o->json);
	r.uuid = md_uuid_of(kname);
	for (size_t i = 0; i < a.nmembers; i++)
		if (!a.members[i].is_ram)
			strv_add(&r.members, &r.nmembers, a.members[i].name);
	if (rm) {
		r.rd = xstrdup(rm->name);
		rdpath = md_dev_path(rm->name);
		rc = mirror_mdadm(&r, false, mdpath, "--fail", rdpath, "--remove", rdpath, NULL);
		if (rc) {
			rc = mirror_failed(xasprintf("%s may be marked faulty but still in %s: finish with mdadm %s --remove %s, then rdctl --revert %s again",
						     r.rd, kname, mdpath, rdpath, array));
			goto out;
		}
	} else {
		/* a --revert stopped half way, or a restore that never came:
		 * the configuration still names it; finish what is left */
		mirror_note(&r, xasprintf("%s has no RAM member: finishing the revert (its slot, write-mostly, the configuration line)",
					  kname));
	}
	rc = mdadm_conf_fit(&r);
	if (rc) {
		rc = mirror_failed(xasprintf("%s is out of %s, which still counts its slot (degraded); fix mdadm.conf, then rdctl --revert %s again",
					     r.rd ? r.rd : "the RAM member", kname, array));
		goto out;
	}
	/* shrink only a slot that is free: one whose member left (md_member slot >= 0 counted) */
	md_count_slots(&a, &slotted, &persistent, &top);
	if (a.raid_disks > 1 && (rm || slotted < a.raid_disks)) {
		rdn = xasprintf("--raid-devices=%d", a.raid_disks - 1);
		rc = mirror_mdadm(&r, false, "--grow", mdpath, rdn, NULL);
		if (rc) {
			rc = mirror_failed(xasprintf("%s left %s, which still counts its slot (degraded); finish with mdadm --grow %s %s, or put a RAM member back with rdctl --restore",
						     r.rd, kname, mdpath, rdn));
			goto out;
		}
	}
	rc = r.rd ? mirror_detach(&r, false) : 0;
	if (rc) {
		rc = mirror_failed(xasprintf("%s runs on its disks; %s is out of it but still attached: rdctl --detach %s", kname,
					     r.rd, r.rd));
		goto out;
	}
	rc = set_write_mostly(&r, &a, false);
	if (rc) {
		rc = mirror_failed(xasprintf("%s runs on its disks; some are still write-mostly (reads are not balanced): see rdctl --status",
					     kname));
		goto out;
	}
	rc = config_remove(&r, o, kname);
	if (rc) {
		rc = mirror_failed(xasprintf("%s runs on its disks, but its line in %s is left: remove it by hand, or rdctl --restore will add a RAM member again at the next boot",
					     kname, r.config_path));
		goto out;
	}
	{
		char *s = join(r.members, r.nmembers, " ");

		rc = print_summary(&r, xasprintf("Reverted %s: %s removed and detached; %s read-balanced again; %s %s",
						 kname, r.rd ? r.rd : "no RAM member", s,
						 r.config_changed ? "removed from" : "nothing to remove from",
						 r.config_path));
		free(s);
	}
	if (!rc)
		rc = mirror_emit(&r);
out:
	mirror_run_free(&r);
out_early:
	md_array_clear(&a);
	free(rdpath);
	free(rdn);
	free(mdpath);
	free(kname);
	return rc;
}

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
 *   attach an empty disk of the same size and add it: md recovers it from
 *   the disks. Reads go to the disks until it is in sync again.
 */
int cmd_refresh(const struct opts *o, const char *array)
{
	struct md_array a = { 0 };
	struct mirror_run r;
	const struct md_member *rm;
	struct rd_disk d = { 0 };
	struct md_ranges only;
	char *mdpath = NULL, *kname = NULL, *rdpath = NULL, *rdn = NULL, *s;
	unsigned index;
	int rc, slotted, persistent, top, raid_disks;
	bool prealloc = false, compact;
	struct warmup w;
	uint64_t size;

	if ((rc = begin(o, "refresh")) || (rc = check_kernel_bug(o, "refresh")) ||
	    (rc = find_array(array, &mdpath, &kname, &a)))
		goto out_early;
	rc = EXIT_RUNTIME;
	rm = rd_member_of(&a);
	if (!rm && warmup_read(kname, &w) == 0) {
		bool alive = w.alive;

		warmup_clear(&w);
		if (alive) {
			fail_errno(EBUSY, "%s is warming up (a copy into its RAM disk runs): wait for it (rdctl --restore --wait), then refresh",
				   array);
			goto out_early;
		}
	}
	if (!rm || rm->slot < 0 || rm->faulty) {
		fail_errno(ENOENT, "%s has no working RAM member to refresh: rdctl --restore adds one", array);
		goto out_early;
	}
	for (size_t i = 0; i < a.nmembers; i++) {
		const struct md_member *m = &a.members[i];

		if (m->is_ram || m->faulty || m->slot < 0)
			continue;
		if (!m->in_sync) {
			fail_errno(EBUSY, "%s of %s is not in sync yet: until it is, only the RAM member holds all the data; wait (mdadm --wait %s) and try again",
				   m->name, array, mdpath);
			goto out_early;
		}
	}
	/* every persistent member in a slot is in sync now */
	md_count_slots(&a, &slotted, &persistent, &top);
	if (persistent == 0) {
		fail_errno(EBUSY, "%s has no persistent member in sync: its data is only in RAM, and a refresh would lose it",
			   array);
		goto out_early;
	}
	md_ram_only_ranges(&a, &only);
	if (only.n) {
		char *ranges = md_ranges_str(&only, 8);

		fail_errno(EBUSY, "not refreshing %s: every disk has recorded bad blocks at sectors %s (md's bad_blocks): %s holds the only good copy of them; give md a good copy first: mdadm %s --add NEWDISK",
			   array, ranges, rm->name, mdpath);
		free(ranges);
		md_ranges_clear(&only);
		goto out_early;
	}
	if (!rd_parse_name(rm->name, &index) || rd_disk_read(index, &d) < 0) {
		fail_errno(EIO, "cannot read %s's size in %s/block/%s", rm->name, sysfs_root(), rm->name);
		goto out_early;
	}
	size = d.size;
	prealloc = d.preallocated == 1;
	rd_disk_clear(&d);
	raid_disks = a.raid_disks;
	compact = raid_disks == persistent + 1 && top >= persistent;

	mirror_run_init(&r, "refresh", kname, o->dry_run, o->json);
	r.uuid = md_uuid_of(kname);
	for (size_t i = 0; i < a.nmembers; i++)
		if (!a.members[i].is_ram)
			strv_add(&r.members, &r.nmembers, a.members[i].name);
	r.rd = xstrdup(rm->name);
	rdpath = md_dev_path(rm->name);
	rc = mirror_mdadm(&r, false, mdpath, "--fail", rdpath, "--remove", rdpath, NULL);
	if (rc) {
		rc = mirror_failed(xasprintf("%s may be marked faulty but still in %s: rdctl --restore puts a fresh one back",
					     r.rd, kname));
		goto out;
	}
	rc = mirror_detach(&r, false);
	if (rc) {
		rc = mirror_failed(xasprintf("%s runs on its disks; %s is out of it but still attached: rdctl --detach %s, then rdctl --restore",
					     kname, r.rd, r.rd));
		goto out;
	}
	free(r.rd);
	r.rd = NULL;
	if (compact) {
		rc = mdadm_conf_fit(&r);
		if (!rc) {
			rdn = xasprintf("--raid-devices=%d", persistent);
			rc = mirror_mdadm(&r, false, "--grow", mdpath, rdn, NULL);
			free(rdn);
			rdn = NULL;
		}
		if (rc) {
			rc = mirror_failed(xasprintf("%s runs on its disks without its RAM member: rdctl --restore puts it back",
						     kname));
			goto out;
		}
		raid_disks = persistent;
	}
	/* no memory check: the old disk's pages were given back by the detach */
	if ((rc = mirror_attach(&r, size, prealloc))) {
		rc = mirror_failed(xasprintf("%s runs on its disks without its RAM member: rdctl --restore puts it back",
					     kname));
		goto out;
	}
	free(rdpath);
	rdpath = r.rd ? md_dev_path(r.rd) : xasprintf("%s/rdN", dev_root());
	rc = add_ram(&r, mdpath, kname, rdpath);
	if (rc) {
		mirror_detach(&r, true);
		rc = mirror_failed(xasprintf("%s runs on its disks without its RAM member: rdctl --restore puts it back",
					     kname));
		goto out;
	}
	if (compact) {
		rdn = xasprintf("--raid-devices=%d", raid_disks + 1);
		rc = mirror_mdadm(&r, false, "--grow", mdpath, rdn, NULL);
		if (rc) {
			rc = mirror_failed(xasprintf("%s has %s as a spare: rdctl --restore grows it into the RAM slot",
						     kname, r.rd));
			goto out;
		}
	}
	rc = finish_sync(&r, o, kname);
	if (rc)
		goto out;
	s = size_mib_str(size);
	rc = print_summary(&r, xasprintf("Refreshed %s: %s (%s) added empty%s, %s; md copies the disks into it",
					 kname, r.rd, s, compact ? " in the highest slot" : "",
					 r.sync ? r.sync : "state unknown"));
	free(s);
	if (!rc)
		rc = mirror_emit(&r);
out:
	mirror_run_free(&r);
out_early:
	md_array_clear(&a);
	free(rdpath);
	free(rdn);
	free(mdpath);
	free(kname);
	return rc;
}
