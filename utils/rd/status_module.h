/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Is the rdmirror module there for the running kernel? After a kernel
 * upgrade DKMS may not have built it (no headers), and then no restore
 * can work: --status tells that apart from "loaded" and "installed".
 */
#ifndef RDCTL_STATUS_MODULE_H
#define RDCTL_STATUS_MODULE_H

#include <stdbool.h>

enum module_state {
	MODULE_LOADED,
	MODULE_INSTALLED,	/* not loaded, but modprobe would find it */
	MODULE_NOT_INSTALLED,	/* none for this kernel */
	MODULE_UNKNOWN,		/* libkmod could not tell */
};

/* loaded: /sys/module/rdmirror exists (module_info_read()). */
enum module_state module_state_read(bool loaded);
/* uname -r, or $RDCTL_KERNEL_RELEASE (tests); static storage. */
const char *running_kernel(void);

#endif
