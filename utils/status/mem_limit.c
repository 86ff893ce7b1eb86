// SPDX-License-Identifier: GPL-2.0
#include "status/mem_limit.h"

#include <stdlib.h>
#include <string.h>

#include "lib/size.h"
#include "lib/util.h"
#include "status/compressed.h"

/*
 * The array @d is a member of, and its entry there; else the array it
 * is out of (left names it, *member NULL); NULL when none.
 */
static const struct md_array *array_of(const struct md_array *arrays, size_t narrays,
				       const struct rd_disk *d, const char *left, const struct md_member **member)
{
	*member = NULL;
	for (size_t i = 0; i < narrays; i++)
		for (size_t j = 0; j < arrays[i].nmembers; j++)
			if (!strcmp(arrays[i].members[j].name, d->name)) {
				*member = &arrays[i].members[j];
				return &arrays[i];
			}
	for (size_t i = 0; left && i < narrays; i++)
		if (!strcmp(arrays[i].name, left))
			return &arrays[i];
	return NULL;
}

/* "mem_limit 1.5 GiB, the rd disks hold 1.5 GiB together", malloc'd. */
static char *limit_words(const struct module_info *mod)
{
	char *limit, *used, *s;

	if (mod->mem_limit < 0)
		limit = xstrdup("unknown");
	else if (mod->mem_limit == 0)
		limit = xstrdup("none");
	else
		limit = size_human((uint64_t)mod->mem_limit);
	used = mod->mem_used < 0 ? xstrdup("an unknown amount") : size_human((uint64_t)mod->mem_used);
	s = xasprintf("mem_limit %s, the rd disks hold %s together", limit, used);
	free(limit);
	free(used);
	return s;
}

#define ROOM_FIX "give the rd disks room (rdctl --detach a disk not needed, or raise the limit: " \
	"echo SIZE > /sys/module/rdmirror/parameters/mem_limit)"

void mem_limit_warnings(const struct md_array *arrays, size_t narrays,
			const struct rd_disk *disks, char *const *left, size_t ndisks,
			const struct module_info *mod, struct warnings *w)
{
	for (size_t i = 0; i < ndisks; i++) {
		const struct rd_disk *d = &disks[i];
		const struct md_member *m = NULL;
		const struct md_array *a;
		long long n = d->refused_writes;
		char *lw;

		a = array_of(arrays, narrays, d, left ? left[i] : NULL, &m);
		/* a compressed disk refuses writes past its own limit: its findings say so */
		if (d->compressor) {
			compressed_warnings(a, a && !m, d, w);
			continue;
		}
		if (n <= 0)
			continue;
		lw = limit_words(mod);
		if (!a)
			warnings_add(w, SEV_CRITICAL, "ram_mem_limit", NULL, d->name,
				     xasprintf("%s had %lld write%s refused: rdmirror's memory limit is reached (%s): what was written past it is not on the disk; fix: %s, then write it again",
					       d->name, n, n == 1 ? "" : "s", lw, ROOM_FIX));
		else if (!m)
			warnings_add(w, SEV_CRITICAL, "ram_mem_limit", a->name, d->name,
				     xasprintf("%s: RAM member %s had %lld write%s refused: rdmirror's memory limit is reached (%s), so it is out of %s, which runs from its disks; fix: rdctl --detach %s (md no longer uses it), %s, then rdctl --restore",
					       a->name, d->name, n, n == 1 ? "" : "s", lw, a->name, d->name, ROOM_FIX));
		else if (m->faulty || !m->in_sync)
			warnings_add(w, SEV_CRITICAL, "ram_mem_limit", a->name, d->name,
				     xasprintf("%s: RAM member %s had %lld write%s refused: rdmirror's memory limit is reached (%s), so md failed it and %s runs from its disks; fix: %s, then rdctl --restore",
					       a->name, d->name, n, n == 1 ? "" : "s", lw, a->name, ROOM_FIX));
		else
			warnings_add(w, SEV_CRITICAL, "ram_mem_limit", a->name, d->name,
				     xasprintf("%s: RAM member %s had %lld write%s refused: rdmirror's memory limit is reached (%s), and md kept it with those blocks marked bad; fix: %s, then rdctl --restore (it replaces the member)",
					       a->name, d->name, n, n == 1 ? "" : "s", lw, ROOM_FIX));
		free(lw);
	}
}
