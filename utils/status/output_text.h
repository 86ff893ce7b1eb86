/* SPDX-License-Identifier: GPL-2.0 */
/* Output for people: the --status report (the --list table: list_table.h). */
#ifndef RDCTL_OUTPUT_TEXT_H
#define RDCTL_OUTPUT_TEXT_H

#include <stddef.h>
#include <stdio.h>

#include "lib/meminfo.h"
#include "lib/sysfs.h"
#include "md/md.h"
#include "status/status.h"
#include "status/view.h"
#include "status/warnings.h"

/* The --status report. 0 or -1 on a write error. */
int text_status(FILE *f, const struct status *st);

#endif
