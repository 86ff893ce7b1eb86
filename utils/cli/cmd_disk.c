// SPDX-License-Identifier: GPL-2.0
/* --attach, --detach, --resize, --flush: the commands that change disks. */
#include "cli/commands.h"

#include "mirror/checks.h"
#include "mirror/compress.h"
#include "mirror/mirror.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <rdmirror.h>

#include "lib/config.h"
#include "lib/errors.h"
#include "lib/json.h"
#include "lib/lock.h"
#include "lib/meminfo.h"
#include "lib/size.h"
#include "lib/sysfs.h"
#include "lib/util.h"
#include "rd/control.h"

int disk_arg(const char *arg, unsigned *index)
{
	if (rd_parse_name(arg, index))
		return 0;
	return fail(EXIT_USAGE, "USAGE", "invalid disk name '%s': expected rdN or /dev/rdN, for example rd0", arg);
}

static int no_such_disk(unsigned index)
{
	return fail_errno(ENODEV, "no such disk rd%u: see rdctl --list", index);
}

/*
 * Map a kernel errno of an ioctl to one line naming the cause and the way
 * out. op is "attach", "detach", "resize" or "flush"; index is the disk
 * (not used for attach); size the requested size (attach, resize).
 */
static int kernel_fail(int e, const char *op, unsigned index, uint64_t size, bool prealloc)
{
	bool attach = !strcmp(op, "attach"), resize = !strcmp(op, "resize");
	char *sz = size_mib_str(size), *busy;
	int rc;

	if (e == EPERM || e == EACCES) {
		rc = fail_errno(EPERM, "%s needs root (CAP_SYS_ADMIN): run rdctl as root", op);
	} else if (e == ENOMEM && attach) {
		rc = fail_errno(e, "not enough memory for a %s disk%s: choose a smaller size or free memory",
				sz, prealloc ? " (preallocation needs all of it free now)" : "");
	} else if (e == ENOMEM && resize) {
		rc = fail_errno(e, "not enough memory to resize rd%u to %s: choose a smaller size or free memory",
				index, sz);
	} else if (e == ENOSPC && attach) {
		rc = fail_errno(e, "the rdmirror module's max_disks limit is reached: detach a disk first, or reload the module with a larger max_disks");
	} else if ((e == ENODEV || e == ENXIO) && !attach) {
		rc = no_such_disk(index);
	} else if (e == EBUSY && !attach) {
		busy = busy_message(index);
		if (resize)
			rc = fail_errno(e, "cannot shrink rd%u while it is in use (it can only grow): %s", index, busy);
		else
			rc = fail_errno(e, "%s", busy);
		free(busy);
	} else if (e == EINVAL && (attach || resize)) {
		rc = fail_errno(e, "the kernel refused %s as invalid (EINVAL): the size must be a non-zero multiple of 4 KiB, and rdctl %s must match the module version (rdctl --version)",
				op, RDCTL_VERSION);
	} else if (e == EINVAL) {
		rc = fail_errno(e, "the kernel refused %s of rd%u as invalid (EINVAL): rdctl %s must match the module version (rdctl --version)",
				op, index, RDCTL_VERSION);
	} else if (e == EIO && !strcmp(op, "flush")) {
		rc = fail_errno(e, "rd%u was emptied but for a page whose memory failed and could not be replaced by a zeroed one (no memory for it): its blocks read as I/O errors until written; see dmesg, and flush again once memory is free",
				index);
	} else if (e == EINTR) {
		rc = fail_errno(e, "%s was interrupted: nothing was changed; try again", op);
	} else if (e == ENOTTY) {
		rc = fail_errno(e, "the rdmirror module does not know the %s request (ENOTTY): install matching versions of rdctl (%s) and the module (rdctl --version)",
				op, RDCTL_VERSION);
	} else if (attach) {
		rc = fail_errno(e, "attach failed: %s (%s): see dmesg", strerror(e), errno_code(e));
	} else {
		rc = fail_errno(e, "%s of rd%u failed: %s (%s): see dmesg", op, index, strerror(e), errno_code(e));
	}
	free(sz);
	return rc;
}

static int close_control(int fd, int rc)
{
	if (close(fd) < 0 && rc == 0)
		return fail_errno(errno, "closing the rdmirror control device failed: %s", strerror(errno));
	return rc;
}

/*
 * The memory check of a new disk: an uncompressed one must fit in what is
 * available; a compressed one may be larger than RAM, and gets the bound
 * of compress.h instead (the reserve from the configuration, when it has
 * a reserve line). 0 or an exit code.
 */
static int attach_memory(const struct cli_opts *o, struct rd_spec *spec)
{
	if (!spec->comp)
		return check_memory(o->m.ignore_memory, spec->size, "attaching this disk");
	return compress_limit_conf(config_path(o->m.config), o->m.ignore_memory, "a compressed disk", &spec->mem_limit);
}

static int attach_failed(int e, const struct rd_spec *spec)
{
	char *why;
	int rc;

	if (e != EINVAL || !spec->comp)
		return kernel_fail(e, "attach", 0, spec->size, spec->prealloc);
	why = attach_error(e, spec->size, NULL, spec->comp);
	rc = fail_errno(e, "%s", why);
	free(why);
	return rc;
}

int cmd_attach(const struct cli_opts *o, uint64_t size)
{
	struct rd_spec spec = { .size = size, .prealloc = o->m.prealloc, .comp = o->m.compress };
	unsigned index = 0;
	int fd, rc, r;
	char *sz;

	if ((rc = change_begin("attach")))
		return rc;
	if ((rc = attach_memory(o, &spec)))
		return rc;
	rc = control_open(true, &fd);
	if (rc)
		return rc;
	r = ctl_add(fd, &spec, &index);
	rc = close_control(fd, r < 0 ? attach_failed(-r, &spec) : 0);
	if (rc)
		return rc;
	if (o->m.json) {
		json_t *root = jobj(), *a = jobj();

		jset(a, "name", json_sprintf("%s%u", RDMIRROR_DISK_PREFIX, index));
		jset(a, "size", ju64(size));
		jset(a, "preallocated", json_boolean(o->m.prealloc));
		if (spec.comp) {
			jset(a, "compress", json_string(config_comp_name(spec.comp)));
			jset(a, "mem_limit", ju64(spec.mem_limit));
		}
		jset(root, "attached", a);
		return json_emit(root);
	}
	sz = size_mib_str(size);
	if (spec.comp) {
		char *lim = size_mib_str(spec.mem_limit / 1048576 * 1048576);

		r = printf("Attached device %s%u of size %s, compressed with %s, memory limit %s\n", RDMIRROR_DISK_PREFIX,
			   index, sz, config_comp_name(spec.comp), lim);
		free(lim);
	} else {
		r = printf("Attached device %s%u of size %s\n", RDMIRROR_DISK_PREFIX, index, sz);
	}
	free(sz);
	if (r < 0 || fflush(stdout) == EOF)
		return fail_errno(EIO, "cannot write to standard output");
	return 0;
}

static int emit_simple(const struct cli_opts *o, const char *key, json_t *obj, char *text)
{
	int r = 0;

	if (o->m.json) {
		json_t *root = jobj();

		jset(root, key, obj);
		free(text);
		return json_emit(root);
	}
	json_decref(obj);
	if (printf("%s\n", text) < 0 || fflush(stdout) == EOF)
		r = fail_errno(EIO, "cannot write to standard output");
	free(text);
	return r;
}

int cmd_detach(const struct cli_opts *o, unsigned index)
{
	int fd, rc, r;
	json_t *obj;

	if ((rc = change_begin("detach")))
		return rc;
	rc = control_open(false, &fd);
	if (rc)
		return rc;
	r = ctl_remove(fd, index);
	rc = close_control(fd, r < 0 ? kernel_fail(-r, "detach", index, 0, false) : 0);
	if (rc)
		return rc;
	obj = jobj();
	jset(obj, "name", json_sprintf("%s%u", RDMIRROR_DISK_PREFIX, index));
	return emit_simple(o, "detached", obj, xasprintf("Detached device %s%u", RDMIRROR_DISK_PREFIX, index));
}

int cmd_resize(const struct cli_opts *o, unsigned index, uint64_t size)
{
	struct rd_disk d;
	uint64_t old;
	bool compressed;
	char *a, *b, *text;
	int fd, rc, r;
	json_t *obj;

	if ((rc = change_begin("resize")))
		return rc;
	r = rd_disk_read(index, &d);
	if (r == -ENODEV)
		return no_such_disk(index);
	if (r < 0)
		return fail_errno(-r, "cannot read %s/block/rd%u: %s", sysfs_root(), index, strerror(-r));
	old = d.size;
	/* a compressed disk's memory is bound by its mem_limit, not its size */
	compressed = d.compressor != NULL;
	rd_disk_clear(&d);
	if (size > old && !compressed &&
	    (rc = check_memory(o->m.ignore_memory, size - old, "growing this disk")))
		return rc;
	rc = control_open(false, &fd);
	if (rc)
		return rc;
	r = ctl_resize(fd, index, size);
	rc = close_control(fd, r < 0 ? kernel_fail(-r, "resize", index, size, false) : 0);
	if (rc)
		return rc;
	a = size_mib_str(old);
	b = size_mib_str(size);
	text = xasprintf("Resized device %s%u from %s to %s", RDMIRROR_DISK_PREFIX, index, a, b);
	free(a);
	free(b);
	obj = jobj();
	jset(obj, "name", json_sprintf("%s%u", RDMIRROR_DISK_PREFIX, index));
	jset(obj, "old_size", ju64(old));
	jset(obj, "size", ju64(size));
	return emit_simple(o, "resized", obj, text);
}

int cmd_flush(const struct cli_opts *o, unsigned index)
{
	struct rd_disk d;
	bool has_before = false, has_after = false;
	uint64_t before = 0, after = 0;
	char *text, *freed;
	int fd, rc, r;
	json_t *obj;

	if ((rc = change_begin("flush")))
		return rc;
	if (rd_disk_read(index, &d) == 0) {
		has_before = d.has_allocated;
		before = d.allocated;
		rd_disk_clear(&d);
	}
	rc = control_open(false, &fd);
	if (rc)
		return rc;
	r = ctl_free_pages(fd, index);
	rc = close_control(fd, r < 0 ? kernel_fail(-r, "flush", index, 0, false) : 0);
	if (rc)
		return rc;
	if (rd_disk_read(index, &d) == 0) {
		has_after = d.has_allocated;
		after = d.allocated;
		rd_disk_clear(&d);
	}
	if (has_before && has_after) {
		freed = size_human(before > after ? before - after : 0);
		text = xasprintf("Flushed device %s%u: freed %s", RDMIRROR_DISK_PREFIX, index, freed);
		free(freed);
	} else {
		text = xasprintf("Flushed device %s%u", RDMIRROR_DISK_PREFIX, index);
	}
	obj = jobj();
	jset(obj, "name", json_sprintf("%s%u", RDMIRROR_DISK_PREFIX, index));
	jset(obj, "allocated_before", has_before ? ju64(before) : json_null());
	jset(obj, "allocated", has_after ? ju64(after) : json_null());
	return emit_simple(o, "flushed", obj, text);
}
