// SPDX-License-Identifier: GPL-2.0
#include "mirror/checks.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "lib/errors.h"
#include "lib/meminfo.h"
#include "lib/size.h"
#include "lib/util.h"
#include "md/md_badblocks.h"
#include "mirror/compress.h"
#include "mirror/ctx.h"
#include "mirror/steps.h"
#include "mirror/warmup.h"
#include "status/kernel_bugs.h"

/* Refuse needing more than MemAvailable unless --ignore-memory. */
int check_memory(bool ignore_memory, uint64_t need, const char *what)
{
	struct meminfo mi;
	char *n, *a;
	int r;

	if (ignore_memory || need == 0)
		return 0;
	r = meminfo_read(&mi);
	if (r < 0 || !mi.has_available)
		return fail_errno(r < 0 ? -r : ENOENT,
				  "cannot read MemAvailable from %s/meminfo to check the size: use --ignore-memory to go ahead anyway",
				  proc_root());
	if (need <= mi.available)
		return 0;
	n = size_mib_str(need);
	a = size_mib_str(mi.available / 1048576 * 1048576);
	r = fail_errno(ENOMEM, "%s needs %s, more than the available memory (%s): use a smaller size, or --ignore-memory",
		       what, n, a);
	free(n);
	free(a);
	return r;
}

int mirror_check_memory(struct mirror_ctx *c, unsigned comp, uint64_t size)
{
	if (!comp)
		return check_memory(c->o->ignore_memory, size, "the RAM member");
	return compress_limit_conf(c->conf.path, c->o->ignore_memory, "the compressed RAM member", &c->mem_limit);
}

/* Refuse on a kernel whose md is known to lose a RAM mirror's data. */
int check_kernel_bug(bool ignore_kernel_bug, const char *verb)
{
	const char *bug = kernel_md_bug(NULL);

	if (!bug || ignore_kernel_bug)
		return 0;
	return fail_errno(EOPNOTSUPP, "refusing --%s on this kernel: %s; upgrade the kernel, or give --ignore-kernel-bug to run anyway",
			  verb, bug);
}

char *refuse_not_raid1(const char *name, const struct md_array *a)
{
	if (a->level && !strcmp(a->level, "raid1"))
		return NULL;
	return xasprintf("%s is %s, not raid1: rdmirror mirrors only RAID1", name,
			 a->level ? a->level : "of an unknown level");
}

char *refuse_ram_only(const struct md_array *a, const char *doing, const char *subject, const char *of_array,
		      const char *rd, const char *mdpath)
{
	struct md_ranges only;
	char *ranges, *why;

	md_ram_only_ranges(a, &only);
	if (!only.n)
		return NULL;
	ranges = md_ranges_str(&only, 8);
	why = xasprintf("not %s %s: every disk%s%s has recorded bad blocks at sectors %s (%llu sectors in all, md's bad_blocks): %s holds the only good copy of them, and they are lost when it goes (at a power-off too). Give md a good copy first: mdadm %s --add NEWDISK (md copies them from RAM), or --replace the disk",
			doing, subject, of_array ? " of " : "", of_array ? of_array : "", ranges,
			(unsigned long long)only.sectors, rd, mdpath);
	free(ranges);
	md_ranges_clear(&only);
	return why;
}

bool refused(int e, char *why)
{
	if (!why)
		return false;
	fail_errno(e, "%s", why);
	free(why);
	return true;
}

char *refuse_ram_holds_all(const struct md_array *a, const char *doing, const char *array, const char *mdpath)
{
	size_t in_sync = 0;

	for (size_t i = 0; i < a->nmembers; i++) {
		const struct md_member *m = &a->members[i];

		if (md_is_fast(m) || m->faulty)
			continue;
		/* in the array (a slot) but not in sync: md is recovering it */
		if (!m->in_sync && m->slot >= 0)
			return xasprintf("%s of %s is not in sync yet (%s): until it is, only the RAM member holds all the data; wait (mdadm --wait %s) and try again",
					 m->name, array, m->state ? m->state : "state unknown", mdpath);
		in_sync += m->in_sync;
	}
	if (in_sync == 0)
		return xasprintf("%s has no persistent member in sync: its data is only in RAM, and %s would lose it; add a disk first (mdadm %s --add DISK)",
				 array, doing, mdpath);
	return NULL;
}

char *refuse_nothing_to_release(const struct md_array *a, const char *array, const char *kname)
{
	struct warmup w;

	if (mirror_rd_member(a))
		return NULL;
	if (warmup_read(kname, &w) < 0)
		return xasprintf("%s has no RAM member to release", array);
	warmup_clear(&w);
	return NULL;
}

char *refuse_no_disk_in_sync(const struct md_array *a, const char *rd)
{
	for (size_t i = 0; i < a->nmembers; i++)
		if (!md_is_fast(&a->members[i]) && a->members[i].in_sync && !a->members[i].faulty)
			return NULL;
	return xasprintf("not releasing %s: no persistent member of %s is in sync, so the data is only in RAM; wait for the recovery (rdctl --status)",
			 rd, a->name);
}
