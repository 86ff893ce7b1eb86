// SPDX-License-Identifier: GPL-2.0
/*
 * rdmirror: RAM block disks made to be the primary read member of an md
 * RAID1 mirror whose persistent members are write-mostly.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/ctype.h>
#include <linux/init.h>
#include <linux/mm.h>
#include <linux/module.h>
#include <linux/moduleparam.h>
#include <linux/sysfs.h>

#include "rd_device.h"
#include "rd_kunit_hooks.h"

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

/*
 * The most memory every disk's pages may take together (rd_store.c's
 * bound), in bytes, 0 for none: a write past it fails (ENOSPC; md fails
 * the RAM member and goes on from its disks), a preallocation past it is
 * refused (EDQUOT). Root may change it at any time; a lower bound than
 * what the disks hold takes nothing back, it refuses new pages. Unless
 * given, it leaves the machine the reserve rdctl leaves (README: 5% of
 * RAM, at least 256 MiB, at most 4 GiB), or half of RAM if that is less.
 */
static bool mem_limit_given;

int rd_parse_bytes(const char *buf, u64 *bytes)
{
	char *end;
	u64 v;

	/* a digit first: memparse() reads "" or "\n" as 0 (no limit) */
	if (!isdigit(*buf))
		return -EINVAL;
	v = memparse(buf, &end);
	if (*end == '\n')
		end++;
	if (*end)
		return -EINVAL;
	*bytes = v;
	return 0;
}
EXPORT_SYMBOL_IF_RD_KUNIT(rd_parse_bytes);

static int mem_limit_set(const char *val, const struct kernel_param *kp)
{
	u64 bytes;
	int err;

	err = rd_parse_bytes(val, &bytes);
	if (err)
		return err;
	rd_store_set_mem_limit(min_t(u64, bytes >> PAGE_SHIFT, ULONG_MAX));
	mem_limit_given = true;
	return 0;
}

static int mem_limit_get(char *buf, const struct kernel_param *kp)
{
	return sysfs_emit(buf, "%llu\n",
			  (unsigned long long)rd_store_mem_limit() << PAGE_SHIFT);
}

static const struct kernel_param_ops mem_limit_ops = {
	.set = mem_limit_set,
	.get = mem_limit_get,
};
module_param_cb(mem_limit, &mem_limit_ops, NULL, 0644);
MODULE_PARM_DESC(mem_limit, "Most memory all rd disks may hold together, in bytes (K, M, G suffixes; 0: no limit; default: RAM less rdctl's reserve)");

/* Read-only counters beside it: what the disks hold, writes refused. */
static int rd_param_read_only(const char *val, const struct kernel_param *kp)
{
	return -EPERM;
}

static int mem_used_get(char *buf, const struct kernel_param *kp)
{
	return sysfs_emit(buf, "%llu\n",
			  (unsigned long long)rd_store_mem_used() << PAGE_SHIFT);
}

static const struct kernel_param_ops mem_used_ops = {
	.set = rd_param_read_only,
	.get = mem_used_get,
};
module_param_cb(mem_used, &mem_used_ops, NULL, 0444);
MODULE_PARM_DESC(mem_used, "Memory all rd disks hold now, in bytes (read-only)");

static int mem_refused_get(char *buf, const struct kernel_param *kp)
{
	return sysfs_emit(buf, "%lu\n", rd_store_mem_refused());
}

static const struct kernel_param_ops mem_refused_ops = {
	.set = rd_param_read_only,
	.get = mem_refused_get,
};
module_param_cb(mem_refused_writes, &mem_refused_ops, NULL, 0444);
MODULE_PARM_DESC(mem_refused_writes, "Writes refused for mem_limit since load (read-only)");

/* RAM less rdctl's default reserve, or half of RAM if that is less. */
static unsigned long rd_default_mem_limit(void)
{
	unsigned long ram = totalram_pages();
	unsigned long reserve = clamp(ram / 20, 256UL << (20 - PAGE_SHIFT),
				      4UL << (30 - PAGE_SHIFT));

	return ram - min(reserve, ram / 2);
}

static int __init rd_init(void)
{
	int err;

	if (!max_disks || max_disks > RD_MAX_DISKS_LIMIT) {
		pr_err("max_disks must be 1 to %u, not %u\n",
		       RD_MAX_DISKS_LIMIT, max_disks);
		return -EINVAL;
	}
	if (!mem_limit_given)
		rd_store_set_mem_limit(rd_default_mem_limit());
	err = rd_store_module_init();
	if (err)
		return err;
	err = rd_zstore_module_init();
	if (err)
		goto out_store;
	err = rd_disks_init(max_disks, iostats);
	if (err)
		goto out_zstore;
	err = rd_control_init();
	if (err)
		goto out_disks;
	rd_debugfs_init();
	pr_info("loaded, version " RDMIRROR_VERSION "\n");
	return 0;

out_disks:
	rd_disks_exit();
out_zstore:
	rd_store_flush_frees();
	rd_zstore_module_exit();
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
	/* (after the frees: objects go back to the classes first) */
	rd_zstore_module_exit();
}

module_init(rd_init);
module_exit(rd_exit);

MODULE_DESCRIPTION("RAM disks for the read side of md RAID1 mirrors");
MODULE_AUTHOR("rdmirror developers");
MODULE_LICENSE("GPL");
MODULE_VERSION(RDMIRROR_VERSION);
