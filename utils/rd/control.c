// SPDX-License-Identifier: GPL-2.0
#include "rd/control.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <time.h>
#include <unistd.h>

#include <libkmod.h>
#include <rdmirror.h>

#include "lib/config.h"
#include "lib/errors.h"
#include "lib/journal.h"
#include "lib/seams.h"
#include "lib/size.h"
#include "lib/sysfs.h"
#include "lib/util.h"
#include "rd/module_help.h"
#include "rd/status_module.h"

#define MODULE_NAME	"rdmirror"
#define WAIT_MS		3000
#define POLL_MS		50
#define BUSY_WAIT_MS	2000

static int load_error(int e)
{
	char *fix, *cause;
	int rc;

	switch (e) {
	case EPERM:
	case EACCES:
		return fail_errno(e, "loading the rdmirror module needs root: run rdctl as root");
	case ENOENT:
		fix = module_missing_fix(running_kernel());
		rc = fail_errno(e, "the rdmirror module is not installed for the running kernel %s: %s",
				running_kernel(), fix);
		free(fix);
		return rc;
	case ENOEXEC:
	case EINVAL:
		fix = module_mismatch_fix(running_kernel());
		rc = fail_errno(e, "the rdmirror module does not fit the running kernel %s: rebuild it for this kernel (make, or %s)",
				running_kernel(), fix);
		free(fix);
		return rc;
	case ENOKEY:
	case EKEYREJECTED:
		cause = module_signature_cause();
		fix = module_signature_fix();
		rc = fail_errno(e, "the kernel refused the rdmirror module's signature: %s; fix: %s",
				cause, fix);
		free(fix);
		free(cause);
		return rc;
	default:
		return fail_errno(e, "cannot load the rdmirror module: %s: see dmesg", strerror(e));
	}
}

int module_load(void)
{
	struct kmod_ctx *ctx;
	struct kmod_list *list = NULL, *l;
	int r, rc = 0;
	bool any = false;

	/* RDCTL_MODULES_DIR: test hook, a modules directory instead of /lib/modules/$(uname -r) */
	ctx = kmod_new(seam("RDCTL_MODULES_DIR"), NULL);
	if (!ctx)
		return fail_errno(ENOMEM, "cannot initialise libkmod to load the rdmirror module");
	r = kmod_module_new_from_lookup(ctx, MODULE_NAME, &list);
	if (r < 0) {
		rc = load_error(-r);
		goto out;
	}
	kmod_list_foreach(l, list) {
		struct kmod_module *mod = kmod_module_get_module(l);

		any = true;
		r = kmod_module_probe_insert_module(mod, KMOD_PROBE_APPLY_BLACKLIST, NULL, NULL, NULL, NULL);
		kmod_module_unref(mod);
		if (r == KMOD_PROBE_APPLY_BLACKLIST) {
			rc = fail_errno(EPERM, "the rdmirror module is blacklisted in the modprobe configuration (/etc/modprobe.d): remove the blacklist line to use rdctl");
			goto out;
		}
		if (r < 0) {
			rc = load_error(-r);
			goto out;
		}
		break;
	}
	if (!any)
		rc = load_error(ENOENT);
out:
	kmod_module_unref_list(list);
	kmod_unref(ctx);
	return rc;
}

int control_open(bool load, int *fd)
{
	char *path = xasprintf("%s/%s", dev_root(), RDMIRROR_CONTROL_NAME);
	struct module_info mi;
	int rc = 0;

	*fd = -1;
	module_info_read(&mi);
	if (!mi.loaded && !mi.control_present) {
		if (!load) {
			rc = fail_errno(ENODEV, "the rdmirror module is not loaded, so there is no rd disk: see rdctl --list");
			goto out;
		}
		rc = module_load();
		if (rc)
			goto out;
	}
	for (int waited = 0; !path_exists(path) && waited < WAIT_MS; waited += POLL_MS)
		util_sleep_ms(POLL_MS);
	*fd = open(path, O_RDWR | O_CLOEXEC);
	if (*fd < 0) {
		int e = errno;

		if (e == EACCES || e == EPERM)
			rc = fail_errno(EPERM, "permission denied on %s: managing rd disks needs root (CAP_SYS_ADMIN): run rdctl as root", path);
		else if (e == ENOENT)
			rc = fail_errno(ENODEV, "the rdmirror module is loaded but %s did not appear within 3 s: check that devtmpfs/udev is running, or reload the module",
					path);
		else
			rc = fail_errno(e, "cannot open %s: %s", path, strerror(e));
	}
out:
	module_info_clear(&mi);
	free(path);
	return rc;
}

static int do_ioctl(int fd, unsigned long req, void *arg)
{
	int r;

	/* no retry on EINTR: rdctl has no signal handlers, and the kernel
	 * returns EINTR only when a fatal signal stopped a preallocation */
	r = ioctl(fd, req, arg);
	return r < 0 ? -errno : 0;
}

int ctl_add(int fd, const struct rd_spec *spec, unsigned *index)
{
	struct rdmirror_add a;
	char *sz, *how;
	int r;

	memset(&a, 0, sizeof(a));
	a.version = RDMIRROR_ABI_VERSION;
	a.flags = spec->prealloc ? RDMIRROR_ADD_PREALLOC : 0;
	a.size = spec->size;
	if (spec->comp) {
		a.flags |= RDMIRROR_ADD_COMPRESS;
		a.comp = spec->comp;
		a.mem_limit = spec->mem_limit;
	}
	r = do_ioctl(fd, RDMIRROR_CTL_ADD, &a);
	sz = size_human(spec->size);
	how = spec->comp ? xasprintf(", compressed (%s, memory limit %llu bytes)", config_comp_name(spec->comp),
				     (unsigned long long)spec->mem_limit)
			 : xstrdup(spec->prealloc ? ", preallocated" : "");
	if (r == 0) {
		*index = a.index;
		journal(LOG_INFO, "attach rd%u: %s%s", a.index, sz, how);
	} else {
		journal(LOG_ERR, "attach of %s%s failed: %s", sz, how, strerror(-r));
	}
	free(how);
	free(sz);
	return r;
}

/*
 * udev opens every new disk for a moment to probe it, so a detach, shrink
 * or flush right after an attach can meet an EBUSY that nobody the user
 * can see explains. Wait that out, up to BUSY_WAIT_MS, while no holder
 * and no mount account for it.
 */
static bool busy_is_transient(unsigned index)
{
	struct rd_disk d;
	bool transient;

	if (rd_disk_read(index, &d) < 0)
		return false;
	transient = !d.nholders && !d.mountpoint;
	rd_disk_clear(&d);
	return transient;
}

static int disk_do_ioctl(int fd, unsigned long req, void *arg, unsigned index)
{
	int r;

	for (int waited = 0;; waited += POLL_MS) {
		r = do_ioctl(fd, req, arg);
		if (r != -EBUSY || waited >= BUSY_WAIT_MS || !busy_is_transient(index))
			return r;
		util_sleep_ms(POLL_MS);
	}
}

static int disk_ioctl(int fd, unsigned long req, unsigned index)
{
	struct rdmirror_disk d;

	memset(&d, 0, sizeof(d));
	d.version = RDMIRROR_ABI_VERSION;
	d.index = index;
	return disk_do_ioctl(fd, req, &d, index);
}

/* what: "detach", "flush" (the line says what a flush drops) */
static void journal_disk(int r, const char *what, unsigned index, const char *detail)
{
	if (r < 0)
		journal(LOG_ERR, "%s rd%u failed: %s", what, index, strerror(-r));
	else
		journal(LOG_INFO, "%s rd%u%s", what, index, detail);
}

int ctl_remove(int fd, unsigned index)
{
	int r = disk_ioctl(fd, RDMIRROR_CTL_REMOVE, index);

	journal_disk(r, "detach", index, "");
	return r;
}

int ctl_free_pages(int fd, unsigned index)
{
	int r = disk_ioctl(fd, RDMIRROR_CTL_FREE_PAGES, index);

	journal_disk(r, "flush", index, ": its data dropped, its pages freed");
	return r;
}

int ctl_resize(int fd, unsigned index, uint64_t size)
{
	struct rdmirror_resize rs;
	char *sz;
	int r;

	memset(&rs, 0, sizeof(rs));
	rs.version = RDMIRROR_ABI_VERSION;
	rs.index = index;
	rs.size = size;
	r = disk_do_ioctl(fd, RDMIRROR_CTL_RESIZE, &rs, index);
	sz = size_human(size);
	if (r < 0)
		journal(LOG_ERR, "resize rd%u to %s failed: %s", index, sz, strerror(-r));
	else
		journal(LOG_INFO, "resize rd%u to %s", index, sz);
	free(sz);
	return r;
}

char *busy_message(unsigned index)
{
	struct rd_disk d;
	char *msg;

	if (rd_disk_read(index, &d) < 0)
		return xasprintf("rd%u is in use: see fuser -v /dev/rd%u", index, index);
	/*
	 * Not mdadm --fail --remove: that skips rdctl's refusal when the
	 * RAM member holds the only good copy of some blocks (every disk
	 * recorded them bad), and leaves the array's slot and write-mostly
	 * disks behind.
	 */
	if (d.nholders && !strncmp(d.holders[0], "md", 2))
		msg = xasprintf("%s is the RAM member of %s: take it out with rdctl --release /dev/%s (until the next rdctl --restore) or rdctl --revert /dev/%s (for good)",
				d.name, d.holders[0], d.holders[0], d.holders[0]);
	else if (d.nholders)
		msg = xasprintf("%s is held by %s: remove %s first (see /sys/block/%s/holders)",
				d.name, d.holders[0], d.holders[0], d.name);
	else if (d.mountpoint)
		msg = xasprintf("%s is mounted on %s: unmount it first", d.name, d.mountpoint);
	else
		msg = xasprintf("%s is open by a process: see fuser -v /dev/%s", d.name, d.name);
	rd_disk_clear(&d);
	return msg;
}
