/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The mirror verbs that change an array (--create, --convert, --revert,
 * --refresh: mirror/<verb>.c; --restore and --release: restore.h,
 * release.h), and the context of one (struct mirror_ctx: --convert,
 * --revert, --refresh), built once a command: the options it takes,
 * the lock (unless a dry run), the array resolved and read, and the
 * configuration's path worked out, its text read at the first need
 * (conf_steps.h). The verb is then its refusals (checks.h) and its steps
 * (steps.h), each step saying what undoes or finishes it.
 */
#ifndef RDCTL_VERB_H
#define RDCTL_VERB_H

#include <stdbool.h>
#include <stddef.h>

#include "md/md.h"
#include "mirror/conf_steps.h"
#include "mirror/mirror.h"
#include "mirror/options.h"

struct mirror_ctx {
	const struct mirror_opts *o;
	const char *verb;	/* "convert" */
	const char *array;	/* ARRAY as the user wrote it */
	char *mdpath, *kname;	/* what mdadm is given; the kernel name */
	struct md_array a;
	struct conf_file conf;
};

/*
 * Root and the lock (not for a dry run), the known-md-bug refusal when
 * kernel_bug, the array found (mirror_find_array()). 0 or an exit code
 * with the error recorded; mirror_close() it either way.
 */
int mirror_open(struct mirror_ctx *c, const struct mirror_opts *o, const char *verb, const char *array,
		bool kernel_bug);
void mirror_close(struct mirror_ctx *c);

/* The record of the verb's steps (mirror.h), with the array's UUID and its persistent members. */
void mirror_ctx_run(struct mirror_ctx *c, struct mirror_run *r);

/*
 * The verbs, called once the command line is parsed. Each returns the
 * exit status, with any error recorded (lib/errors.h).
 */
int cmd_create(const struct mirror_opts *o, const char *array, char *const disks[], size_t ndisks);
int cmd_convert(const struct mirror_opts *o, const char *array);
int cmd_revert(const struct mirror_opts *o, const char *array);
int cmd_refresh(const struct mirror_opts *o, const char *array);

#endif
