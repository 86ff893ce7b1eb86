// SPDX-License-Identifier: GPL-2.0
#include "warnings.h"

#include <stdlib.h>
#include <string.h>

#include "kernel_bugs.h"
#include "size.h"
#include "util.h"

static void add(struct warnings *w, const char *code, const char *array, const char *device, char *message)
{
	struct warning *x;

	w->v = xrealloc(w->v, w->n + 1, sizeof(*w->v));
	x = &w->v[w->n++];
	x->code = code;
	x->array = array ? xstrdup(array) : NULL;
	x->device = device ? xstrdup(device) : NULL;
	x->message = message;
}

static void array_warnings(const struct md_array *a, struct warnings *w)
{
	size_t persistent = 0;

	for (size_t i = 0; i < a->nmembers; i++) {
		const struct md_member *m = &a->members[i];

		if (m->is_ram) {
			/*
			 * A write the RAM member failed (out of memory): md
			 * keeps it but records bad blocks, whose reads go to
			 * the disks from then on; nothing is lost, but the
			 * member is no longer a whole copy.
			 */
			if (m->write_error && !m->faulty)
				add(w, "ram_write_error", a->name, m->name,
				    xasprintf("%s: RAM member %s failed a write (out of memory?): md reads the blocks it lost from the disks; rdctl --restore replaces it",
					      a->name, m->name));
			if (!m->in_sync)
				add(w, "ram_not_in_sync", a->name, m->name,
				    xasprintf("%s: RAM member %s is %s, not in sync: reads are not served from RAM",
					      a->name, m->name, m->state ? m->state : "in an unknown state"));
			continue;
		}
		if (m->faulty || m->spare)
			continue;
		persistent++;
		if (m->state && strstr(m->state, "want_replacement"))
			add(w, "want_replacement", a->name, m->name,
			    xasprintf("%s: persistent member %s had write errors and wants a replacement: md will make the next spare its replacement and fail it; check the disk (dmesg, smartctl)",
				      a->name, m->name));
		if (!m->write_mostly)
			add(w, "not_write_mostly", a->name, m->name,
			    xasprintf("%s: persistent member %s is not write-mostly: reads may go to the disk; fix: echo writemostly > /sys/block/%s/md/dev-%s/state",
				      a->name, m->name, a->name, m->name));
	}
	if (persistent == 0)
		add(w, "no_persistent", a->name, NULL,
		    xasprintf("%s has no working persistent member: its data lives only in RAM and is lost at power-off",
			      a->name));
	else if (persistent == 1)
		add(w, "one_persistent", a->name, NULL,
		    xasprintf("%s has only one persistent member: one disk failure from losing everything",
			      a->name));
	/*
	 * Write-behind: md acknowledges a write once the non-write-mostly
	 * member (RAM) has it, and a flush does not wait for the disks
	 * (the crash-consistency test showed fsynced files lost with it).
	 */
	if (a->write_behind > 0)
		add(w, "write_behind", a->name, NULL,
		    xasprintf("%s has write-behind on (up to %d writes): md acknowledges a write once RAM has it, before the disks do, so a power cut can lose writes that fsync reported done; turn it off: echo 0 > /sys/block/%s/md/bitmap/backlog",
			      a->name, a->write_behind, a->name));
	if (a->degraded > 0)
		add(w, "degraded", a->name, NULL,
		    xasprintf("%s is degraded (%d missing member%s): check mdadm --detail /dev/%s",
			      a->name, a->degraded, a->degraded == 1 ? "" : "s", a->name));
	if (md_sync_running(a)) {
		double pct = md_sync_percent(a);

		if (pct >= 0)
			add(w, "sync_running", a->name, NULL,
			    xasprintf("%s: %s running (%.1f%%): reads are not yet served from RAM",
				      a->name, a->sync_action, pct));
		else
			add(w, "sync_running", a->name, NULL,
			    xasprintf("%s: %s running: reads are not yet served from RAM",
				      a->name, a->sync_action));
	}
}

void warnings_compute(const struct md_array *arrays, size_t narrays,
		      const struct rd_disk *disks, size_t ndisks,
		      const struct meminfo *mi, struct warnings *w)
{
	const char *bug = kernel_md_bug(NULL);

	memset(w, 0, sizeof(*w));
	if (bug)
		add(w, "kernel_md_bug", NULL, NULL,
		    xasprintf("this kernel has a known md bug: %s; rdctl --restore, --create and --convert refuse to run on it without --force",
			      bug));
	for (size_t i = 0; i < narrays; i++)
		array_warnings(&arrays[i], w);
	if (!mi->has_available)
		return;
	for (size_t i = 0; i < ndisks; i++) {
		const struct rd_disk *d = &disks[i];
		uint64_t held = d->has_allocated ? d->allocated : 0;
		uint64_t need = d->size > held ? d->size - held : 0;

		if (need > mi->available) {
			char *sz = size_human(d->size), *nd = size_human(need), *av = size_human(mi->available);

			add(w, "ram_over_available", NULL, d->name,
			    xasprintf("%s (%s) may still need %s of RAM but only %s is available: a full resync or write could run out of memory",
				      d->name, sz, nd, av));
			free(sz);
			free(nd);
			free(av);
		}
	}
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
