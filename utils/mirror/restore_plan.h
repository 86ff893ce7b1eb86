/* SPDX-License-Identifier: GPL-2.0 */
/* --restore --dry-run: the plan for one line of the configuration. */
#ifndef RDCTL_RESTORE_PLAN_H
#define RDCTL_RESTORE_PLAN_H

#include "lib/config.h"
#include "mirror/boot.h"
#include "mirror/options.h"

/*
 * What --restore would do for m, as an item of rep whose action is
 * "planned" (or "refused"/"failed", as the restore would end), the plan
 * in its summary. Changes nothing.
 */
void restore_plan_one(const struct conf_mirror *m, const struct config *cfg, const struct mirror_opts *o,
		      struct boot_report *rep);

#endif
