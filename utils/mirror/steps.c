// SPDX-License-Identifier: GPL-2.0
#include "mirror/steps.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

#include "lib/config.h"
#include "lib/errors.h"
#include "lib/lock.h"
#include "lib/util.h"
#include "md/md_ops.h"
#include "mirror/compress.h"
#include "mirror/conf_steps.h"
#include "mirror/ctx.h"
#include "mirror/rd_prepare.h"
#include "mirror/warm_super.h"
#include "mirror/warmup.h"

#define POLL_MS		100

/*
 * Root and the lock first (lock.h). A dry run changes nothing: it takes no
 * lock, and needs no root to read what sysfs shows (--convert, --revert);
 * --create's opens the disks (create_dry_root()).
 */
int mirror_begin(const struct mirror_opts *o, const char *verb)
{
	return o->dry_run ? 0 : change_begin(verb);
}

/*
 * ARRAY as the user wrote it: /dev/mdN, mdN or /dev/md/NAME. *path is
 * what mdadm is given; *kname the kernel name when it exists or is
 * fixed by the form (mdN), else NULL. 0 or a usage error.
 */
int mirror_parse_array(const char *arg, char **path, char **kname)
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

/* UUID=... of an existing array: its kernel name and path, or an error. */
static int find_by_uuid(const char *arg, char **path, char **kname)
{
	struct conf_mirror m = { .kind = CONF_UUID };
	char hex[33];

	*path = *kname = NULL;
	if (!md_uuid_hex(arg + 5, hex))
		return fail(EXIT_USAGE, "USAGE", "invalid UUID '%s': " CONFIG_UUID_FORM,
			    arg + 5);
	m.uuid = xasprintf("%.8s:%.8s:%.8s:%.8s", hex, hex + 8, hex + 16, hex + 24);
	*kname = md_array_of_config(&m);
	free(m.uuid);
	if (!*kname)
		return fail_errno(ENODEV, "no array with %s: see mdadm --detail --scan", arg);
	*path = md_dev_path(*kname);
	return 0;
}

/* An existing, running array: its kernel name and path, or an error. */
int mirror_find_array(const char *arg, char **path, char **kname, struct md_array *a)
{
	int r = strncasecmp(arg, "UUID=", 5) ? mirror_parse_array(arg, path, kname) : find_by_uuid(arg, path, kname);

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

int mirror_step_attach(struct mirror_ctx *c)
{
	struct mirror_run *r = c->r;
	int rc;

	/* --refresh: the bound worked out now, once the old disk has given its memory back */
	if (r->comp && !r->mem_limit && !r->dry_run &&
	    (rc = compress_limit_conf(c->conf.path, c->o->ignore_memory, "the compressed RAM member", &r->mem_limit)))
		return rc;
	rc = mirror_attach(r, r->size, r->prealloc);

	if (!rc)
		c->rdpath = r->rd ? md_dev_path(r->rd) : xasprintf("%s/rdN", dev_root());
	return rc;
}

const struct md_member *mirror_rd_member(const struct md_array *a)
{
	for (size_t i = 0; i < a->nmembers; i++)
		if (md_is_fast(&a->members[i]))
			return &a->members[i];
	return NULL;
}

/* "mdadm MD --add /dev/rdN" of the fresh RAM disk, its metadata space
 * made ready first (rd_prepare.h). 0 or an exit code. */
int mirror_add_ram(struct mirror_run *r, const char *mdpath, const char *kname, const char *rdpath)
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

int mirror_warm_ram(struct mirror_run *r, const char *kname, const char *conf_path, char **why)
{
	struct warm_speed speed;
	struct md_super sb;
	char *msg = NULL;
	int e;

	*why = NULL;
	/* (a dry run of --convert plans the bitmap it adds: r->bitmap) */
	if (!md_has_internal_bitmap(kname) && !(r->dry_run && r->bitmap && !strcmp(r->bitmap, "internal"))) {
		*why = xstrdup("the array has no internal bitmap");
		return 0;
	}
	mirror_step(r, false, xasprintf("# warm start: copy /dev/%s into %s, then mdadm --re-add it; the disks are write-mostly once it is in sync",
					kname, r->rd ? r->rd : "the RAM disk"));
	if (r->dry_run)
		return 1;
	warm_speed_of(conf_path, &speed);
	e = warm_super_make(kname, r->size, &sb, why);
	if (e == 0 && (e = rd_prepare_for_md(r->rd, kname, &msg)) == 0)
		e = warmup_start(kname, r->rd, &sb, &speed, &msg);
	if (e < 0) {
		r->steps[r->nsteps - 1].status = "failed";
		if (!*why)
			*why = msg ? msg : xstrdup(strerror(-e));
		else
			free(msg);
		return 0;
	}
	r->steps[r->nsteps - 1].status = "done";
	return 1;
}

/* The RAM member's sync state in words, and --wait. */
int mirror_finish_sync(struct mirror_run *r, const struct mirror_opts *o, const char *kname)
{
	struct warmup w;
	struct md_array a;
	const struct md_member *m;
	char *msg = NULL;

	if (r->dry_run || !r->rd)
		return 0;
	if (o->wait) {
		int e;

		/* every change is made: the wait need not hold others off */
		lock_release();
		e = warmup_wait_in_sync(kname, r->rd, o->timeout, &msg);

		if (e < 0) {
			e = fail_errno(-e, "%s", msg);
			free(msg);
			return e;
		}
	}
	if (warmup_read(kname, &w) == 0) {
		if (w.alive && !w.recovering)
			r->sync = xasprintf("warm-up copy %.1f%%", warmup_percent(&w));
		warmup_clear(&w);
		if (r->sync)
			return 0;
	}
	if (md_array_read(kname, &a) < 0)
		return 0;
	m = mirror_rd_member(&a);
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
int mirror_finish(struct mirror_run *r, const struct mirror_opts *o, const char *kname, const char *mdpath)
{
	mdadm_conf_check_listed(r, mdpath);
	return mirror_finish_sync(r, o, kname);
}

int mirror_print_summary(struct mirror_run *r, char *text)
{
	int rc = 0;

	if (!r->json && !r->dry_run && printf("%s\n", text) < 0)
		rc = fail_errno(EIO, "cannot write to standard output");
	free(text);
	return rc;
}

/* Write-mostly on (convert) or off (revert) for every working persistent member. */
int mirror_set_write_mostly(struct mirror_run *r, const struct md_array *a, bool on)
{
	for (size_t i = 0; i < a->nmembers; i++) {
		const struct md_member *m = &a->members[i];
		char *path;
		int rc;

		if (md_is_fast(m) || m->faulty || m->write_mostly == on)
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

void mirror_note_cold(struct mirror_run *r, char *why)
{
	if (why)
		mirror_note(r, xasprintf("no warm start (%s): md recovers %s in full", why,
					 r->rd ? r->rd : "the RAM disk"));
	free(why);
}
