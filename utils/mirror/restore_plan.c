// SPDX-License-Identifier: GPL-2.0
/*
 * --restore --dry-run: what --restore would do to each mirror of the
 * configuration, decided the way restore_one() decides (restore.c), from
 * what sysfs, the superblocks and the kept records say now. Nothing is
 * changed: no lock, no wait, no mdadm or sysfs write, no RAM disk, no
 * record used up (warm_record_peek()), no dead warm-up's state cleared.
 * What only the doing can tell (whether md takes the copy back, whether a
 * missing array turns up) is said as the plan's condition.
 */
#include "mirror/restore_plan.h"

#include <stdlib.h>
#include <string.h>

#include "lib/errors.h"
#include "lib/size.h"
#include "lib/util.h"
#include "md/md.h"
#include "md/md_ops.h"
#include "md/md_super.h"
#include "mirror/assemble.h"
#include "mirror/checks.h"
#include "mirror/restore_checks.h"
#include "mirror/restore_disk.h"
#include "mirror/steps.h"
#include "status/warm_state.h"

/* "; would make sdb sdc write-mostly", or "" (what restore_fix_write_mostly() would set) */
static char *wm_plan(const struct md_array *a)
{
	char *s = xstrdup("");
	size_t n = 0;

	for (size_t i = 0; i < a->nmembers; i++) {
		const struct md_member *m = &a->members[i];
		char *t;

		if (md_is_fast(m) || m->faulty || m->write_mostly)
			continue;
		t = xasprintf("%s%s%s", s, n++ ? " " : "; would make ", m->name);
		free(s);
		s = t;
	}
	if (n) {
		char *t = xasprintf("%s write-mostly", s);

		free(s);
		s = t;
	}
	return s;
}

/* The RAM member restore would add, and how: the summary's main part. */
static char *add_plan(const struct conf_mirror *m, const char *mdname, uint64_t size, bool compact, bool grow,
		      int raid_disks, int persistent)
{
	char *sz = size_mib_str(size), *note = NULL, *how, *first, *slot, *s;
	struct md_super sb;
	bool made;
	bool warm = restore_warm_choice(mdname, size, compact || grow, true, &sb, &made, &note);
	first = compact ? xasprintf("would move the disks below the RAM slot (mdadm --grow --raid-devices=%d), ",
				    persistent) : xstrdup("");
	slot = grow ? xasprintf(" in a new slot (mdadm --grow --raid-devices=%d)", raid_disks + 1) : xstrdup("");
	if (warm)
		how = xasprintf("copy %s into it and re-add it as the member that left (its superblock %s): md recovers only what is written %s, or all of it if md refuses it; reads spread over the disks until it is in sync",
				mdname, made ? "made from the array's" : "kept at the release",
				made ? "during the copy" : "since it left");
	else
		how = xasprintf("add it to %s%s (mdadm --add): md recovers it in full%s%s%s", mdname, slot,
				note ? " (" : "", note ? note : "", note ? ")" : "");
	s = xasprintf("%swould attach a %s RAM disk%s%s%s and %s", first, sz, m->prealloc ? " (preallocated)" : "",
		      m->comp ? " compressed with " : "", m->comp ? config_comp_name(m->comp) : "", how);
	free(sz);
	free(note);
	free(how);
	free(first);
	free(slot);
	return s;
}

void restore_plan_one(const struct conf_mirror *m, const struct config *cfg, const struct mirror_opts *o,
		      struct boot_report *rep)
{
	struct boot_item *it = boot_item_new(rep, m->spec);
	char *mdname = NULL, *plan = NULL, *pre = NULL, *main_part = NULL, *wm = NULL, *why;
	const struct md_member *rm;
	uint64_t size = m->size, limit = 0;
	int r, slotted, persistent, top, raid_disks;
	struct md_array a;
	struct warmup w;

	it->spec = xstrdup(m->spec);
	it->line = m->line;
	it->action = "planned";
	if (m->kind == CONF_UUID)
		it->uuid = xstrdup(m->uuid);
	r = restore_plan_bring_up(m, &mdname, &plan);
	if (mdname) {
		free(it->array);
		it->array = xstrdup(mdname);
		if (!it->uuid)
			it->uuid = md_uuid_of(mdname);
	}
	if (r < 0) {
		boot_item_fail(it, errno_code(-r), plan);
		goto out;
	}
	if (r > 0) {
		it->summary = plan;
		goto out;
	}
	if (md_array_read(mdname, &a) < 0) {
		boot_item_fail(it, "EIO", xasprintf("cannot read %s", mdname));
		goto out;
	}
	if ((why = refuse_not_raid1(mdname, &a))) {
		boot_item_fail(it, "EINVAL", why);
		goto clear;
	}
	pre = xstrdup(a.array_state && !strcmp(a.array_state, "read-auto") ? "would make it writable (mdadm --readwrite), " : "");
	rm = mirror_rd_member(&a);
	wm = wm_plan(&a);
	if (warmup_read(mdname, &w) == 0) {
		if (w.alive && !(rm && rm->in_sync)) {
			it->summary = xasprintf("%salready restored (%s, warm-up copy %.1f%%)", pre, w.rd,
						warmup_percent(&w));
			warmup_clear(&w);
			goto clear;
		}
		if (!w.alive) {
			char *t = xasprintf("%swould clear the state of a warm-up that died, ", pre);

			free(pre);
			pre = t;
		}
		warmup_clear(&w);
	}
	md_count_slots(&a, &slotted, &persistent, &top);
	raid_disks = a.raid_disks;
	if (rm && !rm->faulty && !rm->write_error) {
		char *words = restore_sync_words(&a, rm);

		it->rd = xstrdup(rm->name);
		if (rm->slot < 0 && raid_disks > 0 && slotted >= raid_disks)
			it->summary = xasprintf("%swould grow %s into the RAM slot (mdadm --grow --raid-devices=%d): %s recovers into it%s",
						pre, mdname, raid_disks + 1, rm->name, wm);
		else
			it->summary = xasprintf("%salready restored (%s, %s)%s", pre, rm->name, words, wm);
		free(words);
		goto clear;
	}
	if (rm) {
		char *t = xasprintf("%swould remove %s (%s) and detach it, then ", pre, rm->name,
				    rm->faulty ? "faulty" : "a write failed");

		free(pre);
		pre = t;
	}
	/* a member disk is its own size, and takes no memory */
	if (!m->member && (restore_size(it, m, mdname, &size) < 0 ||
			   (!o->ignore_memory && restore_fits(it, cfg, mdname, size, m->comp, &limit) < 0)))
		goto clear;
	{
		bool compact = raid_disks == persistent + 1 && top >= persistent;
		bool grow = !compact && raid_disks > 0 && persistent >= raid_disks;

		main_part = m->member ? restore_disk_plan(m, mdname, it->uuid)
				      : add_plan(m, mdname, size, compact, grow, raid_disks, persistent);
	}
	it->has_size = !m->member;
	it->size = size;
	it->summary = xasprintf("%s%s%s", pre, main_part, wm);
clear:
	md_array_clear(&a);
out:
	free(pre);
	free(main_part);
	free(wm);
	free(mdname);
}
