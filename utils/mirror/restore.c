// SPDX-License-Identifier: GPL-2.0
/*
 * --restore: bring every mirror of the configuration back to RAM speed.
 * For each line of /etc/rdmirror.conf, in order, each one on its own (a
 * failure is reported and the next mirror is still done):
 *   1. find the array (by device, /dev/md/NAME or UUID), waiting up to
 *      RDCTL_RESTORE_TIMEOUT (30 s) for it; half way, "mdadm --assemble
 *      --scan" for it; an array that sits inactive with only one member
 *      missing (the RAM member, gone with the power) is started with
 *      "mdadm --run" at once, one missing more only at the end of the wait
 *      (the same as mdadm's last-resort timer would do);
 *   2. an auto-read-only array is made writable ("mdadm --readwrite"),
 *      or md would hold the recovery back until the first write;
 *   3. an rd member in sync or rebuilding: already restored, nothing
 *      changes; a faulty one is removed and detached first;
 *   4. attach a disk of the configured size (auto: md_member_size()) and
 *      "mdadm /dev/mdX --add /dev/rdN" (a blank RAM disk has no superblock,
 *      so mdadm adds it into the free slot and md recovers it in full);
 *      or, when the array has an internal bitmap and its RAM slot is
 *      empty, start the warm-up copy that re-adds it as the member that
 *      left (warmup.h), under the superblock --release kept
 *      (warm_record.h) or, with none kept (a power cut, a crash, a failed
 *      member), one made from the array's own (warm_super.h): md then
 *      recovers only what was written since it left, or during the copy;
 *   5. every working persistent member that is not write-mostly:
 *      "writemostly" > /sys/block/mdX/md/dev-Y/state; never the RAM member;
 *   6. with --wait, wait until the rd member is in sync (at most --timeout
 *      seconds, when given).
 * Root and the lock (lock.h) come first.
 */
#include "mirror/checks.h"
#include "mirror/restore.h"
#include "mirror/restore_checks.h"
#include "mirror/restore_disk.h"
#include "mirror/restore_plan.h"
#include "mirror/restore_steps.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <rdmirror.h>

#include "lib/config.h"
#include "lib/errors.h"
#include "lib/lock.h"
#include "lib/size.h"
#include "lib/sysfs.h"
#include "lib/util.h"
#include "md/md.h"
#include "md/md_ops.h"
#include "md/mdadm_conf.h"
#include "mirror/assemble.h"
#include "mirror/boot.h"
#include "mirror/rd_prepare.h"
#include "mirror/steps.h"
#include "mirror/verb.h"
#include "mirror/warmup.h"
#include "rd/control.h"
#include "status/view.h"


const struct md_member *restore_rd_member(const struct md_array *a)
{
	for (size_t i = 0; i < a->nmembers; i++)
		if (md_is_fast(&a->members[i]))
			return &a->members[i];
	return NULL;
}

int restore_detach_disk(unsigned index)
{
	int fd, r, rc = control_open(false, &fd);

	if (rc)
		return rc;
	r = ctl_remove(fd, index);
	if (close(fd) < 0 && r == 0)
		r = -errno;
	if (r < 0)
		return fail_errno(-r, "detaching rd%u failed: %s", index, strerror(-r));
	return 0;
}

/*
 * Remove a faulty RAM member from the array and detach it. A member that
 * failed a write but that md kept (FAIL: it recorded bad blocks instead)
 * is failed first: it is no longer a whole copy, a fresh one is.
 */
static int drop_faulty(struct boot_item *it, const char *mdname, const char *rd, bool fail)
{
	char *dev = md_dev_path(mdname), *path = md_dev_path(rd), *msg = NULL;
	unsigned index;
	int r = fail ? mdadm_call(NULL, &msg, dev, "--fail", path, "--remove", path, NULL)
		     : mdadm_call(NULL, &msg, dev, "--remove", path, NULL);

	free(dev);
	free(path);
	if (r < 0)
		return boot_item_fail(it, errno_code(-r), msg);
	if (rd_parse_name(rd, &index) && restore_detach_disk(index))
		return boot_item_take_error(it);
	return 0;
}

/* Step 6: wait for the rd member to be in sync, at most --timeout; progress on a terminal. */
static int wait_sync(struct boot_item *it, const char *mdname, unsigned timeout)
{
	char *msg;
	int r = warmup_wait_in_sync(mdname, it->rd, timeout, &msg);

	if (r < 0)
		return boot_item_fail(it, errno_code(-r), msg);
	return 0;
}

char *restore_join_wm(const struct boot_item *it)
{
	char *s = xstrdup("");

	for (size_t i = 0; i < it->nwm; i++) {
		char *t = xasprintf("%s%s%s", s, i ? " " : "", it->wm[i]);

		free(s);
		s = t;
	}
	return s;
}

/*
 * "mdadm --grow DEV --raid-devices=N", after mdadm.conf's entry for the
 * array has lost num-devices= (mdadm_conf_fit_count()): an entry that
 * still named the old count would make the next boot's assembly refuse the
 * array. 0, or -1 with the error on the item.
 */
int restore_grow_to(struct boot_item *it, const char *dev, int n)
{
	char *rdn, *msg = NULL;
	int r = it->uuid ? mdadm_conf_fit_count(it->uuid, &msg) : 0;

	if (r < 0)
		return boot_item_fail(it, errno_code(-r), msg);
	if (r > 0)
		fprintf(stderr, "rdctl: warning: %s: %s\n", dev, msg);
	free(msg);
	msg = NULL;
	rdn = xasprintf("--raid-devices=%d", n);
	r = mdadm_call(NULL, &msg, "--grow", dev, rdn, NULL);
	free(rdn);
	if (r < 0)
		return boot_item_fail(it, errno_code(-r), msg);
	free(msg);
	return 0;
}

/*
 * An alive warm-up of mdname whose RAM member is not in sync yet: the item
 * says so, true. A dead one (killed, or the machine ran out of memory) is
 * cancelled whatever its member's state, false: its state file goes, and
 * md's sync speeds it raised go back (warmup_cancel()); one that died
 * while md recovered its member leaves that member in sync, and nothing
 * else would ever put them back. rd_in_sync: the RAM member is in sync
 * (an alive daemon then only makes the disks write-mostly, as restore does).
 */
static bool warming_already(struct boot_item *it, const char *mdname, bool rd_in_sync)
{
	struct warmup w;
	char *why = NULL;

	if (warmup_read(mdname, &w) < 0)
		return false;
	if (!w.alive) {
		warmup_clear(&w);
		if (warmup_cancel(mdname, &why) < 0) {
			fprintf(stderr, "rdctl: warning: %s\n", why);
			free(why);
		}
		return false;
	}
	if (rd_in_sync) {
		warmup_clear(&w);
		return false;
	}
	it->action = "already";
	it->rd = xstrdup(w.rd);
	it->summary = w.recovering ? xasprintf("already restored (%s, warm start: md recovers what was written during the copy)", w.rd)
				   : xasprintf("already restored (%s, warm-up copy %.1f%%)", w.rd, warmup_percent(&w));
	warmup_clear(&w);
	return true;
}

/*
 * The array of line m brought up and read into *a: a RAID1, writable. 0,
 * or -1 with the item failed (*a cleared).
 */
static int restore_open(struct boot_item *it, const struct conf_mirror *m, char **mdname, char **note,
			struct md_array *a)
{
	char *msg = NULL, *why, *dev;
	int r;

	if (restore_bring_up(it, m, mdname, note) < 0)
		return -1;
	if (!it->uuid)
		it->uuid = md_uuid_of(*mdname);
	r = md_array_read(*mdname, a);
	if (r < 0)
		return boot_item_fail(it, errno_code(-r), xasprintf("cannot read %s: %s", *mdname, strerror(-r)));
	if ((why = refuse_not_raid1(*mdname, a))) {
		md_array_clear(a);
		return boot_item_fail(it, "EINVAL", why);
	}
	if (!a->array_state || strcmp(a->array_state, "read-auto"))
		return 0;
	dev = md_dev_path(*mdname);
	r = mdadm_call(NULL, &msg, "--readwrite", dev, NULL);
	free(dev);
	if (r < 0) {
		md_array_clear(a);
		return boot_item_fail(it, errno_code(-r), msg);
	}
	free(msg);
	return 0;
}

/*
 * The array has its working RAM member rm: said so, its disks made
 * write-mostly. A RAM spare with no slot free for it is a --convert
 * stopped between its add and its grow: grown, md recovers the spare into
 * the new slot, the highest. Takes *a (cleared). 0, or -1 (the item failed).
 */
static int restore_present(struct boot_item *it, struct md_array *a, const struct md_member *rm, const char *mdname,
			   const char *dev, int slotted)
{
	char *words, *wm;
	unsigned index;

	it->action = "already";
	it->rd = xstrdup(rm->name);
	if (rd_parse_name(rm->name, &index)) {
		struct rd_disk d;

		if (rd_disk_read(index, &d) == 0) {
			it->has_size = true;
			it->size = d.size;
			rd_disk_clear(&d);
		}
	}
	if (rm->slot < 0 && a->raid_disks > 0 && slotted >= a->raid_disks) {
		int raid_disks = a->raid_disks;

		md_array_clear(a);
		if (restore_grow_to(it, dev, raid_disks + 1) < 0)
			return -1;
		it->action = "added";
		if (md_array_read(mdname, a) < 0)
			return -1;
		rm = restore_rd_member(a);
		if (!rm) {
			md_array_clear(a);
			return boot_item_fail(it, "EIO", xasprintf("%s left %s after the grow", it->rd, mdname));
		}
	}
	words = restore_sync_words(a, rm);
	md_array_clear(a);
	if (restore_fix_write_mostly(it, mdname) < 0) {
		free(words);
		return -1;
	}
	wm = restore_join_wm(it);
	it->summary = xasprintf("%s (%s, %s)%s%s%s", strcmp(it->action, "added") ? "already restored" :
				"grown into the RAM slot", it->rd, words,
				it->nwm ? ", " : "", wm, it->nwm ? " made write-mostly" : "");
	free(wm);
	free(words);
	return 0;
}

/*
 * The RAM member must land in the highest slot (md_ram_slot_low()): md
 * puts a spare into the lowest free slot. With one slot free and a
 * persistent member above it (a mirror made by an older rdctl, or by hand,
 * with the RAM slot first), shrinking raid-devices to the persistent
 * members packs them into the lowest slots (raid1_reshape()); the grow
 * then opens the top slot for the RAM member. Not while a sync runs (md
 * refuses to reshape then): --status warns, and the next restore or rdctl
 * --refresh moves it. true when compacted (*raid_disks then the new count).
 */
static bool restore_compact(struct boot_item *it, const char *mdname, const char *dev, int persistent, int top,
			    int *raid_disks)
{
	if (*raid_disks != persistent + 1 || top < persistent)
		return false;
	if (restore_grow_to(it, dev, persistent) == 0) {
		*raid_disks = persistent;
		return true;
	}
	fprintf(stderr, "rdctl: warning: %s: cannot move the disks below the RAM slot (%s): the RAM member goes into a low slot, where md's repair would take it as the truth; rdctl --refresh %s moves it later\n",
		mdname, it->message, dev);
	free(it->message);
	free(it->code);
	it->message = it->code = NULL;
	it->action = NULL;
	return false;
}

/*
 * One line's restore (struct verb_step over c): c.array is the line's
 * spec, c.kname and c.mdpath the array once it is up, c.a the array read
 * (taken by the step that finishes with it). c.r stays NULL: a failure
 * goes on the line's item (boot_item_fail()), and the next line is
 * restored all the same.
 */
struct restore_ctx {
	struct mirror_ctx c;
	const struct conf_mirror *m;	/* the configuration line */
	const struct config *cfg;	/* the whole configuration: the reserve, the sync speeds */
	struct boot_item *it;		/* its line in the report */
	struct restore_slot s;		/* where the fast member goes, once the array is read */
	char *note;			/* what bringing the array up did (a --run, an --assemble) */
	const struct md_member *rm;	/* the RAM member, of c.a, or NULL */
	int slotted, persistent, top;	/* md_count_slots() of c.a */
	bool done;			/* the RAM member is there, or warming: nothing to add */
};

static struct restore_ctx *restore_of(struct mirror_ctx *c)
{
	return (struct restore_ctx *)c;
}

static const struct restore_ctx *restore_of_const(const struct mirror_ctx *c)
{
	return (const struct restore_ctx *)c;
}

/* 0, or EXIT_RUNTIME for a step whose helper failed the item (-1). */
static int item_rc(int r)
{
	return r < 0 ? EXIT_RUNTIME : 0;
}

/* Steps 1 and 2, and the refusal (checks.h): the array up, a RAID1, writable. */
static int open_array(struct mirror_ctx *c)
{
	struct restore_ctx *v = restore_of(c);

	if (restore_open(v->it, v->m, &c->kname, &v->note, &c->a) < 0)
		return EXIT_RUNTIME;
	c->mdpath = md_dev_path(c->kname);
	v->rm = restore_rd_member(&c->a);
	md_count_slots(&c->a, &v->slotted, &v->persistent, &v->top);
	v->s.raid_disks = c->a.raid_disks;
	return 0;
}

/* (a warm-up's daemon makes the disks write-mostly once rm is in sync) */
static int warming(struct mirror_ctx *c)
{
	struct restore_ctx *v = restore_of(c);

	v->done = warming_already(v->it, c->kname, v->rm && v->rm->in_sync);
	if (v->done)
		md_array_clear(&c->a);
	return 0;
}

static bool to_add(const struct mirror_ctx *c)
{
	return !restore_of_const(c)->done;
}

static bool rd_working(const struct mirror_ctx *c)
{
	const struct restore_ctx *v = restore_of_const(c);

	return to_add(c) && v->rm && !v->rm->faulty && !v->rm->write_error;
}

/* Step 3: the RAM member there already; its disks made write-mostly. */
static int present(struct mirror_ctx *c)
{
	struct restore_ctx *v = restore_of(c);

	v->done = true;
	return item_rc(restore_present(v->it, &c->a, v->rm, c->kname, c->mdpath, v->slotted));
}

/* Step 3: a faulty RAM member removed and detached; the array read is done with. */
static int drop(struct mirror_ctx *c)
{
	struct restore_ctx *v = restore_of(c);
	int r = v->rm ? drop_faulty(v->it, c->kname, v->rm->name, !v->rm->faulty) : 0;

	v->rm = NULL;
	md_array_clear(&c->a);
	return item_rc(r);
}

/* a member disk is its own size, and takes no memory */
static bool ram_to_add(const struct mirror_ctx *c)
{
	return to_add(c) && !restore_of_const(c)->m->member;
}

static bool memory_checked(const struct mirror_ctx *c)
{
	return ram_to_add(c) && !c->o->ignore_memory;
}

static int size(struct mirror_ctx *c)
{
	struct restore_ctx *v = restore_of(c);

	return item_rc(restore_size(v->it, v->m, c->kname, &v->s.size));
}

/* The refusal (restore_checks.h): the RAM member fits in memory with the reserve kept. */
static int fits(struct mirror_ctx *c)
{
	struct restore_ctx *v = restore_of(c);

	return item_rc(restore_fits(v->it, v->cfg, c->kname, v->s.size, v->s.comp, &v->s.mem_limit));
}

/* The RAM slot the highest, and whether the add needs a new slot. */
static int slot(struct mirror_ctx *c)
{
	struct restore_ctx *v = restore_of(c);
	struct restore_slot *s = &v->s;

	s->mdname = c->kname;
	s->dev = c->mdpath;
	s->note = v->note;
	s->compacted = restore_compact(v->it, c->kname, c->mdpath, v->persistent, v->top, &s->raid_disks);
	/* no slot free: a --convert stopped before its grow, or the shrink above */
	s->grow = s->raid_disks > 0 && v->persistent >= s->raid_disks;
	return 0;
}

/* Steps 4 and 5: the fast member brought in (a member disk: restore_disk.h). */
static int add(struct mirror_ctx *c)
{
	struct restore_ctx *v = restore_of(c);

	return item_rc(v->m->member ? restore_disk(v->it, v->cfg, v->m, &v->s) : restore_add(v->it, v->cfg, &v->s));
}

/* Step 6 is waited for in cmd_restore, after the lock is let go, by it->array. */
static int mark_wait(struct mirror_ctx *c)
{
	struct restore_ctx *v = restore_of(c);
	struct boot_item *it = v->it;

	it->wait = c->o->wait && !it->message && it->rd;
	if (it->wait && strcmp(it->array, c->kname)) {
		free(it->array);
		it->array = xstrdup(c->kname);
	}
	return 0;
}

/*
 * What undoes or finishes the steps done once one failed (struct
 * verb_step); the failed step has put its error on the line's item, and
 * undone what it started itself (a RAM disk attached for an add that
 * failed is detached by the add). Nothing else is undone: the array runs
 * from its disks, as the boot left it, and the next --restore starts again.
 */
static int failed_unchanged(struct mirror_ctx *c)
{
	(void)c;
	/* the array as found: not up, not a RAID1, or its RAM member as it was */
	return EXIT_RUNTIME;
}

static int failed_degraded(struct mirror_ctx *c)
{
	(void)c;
	/* up and writable, without a working RAM member: --status says DEGRADED */
	return EXIT_RUNTIME;
}

/* The steps of --restore for one line of the configuration, in order. */
static const struct verb_step restore_steps[] = {
	{ "the array up, a writable RAID1", NULL, open_array, failed_unchanged },
	{ "a warm-up already running", NULL, warming, NULL },
	{ "the RAM member there already", rd_working, present, failed_unchanged },
	{ "a faulty RAM member dropped", to_add, drop, failed_unchanged },
	{ "the RAM member's size", ram_to_add, size, failed_degraded },
	{ "it fits in memory", memory_checked, fits, failed_degraded },
	{ "the RAM slot the highest", to_add, slot, NULL },
	{ "the fast member added", to_add, add, failed_degraded },
	{ "waited for once the lock is let go", NULL, mark_wait, NULL },
};

/*
 * Line m's mirror back: its array up, its RAM member attached and added
 * (or warmed up), or said to be there already. Each failure on the item.
 */
static void restore_one(const struct conf_mirror *m, const struct config *cfg, const struct mirror_opts *o,
			struct boot_report *rep)
{
	struct restore_ctx v = { .m = m, .cfg = cfg, .s = { .size = m->size, .prealloc = m->prealloc, .comp = m->comp } };
	struct mirror_ctx *c = &v.c;

	mirror_ctx_init(c, o, "restore", m->spec);
	v.it = boot_item_new(rep, m->spec);
	v.it->spec = xstrdup(m->spec);
	v.it->line = m->line;
	if (m->kind == CONF_UUID)
		v.it->uuid = xstrdup(m->uuid);
	(void)MIRROR_RUN_STEPS(c, restore_steps);
	free(v.note);
	mirror_close(c);
}

/*
 * Two lines may name one array in two ways (md0 and UUID=...), which only
 * this system can tell: before anything changes, every line that is found
 * now is resolved, and lines that meet on one array are all left out with
 * an error of the file (which of them is meant, with which size?). An array
 * that appears only later, while restore waits for it, is not checked.
 */
static void drop_same_arrays(struct config *cfg)
{
	char **names;

	if (cfg->n < 2)
		return;
	names = xcalloc(cfg->n, sizeof(*names));
	for (size_t i = 0; i < cfg->n; i++)
		names[i] = md_array_of_config(&cfg->v[i]);
	config_drop_same_arrays(cfg, names);
	for (size_t i = 0; i < cfg->n; i++)
		free(names[i]);
	free(names);
}

int restore_array(const struct mirror_opts *o, struct conf_file *f, const char *kname, bool *found)
{
	struct boot_report rep = { 0 };
	struct config cfg;
	int rc = 0;

	*found = false;
	if (conf_file_parse(f, &cfg)) {
		error_reset();
		config_free(&cfg);
		return 0;
	}
	md_fast_disks_from_config(&cfg);
	for (size_t i = 0; i < cfg.n && !*found; i++) {
		char *name = md_array_of_config(&cfg.v[i]);

		if (name && !strcmp(name, kname)) {
			*found = true;
			restore_one(&cfg.v[i], &cfg, o, &rep);
		}
		free(name);
	}
	if (*found) {
		lock_release();	/* a warm-up's daemon takes it for its re-add */
		if (rep.n && rep.v[0].wait)
			wait_sync(&rep.v[0], rep.v[0].array, o->timeout);
		rc = boot_report_emit(&rep, "restore", NULL, o->json);
	}
	boot_report_free(&rep);
	config_free(&cfg);
	return rc;
}

int cmd_restore(const struct mirror_opts *o)
{
	const char *path = config_path(o->config);
	struct boot_report rep = { 0 };
	struct config cfg;
	int r, rc;

	if ((rc = mirror_begin(o, "restore")) || (rc = check_kernel_bug(o->ignore_kernel_bug, "restore")))
		return rc;
	r = config_read(path, &cfg);

	if (r == -ENOENT && !o->config) {
		/* no /etc/rdmirror.conf: nothing configured, not an error (the
		 * boot service runs on every host where rdmirror is installed) */
		config_free(&cfg);
		config_parse_text(path, "", &cfg);
		r = 0;
	}
	if (r < 0) {
		rc = fail_errno(-r, "cannot read %s: %s%s", path, strerror(-r),
				r == -ENOENT ? " (see rdmirror.conf.example)" : "");
		config_free(&cfg);
		return rc;
	}
	drop_same_arrays(&cfg);
	md_fast_disks_from_config(&cfg);
	for (size_t i = 0; i < cfg.n; i++) {
		if (o->dry_run)
			restore_plan_one(&cfg.v[i], &cfg, o, &rep);
		else
			restore_one(&cfg.v[i], &cfg, o, &rep);
	}
	/*
	 * Every change is made: let the lock go, then wait for the syncs (md
	 * recovers all the arrays at once), so that an rdctl run meanwhile
	 * need not wait the minutes a recovery takes.
	 */
	lock_release();
	for (size_t i = 0; i < rep.n; i++)
		if (rep.v[i].wait)
			wait_sync(&rep.v[i], rep.v[i].array, o->timeout);
	if (cfg.n == 0 && cfg.nerrs == 0 && !o->json &&
	    (printf("no mirror configured in %s\n", path) < 0 || fflush(stdout) == EOF)) {
		rc = fail_errno(EIO, "cannot write to standard output");
		boot_report_free(&rep);
		config_free(&cfg);
		return rc;
	}
	/* (--status shows the last restore that ran, not a plan) */
	if (!o->dry_run)
		boot_report_save(&rep, &cfg);
	rc = boot_report_emit(&rep, "restore", &cfg, o->json);
	boot_report_free(&rep);
	config_free(&cfg);
	return rc;
}
