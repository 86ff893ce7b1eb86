// SPDX-License-Identifier: GPL-2.0
/* The warnings logic, on arrays built in memory. */
#include <stdlib.h>

#include "fake_tree.h"
#include "unit.h"
#include "lib/util.h"
#include "status/warnings.h"

static char s_md0[] = "md0", s_raid1[] = "raid1", s_clean[] = "clean", s_rd0[] = "rd0", s_sdb[] = "sdb",
	s_sdc[] = "sdc", s_in_sync[] = "in_sync", s_wm[] = "in_sync,write_mostly", s_faulty[] = "faulty",
	s_spare[] = "spare", s_idle[] = "idle", s_recover[] = "recover", s_check[] = "check",
	s_werr[] = "in_sync,write_error,want_replacement";

static struct md_member mem(char *name, bool ram, char *state)
{
	struct md_member m = { 0 };

	m.name = name;
	m.kind = ram ? MD_FAST_RAM : MD_PERSISTENT;
	m.state = state;
	m.in_sync = strstr(state, "in_sync") != NULL;
	m.write_mostly = strstr(state, "write_mostly") != NULL;
	m.spare = strstr(state, "spare") != NULL;
	/* as read_member() in utils/md/md.c reads md's Faulty */
	m.faulty = strstr(state, "faulty") && !m.in_sync && !m.spare;
	m.write_error = strstr(state, "write_error") != NULL;
	m.slot = m.in_sync ? 0 : -1;
	return m;
}

static struct md_array arr(struct md_member *m, size_t n, char *action, int degraded)
{
	struct md_array a = { 0 };

	a.name = s_md0;
	a.level = s_raid1;
	a.array_state = s_clean;
	a.raid_disks = (int)n;
	a.degraded = degraded;
	a.sync_action = action;
	a.members = m;
	a.nmembers = n;
	if (strcmp(action, "idle")) {
		a.has_sync = true;
		a.sync_done = 50;
		a.sync_total = 200;
	}
	return a;
}

static const struct warning *find(const struct warnings *w, const char *code)
{
	for (size_t i = 0; i < w->n; i++)
		if (!strcmp(w->v[i].code, code))
			return &w->v[i];
	return NULL;
}

static struct meminfo mi_avail(uint64_t avail)
{
	struct meminfo mi = { 0 };

	mi.has_total = mi.has_available = true;
	mi.total = 16ULL << 30;
	mi.available = avail;
	return mi;
}

void test_warnings(const char *root)
{
	struct meminfo mi = mi_avail(8ULL << 30), nomi = { 0 };
	struct md_member m[3];
	struct md_array a;
	struct warnings w;
	struct rd_disk d = { 0 };
	const struct warning *x;

	/* healthy: RAM + two write-mostly disks, idle */
	m[0] = mem(s_rd0, true, s_in_sync);
	m[1] = mem(s_sdb, false, s_wm);
	m[2] = mem(s_sdc, false, s_wm);
	a = arr(m, 3, s_idle, 0);
	warnings_compute(&a, 1, NULL, 0, &mi, &w);
	CHECK_U64(w.n, 0);
	warnings_free(&w);

	/* one persistent member not write-mostly */
	m[2] = mem(s_sdc, false, s_in_sync);
	warnings_compute(&a, 1, NULL, 0, &mi, &w);
	CHECK_U64(w.n, 1);
	x = find(&w, "not_write_mostly");
	CHECK(x != NULL);
	if (x) {
		CHECK(x->severity == SEV_WARNING);
		CHECK_STR(x->array, "md0");
		CHECK_STR(x->device, "sdc");
		CHECK(strstr(x->message, "sdc is not write-mostly") != NULL);
		CHECK(strstr(x->message, "fix: rdctl --restore") != NULL);
	}
	warnings_free(&w);

	/*
	 * right after a warm-up: md has the RAM member in sync, and the
	 * warm-up's daemon, alive, makes the disks write-mostly again in a
	 * moment (warmup.c): OK. Its state in the run dir, the daemon a
	 * process named rdctl in the fake /proc (pid 4242).
	 */
	{
		char *run = xasprintf("%s/run", root);

		setenv("RDCTL_RUN_DIR", run, 1);
		CHECK(fake_write(root, "proc/4242/comm", "rdctl\n") == 0);
		CHECK(fake_write(root, "proc/4243/comm", "bash\n") == 0);
		CHECK(fake_write(root, "run/warmup-md0.state",
				 "pid 4242\nrd rd0\ndone 100\ntotal 100\nstarted 1\nphase recover\n") == 0);
		warnings_compute(&a, 1, NULL, 0, &mi, &w);
		CHECK_U64(w.n, 1);
		x = find(&w, "not_write_mostly");
		CHECK(x != NULL && x->severity == SEV_OK);
		CHECK_STR(x ? x->device : NULL, "sdc");
		CHECK(x != NULL && strstr(x->message, "sdc is not write-mostly yet") != NULL &&
		      strstr(x->message, "warm-up is finishing") != NULL);
		CHECK(warnings_worst(&w) == SEV_OK);
		warnings_free(&w);
		/* a daemon that died (its pid now another program's): WARNING */
		CHECK(fake_write(root, "run/warmup-md0.state",
				 "pid 4243\nrd rd0\ndone 100\ntotal 100\nstarted 1\nphase recover\n") == 0);
		warnings_compute(&a, 1, NULL, 0, &mi, &w);
		x = find(&w, "not_write_mostly");
		CHECK(x != NULL && x->severity == SEV_WARNING &&
		      strstr(x->message, "fix: rdctl --restore") != NULL);
		CHECK(warnings_worst(&w) == SEV_WARNING);
		warnings_free(&w);
		/* a live warm-up of another disk is not this RAM member's: WARNING */
		CHECK(fake_write(root, "run/warmup-md0.state",
				 "pid 4242\nrd rd1\ndone 1\ntotal 100\nstarted 1\nphase copy\n") == 0);
		warnings_compute(&a, 1, NULL, 0, &mi, &w);
		x = find(&w, "not_write_mostly");
		CHECK(x != NULL && x->severity == SEV_WARNING);
		warnings_free(&w);
		unsetenv("RDCTL_RUN_DIR");
		free(run);
	}

	/* only one persistent member */
	a = arr(m, 2, s_idle, 0);
	warnings_compute(&a, 1, NULL, 0, &mi, &w);
	CHECK_U64(w.n, 1);
	x = find(&w, "one_persistent");
	CHECK(x != NULL && strstr(x->message, "one disk failure") != NULL);
	warnings_free(&w);

	/* a faulty persistent member does not count; degraded */
	m[2] = mem(s_sdc, false, s_faulty);
	a = arr(m, 3, s_idle, 1);
	warnings_compute(&a, 1, NULL, 0, &mi, &w);
	CHECK_U64(w.n, 2);
	CHECK(find(&w, "one_persistent") != NULL);
	x = find(&w, "degraded");
	CHECK(x != NULL && strstr(x->message, "md0 is degraded (1 missing member, 1 of them persistent)") != NULL);
	CHECK(x != NULL && x->severity == SEV_WARNING);
	CHECK(find(&w, "not_write_mostly") == NULL);
	warnings_free(&w);

	/* RAM only: no persistent member */
	a = arr(m, 1, s_idle, 0);
	warnings_compute(&a, 1, NULL, 0, &mi, &w);
	CHECK_U64(w.n, 1);
	CHECK(find(&w, "no_persistent") != NULL);
	CHECK(find(&w, "no_persistent") && find(&w, "no_persistent")->severity == SEV_CRITICAL);
	CHECK(warnings_worst(&w) == SEV_CRITICAL);
	warnings_free(&w);

	/* recovery onto the RAM member */
	m[0] = mem(s_rd0, true, s_spare);
	m[0].slot = 0;
	m[2] = mem(s_sdc, false, s_wm);
	a = arr(m, 3, s_recover, 0);
	warnings_compute(&a, 1, NULL, 0, &mi, &w);
	CHECK_U64(w.n, 2);
	x = find(&w, "sync_running");
	CHECK(x != NULL && strstr(x->message, "recover running (25.0%, unknown/s, ETA unknown)") != NULL &&
	      strstr(x->message, "not yet served from RAM") != NULL);
	/* the routine warm-up after a boot: OK, with its progress */
	CHECK(x != NULL && x->severity == SEV_OK);
	x = find(&w, "ram_not_in_sync");
	CHECK(x != NULL && x->severity == SEV_OK);
	CHECK_STR(x ? x->device : NULL, "rd0");
	CHECK(warnings_worst(&w) == SEV_OK);
	warnings_free(&w);

	/* the warm-up with its RAM slot counted degraded, rate and ETA known: still OK */
	a = arr(m, 3, s_recover, 1);
	a.has_speed = true;
	a.sync_speed = 1024;
	warnings_compute(&a, 1, NULL, 0, &mi, &w);
	x = find(&w, "sync_running");
	CHECK(x != NULL && strstr(x->message, "1 MiB/s, ETA 0s") != NULL);
	x = find(&w, "degraded");
	CHECK(x != NULL && x->severity == SEV_OK);
	CHECK(warnings_worst(&w) == SEV_OK);
	warnings_free(&w);
	/* and a disk missing besides: degraded beyond the RAM slot is a WARNING */
	a = arr(m, 3, s_recover, 2);
	warnings_compute(&a, 1, NULL, 0, &mi, &w);
	x = find(&w, "degraded");
	CHECK(x != NULL && x->severity == SEV_WARNING && strstr(x->message, "1 of them persistent") != NULL);
	CHECK(find(&w, "sync_running") != NULL && find(&w, "sync_running")->severity == SEV_OK);
	warnings_free(&w);
	/* a faulty RAM member is no warm-up */
	m[0] = mem(s_rd0, true, s_faulty);
	a = arr(m, 3, s_idle, 1);
	warnings_compute(&a, 1, NULL, 0, &mi, &w);
	x = find(&w, "ram_not_in_sync");
	CHECK(x != NULL && x->severity == SEV_WARNING);
	CHECK(x != NULL && strstr(x->message, "fix: rdctl --restore (replaces it)") != NULL);
	warnings_free(&w);
	/* in its slot, not recovering (md stopped the recovery): copied afresh */
	m[0] = mem(s_rd0, true, s_spare);
	m[0].slot = 2;
	a = arr(m, 3, s_idle, 1);
	warnings_compute(&a, 1, NULL, 0, &mi, &w);
	x = find(&w, "ram_not_in_sync");
	CHECK(x != NULL && x->severity == SEV_WARNING && strstr(x->message, "fix: rdctl --refresh /dev/md0") != NULL);
	warnings_free(&w);
	/* a RAM spare without a slot (a --convert stopped before its grow): restore grows it in */
	m[0] = mem(s_rd0, true, s_spare);
	m[0].slot = -1;
	a = arr(m, 3, s_idle, 0);
	warnings_compute(&a, 1, NULL, 0, &mi, &w);
	x = find(&w, "ram_not_in_sync");
	CHECK(x != NULL && x->severity == SEV_WARNING && strstr(x->message, "a spare without a slot") != NULL &&
	      strstr(x->message, "fix: rdctl --restore") != NULL);
	warnings_free(&w);

	/*
	 * the RAM member failed a write (out of memory) and md kept it with
	 * bad blocks: one warning, which names the fix; not want_replacement,
	 * which is about persistent members
	 */
	m[0] = mem(s_rd0, true, s_werr);
	a = arr(m, 3, s_idle, 0);
	warnings_compute(&a, 1, NULL, 0, &mi, &w);
	CHECK_U64(w.n, 1);
	x = find(&w, "ram_write_error");
	CHECK(x != NULL && strstr(x->message, "rdctl --restore replaces it") != NULL);
	CHECK_STR(x ? x->device : NULL, "rd0");
	warnings_free(&w);

	/* write-behind: md acknowledges writes before the disks have them */
	setenv("RDCTL_KERNEL_RELEASE", "6.1.0-56-amd64", 1);
	m[0] = mem(s_rd0, true, s_in_sync);
	a = arr(m, 3, s_idle, 0);
	a.write_behind = 256;
	warnings_compute(&a, 1, NULL, 0, &mi, &w);
	CHECK_U64(w.n, 1);
	x = find(&w, "write_behind");
	CHECK(x != NULL && x->severity == SEV_WARNING && strstr(x->message, "up to 256 writes") != NULL &&
	      strstr(x->message, "echo 0 > /sys/block/md0/md/bitmap/backlog") != NULL);
	warnings_free(&w);
	/*
	 * and on a kernel whose md sends write-behind writes as reads
	 * (93dec51e716d): CRITICAL; at the range's edges and beyond: WARNING
	 */
	for (size_t i = 0; i < 12; i++) {
		static const struct {
			const char *rel;
			enum severity sev;
		} k[] = {
			{ "6.14.2", SEV_CRITICAL }, { "6.15.7-arch1", SEV_CRITICAL }, { "6.16.0-rc1", SEV_CRITICAL },
			{ "6.16.5-amd64", SEV_CRITICAL }, { "6.17.0-rc4", SEV_CRITICAL }, { "6.15.0", SEV_CRITICAL },
			{ "6.14.1", SEV_WARNING }, { "6.14.0-rc7", SEV_WARNING }, { "6.16.6", SEV_WARNING },
			{ "6.17.0-rc5", SEV_WARNING }, { "6.12.117+deb12-amd64", SEV_WARNING }, { "7.2.13", SEV_WARNING },
		};

		setenv("RDCTL_KERNEL_RELEASE", k[i].rel, 1);
		warnings_compute(&a, 1, NULL, 0, &mi, &w);
		x = find(&w, "write_behind");
		CHECK(x != NULL && x->severity == k[i].sev &&
		      strstr(x->message, "echo 0 > /sys/block/md0/md/bitmap/backlog") != NULL);
		if (k[i].sev == SEV_CRITICAL)
			CHECK(x != NULL && strstr(x->message, "93dec51e716d") != NULL);
		warnings_free(&w);
	}
	unsetenv("RDCTL_KERNEL_RELEASE");

	/* a check does not count as a resync */
	m[0] = mem(s_rd0, true, s_in_sync);
	a = arr(m, 3, s_check, 0);
	warnings_compute(&a, 1, NULL, 0, &mi, &w);
	CHECK_U64(w.n, 0);
	warnings_free(&w);

	/* RAM disk larger than available memory (what it still has to allocate) */
	d.name = s_rd0;
	d.size = 4ULL << 30;
	d.has_allocated = true;
	d.allocated = 1ULL << 30;
	mi = mi_avail(2ULL << 30);
	warnings_compute(NULL, 0, &d, 1, &mi, &w);
	CHECK_U64(w.n, 1);
	x = find(&w, "ram_over_available");
	CHECK(x != NULL);
	if (x) {
		CHECK_STR(x->device, "rd0");
		CHECK_STR(x->array, NULL);
		CHECK(strstr(x->message, "rd0 (4 GiB) may still need 3 GiB of RAM but only 2 GiB is available") != NULL);
	}
	warnings_free(&w);
	d.allocated = 2ULL << 30;	/* needs exactly what is available: fine */
	warnings_compute(NULL, 0, &d, 1, &mi, &w);
	CHECK_U64(w.n, 0);
	warnings_free(&w);
	warnings_compute(NULL, 0, &d, 1, &nomi, &w);	/* unknown: no warning */
	CHECK_U64(w.n, 0);
	warnings_free(&w);

	/* memory errors: in a mirror, md corrected them; say so, and what to do */
	{
		char holder[] = "md0", *holders[] = { holder };

		d.memory_errors = 1;
		d.replaced_pages = 1;
		d.holders = holders;
		d.nholders = 1;
		warnings_compute(NULL, 0, &d, 1, &nomi, &w);
		CHECK_U64(w.n, 1);
		x = find(&w, "ram_memory_error");
		CHECK(x != NULL);
		if (x) {
			CHECK(x->severity == SEV_WARNING);
			CHECK_STR(x->array, "md0");
			CHECK_STR(x->device, "rd0");
			CHECK(strstr(x->message, "md0: RAM member rd0 met 1 memory error (1 page replaced, 0 not yet rewritten)") != NULL);
			CHECK(strstr(x->message, "rdctl --refresh /dev/md0") != NULL);
		}
		warnings_free(&w);
		/* a bare disk: the pages not rewritten read as errors */
		d.holders = NULL;
		d.nholders = 0;
		d.memory_errors = 3;
		d.replaced_pages = 1;
		warnings_compute(NULL, 0, &d, 1, &nomi, &w);
		x = find(&w, "ram_memory_error");
		CHECK(x != NULL);
		if (x) {
			CHECK_STR(x->array, NULL);
			CHECK(strstr(x->message, "rd0 met 3 memory errors (1 page replaced): 2 pages read as I/O errors until written again") != NULL);
		}
		warnings_free(&w);
		/* a module that does not count them: nothing */
		d.memory_errors = d.replaced_pages = -1;
		warnings_compute(NULL, 0, &d, 1, &nomi, &w);
		CHECK(find(&w, "ram_memory_error") == NULL);
		warnings_free(&w);
		d.memory_errors = d.replaced_pages = 0;

		/* a RAM member whose reads are not counted (queue/iostats 0): OK, with the fix */
		d.holders = holders;
		d.nholders = 1;
		d.io_uncounted = true;
		warnings_compute(NULL, 0, &d, 1, &nomi, &w);
		CHECK_U64(w.n, 1);
		x = find(&w, "ram_reads_uncounted");
		CHECK(x != NULL && x->severity == SEV_OK && !strcmp(x->array, "md0") && !strcmp(x->device, "rd0") &&
		      strstr(x->message, "echo 1 > /sys/block/rd0/queue/iostats") != NULL);
		CHECK(warnings_worst(&w) == SEV_OK);
		warnings_free(&w);
		/* a bare disk's statistics are no one's concern */
		d.holders = NULL;
		d.nholders = 0;
		warnings_compute(NULL, 0, &d, 1, &nomi, &w);
		CHECK(find(&w, "ram_reads_uncounted") == NULL);
		warnings_free(&w);
		d.io_uncounted = false;
	}
	warnings_compute(NULL, 0, &d, 1, &nomi, &w);
	CHECK_U64(w.n, 0);
	warnings_free(&w);

	/* bad blocks: one disk only is a WARNING; the same range on both disks CRITICAL */
	mi = mi_avail(8ULL << 30);
	m[0] = mem(s_rd0, true, s_in_sync);
	m[1] = mem(s_sdb, false, s_wm);
	m[2] = mem(s_sdc, false, s_wm);
	m[0].slot = 2;
	m[1].slot = 0;
	m[2].slot = 1;
	md_ranges_add(&m[1].bad, 20480, 8);
	a = arr(m, 3, s_idle, 0);
	warnings_compute(&a, 1, NULL, 0, &mi, &w);
	CHECK_U64(w.n, 1);
	x = find(&w, "bad_blocks");
	CHECK(x != NULL && x->severity == SEV_WARNING && strstr(x->message, "20480+8") != NULL);
	CHECK_STR(x ? x->device : NULL, "sdb");
	CHECK(find(&w, "ram_only_data") == NULL);
	warnings_free(&w);
	md_ranges_add(&m[2].bad, 20484, 16);
	warnings_compute(&a, 1, NULL, 0, &mi, &w);
	CHECK_U64(w.n, 3);
	x = find(&w, "ram_only_data");
	CHECK(x != NULL && x->severity == SEV_CRITICAL && strstr(x->message, "sectors 20484+4 (4 sectors)") != NULL);
	CHECK(warnings_worst(&w) == SEV_CRITICAL);
	warnings_free(&w);
	md_ranges_clear(&m[1].bad);
	md_ranges_clear(&m[2].bad);

	/* the RAM member below a disk: md's repair would copy RAM over it */
	m[0].slot = 0;
	m[1].slot = 1;
	warnings_compute(&a, 1, NULL, 0, &mi, &w);
	CHECK_U64(w.n, 1);
	x = find(&w, "ram_slot_low");
	CHECK(x != NULL && x->severity == SEV_WARNING && strstr(x->message, "rdctl --refresh /dev/md0") != NULL);
	warnings_free(&w);

	CHECK_STR(severity_name(SEV_OK), "OK");
	CHECK_STR(severity_name(SEV_CRITICAL), "CRITICAL");
	CHECK_STR(severity_name(3), "UNKNOWN");
}
