// SPDX-License-Identifier: GPL-2.0
/*
 * /dev/rdmirror-control: the ioctls that create, remove, resize and empty
 * disks (the model is /dev/loop-control). Requests are checked here, in
 * full, before anything is changed.
 */
#include <linux/capability.h>
#include <linux/fs.h>
#include <linux/miscdevice.h>
#include <linux/mm.h>
#include <linux/module.h>
#include <linux/string.h>
#include <linux/uaccess.h>

#include "uapi/rdmirror.h"
#include "compat.h"
#include "rd_control.h"
#include "rd_device.h"

static bool rd_ctl_zero(const void *p, size_t len)
{
	return !memchr_inv(p, 0, len);
}

int rd_ctl_check_size(u64 size)
{
	if (!size || size % RDMIRROR_SIZE_ALIGN || size % PAGE_SIZE)
		return -EINVAL;
	if (size > (u64)totalram_pages() << PAGE_SHIFT)
		return -ENOMEM;
	return 0;
}
EXPORT_SYMBOL_IF_KUNIT(rd_ctl_check_size);

int rd_ctl_check_add(const struct rdmirror_add *req)
{
	if (req->version != RDMIRROR_ABI_VERSION ||
	    req->flags & ~RDMIRROR_ADD_ALL_FLAGS || req->index ||
	    req->reserved0 || !rd_ctl_zero(req->reserved, sizeof(req->reserved)))
		return -EINVAL;
	return rd_ctl_check_size(req->size);
}
EXPORT_SYMBOL_IF_KUNIT(rd_ctl_check_add);

int rd_ctl_check_resize(const struct rdmirror_resize *req)
{
	if (req->version != RDMIRROR_ABI_VERSION ||
	    !rd_ctl_zero(req->reserved, sizeof(req->reserved)))
		return -EINVAL;
	return rd_ctl_check_size(req->size);
}
EXPORT_SYMBOL_IF_KUNIT(rd_ctl_check_resize);

int rd_ctl_check_disk(const struct rdmirror_disk *req)
{
	if (req->version != RDMIRROR_ABI_VERSION ||
	    !rd_ctl_zero(req->reserved, sizeof(req->reserved)))
		return -EINVAL;
	return 0;
}
EXPORT_SYMBOL_IF_KUNIT(rd_ctl_check_disk);

static long rd_ctl_add(struct rdmirror_add __user *argp)
{
	struct rdmirror_add req;
	u32 index;
	int err;

	if (copy_from_user(&req, argp, sizeof(req)))
		return -EFAULT;
	err = rd_ctl_check_add(&req);
	if (err)
		return err;
	/*
	 * Find out now whether the answer can be written back: once the disk
	 * exists, udev opens it at once, and removing it again after a failed
	 * copy would meet EBUSY and leave a disk nobody knows the index of
	 * (the control fuzzer found that orphan).
	 */
	if (copy_to_user(argp, &req, sizeof(req)))
		return -EFAULT;
	err = rd_disk_add(req.size, req.flags, &index);
	if (err)
		return err;
	req.index = index;
	if (copy_to_user(argp, &req, sizeof(req))) {
		/*
		 * Only a caller that unmapped or protected the struct meanwhile
		 * gets here. Best effort: if udev holds the disk, it stays, in
		 * sysfs for anyone to see and remove.
		 */
		if (rd_disk_remove(index))
			pr_warn("rdmirror: rd%u made, but its index could not be returned\n",
				index);
		return -EFAULT;
	}
	return index;
}

static long rd_ctl_resize(struct rdmirror_resize __user *argp)
{
	struct rdmirror_resize req;
	int err;

	if (copy_from_user(&req, argp, sizeof(req)))
		return -EFAULT;
	err = rd_ctl_check_resize(&req);
	if (err)
		return err;
	return rd_disk_resize(req.index, req.size);
}

static long rd_ctl_disk(struct rdmirror_disk __user *argp,
			int (*op)(u32 index))
{
	struct rdmirror_disk req;
	int err;

	if (copy_from_user(&req, argp, sizeof(req)))
		return -EFAULT;
	err = rd_ctl_check_disk(&req);
	if (err)
		return err;
	return op(req.index);
}

static long rd_ctl_ioctl(struct file *file, unsigned int cmd,
			 unsigned long arg)
{
	void __user *argp = (void __user *)arg;

	if (!capable(CAP_SYS_ADMIN))
		return -EPERM;

	switch (cmd) {
	case RDMIRROR_CTL_ADD:
		return rd_ctl_add(argp);
	case RDMIRROR_CTL_REMOVE:
		return rd_ctl_disk(argp, rd_disk_remove);
	case RDMIRROR_CTL_RESIZE:
		return rd_ctl_resize(argp);
	case RDMIRROR_CTL_FREE_PAGES:
		return rd_ctl_disk(argp, rd_disk_free_pages);
	default:
		return -ENOTTY;
	}
}

static const struct file_operations rd_ctl_fops = {
	.owner		= THIS_MODULE,
	.open		= nonseekable_open,
	.unlocked_ioctl	= rd_ctl_ioctl,
	.compat_ioctl	= compat_ptr_ioctl,
	.llseek		= noop_llseek,
};

static struct miscdevice rd_ctl_misc = {
	.minor	= MISC_DYNAMIC_MINOR,
	.name	= RDMIRROR_CONTROL_NAME,
	.fops	= &rd_ctl_fops,
	.mode	= 0600,
};

int rd_control_init(void)
{
	return misc_register(&rd_ctl_misc);
}

void rd_control_exit(void)
{
	misc_deregister(&rd_ctl_misc);
}
