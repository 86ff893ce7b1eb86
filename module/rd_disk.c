// SPDX-License-Identifier: GPL-2.0
/*
 * Disk lifetime: create, remove, resize and empty /dev/rdN, and the
 * per-disk sysfs attributes.
 *
 * rd_ctl_mutex serialises these operations and guards the index map and
 * each disk's @growing and @emptying; it is held only for short work, and
 * where a caller may wait for it, taken killably (only the undoing of a
 * failed add or grow waits for it uninterruptibly, as it must finish).
 * The checks that a disk is not in use are made under disk->open_mutex,
 * the lock every open runs under, and only the checks. Long work runs
 * with neither lock held: a fill (preallocation) on a disk not yet
 * published or marked @growing, an emptying on a disk marked @emptying
 * (which every open, removal, resize and other emptying refuses), the
 * free of a shrink past the new end, where no I/O reaches. Lock order:
 * rd_ctl_mutex, then disk->open_mutex.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/blkdev.h>
#include <linux/device.h>
#include <linux/idr.h>
#include <linux/kobject.h>
#include <linux/module.h>
#include <linux/mutex.h>
#include <linux/slab.h>
#include <linux/sysfs.h>

#include "uapi/rdmirror.h"
#include "compat.h"
#include "rd_control.h"
#include "rd_device.h"
#include "rd_kunit_hooks.h"
#include "rd_zstore.h"

static DEFINE_MUTEX(rd_ctl_mutex);
static DEFINE_IDR(rd_indexes);
static unsigned int rd_max_disks;
static bool rd_iostats;
RD_VISIBLE_IF_KUNIT int rd_major;
EXPORT_SYMBOL_IF_RD_KUNIT(rd_major);

static ssize_t allocated_bytes_show(struct device *dev,
				    struct device_attribute *attr, char *buf)
{
	struct rd_device *rd = dev_to_disk(dev)->private_data;

	return sysfs_emit(buf, "%llu\n",
			  rd->zs ? rd_zstore_bytes(rd) : rd_store_bytes(rd));
}
static DEVICE_ATTR_RO(allocated_bytes);

static ssize_t preallocated_show(struct device *dev,
				 struct device_attribute *attr, char *buf)
{
	struct rd_device *rd = dev_to_disk(dev)->private_data;

	return sysfs_emit(buf, "%d\n", rd->prealloc);
}
static DEVICE_ATTR_RO(preallocated);

static ssize_t memory_errors_show(struct device *dev,
				  struct device_attribute *attr, char *buf)
{
	struct rd_device *rd = dev_to_disk(dev)->private_data;

	return sysfs_emit(buf, "%ld\n", atomic_long_read(&rd->bad_pages));
}
static DEVICE_ATTR_RO(memory_errors);

static ssize_t replaced_pages_show(struct device *dev,
				   struct device_attribute *attr, char *buf)
{
	struct rd_device *rd = dev_to_disk(dev)->private_data;

	return sysfs_emit(buf, "%ld\n", atomic_long_read(&rd->replaced_pages));
}
static DEVICE_ATTR_RO(replaced_pages);

static ssize_t refused_writes_show(struct device *dev,
				   struct device_attribute *attr, char *buf)
{
	struct rd_device *rd = dev_to_disk(dev)->private_data;

	return sysfs_emit(buf, "%ld\n", atomic_long_read(&rd->refused_writes));
}
static DEVICE_ATTR_RO(refused_writes);

/* A compressed disk's own (rd_zstore.c): see uapi/rdmirror.h. */
static ssize_t compressor_show(struct device *dev,
			       struct device_attribute *attr, char *buf)
{
	struct rd_device *rd = dev_to_disk(dev)->private_data;

	return sysfs_emit(buf, "%s\n", rd_zstore_compressor(rd));
}
static DEVICE_ATTR_RO(compressor);

static ssize_t data_bytes_show(struct device *dev,
			       struct device_attribute *attr, char *buf)
{
	struct rd_device *rd = dev_to_disk(dev)->private_data;

	return sysfs_emit(buf, "%llu\n", rd_zstore_data_bytes(rd));
}
static DEVICE_ATTR_RO(data_bytes);

static ssize_t mem_limit_show(struct device *dev,
			      struct device_attribute *attr, char *buf)
{
	struct rd_device *rd = dev_to_disk(dev)->private_data;

	return sysfs_emit(buf, "%llu\n", READ_ONCE(rd->zs->mem_limit));
}

/*
 * Bytes (K, M, G suffixes), 0 for none. A bound below what the disk
 * holds takes nothing back: it refuses the writes that need more.
 */
static ssize_t mem_limit_store(struct device *dev,
			       struct device_attribute *attr, const char *buf,
			       size_t count)
{
	struct rd_device *rd = dev_to_disk(dev)->private_data;
	u64 bytes;
	int err;

	err = rd_parse_bytes(buf, &bytes);
	if (err)
		return err;
	WRITE_ONCE(rd->zs->mem_limit, bytes);
	return count;
}
static DEVICE_ATTR_RW(mem_limit);

static ssize_t same_pages_show(struct device *dev,
			       struct device_attribute *attr, char *buf)
{
	struct rd_device *rd = dev_to_disk(dev)->private_data;

	return sysfs_emit(buf, "%ld\n", atomic_long_read(&rd->zs->same_pages));
}
static DEVICE_ATTR_RO(same_pages);

static ssize_t huge_pages_show(struct device *dev,
			       struct device_attribute *attr, char *buf)
{
	struct rd_device *rd = dev_to_disk(dev)->private_data;

	return sysfs_emit(buf, "%ld\n", atomic_long_read(&rd->zs->huge_pages));
}
static DEVICE_ATTR_RO(huge_pages);

static ssize_t checksum_errors_show(struct device *dev,
				    struct device_attribute *attr, char *buf)
{
	struct rd_device *rd = dev_to_disk(dev)->private_data;

	return sysfs_emit(buf, "%ld\n", atomic_long_read(&rd->zs->csum_errors));
}
static DEVICE_ATTR_RO(checksum_errors);

static struct attribute *rd_attrs[] = {
	&dev_attr_allocated_bytes.attr,
	&dev_attr_preallocated.attr,
	&dev_attr_memory_errors.attr,
	&dev_attr_replaced_pages.attr,
	&dev_attr_refused_writes.attr,
	&dev_attr_compressor.attr,
	&dev_attr_data_bytes.attr,
	&dev_attr_mem_limit.attr,
	&dev_attr_same_pages.attr,
	&dev_attr_huge_pages.attr,
	&dev_attr_checksum_errors.attr,
	NULL,
};

static bool rd_attr_compressed_only(struct attribute *attr)
{
	return attr == &dev_attr_compressor.attr ||
	       attr == &dev_attr_data_bytes.attr ||
	       attr == &dev_attr_mem_limit.attr ||
	       attr == &dev_attr_same_pages.attr ||
	       attr == &dev_attr_huge_pages.attr ||
	       attr == &dev_attr_checksum_errors.attr;
}

/* A disk of plain pages has no compressed disk's files. */
static umode_t rd_attr_visible(struct kobject *kobj, struct attribute *attr,
			       int n)
{
	struct rd_device *rd = dev_to_disk(kobj_to_dev(kobj))->private_data;

	if (!rd->zs && rd_attr_compressed_only(attr))
		return 0;
	return attr->mode;
}

static const struct attribute_group rd_attr_group = {
	.name = "rdmirror",
	.attrs = rd_attrs,
	.is_visible = rd_attr_visible,
};

static const struct attribute_group *rd_attr_groups[] = {
	&rd_attr_group,
	NULL,
};

/* Runs under disk->open_mutex. */
static int rd_disk_open(RD_COMPAT_OPEN_ARGS)
{
	struct rd_device *rd = RD_COMPAT_OPEN_DISK->private_data;

	if (rd->deleting)
		return -ENXIO;
	return rd->emptying ? -EBUSY : 0;
}

static const struct block_device_operations rd_fops = {
	.owner		= THIS_MODULE,
	.submit_bio	= rd_submit_bio,
	.open		= rd_disk_open,
};

static void rd_device_free(struct rd_device *rd)
{
	/* (the compressed store's entries first: then the xarray is empty) */
	rd_zstore_destroy(rd);
	rd_store_destroy(rd);
	kfree(rd);
}

/*
 * @comp and @mem_limit: a compressed disk's (RDMIRROR_ADD_COMPRESS),
 * checked by the caller (rd_ctl_check_add()).
 */
int rd_disk_add(u64 size, u32 flags, u32 comp, u64 mem_limit,
		rd_add_report_fn report, void *data, u32 *index)
{
	struct rd_device *rd;
	struct gendisk *disk;
	int err;

	rd = kzalloc(sizeof(*rd), GFP_KERNEL);
	if (!rd)
		return -ENOMEM;
	err = rd_store_init(rd);
	if (err)
		goto out_free_rd;
	rd->prealloc = flags & RDMIRROR_ADD_PREALLOC;
	if (flags & RDMIRROR_ADD_COMPRESS) {
		err = rd_zstore_init(rd, comp, mem_limit);
		if (err)
			goto out_free_rd;
	}

	/*
	 * Reserve the index first (a NULL entry: the disk is not there for
	 * anyone yet), so that an add over max_disks fails before it fills
	 * memory.
	 */
	if (mutex_lock_killable(&rd_ctl_mutex)) {
		err = -EINTR;
		goto out_free_rd;
	}
	err = idr_alloc(&rd_indexes, NULL, 0, rd_max_disks, GFP_KERNEL);
	mutex_unlock(&rd_ctl_mutex);
	if (err < 0)
		goto out_free_rd;
	rd->index = err;

	/* No lock held: preallocation can take a while. */
	if (rd->prealloc) {
		err = rd_store_prealloc(rd, 0, DIV_ROUND_UP(size, PAGE_SIZE));
		if (err)
			goto out_free_index;
	}

	disk = rd_compat_alloc_disk(rd_iostats, rd->zs);
	if (IS_ERR(disk)) {
		err = PTR_ERR(disk);
		goto out_free_index;
	}
	rd->disk = disk;
	disk->major = rd_major;
	disk->first_minor = rd->index;
	disk->minors = 1;
	disk->flags |= GENHD_FL_NO_PART;
	disk->fops = &rd_fops;
	disk->private_data = rd;
	snprintf(disk->disk_name, DISK_NAME_LEN, RDMIRROR_DISK_PREFIX "%d",
		 rd->index);
	set_capacity(disk, size >> SECTOR_SHIFT);

	/* The caller learns the index before anyone else can open the disk. */
	if (report) {
		err = report(rd->index, data);
		if (err)
			goto out_put_disk;
	}

	if (mutex_lock_killable(&rd_ctl_mutex)) {
		err = -EINTR;
		goto out_put_disk;
	}
	err = device_add_disk(NULL, disk, rd_attr_groups);
	if (!err)
		idr_replace(&rd_indexes, rd, rd->index);
	mutex_unlock(&rd_ctl_mutex);
	if (err)
		goto out_put_disk;

	*index = rd->index;
	return 0;

out_put_disk:
	put_disk(disk);
out_free_index:
	/* (the index must go back: uninterruptible, and short) */
	mutex_lock(&rd_ctl_mutex);
	idr_remove(&rd_indexes, rd->index);
	mutex_unlock(&rd_ctl_mutex);
out_free_rd:
	rd_device_free(rd);
	return err;
}
EXPORT_SYMBOL_IF_RD_KUNIT(rd_disk_add);

/* Caller holds rd_ctl_mutex and has taken @rd out of the index map. */
static void rd_disk_destroy(struct rd_device *rd)
{
	del_gendisk(rd->disk);
	put_disk(rd->disk);
	rd_device_free(rd);
}

/* What rd_disk_find_idle() marks on a disk it found idle. */
enum rd_idle_mark {
	RD_IDLE_DELETE,		/* rd->deleting: it goes */
	RD_IDLE_EMPTY,		/* rd->emptying: it is emptied */
};

/*
 * Whether disk @index is idle: nobody holds it open, no grow is filling
 * it and no emptying is running; -ENODEV or -EBUSY if not. An idle disk
 * is marked as @mark says under the same open_mutex, and no open gets in
 * any more. Called with rd_ctl_mutex held.
 */
static int rd_disk_find_idle(u32 index, enum rd_idle_mark mark,
			     struct rd_device **rdp)
{
	struct rd_device *rd = idr_find(&rd_indexes, index);
	int err = 0;

	if (!rd)
		return -ENODEV;
	mutex_lock(&rd->disk->open_mutex);
	if (disk_openers(rd->disk) || rd->growing || rd->emptying)
		err = -EBUSY;
	else if (mark == RD_IDLE_DELETE)
		rd->deleting = true;
	else
		rd->emptying = true;
	mutex_unlock(&rd->disk->open_mutex);
	if (!err)
		*rdp = rd;
	return err;
}

int rd_disk_remove(u32 index)
{
	struct rd_device *rd;
	int err;

	if (mutex_lock_killable(&rd_ctl_mutex))
		return -EINTR;
	err = rd_disk_find_idle(index, RD_IDLE_DELETE, &rd);
	if (!err) {
		idr_remove(&rd_indexes, index);
		rd_disk_destroy(rd);
	}
	mutex_unlock(&rd_ctl_mutex);
	return err;
}
EXPORT_SYMBOL_IF_RD_KUNIT(rd_disk_remove);

/*
 * Grow a preallocated disk: fill the new range with no lock held (the
 * range is unreachable until the capacity says otherwise), then publish.
 * Called with rd_ctl_mutex held; returns with it dropped.
 */
static int rd_disk_grow_prealloc(struct rd_device *rd, sector_t old, u64 size)
{
	pgoff_t first = rd_sectors_to_pages(old);
	int err;

	rd->growing = true;
	mutex_unlock(&rd_ctl_mutex);
	err = rd_store_prealloc(rd, first, DIV_ROUND_UP(size, PAGE_SIZE));
	if (!err && mutex_lock_killable(&rd_ctl_mutex)) {
		/* Killed before publishing: the range goes, unseen. */
		rd_discard(rd, rd_page_sector(first),
			   rd_page_sector(DIV_ROUND_UP(size, PAGE_SIZE) - first),
			   RD_DISCARD_QUIESCED | RD_DISCARD_MAY_SLEEP);
		err = -EINTR;
	}
	if (err)
		/* (@growing must be cleared: uninterruptible, and short) */
		mutex_lock(&rd_ctl_mutex);
	else
		set_capacity_and_notify(rd->disk, size >> SECTOR_SHIFT);
	rd->growing = false;
	mutex_unlock(&rd_ctl_mutex);
	return err;
}

int rd_disk_resize(u32 index, u64 size)
{
	struct rd_device *rd;
	sector_t old, new = size >> SECTOR_SHIFT;
	int err = 0;

	if (mutex_lock_killable(&rd_ctl_mutex))
		return -EINTR;
	rd = idr_find(&rd_indexes, index);
	if (!rd) {
		err = -ENODEV;
		goto out_unlock;
	}
	if (rd->growing || rd->emptying) {
		err = -EBUSY;
		goto out_unlock;
	}
	if (size > rd_ctl_max_size(rd->zs)) {
		err = -ENOMEM;
		goto out_unlock;
	}
	old = get_capacity(rd->disk);
	if (new > old) {
		/* Growing is safe while in use: the new range is unreachable until now. */
		if (rd->prealloc)
			return rd_disk_grow_prealloc(rd, old, size);
		set_capacity_and_notify(rd->disk, new);
	} else if (new < old) {
		mutex_lock(&rd->disk->open_mutex);
		if (disk_openers(rd->disk)) {
			mutex_unlock(&rd->disk->open_mutex);
			err = -EBUSY;
			goto out_unlock;
		}
		set_capacity_and_notify(rd->disk, new);
		mutex_unlock(&rd->disk->open_mutex);
		/*
		 * No I/O reaches past the new end any more: free the cut
		 * pages without RCU, and with open_mutex free for openers
		 * (udev's, after the resize event) meanwhile. (A broken
		 * partial page past the end that could not be zeroed reads
		 * as an error if a grow brings it back: no error here.)
		 */
		(void)rd_discard(rd, new, old - new,
				 RD_DISCARD_QUIESCED | RD_DISCARD_MAY_SLEEP);
	}
out_unlock:
	mutex_unlock(&rd_ctl_mutex);
	return err;
}
EXPORT_SYMBOL_IF_RD_KUNIT(rd_disk_resize);

int rd_disk_free_pages(u32 index)
{
	unsigned int flags = RD_DISCARD_QUIESCED | RD_DISCARD_MAY_SLEEP;
	struct rd_device *rd;
	int err;

	if (mutex_lock_killable(&rd_ctl_mutex))
		return -EINTR;
	err = rd_disk_find_idle(index, RD_IDLE_EMPTY, &rd);
	mutex_unlock(&rd_ctl_mutex);
	if (err)
		return err;

	/* A preallocated disk keeps its memory reserved, zeroed. */
	if (rd->prealloc)
		flags |= RD_DISCARD_KEEP_PAGES;
	/*
	 * With no lock held: rd->emptying keeps out every opener (so no I/O
	 * runs, and the pages are freed at once, before the caller hears
	 * "done": a preallocating add right after a flush counts on it) and
	 * every removal, resize and other emptying (so @rd stays).
	 */
	err = rd_discard(rd, 0, get_capacity(rd->disk), flags);
	/*
	 * A preallocated disk's page whose memory failed and that could not
	 * be replaced by a zeroed one (no memory for it, or no room to
	 * record its lost sectors): the disk is emptied but for that page,
	 * which reads as an error until written. An I/O error, not the
	 * add's ENOMEM or ENOSPC.
	 */
	if (err)
		err = -EIO;

	/* (uninterruptible: the disk must open again; short) */
	mutex_lock(&rd_ctl_mutex);
	mutex_lock(&rd->disk->open_mutex);
	rd->emptying = false;
	mutex_unlock(&rd->disk->open_mutex);
	mutex_unlock(&rd_ctl_mutex);
	/* udev reads the disk again: no md member, no file system left */
	kobject_uevent(&disk_to_dev(rd->disk)->kobj, KOBJ_CHANGE);
	return err;
}
EXPORT_SYMBOL_IF_RD_KUNIT(rd_disk_free_pages);

#ifdef RDMIRROR_TEST_BUILD
/* The page frame behind @sector of disk @index (rd_debugfs.c). */
int rd_disk_pfn(u32 index, sector_t sector, unsigned long *pfn)
{
	struct rd_device *rd;
	int err;

	if (mutex_lock_killable(&rd_ctl_mutex))
		return -EINTR;
	rd = idr_find(&rd_indexes, index);
	if (!rd)
		err = -ENODEV;
	else if (sector >= get_capacity(rd->disk))
		err = -ERANGE;
	else
		err = rd_store_pfn(rd, sector, pfn);
	mutex_unlock(&rd_ctl_mutex);
	return err;
}
#endif

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
