// SPDX-License-Identifier: GPL-2.0
/*
 * rdmirror: RAM block disks made to be the primary read member of an md
 * RAID1 mirror whose persistent members are write-mostly.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/init.h>
#include <linux/module.h>
#include <linux/moduleparam.h>

#include "rd_device.h"

#define RD_MAX_DISKS_LIMIT	1024

static unsigned int max_disks = 64;
module_param(max_disks, uint, 0444);
MODULE_PARM_DESC(max_disks, "Most rd disks that may exist at once (1-1024, default 64)");

/*
 * Off by default, as in brd: per-disk statistics add accounting at the
 * start and end of every bio (its cost: docs/BENCHMARKS.md), and md's and
 * the persistent members' own counters already show where an array's
 * reads go. A disk's queue/iostats turns them on for that disk at any
 * time.
 */
static bool iostats;
module_param(iostats, bool, 0444);
MODULE_PARM_DESC(iostats, "Keep I/O statistics for new rd disks (default off)");

static int __init rd_init(void)
{
	int err;

	if (!max_disks || max_disks > RD_MAX_DISKS_LIMIT) {
		pr_err("max_disks must be 1 to %u, not %u\n",
		       RD_MAX_DISKS_LIMIT, max_disks);
		return -EINVAL;
	}
	err = rd_store_module_init();
	if (err)
		return err;
	err = rd_disks_init(max_disks, iostats);
	if (err)
		goto out_store;
	err = rd_control_init();
	if (err)
		goto out_disks;
	rd_debugfs_init();
	pr_info("loaded, version " RDMIRROR_VERSION "\n");
	return 0;

out_disks:
	rd_disks_exit();
out_store:
	rd_store_module_exit();
	return err;
}

static void __exit rd_exit(void)
{
	rd_debugfs_exit();
	rd_control_exit();
	rd_disks_exit();
	/* Discards may have queued page frees that run our code. */
	rd_store_module_exit();
}

module_init(rd_init);
module_exit(rd_exit);

MODULE_DESCRIPTION("RAM disks for the read side of md RAID1 mirrors");
MODULE_AUTHOR("rdmirror developers");
MODULE_LICENSE("GPL");
MODULE_VERSION(RDMIRROR_VERSION);
