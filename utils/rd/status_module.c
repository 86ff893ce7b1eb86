// SPDX-License-Identifier: GPL-2.0
#include "rd/status_module.h"

#include <errno.h>
#include <stdlib.h>
#include <sys/utsname.h>

#include <libkmod.h>

#include "lib/seams.h"

#define MODULE_NAME	"rdmirror"

const char *running_kernel(void)
{
	static struct utsname u;
	const char *t = seam("RDCTL_KERNEL_RELEASE");

	if (t && *t)
		return t;
	if (uname(&u) < 0)
		return "unknown";
	return u.release;
}

enum module_state module_state_read(bool loaded)
{
	struct kmod_ctx *ctx;
	struct kmod_list *list = NULL;
	enum module_state s;
	int r;

	if (loaded)
		return MODULE_LOADED;
	/* RDCTL_MODULES_DIR: test hook, as in control.c */
	ctx = kmod_new(seam("RDCTL_MODULES_DIR"), NULL);
	if (!ctx)
		return MODULE_UNKNOWN;
	/* looks in modules.dep and the aliases of this kernel's directory, as modprobe */
	r = kmod_module_new_from_lookup(ctx, MODULE_NAME, &list);
	if (r == 0 || r == -ENOENT)
		s = list ? MODULE_INSTALLED : MODULE_NOT_INSTALLED;
	else
		s = MODULE_UNKNOWN;
	kmod_module_unref_list(list);
	kmod_unref(ctx);
	return s;
}
