/* SPDX-License-Identifier: GPL-2.0 */
/* --restore: the boot-time return of every configured mirror's RAM member. */
#ifndef RDCTL_RESTORE_H
#define RDCTL_RESTORE_H

#include <stdbool.h>

#include "mirror/conf_steps.h"
#include "mirror/options.h"

/* --restore: every line of the configuration. An exit code. */
int cmd_restore(const struct mirror_opts *o);

/*
 * The restore of the configuration line that names the array kname (as
 * --restore does it for that line alone, with its report): what finishes
 * an interrupted --create or --convert, from the verb's configuration f.
 * *found false (and 0) when no line names it. An exit code.
 */
int restore_array(const struct mirror_opts *o, struct conf_file *f, const char *kname, bool *found);

#endif
