/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The verbs of the command line, one file each in cli/ (--restore and
 * --release: mirror/restore.h, mirror/release.h). Each returns the exit
 * status, with any error recorded (lib/errors.h).
 */
#ifndef RDCTL_COMMANDS_H
#define RDCTL_COMMANDS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "mirror/options.h"


int cmd_attach(const struct opts *o, uint64_t size);
int cmd_detach(const struct opts *o, unsigned index);
int cmd_resize(const struct opts *o, unsigned index, uint64_t size);
int cmd_flush(const struct opts *o, unsigned index);
/* --list [rdN...]: every disk, or the named ones. */
int cmd_list(const struct opts *o, char *const names[], size_t nnames);
int cmd_status(const struct opts *o);
int cmd_version(const struct opts *o);
int cmd_create(const struct opts *o, const char *array, char *const disks[], size_t ndisks);
int cmd_convert(const struct opts *o, const char *array);
int cmd_revert(const struct opts *o, const char *array);
int cmd_refresh(const struct opts *o, const char *array);

#endif
