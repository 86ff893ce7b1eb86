// SPDX-License-Identifier: GPL-2.0
#include "mirror/restore_disk.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "lib/errors.h"
#include "lib/size.h"
#include "lib/util.h"
#include "md/md.h"
#include "md/md_ops.h"
#include "md/md_super.h"
#include "mirror/disk_check.h"
#include "mirror/restore_checks.h"
#include "status/status_restore.h"

/* Does the device at path hold a superblock of the array uuid (the array's metadata version)? */
static bool ours(const char *path, const char *mdname, const char *uuid, uint64_t size)
{
	char *ver = md_metadata_version(mdname), *why = NULL;
	struct md_super sb;
	bool yes = false;

	if (ver && uuid && md_super_read(path, ver, size, &sb, &why) == 0)
		yes = md_uuid_same(sb.uuid, uuid);
	free(why);
	free(ver);
	return yes;
}

enum member_state restore_disk_state(const char *path, const char *mdname, const char *uuid, char **what,
				     char **name, uint64_t *size)
{
	struct disk_info d;
	struct stat st;
	enum member_state s;

	*what = *name = NULL;
	*size = 0;
	if (stat(path, &st) < 0 && errno == ENOENT) {
		*what = xasprintf("no device at %s", path);
		return MEMBER_ABSENT;
	}
	/* read only: the signatures are listed, nothing is refused (force) */
	if (disk_check(path, true, &d)) {
		*what = xstrdup(error_message());
		error_reset();
		disk_info_clear(&d);
		return MEMBER_FOREIGN;
	}
	*name = xstrdup(d.name);
	*size = d.size;
	if (ours(path, mdname, uuid, d.size)) {
		s = MEMBER_KEPT;
		*what = xasprintf("%s holds this array's md superblock", path);
	} else if (d.signatures) {
		s = MEMBER_FOREIGN;
		*what = xasprintf("%s holds %s (wipefs)", path, d.signatures);
	} else {
		s = MEMBER_BLANK;
		*what = xasprintf("%s is blank", path);
	}
	disk_info_clear(&d);
	return s;
}

char *restore_disk_plan(const struct conf_mirror *m, const char *mdname, const char *uuid)
{
	char *what, *name, *s = NULL;
	uint64_t size;

	switch (restore_disk_state(m->member, mdname, uuid, &what, &name, &size)) {
	case MEMBER_ABSENT:
		s = xasprintf("member disk absent (%s): would leave %s running from its disks", what, mdname);
		break;
	case MEMBER_FOREIGN:
		s = xasprintf("would not use the member disk, nor write to it: %s", what);
		break;
	case MEMBER_KEPT:
		s = xasprintf("%s: would re-add it (mdadm --re-add): md recovers only what changed since it left", what);
		break;
	case MEMBER_BLANK:
		s = xasprintf("%s: would copy %s into it and re-add it (warm start), or add it: md recovers what is written meanwhile",
			      what, mdname);
		break;
	}
	free(what);
	free(name);
	return s;
}

/* Kept: mdadm --re-add; md takes it back through the bitmap. 0, or -1 when md refused (msg: why). */
static int readd(struct boot_item *it, const char *path, const struct restore_slot *s, char **msg)
{
	int r = mdadm_call(NULL, msg, s->dev, "--re-add", path, NULL);

	if (r < 0)
		return -1;
	free(*msg);
	*msg = NULL;
	it->action = ACTION_READDED;
	it->summary = xasprintf("member disk %s (%s) kept its data: re-added, md recovers only what changed since it left (its bitmap)",
				path, it->rd);
	return 0;
}

int restore_disk(struct boot_item *it, const struct config *cfg, const struct conf_mirror *m, struct restore_slot *s)
{
	char *what = NULL, *name = NULL, *msg = NULL;
	enum member_state st = restore_disk_state(m->member, s->mdname, it->uuid, &what, &name, &s->size);
	int r = 0;

	free(it->rd);
	it->rd = name;
	it->has_size = name != NULL;
	it->size = s->size;
	switch (st) {
	case MEMBER_ABSENT:
		it->action = ACTION_ABSENT;
		it->summary = xasprintf("member disk absent (%s): %s runs from its disks; put a disk there (a blank one is filled), then rdctl --restore",
					what, s->mdname);
		fprintf(stderr, "rdctl: warning: %s: %s\n", s->mdname, it->summary);
		break;
	case MEMBER_FOREIGN:
		r = boot_item_fail(it, "EEXIST", xasprintf(RESTORE_FOREIGN_LEAD "%s; %s runs from its disks. If its contents are unwanted: wipefs -a %s, then rdctl --restore; or name another disk in %s",
							   what, s->mdname, m->member, cfg->path ? cfg->path : "the configuration"));
		it->action = ACTION_FOREIGN;
		break;
	case MEMBER_KEPT:
		if (readd(it, m->member, s, &msg) == 0)
			break;
		fprintf(stderr, "rdctl: %s: md refused to re-add %s (%s): it is this array's member, filled afresh\n",
			s->mdname, m->member, msg ? msg : "no message");
		/* fall through */
	case MEMBER_BLANK:
		s->disk = it->rd;
		r = restore_add(it, cfg, s);
		break;
	}
	free(msg);
	free(what);
	return r;
}
