/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The context of one mirror verb (--convert, --revert, --refresh; cli/
 * holds each verb's file), built once a command: the options it takes,
 * the lock (unless a dry run), the array resolved and read, and the
 * configuration's path worked out, its text read at the first need
 * (conf_steps.h). The verb is then its refusals (checks.h) and its steps
 * (steps.h), each step saying what undoes or finishes it.
 */
#ifndef RDCTL_VERB_H
#define RDCTL_VERB_H

#include <stdbool.h>

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

#endif
