/* SPDX-License-Identifier: GPL-2.0 */
/* --release: every RAM member out of its mirror before the memory goes. */
#ifndef RDCTL_RELEASE_H
#define RDCTL_RELEASE_H

#include "mirror/options.h"

/* --release: every mirror with a RAM member. An exit code. */
int cmd_release(const struct opts *o);

#endif
