/* SPDX-License-Identifier: GPL-2.0 */
/* --release: every RAM member out of its mirror before the memory goes. */
#ifndef RDCTL_RELEASE_H
#define RDCTL_RELEASE_H

#include <stddef.h>

#include "mirror/options.h"

/*
 * --release [ARRAY...]: every mirror with a RAM member, or the n arrays
 * named (each must have a RAM member or a warm-up); with o->dry_run, what
 * it would do, changing nothing. An exit code.
 */
int cmd_release(const struct mirror_opts *o, char *const arrays[], size_t n);

#endif
