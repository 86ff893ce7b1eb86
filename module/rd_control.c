// SPDX-License-Identifier: GPL-2.0
/*
 * /dev/rdmirror-control: the ioctls that create, remove, resize and empty
 * disks (the model is /dev/loop-control). Requests are checked here, in
 * full, before anything is changed.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/capability.h>
#include <linux/fs.h>
#include <linux/miscdevice.h>
#include <linux/mm.h>
#include <linux/module.h>
#include <linux/string.h>
#include <linux/uaccess.h>

#include "uapi/rdmirror.h"
#include "rd_control.h"
#include "rd_device.h"
#include "rd_kunit_hooks.h"

static bool rd_ctl_zero(const void *p, size_t len)
{
	return !memchr_inv(p, 0, len);
}

/*
 * A compressed disk may be larger than RAM, which is what it is for: up
 * to RD_CTL_COMP_MAX_RATIO times RAM (a ratio lz4 and zstd do not pass
 * on real data, beyond which the xarray's own nodes, 1/500 of the disk
 * when full, begin to count), with its own bound (mem_limit) at most
 * RAM. Its memory is bound all the same by the module's mem_limit. An
 * uncompressed disk may be as large as RAM.
 */
#define RD_CTL_COMP_MAX_RATIO	8

u64 rd_ctl_max_size(bool compressed)
{
	u64 ram = (u64)totalram_pages() << PAGE_SHIFT;

	return compressed ? ram * RD_CTL_COMP_MAX_RATIO : ram;
}
EXPORT_SYMBOL_IF_RD_KUNIT(rd_ctl_max_size);

/*
 * Sizes are whole RDMIRROR_SIZE_ALIGN (4 KiB) blocks, as the uapi header
 * promises, on every page size: on 64 KiB-page kernels the last page of
 * a disk may be partly past its end, which the store handles.
 */
int rd_ctl_check_size(u64 size, bool compressed)
{
	if (!size || size % RDMIRROR_SIZE_ALIGN)
		return -EINVAL;
	if (size > rd_ctl_max_size(compressed))
		return -ENOMEM;
	return 0;
}
EXPORT_SYMBOL_IF_RD_KUNIT(rd_ctl_check_size);

static int rd_ctl_check_compressed(const struct rdmirror_add *req)
{
	if (req->flags & RDMIRROR_ADD_PREALLOC ||
	    (req->comp != RDMIRROR_COMP_LZ4 && req->comp != RDMIRROR_COMP_ZSTD))
		return -EINVAL;
	if (req->mem_limit > rd_ctl_max_size(false))
		return -ENOMEM;
	return rd_ctl_check_size(req->size, true);
}

int rd_ctl_check_add(const struct rdmirror_add *req)
{
	if (req->version != RDMIRROR_ABI_VERSION ||
	    req->flags & ~RDMIRROR_ADD_ALL_FLAGS || req->index ||
	    !rd_ctl_zero(req->reserved, sizeof(req->reserved)))
		return -EINVAL;
	if (req->flags & RDMIRROR_ADD_COMPRESS)
		return rd_ctl_check_compressed(req);
	if (req->comp || req->mem_limit)
		return -EINVAL;
	return rd_ctl_check_size(req->size, false);
}
EXPORT_SYMBOL_IF_RD_KUNIT(rd_ctl_check_add);

int rd_ctl_check_resize(const struct rdmirror_resize *req)
{
	if (req->version != RDMIRROR_ABI_VERSION ||
	    !rd_ctl_zero(req->reserved, sizeof(req->reserved)))
		return -EINVAL;
	/* the largest any disk may be: rd_disk_resize() knows the kind */
	return rd_ctl_check_size(req->size, true);
}
EXPORT_SYMBOL_IF_RD_KUNIT(rd_ctl_check_resize);

int rd_ctl_check_disk(const struct rdmirror_disk *req)
{
	if (req->version != RDMIRROR_ABI_VERSION ||
	    !rd_ctl_zero(req->reserved, sizeof(req->reserved)))
		return -EINVAL;
	return 0;
}
EXPORT_SYMBOL_IF_RD_KUNIT(rd_ctl_check_disk);

struct rd_ctl_add_answer {
	struct rdmirror_add __user *argp;
	struct rdmirror_add req;
};

/*
 * Write the new index back before the disk appears: a caller that cannot
 * be told gets no disk, and nothing has to be removed again (by index,
 * which another request may have reused meanwhile).
 */
static int rd_ctl_add_report(u32 index, void *data)
{
	struct rd_ctl_add_answer *a = data;

	a->req.index = index;
	return copy_to_user(a->argp, &a->req, sizeof(a->req)) ? -EFAULT : 0;
}

static long rd_ctl_add(struct rdmirror_add __user *argp)
{
	struct rd_ctl_add_answer a = { .argp = argp };
	u32 index;
	int err;

	if (copy_from_user(&a.req, argp, sizeof(a.req)))
		return -EFAULT;
	err = rd_ctl_check_add(&a.req);
	if (err)
		return err;
	err = rd_disk_add(a.req.size, a.req.flags, a.req.comp, a.req.mem_limit,
			  rd_ctl_add_report, &a, &index);
	return err ? err : index;
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

	/* A request this device does not know is ENOTTY, whoever asks. */
	switch (cmd) {
	case RDMIRROR_CTL_ADD:
	case RDMIRROR_CTL_REMOVE:
	case RDMIRROR_CTL_RESIZE:
	case RDMIRROR_CTL_FREE_PAGES:
		if (!capable(CAP_SYS_ADMIN))
			return -EPERM;
		break;
	default:
		return -ENOTTY;
	}

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
