/* SPDX-License-Identifier: GPL-2.0 */
/* Refusals shared by the verbs that change memory or mirrors. */
#ifndef RDCTL_CHECKS_H
#define RDCTL_CHECKS_H

#include <stdint.h>

#include "mirror/options.h"

/* Refuse needing more than MemAvailable unless --ignore-memory (what: "attaching this disk"). */
int check_memory(const struct opts *o, uint64_t need, const char *what);
/* Refuse a kernel with a known md bug that loses a RAM mirror's data, unless --ignore-kernel-bug. */
int check_kernel_bug(const struct opts *o, const char *verb);

#endif
