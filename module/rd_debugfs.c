// SPDX-License-Identifier: GPL-2.0
/*
 * /sys/kernel/debug/rdmirror/pfn: which page frame holds a disk's sector,
 * so that a test can poison that page with the kernel's own injector
 * (hwpoison-inject's corrupt-pfn) and watch what rd and md make of it.
 * Write "INDEX SECTOR", then read the frame number (decimal) back; a
 * sector never written has no page (ENODATA). Root only, as debugfs is.
 *
 * /sys/kernel/debug/rdmirror/read_per_page_mask: bit N makes rdN read
 * each page under its own RCU section and walk from the xarray's root
 * (a batch of 1, rd_store_read_bio()), for make bench's comparison of
 * the two read paths at once.
 *
 * Built only with RDMIRROR_TEST=1 (Kbuild): no installed module has
 * these files.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/debugfs.h>
#include <linux/fs.h>
#include <linux/kernel.h>
#include <linux/mutex.h>
#include <linux/uaccess.h>

#include "rd_device.h"

static struct dentry *rd_debugfs_dir;
static DEFINE_MUTEX(rd_debugfs_mutex);
static unsigned long rd_debugfs_pfn;
static int rd_debugfs_err = -ENODATA;
static u32 rd_read_per_page_mask;

unsigned int rd_debugfs_read_batch(const struct rd_device *rd)
{
	return rd->index < 32 &&
	       (READ_ONCE(rd_read_per_page_mask) & BIT(rd->index)) ?
	       1 : RD_READ_BATCH;
}

static ssize_t rd_pfn_write(struct file *file, const char __user *ubuf,
			    size_t len, loff_t *ppos)
{
	unsigned long long sector;
	unsigned long pfn = 0;
	unsigned int index;
	char buf[48];
	int err;

	if (len >= sizeof(buf))
		return -EINVAL;
	if (copy_from_user(buf, ubuf, len))
		return -EFAULT;
	buf[len] = '\0';
	if (sscanf(buf, "%u %llu", &index, &sector) != 2)
		return -EINVAL;
	err = rd_disk_pfn(index, sector, &pfn);
	mutex_lock(&rd_debugfs_mutex);
	rd_debugfs_err = err;
	rd_debugfs_pfn = pfn;
	mutex_unlock(&rd_debugfs_mutex);
	return err ? err : len;
}

static ssize_t rd_pfn_read(struct file *file, char __user *ubuf, size_t len,
			   loff_t *ppos)
{
	char buf[24];
	int n, err;

	mutex_lock(&rd_debugfs_mutex);
	err = rd_debugfs_err;
	n = scnprintf(buf, sizeof(buf), "%lu\n", rd_debugfs_pfn);
	mutex_unlock(&rd_debugfs_mutex);
	if (err)
		return err;
	return simple_read_from_buffer(ubuf, len, ppos, buf, n);
}

static const struct file_operations rd_pfn_fops = {
	.owner	= THIS_MODULE,
	.open	= simple_open,
	.read	= rd_pfn_read,
	.write	= rd_pfn_write,
	.llseek	= default_llseek,
};

void rd_debugfs_init(void)
{
	/* Nothing depends on it: a kernel without debugfs just has none. */
	rd_debugfs_dir = debugfs_create_dir(KBUILD_MODNAME, NULL);
	debugfs_create_file("pfn", 0600, rd_debugfs_dir, NULL, &rd_pfn_fops);
	debugfs_create_x32("read_per_page_mask", 0600, rd_debugfs_dir,
			   &rd_read_per_page_mask);
}

void rd_debugfs_exit(void)
{
	debugfs_remove(rd_debugfs_dir);
}
