// SPDX-License-Identifier: GPL-2.0
#include "status/warnings.h"

#include <stdlib.h>
#include <string.h>

#include "lib/size.h"
#include "lib/util.h"
#include "status/kernel_bugs.h"
#include "status/view.h"
#include "status/warm_state.h"

void warnings_add(struct warnings *w, enum severity sev, const char *code, const char *array,
		  const char *device, char *message)
{
	struct warning *x;

	w->v = xrealloc(w->v, w->n + 1, sizeof(*w->v));
	x = &w->v[w->n++];
	x->code = code;
	x->severity = sev;
	x->array = array ? xstrdup(array) : NULL;
	x->device = device ? xstrdup(device) : NULL;
	x->message = message;
}

static const struct md_member *ram_member(const struct md_array *a)
{
	for (size_t i = 0; i < a->nmembers; i++)
		if (md_is_fast(&a->members[i]))
			return &a->members[i];
	return NULL;
}

/*
 * The routine warm-up after every boot: md recovers the blank RAM member
 * from the disks. It takes minutes to hours and needs nobody, so it is
 * OK; a monitoring check that went WARNING after each reboot would be
 * acknowledged by reflex, and then missed when it matters.
 */
static bool warming_up(const struct md_array *a, const struct md_member *ram)
{
	return ram && !ram->faulty && !ram->in_sync && !ram->write_error &&
	       a->sync_action && !strcmp(a->sync_action, "recover");
}

/* A RAM member not in sync, and what fixes it. */
static char *not_in_sync_words(const struct md_array *a, const struct md_member *m)
{
	const char *state = m->state ? m->state : "in an unknown state";

	if (m->faulty)
		return xasprintf("%s: RAM member %s is %s, not in sync: reads are not served from RAM; fix: rdctl --restore (replaces it)",
				 a->name, m->name, state);
	/* a spare without a slot: a --convert stopped before its grow */
	if (m->slot < 0)
		return xasprintf("%s: RAM member %s is a spare without a slot, not in sync: reads are not served from RAM; fix: rdctl --restore (it grows the array by a slot for it)",
				 a->name, m->name);
	return xasprintf("%s: RAM member %s is %s, not in sync: reads are not served from RAM; fix: rdctl --refresh /dev/%s (copies it afresh)",
			 a->name, m->name, state, a->name);
}

/* "recover running (42.0%, 100 MiB/s, ETA 3m12s)", malloc'd. */
static char *sync_words(const struct md_array *a)
{
	double pct = md_sync_percent(a);
	char *eta, *rate, *s;

	if (pct < 0)
		return xasprintf("%s running", a->sync_action);
	eta = eta_str(md_sync_eta(a));
	rate = a->has_speed ? size_human(a->sync_speed * 1024) : xstrdup("unknown");
	s = xasprintf("%s running (%.1f%%, %s/s, ETA %s)", a->sync_action, pct, rate, eta);
	free(eta);
	free(rate);
	return s;
}

/*
 * A warm-up's daemon that is alive for ram: it took write-mostly off the
 * disks before its copy (reads spread over them) and turns it on again a
 * moment after md has the member in sync (warmup.c, await_in_sync()).
 */
static bool warm_up_finishing(const struct md_array *a, const struct md_member *ram)
{
	struct warmup wu;
	bool alive;

	if (warmup_read(a->name, &wu) < 0)
		return false;
	alive = wu.alive && wu.rd && !strcmp(wu.rd, ram->name);
	warmup_clear(&wu);
	return alive;
}

/*
 * A persistent member that is not write-mostly while the RAM member is in
 * sync: reads may go to the disk. OK while the warm-up's daemon of the
 * RAM member is alive, which makes the disks write-mostly again itself;
 * WARNING otherwise (it died, or someone turned write-mostly off).
 */
static void write_mostly_warning(const struct md_array *a, const struct md_member *ram, const struct md_member *m,
				 struct warnings *w)
{
	if (warm_up_finishing(a, ram))
		warnings_add(w, SEV_OK, "not_write_mostly", a->name, m->name,
			     xasprintf("%s: persistent member %s is not write-mostly yet: RAM member %s is in sync and its warm-up is finishing (it makes the disks write-mostly again in a moment)",
				       a->name, m->name, ram->name));
	else
		warnings_add(w, SEV_WARNING, "not_write_mostly", a->name, m->name,
			     xasprintf("%s: persistent member %s is not write-mostly: reads may go to the disk; fix: rdctl --restore (it makes every disk of the array write-mostly)",
				       a->name, m->name));
}

static void bad_block_warnings(const struct md_array *a, size_t persistent, struct warnings *w)
{
	struct md_ranges only;

	for (size_t i = 0; i < a->nmembers; i++) {
		const struct md_member *m = &a->members[i];
		char *list;

		if (!m->bad.n)
			continue;
		list = md_ranges_str(&m->bad, 8);
		warnings_add(w, SEV_WARNING, "bad_blocks", a->name, m->name,
			     xasprintf("%s: %s member %s has %zu bad-block range%s recorded (%llu sectors: %s): md reads them from the other members; check the %s",
				       a->name, md_is_fast(m) ? "RAM" : "persistent", m->name, m->bad.n,
				       m->bad.n == 1 ? "" : "s", (unsigned long long)m->bad.sectors, list,
				       md_is_fast(m) ? "memory (rdctl --restore replaces the member)" : "disk (dmesg, smartctl)"));
		free(list);
	}
	if (!persistent)
		return;	/* no_persistent says more */
	md_ram_only_ranges(a, &only);
	if (only.n) {
		char *list = md_ranges_str(&only, 8);

		warnings_add(w, SEV_CRITICAL, "ram_only_data", a->name, NULL,
			     xasprintf("%s: sectors %s (%llu sectors) are recorded bad on every persistent member: the RAM member holds their only good copy and loses it at release, revert or a power cut; copy the files in them elsewhere now",
				       a->name, list, (unsigned long long)only.sectors));
		free(list);
	}
	md_ranges_clear(&only);
}

static void array_warnings(const struct md_array *a, struct warnings *w)
{
	const struct md_member *ram = ram_member(a);
	bool warm = warming_up(a, ram);
	size_t persistent = 0;
	const char *wb_bug;
	int beyond;

	for (size_t i = 0; i < a->nmembers; i++) {
		const struct md_member *m = &a->members[i];

		if (md_is_fast(m)) {
			/*
			 * A write the RAM member failed (out of memory): md
			 * keeps it but records bad blocks, whose reads go to
			 * the disks from then on; nothing is lost, but the
			 * member is no longer a whole copy.
			 */
			if (m->write_error && !m->faulty)
				warnings_add(w, SEV_WARNING, "ram_write_error", a->name, m->name,
					     xasprintf("%s: RAM member %s failed a write (out of memory?): md reads the blocks it lost from the disks; rdctl --restore replaces it",
						       a->name, m->name));
			if (!m->in_sync && m == ram && warm)
				warnings_add(w, SEV_OK, "ram_not_in_sync", a->name, m->name,
					     xasprintf("%s: RAM member %s is warming up (md copies the disks into it): reads are not served from RAM until it is in sync",
						       a->name, m->name));
			else if (!m->in_sync)
				warnings_add(w, SEV_WARNING, "ram_not_in_sync", a->name, m->name,
					     not_in_sync_words(a, m));
			continue;
		}
		if (m->faulty || m->spare)
			continue;
		persistent++;
		if (m->state && strstr(m->state, "want_replacement"))
			warnings_add(w, SEV_WARNING, "want_replacement", a->name, m->name,
				     xasprintf("%s: persistent member %s had write errors and wants a replacement: md will make the next spare its replacement and fail it; check the disk (dmesg, smartctl)",
					       a->name, m->name));
		/* (until the RAM member is in sync, reads spread over the disks: warmup.c) */
		if (!m->write_mostly && ram && ram->in_sync)
			write_mostly_warning(a, ram, m, w);
	}
	if (persistent == 0)
		warnings_add(w, SEV_CRITICAL, "no_persistent", a->name, NULL,
			     xasprintf("%s has no working persistent member: its data lives only in RAM and is lost at power-off",
				       a->name));
	else if (persistent == 1)
		warnings_add(w, SEV_WARNING, "one_persistent", a->name, NULL,
			     xasprintf("%s has only one persistent member: one disk failure from losing everything",
				       a->name));
	bad_block_warnings(a, persistent, w);
	if (md_ram_slot_low(a))
		warnings_add(w, SEV_WARNING, "ram_slot_low", a->name, ram ? ram->name : NULL,
			     xasprintf("%s: RAM member %s sits in slot %d, below a persistent member: md's repair takes the lowest slot as the truth and would copy RAM over the disks; fix: rdctl --refresh /dev/%s",
				       a->name, ram ? ram->name : "?", ram ? ram->slot : -1, a->name));
	/*
	 * Write-behind: md acknowledges a write once the non-write-mostly
	 * member (RAM) has it, and a flush does not wait for the disks
	 * (the crash-consistency test showed fsynced files lost with it).
	 */
	wb_bug = a->write_behind > 0 ? kernel_md_write_behind_bug(NULL) : NULL;
	if (wb_bug)
		warnings_add(w, SEV_CRITICAL, "write_behind", a->name, NULL,
			     xasprintf("%s has write-behind on (up to %d writes), and on this kernel %s. Turn it off now: echo 0 > /sys/block/%s/md/bitmap/backlog; RAM may hold the only copy of recent writes: do not reboot, release or revert before each disk is rewritten from it (docs/RUNBOOKS.md, \"Write-behind on a kernel that loses its writes\")",
				       a->name, a->write_behind, wb_bug, a->name));
	else if (a->write_behind > 0)
		warnings_add(w, SEV_WARNING, "write_behind", a->name, NULL,
			     xasprintf("%s has write-behind on (up to %d writes): md acknowledges a write once RAM has it, before the disks do, so a power cut can lose writes that fsync reported done; turn it off: echo 0 > /sys/block/%s/md/bitmap/backlog",
				       a->name, a->write_behind, a->name));
	/*
	 * md counts the RAM slot as missing until the RAM member is in sync:
	 * that part of "degraded" is the RAM member's finding (warm-up,
	 * ram_not_in_sync, not_restored), what is beyond it a disk's.
	 */
	beyond = a->degraded - (ram && ram->in_sync && !ram->faulty ? 0 : 1);
	if (beyond > 0)
		warnings_add(w, SEV_WARNING, "degraded", a->name, NULL,
			     xasprintf("%s is degraded (%d missing member%s, %d of them persistent): check mdadm --detail /dev/%s",
				       a->name, a->degraded, a->degraded == 1 ? "" : "s", beyond, a->name));
	else if (a->degraded > 0 && ram)
		warnings_add(w, warm ? SEV_OK : SEV_WARNING, "degraded", a->name, NULL,
			     xasprintf("%s is degraded (%d missing member%s): only its RAM slot, until the RAM member is in sync",
				       a->name, a->degraded, a->degraded == 1 ? "" : "s"));
	if (md_sync_running(a)) {
		char *words = sync_words(a);

		if (warm)
			warnings_add(w, SEV_OK, "sync_running", a->name, ram->name,
				     xasprintf("%s: %s: RAM member %s warming up, reads are not yet served from RAM",
					       a->name, words, ram->name));
		else
			warnings_add(w, SEV_WARNING, "sync_running", a->name, NULL,
				     xasprintf("%s: %s: reads are not yet served from RAM", a->name, words));
		free(words);
	}
}

/*
 * Pages of an rd disk whose memory failed. In a mirror md has read their
 * blocks from the disks and rewritten them (rd replaced the pages), so
 * nothing is lost; but RAM that fails once fails again, and the admin
 * should know, and can copy the whole member afresh into new pages.
 */
/*
 * A RAM member whose reads the kernel does not count: rd keeps no I/O
 * statistics unless asked, and rdctl asks when it attaches a member; a
 * member attached another way (mdadm by hand, an rdctl before 0.2.0)
 * reads 0 in /sys/block/rdN/stat, and so does the share of reads RAM
 * serves. Not a fault of the mirror: OK, with the fix.
 */
static void uncounted_warning(const struct rd_disk *d, struct warnings *w)
{
	const char *md = d->nholders ? d->holders[0] : NULL;

	if (!md || !d->io_uncounted)
		return;
	warnings_add(w, SEV_OK, "ram_reads_uncounted", md, d->name,
		     xasprintf("%s: RAM member %s keeps no I/O statistics, so the reads it serves are not counted (rdmirror_mirror_reads_total{kind=\"ram\"} and the RAM read share stay 0); fix: echo 1 > /sys/block/%s/queue/iostats",
			       md, d->name, d->name));
}

static void memory_error_warning(const struct rd_disk *d, struct warnings *w)
{
	const char *md = d->nholders ? d->holders[0] : NULL;
	long long errors = d->memory_errors, replaced = d->replaced_pages < 0 ? 0 : d->replaced_pages;
	long long left = errors > replaced ? errors - replaced : 0;

	if (errors <= 0)
		return;
	if (md)
		warnings_add(w, SEV_WARNING, "ram_memory_error", md, d->name,
			     xasprintf("%s: RAM member %s met %lld memory error%s (%lld page%s replaced, %lld not yet rewritten): md read those blocks from the disks and wrote them back; the machine's RAM may be failing: check its error log (journalctl -k --grep 'memory failure|Hardware Error', or ras-mc-ctl --errors); rdctl --refresh /dev/%s copies the member afresh",
				       md, d->name, errors, errors == 1 ? "" : "s", replaced,
				       replaced == 1 ? "" : "s", left, md));
	else
		warnings_add(w, SEV_WARNING, "ram_memory_error", NULL, d->name,
			     xasprintf("%s met %lld memory error%s (%lld page%s replaced): %lld page%s read%s as I/O errors until written again; the machine's RAM may be failing: check its error log (journalctl -k --grep 'memory failure|Hardware Error', or ras-mc-ctl --errors)",
				       d->name, errors, errors == 1 ? "" : "s", replaced, replaced == 1 ? "" : "s",
				       left, left == 1 ? "" : "s", left == 1 ? "s" : ""));
}

void warnings_compute(const struct md_array *arrays, size_t narrays,
		      const struct rd_disk *disks, size_t ndisks,
		      const struct meminfo *mi, struct warnings *w)
{
	const char *bug = kernel_md_bug(NULL);
	char *unknown = bug ? NULL : kernel_md_bug_unknown(NULL);

	memset(w, 0, sizeof(*w));
	if (bug)
		warnings_add(w, SEV_WARNING, "kernel_md_bug", NULL, NULL,
			     xasprintf("this kernel has a known md bug: %s; rdctl --restore, --create, --convert and --refresh refuse to run on it without --ignore-kernel-bug",
				       bug));
	/* not guessed from a number that does not say: said, and not refused */
	if (unknown)
		warnings_add(w, SEV_OK, "kernel_md_bug_unknown", NULL, NULL, unknown);
	for (size_t i = 0; i < narrays; i++)
		array_warnings(&arrays[i], w);
	for (size_t i = 0; i < ndisks; i++) {
		memory_error_warning(&disks[i], w);
		uncounted_warning(&disks[i], w);
	}
	if (!mi->has_available)
		return;
	for (size_t i = 0; i < ndisks; i++) {
		const struct rd_disk *d = &disks[i];
		uint64_t held = d->has_allocated ? d->allocated : 0;
		/* a compressed disk may be larger than RAM: its limit bounds it (status/compressed.h) */
		uint64_t need = d->compressor ? 0 : d->size > held ? d->size - held : 0;

		if (need > mi->available) {
			char *sz = size_human(d->size), *nd = size_human(need), *av = size_human(mi->available);

			warnings_add(w, SEV_WARNING, "ram_over_available", NULL, d->name,
				     xasprintf("%s (%s) may still need %s of RAM but only %s is available: a full resync or write could run out of memory",
					       d->name, sz, nd, av));
			free(sz);
			free(nd);
			free(av);
		}
	}
}

enum severity warnings_worst(const struct warnings *w)
{
	enum severity s = SEV_OK;

	for (size_t i = 0; i < w->n; i++)
		if (w->v[i].severity > s)
			s = w->v[i].severity;
	return s;
}

const char *severity_name(int sev)
{
	static const char *const names[] = { "OK", "WARNING", "CRITICAL", "UNKNOWN" };

	return sev >= 0 && sev <= 3 ? names[sev] : "UNKNOWN";
}

void warnings_free(struct warnings *w)
{
	for (size_t i = 0; i < w->n; i++) {
		free(w->v[i].array);
		free(w->v[i].device);
		free(w->v[i].message);
	}
	free(w->v);
	memset(w, 0, sizeof(*w));
}
