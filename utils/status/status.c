// SPDX-License-Identifier: GPL-2.0
/*
 * The --status model: everything read once (see status.h). What is not
 * there is found out from the configuration, the module's presence for
 * this kernel and the record of the last restore, so that a monitoring
 * check says why a mirror has no RAM member and what to run about it.
 */
#include "status/status.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "lib/config.h"
#include "lib/config_edit.h"
#include "lib/build_id.h"
#include "lib/errors.h"
#include "lib/util.h"
#include "md/md_ops.h"
#include "md/mdadm_conf.h"
#include "rd/module_help.h"
#include "status/mem_limit.h"
#include "status/rd_record.h"
#include "status/status_why.h"
#include "status/warm_state.h"

const char *mirror_state_name(enum mirror_state s)
{
	static const char *const names[] = { "in_sync", "recovering", "missing", "failed", "not_assembled" };

	return names[s];
}

int status_read_disks(struct rd_disk **disks, size_t *n, struct disk_view **views)
{
	int r = rd_disks_list(disks, n);

	*views = NULL;
	if (r < 0)
		return fail_errno(-r, "cannot read the rd disks in %s/block: %s", sysfs_root(), strerror(-r));
	*views = xcalloc(*n, sizeof(**views));
	for (size_t i = 0; i < *n; i++) {
		r = disk_view_read(&(*disks)[i], &(*views)[i]);
		if (r < 0) {
			int e = -r;

			fail_errno(e, "cannot read the md array holding %s in %s/block: %s",
				   (*disks)[i].name, sysfs_root(), strerror(e));
			for (size_t j = 0; j < i; j++)
				disk_view_clear(&(*views)[j]);
			free(*views);
			*views = NULL;
			rd_disks_free(*disks, *n);
			*disks = NULL;
			return EXIT_RUNTIME;
		}
	}
	return 0;
}

void status_free_disks(struct rd_disk *disks, struct disk_view *views, size_t n)
{
	for (size_t i = 0; views && i < n; i++)
		disk_view_clear(&views[i]);
	free(views);
	rd_disks_free(disks, n);
}

static long find_array(const struct status *st, const char *name)
{
	for (size_t i = 0; i < st->narrays; i++)
		if (!strcmp(st->arrays[i].name, name))
			return (long)i;
	return -1;
}

static const struct md_member *ram_of(const struct md_array *a)
{
	for (size_t i = 0; i < a->nmembers; i++)
		if (md_is_fast(&a->members[i]))
			return &a->members[i];
	return NULL;
}

static bool inactive(const struct md_array *a)
{
	return !a->array_state || !strcmp(a->array_state, "inactive") || !strcmp(a->array_state, "clear");
}

static struct mirror *mirror_new(struct status *st, const char *spec)
{
	struct mirror *x;

	st->mirrors = xrealloc(st->mirrors, st->nmirrors + 1, sizeof(*st->mirrors));
	x = &st->mirrors[st->nmirrors++];
	memset(x, 0, sizeof(*x));
	x->spec = xstrdup(spec);
	x->ai = -1;
	x->progress = x->rate = x->eta = -1;
	x->ram_reads = x->disk_reads = -1;
	return x;
}

static void set_why(struct mirror *x, char *brief, char *reason, char *fix)
{
	x->brief = brief;
	x->reason = reason;
	x->fix = fix;
}

/* Why x, over configuration line m (NULL: none), has no fast member. */
static void why_no_member(struct status *st, struct mirror *x, const struct conf_mirror *m)
{
	const struct why_input in = {
		.m = m, .uuid = x->uuid, .rec = &st->rec, .modstate = st->modstate, .config_path = st->config_path,
	};
	struct why w;

	why_missing(&in, &w);
	set_why(x, w.brief, w.reason, w.fix);
	x->member_finding = w.finding;
	x->member_severity = w.severity;
}

/*
 * The array rd disk d was given to, though it is in none now: the one
 * whose UUID the md superblock on it names (md takes a member whose
 * recovery failed out of the array: nothing in sysfs names the array
 * then), else the one rdctl recorded when it gave it the disk
 * (rd_record.h: a warm-up copy that failed at the disk's limit never
 * had md write a superblock on it). NULL when neither tells.
 */
static char *array_left(const struct rd_disk *d)
{
	char *md = md_array_of_super(d->name, d->size), *uuid;

	if (md || !(uuid = rd_record_uuid(d->name)))
		return md;
	md = md_array_with_uuid(uuid);
	free(uuid);
	return md;
}

/*
 * st->left: the array each rd disk left (array_left()), for a disk that
 * can have been failed at a memory limit: held by no one, compressed or
 * with writes refused. The array, when not yet among st->arrays (it has
 * no rd member any more), is added.
 */
static void left_arrays(struct status *st)
{
	st->left = xcalloc(st->ndisks ? st->ndisks : 1, sizeof(*st->left));
	for (size_t i = 0; i < st->ndisks; i++) {
		const struct rd_disk *d = &st->disks[i];
		struct md_array a;
		char *md;

		if (d->nholders || (!d->compressor && d->refused_writes <= 0))
			continue;
		md = array_left(d);
		if (!md)
			continue;
		st->left[i] = md;
		if (find_array(st, md) >= 0 || md_array_read(md, &a) < 0)
			continue;
		st->arrays = xrealloc(st->arrays, st->narrays + 1, sizeof(*st->arrays));
		st->arrays[st->narrays++] = a;
	}
}

/* The rd disk called name ("rd0"), or NULL when there is none. */
static const struct rd_disk *find_disk(const struct status *st, const char *name)
{
	for (size_t i = 0; name && i < st->ndisks; i++)
		if (!strcmp(st->disks[i].name, name))
			return &st->disks[i];
	return NULL;
}

static void ram_figures(const struct status *st, struct mirror *x)
{
	const struct rd_disk *d = find_disk(st, x->rd);

	x->ram_memory_errors = -1;
	if (d) {
		x->has_ram = d->has_allocated;
		x->ram_bytes = d->allocated;
		x->ram_size = d->size;
		x->ram_memory_errors = d->memory_errors;
	}
}

/*
 * The rd disk that hit a memory limit and is out of array a (st->left):
 * md took it out, or never had it. x is then failed, as with a faulty
 * member md keeps, and the finding (compressed_limit, ram_mem_limit)
 * says why with the fix. true when there is one.
 */
static bool left_member(struct status *st, struct mirror *x, const struct md_array *a)
{
	for (size_t i = 0; i < st->ndisks; i++) {
		const struct rd_disk *d = &st->disks[i];

		if (!st->left[i] || strcmp(st->left[i], a->name) || d->refused_writes <= 0)
			continue;
		x->rd = xstrdup(d->name);
		ram_figures(st, x);
		x->state = MIRROR_FAILED;
		x->progress = 0;
		set_why(x, xasprintf("%s failed at its memory limit", d->name),
			xasprintf("RAM member %s reached its memory limit (%lld write%s refused), so it is out of %s",
				  d->name, (long long)d->refused_writes, d->refused_writes == 1 ? "" : "s", a->name),
			xasprintf("rdctl --detach %s (md no longer uses it; its memory stays held until then), then rdctl --restore",
				  d->name));
		return true;
	}
	return false;
}

/*
 * A warm-up copy into x's RAM disk (warmup.h): a recovery as far as the
 * user is concerned, with its own progress, rate and ETA. true when one runs.
 */
static bool warm_copy_progress(struct status *st, struct mirror *x)
{
	struct warmup w;
	time_t now = time(NULL);

	if (warmup_read(x->array, &w) < 0)
		return false;
	/* (once md has the disk back, its recovery is what --status shows) */
	if (!w.alive || w.recovering) {
		warmup_clear(&w);
		return false;
	}
	x->state = MIRROR_RECOVERING;
	x->copying = true;
	x->rd = xstrdup(w.rd);
	ram_figures(st, x);
	x->progress = warmup_percent(&w);
	if (now != (time_t)-1 && now > w.started && w.done > 0) {
		x->rate = (int64_t)(w.done / (uint64_t)(now - w.started));
		x->eta = x->rate > 0 ? (int64_t)((w.total - w.done) / (uint64_t)x->rate) : -1;
	}
	warmup_clear(&w);
	return true;
}

/*
 * The reads a's working members have completed, RAM against disks. Each
 * counter runs from its own start (a disk's from boot, the RAM member's from
 * its attach, which turns its statistics on), so the share is of the reads
 * counted so far; a rate of the same counters gives the share now. A RAM
 * member that keeps no statistics leaves the RAM side unknown, not 0.
 */
static void read_counts(const struct status *st, struct mirror *x, const struct md_array *a)
{
	int64_t ram = 0, disks = 0;

	for (size_t j = 0; j < a->nmembers; j++) {
		const struct md_member *m = &a->members[j];
		const struct rd_disk *d = md_is_fast(m) ? find_disk(st, m->name) : NULL;
		int64_t n = d && d->io_uncounted ? -1 : m->faulty ? 0 : block_reads(m->name);

		if (md_is_fast(m))
			ram = ram < 0 || n < 0 ? -1 : ram + n;
		else
			disks = disks < 0 || n < 0 ? -1 : disks + n;
	}
	x->ram_reads = ram;
	x->disk_reads = disks;
}

double mirror_ram_read_share(const struct mirror *x)
{
	if (x->ram_reads < 0 || x->disk_reads < 0 || x->ram_reads + x->disk_reads == 0)
		return -1;
	return (double)x->ram_reads / (double)(x->ram_reads + x->disk_reads);
}

/* The state of mirror x over array a, which is there. */
static void mirror_of_array(struct status *st, struct mirror *x, const struct conf_mirror *m)
{
	const struct md_array *a = &st->arrays[x->ai];
	const struct md_member *ram = ram_of(a);
	double pct = md_sync_percent(a);

	x->array = xstrdup(a->name);
	read_counts(st, x, a);
	if (!x->uuid)
		x->uuid = md_uuid_of(a->name);
	if (x->uuid && !config_uuid_valid(x->uuid)) {
		free(x->uuid);	/* mdadm printed something else */
		x->uuid = NULL;
	}
	if (!ram) {
		if (warm_copy_progress(st, x) || left_member(st, x, a))
			return;
		x->state = MIRROR_MISSING;
		x->progress = 0;
		why_no_member(st, x, m);
		return;
	}
	x->rd = xstrdup(ram->name);
	ram_figures(st, x);
	if (ram->faulty || ram->write_error) {
		x->state = MIRROR_FAILED;
		x->progress = 0;
		set_why(x, xasprintf("%s failed", ram->name),
			xasprintf("RAM member %s is %s", ram->name, ram->faulty ? "faulty" : "in the array with write errors"),
			xstrdup("rdctl --restore (replaces it)"));
	} else if (ram->in_sync) {
		x->state = MIRROR_IN_SYNC;
		x->progress = 100;
	} else {
		struct warmup w;

		x->state = MIRROR_RECOVERING;
		if (warmup_read(a->name, &w) == 0) {
			x->full_recovery = w.alive && w.full && w.rd && !strcmp(w.rd, ram->name);
			warmup_clear(&w);
		}
		if (a->sync_action && !strcmp(a->sync_action, "recover") && pct >= 0) {
			x->progress = pct;
			x->eta = md_sync_eta(a);
			x->rate = a->has_speed ? (int64_t)(a->sync_speed * 1024) : -1;
		}
	}
}

static void configured_mirror(struct status *st, const struct conf_mirror *m, const char *name)
{
	struct mirror *x = mirror_new(st, m->spec);
	struct md_array a;
	const struct restore_rec_item *it;

	x->line = m->line;
	x->configured = true;
	x->member = m->member ? xstrdup(m->member) : NULL;
	if (m->kind == CONF_UUID)
		x->uuid = xstrdup(m->uuid);
	if (name) {
		x->ai = find_array(st, name);
		if (x->ai < 0 && md_array_read(name, &a) == 0) {
			if (inactive(&a)) {
				x->array = xstrdup(name);
				x->state = MIRROR_NOT_ASSEMBLED;
				set_why(x, xstrdup("not started"),
					xasprintf("%s is assembled but not started (inactive): members are missing", name),
					xasprintf("mdadm --run /dev/%s, or rdctl --restore", name));
				md_array_clear(&a);
				return;
			}
			st->arrays = xrealloc(st->arrays, st->narrays + 1, sizeof(*st->arrays));
			st->arrays[st->narrays] = a;
			x->ai = (long)st->narrays++;
		}
	}
	if (x->ai >= 0) {
		mirror_of_array(st, x, m);
		return;
	}
	x->state = MIRROR_NOT_ASSEMBLED;
	it = st->rec.valid ? restore_record_find(&st->rec, m, x->uuid) : NULL;
	if (!x->uuid && it && it->uuid && config_uuid_valid(it->uuid))
		x->uuid = xstrdup(it->uuid);
	set_why(x, xstrdup("not assembled"),
		it && it->message ? xasprintf("the array is not assembled; the last restore said: %s", it->message)
				  : xstrdup("the array is not assembled (not found)"),
		xstrdup("mdadm --assemble --scan (are its disks there, is it in mdadm.conf?); then rdctl --restore"));
}

/* The configuration: its mirrors and its errors (a finding, not a failure of --status). */
static int read_config(struct status *st, const char *explicit_path)
{
	struct config cfg;
	char **names;
	int r = config_read(st->config_path, &cfg);

	if (r == -ENOENT && !explicit_path) {
		config_free(&cfg);
		return 0;	/* nothing configured */
	}
	if (r < 0 && explicit_path) {
		config_free(&cfg);
		return fail_errno(-r, "cannot read %s: %s", st->config_path, strerror(-r));
	}
	if (r < 0) {
		warnings_add(&st->w, SEV_WARNING, "config_error", NULL, NULL,
			     xasprintf("cannot read %s: %s: the configured mirrors are not checked",
				       st->config_path, strerror(-r)));
		config_free(&cfg);
		return 0;
	}
	st->config_found = true;
	names = xcalloc(cfg.n + 1, sizeof(*names));
	for (size_t i = 0; i < cfg.n; i++)
		names[i] = md_array_of_config(&cfg.v[i]);
	config_drop_same_arrays(&cfg, names);
	for (size_t i = 0; i < cfg.nerrs; i++)
		warnings_add(&st->w, SEV_WARNING, "config_error", NULL, NULL,
			     cfg.errs[i].line ? xasprintf("%s:%d: %s", st->config_path, cfg.errs[i].line, cfg.errs[i].message)
					      : xasprintf("%s: %s", st->config_path, cfg.errs[i].message));
	for (size_t i = 0; i < cfg.n; i++) {
		configured_mirror(st, &cfg.v[i], names[i]);
		free(names[i]);
	}
	free(names);
	config_free(&cfg);
	return 0;
}

static bool mirror_converted(const struct status *st, const struct mirror *x)
{
	const struct md_array *a;
	int persistent = 0;

	if (x->rd)
		return true;
	if (x->ai < 0)
		return false;
	a = &st->arrays[x->ai];
	for (size_t i = 0; i < a->nmembers; i++) {
		const struct md_member *m = &a->members[i];

		if (md_is_fast(m) || (m->write_mostly && !m->faulty))
			return true;
		if (!m->spare && !m->faulty && m->slot >= 0)
			persistent++;
	}
	return a->raid_disks > persistent;
}

/*
 * The module in memory must be rdctl's own build (lib/build_id.h): a
 * package upgrade replaces the .ko on disk, but the module loaded before
 * it stays in memory while any rd disk (a RAM member) holds it, until the
 * next boot. One version string may name two builds: the identity names
 * the commit, and the finding says what differs.
 */
static void module_version_finding(struct status *st)
{
	char *what;

	if (!st->mod.loaded || !st->mod.version)
		return;
	what = build_id_difference(st->mod.version, rdctl_build_id());
	if (!what)
		return;
	warnings_add(&st->w, SEV_WARNING, "module_version", NULL, NULL,
		     xasprintf("the rdmirror module in memory is version %s, rdctl is %s (%s): it was loaded before the package changed, and the next boot loads the new one; fix (now): rdctl --release, modprobe -r rdmirror, rdctl --restore",
			       st->mod.version, rdctl_build_id(), what));
	free(what);
}

/*
 * mdadm.conf against the arrays: an ARRAY entry whose num-devices= is not
 * the array's count makes "mdadm --assemble --scan" (and the initramfs's
 * copy of the file) refuse the array at the next boot; two entries for one
 * array, mdadm refuses to choose.
 */
static void mdadm_conf_findings(struct status *st)
{
	const char *path = mdadm_conf_path();
	char *text = NULL, *msg = NULL;

	if (!path || config_file_load(path, &text, &msg) < 0) {
		free(msg);
		return;
	}
	for (size_t i = 0; i < st->nmirrors; i++) {
		const struct mirror *x = &st->mirrors[i];
		const struct md_array *a;
		int num = -1, n;

		if (x->ai < 0 || !x->uuid)
			continue;
		a = &st->arrays[x->ai];
		n = mdadm_conf_lookup(text, x->uuid, &num, NULL);
		if (n > 1)
			warnings_add(&st->w, SEV_WARNING, "mdadm_conf_mismatch", a->name, NULL,
				     xasprintf("%s has %d ARRAY lines for %s (UUID %s): mdadm refuses to choose between them at boot; fix: keep one",
					       path, n, a->name, x->uuid));
		else if (n == 1 && num >= 0 && a->raid_disks > 0 && num != a->raid_disks)
			warnings_add(&st->w, SEV_WARNING, "mdadm_conf_mismatch", a->name, NULL,
				     xasprintf("%s says num-devices=%d for %s, which has %d: mdadm --assemble --scan refuses it at the next boot; fix: take num-devices=%d out of its ARRAY line and run update-initramfs -u",
					       path, num, a->name, a->raid_disks, num));
	}
	free(text);
}

static void mirror_findings(struct status *st)
{
	bool any = st->ndisks > 0;

	for (size_t i = 0; i < st->nmirrors; i++) {
		const struct mirror *x = &st->mirrors[i];
		char *where;

		any |= x->configured;
		if (x->copying) {
			char *eta = x->eta >= 0 ? eta_str(x->eta) : xstrdup("unknown");

			warnings_add(&st->w, SEV_OK, "warm_up_copy", x->array, x->rd,
				     xasprintf("%s: RAM member %s warming up: copying the array into it (%.1f%%, ETA %s), then md takes it back; reads are not yet served from RAM",
					       x->array, x->rd, x->progress, eta));
			free(eta);
		}
		if (x->full_recovery)
			warnings_add(&st->w, SEV_OK, "warm_start_full", x->array, x->rd,
				     xasprintf("%s: md did not take RAM member %s back after the warm-up copy (journalctl -t rdctl says why): it recovers all of it, which a busy array slows to sync_speed_min; reads are not yet served from RAM",
					       x->array, x->rd));
		if (!x->configured || (x->state != MIRROR_MISSING && x->state != MIRROR_NOT_ASSEMBLED))
			continue;
		where = xasprintf("%s%s%s (line %d of %s)", x->array ? x->array : x->spec,
				  x->array && strcmp(x->array, x->spec) ? " = " : "",
				  x->array && strcmp(x->array, x->spec) ? x->spec : "", x->line, st->config_path);
		if (x->state == MIRROR_MISSING && x->member_finding)
			warnings_add(&st->w, x->member_severity, x->member_finding, x->array, NULL,
				     xasprintf("%s has no fast member: %s; fix: %s", where, x->reason, x->fix));
		else if (x->state == MIRROR_MISSING)
			warnings_add(&st->w, SEV_WARNING, "not_restored", x->array, NULL,
				     xasprintf("%s has no %s member: %s; fix: %s", where, x->member ? "fast" : "RAM",
					       x->reason, x->fix));
		else
			warnings_add(&st->w, SEV_WARNING, "array_missing", x->array, NULL,
				     xasprintf("%s is not running: %s; fix: %s", where, x->reason, x->fix));
		free(where);
	}
	if (any && st->modstate == MODULE_NOT_INSTALLED) {
		char *fix = module_missing_fix(running_kernel());

		warnings_add(&st->w, SEV_WARNING, "module_missing", NULL, NULL,
			     xasprintf("the rdmirror module is not installed for the running kernel %s: no RAM member can be restored; fix: %s",
				       running_kernel(), fix));
		free(fix);
	}
}

/* The member disks the configuration names are fast members (md_fast_disk_add()), read before the arrays. */
static void fast_disks_of_config(const char *path)
{
	struct config cfg;

	if (config_read(path, &cfg) == 0)
		md_fast_disks_from_config(&cfg);
	config_free(&cfg);
}

int status_collect(const char *config, struct status *st)
{
	int r, rc;

	memset(st, 0, sizeof(*st));
	st->config_path = xstrdup(config_path(config));
	r = meminfo_read(&st->mi);
	if (r < 0) {
		rc = fail_errno(-r, "cannot read %s/meminfo: %s", proc_root(), strerror(-r));
		goto fail;
	}
	rc = status_read_disks(&st->disks, &st->ndisks, &st->views);
	if (rc)
		goto fail;
	fast_disks_of_config(st->config_path);
	r = md_arrays_with_rd(&st->arrays, &st->narrays);
	if (r < 0) {
		rc = fail_errno(-r, "cannot read the md arrays in %s/block: %s", sysfs_root(), strerror(-r));
		goto fail;
	}
	left_arrays(st);
	module_info_read(&st->mod);
	st->modstate = module_state_read(st->mod.loaded);
	restore_record_read(&st->rec);
	/* the configuration's own findings wait in st->w until the arrays' are computed */
	rc = read_config(st, config);
	if (rc)
		goto fail;
	for (size_t i = 0; i < st->narrays; i++) {
		bool seen = false;
		struct mirror *x;

		for (size_t j = 0; j < st->nmirrors && !seen; j++)
			seen = st->mirrors[j].ai == (long)i;
		if (seen)
			continue;
		x = mirror_new(st, "");
		free(x->spec);
		x->spec = xasprintf("/dev/%s", st->arrays[i].name);
		x->ai = (long)i;
		mirror_of_array(st, x, NULL);
	}
	for (size_t i = 0; i < st->nmirrors; i++)
		st->mirrors[i].converted = mirror_converted(st, &st->mirrors[i]);
	{
		struct warnings cw = st->w;

		warnings_compute(st->arrays, st->narrays, st->disks, st->ndisks, &st->mi, &st->w);
		mem_limit_warnings(st->arrays, st->narrays, st->disks, st->left, st->ndisks, &st->mod, &st->w);
		module_version_finding(st);
		mirror_findings(st);
		mdadm_conf_findings(st);
		for (size_t i = 0; i < cw.n; i++)
			warnings_add(&st->w, cw.v[i].severity, cw.v[i].code, cw.v[i].array, cw.v[i].device,
				     xstrdup(cw.v[i].message));
		warnings_free(&cw);
	}
	return 0;
fail:
	status_free(st);
	return rc;
}

void status_free(struct status *st)
{
	for (size_t i = 0; i < st->nmirrors; i++) {
		struct mirror *x = &st->mirrors[i];

		free(x->spec);
		free(x->array);
		free(x->uuid);
		free(x->rd);
		free(x->reason);
		free(x->brief);
		free(x->fix);
		free(x->member);
	}
	free(st->mirrors);
	warnings_free(&st->w);
	restore_record_free(&st->rec);
	md_arrays_free(st->arrays, st->narrays);
	for (size_t i = 0; st->left && i < st->ndisks; i++)
		free(st->left[i]);
	free(st->left);
	status_free_disks(st->disks, st->views, st->ndisks);
	module_info_clear(&st->mod);
	free(st->config_path);
	memset(st, 0, sizeof(*st));
}
