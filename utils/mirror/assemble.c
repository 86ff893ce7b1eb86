// SPDX-License-Identifier: GPL-2.0
/*
 * The restore's steps on the array itself: assembled and running (step 1),
 * its persistent members write-mostly (step 5). mirror/restore.c holds
 * the steps between, on the RAM member.
 */
#include "mirror/assemble.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "lib/errors.h"
#include "lib/seams.h"
#include "lib/util.h"
#include "md/md.h"
#include "md/md_ops.h"

#define DEFAULT_TIMEOUT	30
#define POLL_MS		500

static double restore_timeout(void)
{
	const char *s = user_env("RDCTL_RESTORE_TIMEOUT");
	uint64_t v;

	if (s && parse_u64(s, &v) && v <= 3600)
		return (double)v;
	return DEFAULT_TIMEOUT;
}

static void try_assemble(const struct conf_mirror *m)
{
	char *msg = NULL, *arg;

	/* udev's incremental assembly normally does this; this covers hosts
	 * where it did not run. A failure only means: not (yet) there. */
	if (m->kind == CONF_UUID) {
		arg = xasprintf("--uuid=%s", m->uuid);
		mdadm_call(NULL, &msg, "--assemble", "--scan", arg, NULL);
	} else {
		arg = m->kind == CONF_DEVICE ? md_dev_path(m->name) : xasprintf("%s/md/%s", dev_root(), m->name);
		mdadm_call(NULL, &msg, "--assemble", "--scan", arg, NULL);
	}
	free(arg);
	free(msg);
}

static bool is_inactive(const struct md_array *a)
{
	return !a->array_state || !strcmp(a->array_state, "inactive") || !strcmp(a->array_state, "clear");
}

static size_t working_members(const struct md_array *a)
{
	size_t n = 0;

	for (size_t i = 0; i < a->nmembers; i++)
		n += !a->members[i].faulty;
	return n;
}

int restore_plan_bring_up(const struct conf_mirror *m, char **mdname, char **plan)
{
	char *name = md_array_of_config(m);
	struct md_array a;
	long missing, raid_disks;
	size_t working;
	int r;

	*mdname = NULL;
	*plan = NULL;
	if (!name) {
		*plan = xasprintf("not running: would wait up to %.0f s for it (mdadm --assemble --scan half way), then restore it",
				  restore_timeout());
		return 1;
	}
	r = md_array_read(name, &a);
	if (r < 0) {
		*plan = xasprintf("cannot read %s in %s/block: %s", name, sysfs_root(), strerror(-r));
		free(name);
		return r;
	}
	*mdname = name;
	if (!is_inactive(&a)) {
		md_array_clear(&a);
		return 0;
	}
	raid_disks = a.raid_disks > 0 ? (long)a.raid_disks : md_raid_disks_on_disk(name);
	working = working_members(&a);
	missing = raid_disks > 0 ? raid_disks - (long)working : -1;
	md_array_clear(&a);
	if (missing >= 0 && missing <= 1)
		*plan = xasprintf("inactive with %zu of %ld members: would start it (mdadm --run), then restore it",
				  working, raid_disks);
	else
		*plan = xasprintf("inactive with %zu members: would wait up to %.0f s for the others, start it degraded (mdadm --run), then restore it",
				  working, restore_timeout());
	return 1;
}

/*
 * Step 1: find the array and make sure it runs. 0 and *mdname, or -1 with
 * the error on the item. *note gets a remark for the summary (or NULL).
 */
int restore_bring_up(struct boot_item *it, const struct conf_mirror *m, char **mdname, char **note)
{
	double start = mono_now(), timeout = restore_timeout();
	bool assembled = false, ran = false;

	*mdname = NULL;
	*note = NULL;
	for (;;) {
		bool late = mono_now() - start >= timeout;
		char *name = md_array_of_config(m);

		if (name) {
			struct md_array a;
			long missing, raid_disks;
			int r = md_array_read(name, &a);

			if (r < 0) {
				boot_item_fail(it, errno_code(-r), xasprintf("cannot read %s in %s/block: %s",
									     name, sysfs_root(), strerror(-r)));
				free(name);
				return -1;
			}
			free(it->array);
			it->array = xstrdup(name);
			if (!is_inactive(&a)) {
				md_array_clear(&a);
				*mdname = name;
				return 0;
			}
			/*
			 * An array that udev's incremental assembly holds but has
			 * not started shows no raid_disks in sysfs: ask its
			 * members' superblocks how many it should have.
			 */
			raid_disks = a.raid_disks > 0 ? (long)a.raid_disks : md_raid_disks_on_disk(name);
			missing = raid_disks > 0 ? raid_disks - (long)working_members(&a) : -1;
			md_array_clear(&a);
			if ((missing >= 0 && missing <= 1 && !ran) || late) {
				char *dev = md_dev_path(name), *msg = NULL;
				int rr = mdadm_call(NULL, &msg, "--run", dev, NULL);

				ran = true;
				free(dev);
				if (md_array_read(name, &a) == 0) {
					bool up = !is_inactive(&a);

					md_array_clear(&a);
					if (up) {
						free(msg);
						*note = missing > 1 ? xasprintf("started degraded after %.0f s: %ld members missing",
									       timeout, missing)
								    : xstrdup("started (only the RAM member was missing)");
						*mdname = name;
						return 0;
					}
				}
				if (late) {
					free(name);
					return boot_item_fail(it, rr ? errno_code(-rr) : "EIO",
							      rr ? msg : xstrdup("mdadm --run did not start it"));
				}
				free(msg);
			}
			free(name);
		} else if (!assembled && (late || mono_now() - start >= timeout / 2)) {
			assembled = true;
			try_assemble(m);
			continue;
		} else if (late) {
			return boot_item_fail(it, "ENODEV",
					      xasprintf("%s not found within %.0f s: are its disks connected, and is it listed in mdadm.conf?",
							m->spec, timeout));
		}
		util_sleep_ms(POLL_MS);
	}
}

static void wm_add(struct boot_item *it, const char *name)
{
	it->wm = xrealloc(it->wm, it->nwm + 1, sizeof(*it->wm));
	it->wm[it->nwm++] = xstrdup(name);
}

/*
 * Step 5: every working persistent member write-mostly; never the RAM member.
 * Through the kernel's per-member attribute, "writemostly" written to
 * /sys/block/mdX/md/dev-Y/state (Documentation/admin-guide/md.rst): mdadm's
 * --write-mostly only applies to devices added or re-added after it (mdadm(8),
 * MANAGE MODE), not to a member already in the array. md records the flag in
 * the member's superblock (devflags WriteMostly1) at the next superblock update.
 */
static void wm_changed(const char *name, void *it)
{
	wm_add(it, name);
}

int restore_fix_write_mostly(struct boot_item *it, const char *mdname)
{
	char *msg;
	int r = md_disks_write_mostly(mdname, true, wm_changed, it, &msg);

	if (r < 0)
		boot_item_fail(it, errno_code(-r), msg);
	return it->message ? -1 : 0;
}
