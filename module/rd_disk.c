// SPDX-License-Identifier: GPL-2.0
/*
 * Disk lifetime: create, remove, resize and empty /dev/rdN, and the
 * per-disk sysfs attributes.
 *
 * rd_ctl_mutex serialises these operations and guards the index map. The
 * checks that a disk is not in use are taken under disk->open_mutex, the
 * lock every open runs under, so "nobody has it open" stays true until the
 * operation is done. Lock order: rd_ctl_mutex, then disk->open_mutex.
 */
#include <linux/blkdev.h>
#include <linux/device.h>
#include <linux/idr.h>
#include <linux/module.h>
#include <linux/mutex.h>
#include <linux/slab.h>
#include <linux/sysfs.h>

#include "uapi/rdmirror.h"
#include "compat.h"
#include "rd_device.h"

static DEFINE_MUTEX(rd_ctl_mutex);
static DEFINE_IDR(rd_indexes);
static unsigned int rd_max_disks;
static bool rd_iostats;
VISIBLE_IF_KUNIT int rd_major;
EXPORT_SYMBOL_IF_KUNIT(rd_major);

static ssize_t allocated_bytes_show(struct device *dev,
				    struct device_attribute *attr, char *buf)
{
	struct rd_device *rd = dev_to_disk(dev)->private_data;

	return sysfs_emit(buf, "%llu\n", rd_store_bytes(rd));
}
static DEVICE_ATTR_RO(allocated_bytes);

static ssize_t preallocated_show(struct device *dev,
				 struct device_attribute *attr, char *buf)
{
	struct rd_device *rd = dev_to_disk(dev)->private_data;

	return sysfs_emit(buf, "%d\n", rd->prealloc);
}
static DEVICE_ATTR_RO(preallocated);

static struct attribute *rd_attrs[] = {
	&dev_attr_allocated_bytes.attr,
	&dev_attr_preallocated.attr,
	NULL,
};

static const struct attribute_group rd_attr_group = {
	.name = "rdmirror",
	.attrs = rd_attrs,
};

static const struct attribute_group *rd_attr_groups[] = {
	&rd_attr_group,
	NULL,
};

/* Runs under disk->open_mutex. */
int rd_disk_open(struct gendisk *disk)
{
	struct rd_device *rd = disk->private_data;

	return rd->deleting ? -ENXIO : 0;
}

static const struct block_device_operations rd_fops = {
	.owner		= THIS_MODULE,
	.submit_bio	= rd_submit_bio,
	.open		= rd_compat_open,
};

static void rd_device_free(struct rd_device *rd)
{
	rd_store_destroy(rd);
	kfree(rd);
}

int rd_disk_add(u64 size, u32 flags, u32 *index)
{
	struct rd_device *rd;
	struct gendisk *disk;
	int err;

	rd = kzalloc(sizeof(*rd), GFP_KERNEL);
	if (!rd)
		return -ENOMEM;
	rd_store_init(rd);
	rd->prealloc = flags & RDMIRROR_ADD_PREALLOC;

	/* Fill before taking the lock: preallocation can take a while. */
	if (rd->prealloc) {
		err = rd_store_prealloc(rd, 0, DIV_ROUND_UP(size, PAGE_SIZE));
		if (err)
			goto out_free_rd;
	}

	disk = rd_compat_alloc_disk(rd_iostats);
	if (IS_ERR(disk)) {
		err = PTR_ERR(disk);
		goto out_free_rd;
	}
	rd->disk = disk;

	mutex_lock(&rd_ctl_mutex);
	err = idr_alloc(&rd_indexes, rd, 0, rd_max_disks, GFP_KERNEL);
	if (err < 0)
		goto out_unlock;
	rd->index = err;

	disk->major = rd_major;
	disk->first_minor = rd->index;
	disk->minors = 1;
	disk->flags |= GENHD_FL_NO_PART;
	disk->fops = &rd_fops;
	disk->private_data = rd;
	snprintf(disk->disk_name, DISK_NAME_LEN, RDMIRROR_DISK_PREFIX "%d",
		 rd->index);
	set_capacity(disk, size >> SECTOR_SHIFT);

	err = device_add_disk(NULL, disk, rd_attr_groups);
	if (err)
		goto out_remove_index;
	mutex_unlock(&rd_ctl_mutex);

	*index = rd->index;
	return 0;

out_remove_index:
	idr_remove(&rd_indexes, rd->index);
out_unlock:
	mutex_unlock(&rd_ctl_mutex);
	put_disk(disk);
out_free_rd:
	rd_device_free(rd);
	return err;
}
EXPORT_SYMBOL_IF_KUNIT(rd_disk_add);

/* Caller holds rd_ctl_mutex and has taken @rd out of the index map. */
static void rd_disk_destroy(struct rd_device *rd)
{
	del_gendisk(rd->disk);
	put_disk(rd->disk);
	rd_device_free(rd);
}

/*
 * Lock the disk's open_mutex if nobody holds the disk open; -EBUSY
 * otherwise. The caller unlocks.
 */
static int rd_disk_lock_idle(struct rd_device *rd)
{
	mutex_lock(&rd->disk->open_mutex);
	if (disk_openers(rd->disk)) {
		mutex_unlock(&rd->disk->open_mutex);
		return -EBUSY;
	}
	return 0;
}

/*
 * Find disk @index and lock it idle (rd_disk_lock_idle()). Called with
 * rd_ctl_mutex held; on error nothing more is locked.
 */
static int rd_disk_find_idle(u32 index, struct rd_device **rdp)
{
	struct rd_device *rd = idr_find(&rd_indexes, index);
	int err;

	if (!rd)
		return -ENODEV;
	err = rd_disk_lock_idle(rd);
	if (!err)
		*rdp = rd;
	return err;
}

int rd_disk_remove(u32 index)
{
	struct rd_device *rd;
	int err;

	mutex_lock(&rd_ctl_mutex);
	err = rd_disk_find_idle(index, &rd);
	if (!err) {
		rd->deleting = true;
		mutex_unlock(&rd->disk->open_mutex);
		idr_remove(&rd_indexes, index);
		rd_disk_destroy(rd);
	}
	mutex_unlock(&rd_ctl_mutex);
	return err;
}
EXPORT_SYMBOL_IF_KUNIT(rd_disk_remove);

int rd_disk_resize(u32 index, u64 size)
{
	struct rd_device *rd;
	sector_t old, new = size >> SECTOR_SHIFT;
	int err = 0;

	mutex_lock(&rd_ctl_mutex);
	rd = idr_find(&rd_indexes, index);
	if (!rd) {
		err = -ENODEV;
		goto out_unlock;
	}
	old = get_capacity(rd->disk);
	if (new > old) {
		/* Growing is safe while in use: the new range is unreachable until now. */
		if (rd->prealloc)
			err = rd_store_prealloc(rd, rd_sectors_to_pages(old),
						DIV_ROUND_UP(size, PAGE_SIZE));
		if (!err)
			set_capacity_and_notify(rd->disk, new);
	} else if (new < old) {
		err = rd_disk_lock_idle(rd);
		if (err)
			goto out_unlock;
		set_capacity_and_notify(rd->disk, new);
		rd_store_discard(rd, new, old - new,
				 RD_DISCARD_QUIESCED | RD_DISCARD_MAY_SLEEP);
		mutex_unlock(&rd->disk->open_mutex);
	}
out_unlock:
	mutex_unlock(&rd_ctl_mutex);
	return err;
}
EXPORT_SYMBOL_IF_KUNIT(rd_disk_resize);

int rd_disk_free_pages(u32 index)
{
	unsigned int flags = RD_DISCARD_QUIESCED | RD_DISCARD_MAY_SLEEP;
	struct rd_device *rd;
	int err;

	mutex_lock(&rd_ctl_mutex);
	err = rd_disk_find_idle(index, &rd);
	if (!err) {
		/* A preallocated disk keeps its memory reserved, zeroed. */
		if (rd->prealloc)
			flags |= RD_DISCARD_KEEP_PAGES;
		rd_store_discard(rd, 0, get_capacity(rd->disk), flags);
		mutex_unlock(&rd->disk->open_mutex);
	}
	mutex_unlock(&rd_ctl_mutex);
	return err;
}
EXPORT_SYMBOL_IF_KUNIT(rd_disk_free_pages);

int rd_disks_init(unsigned int max_disks, bool iostats)
{
	rd_max_disks = max_disks;
	rd_iostats = iostats;
	rd_major = register_blkdev(0, "rdmirror");
	return rd_major < 0 ? rd_major : 0;
}

/*
 * Module unload. The block layer holds a module reference for every open
 * disk, so by now every disk is closed and can go.
 */
void rd_disks_exit(void)
{
	struct rd_device *rd;
	int index;

	mutex_lock(&rd_ctl_mutex);
	idr_for_each_entry(&rd_indexes, rd, index) {
		idr_remove(&rd_indexes, index);
		rd_disk_destroy(rd);
	}
	mutex_unlock(&rd_ctl_mutex);
	idr_destroy(&rd_indexes);
	unregister_blkdev(rd_major, "rdmirror");
}
