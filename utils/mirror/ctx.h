/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The context of one mirror verb (struct mirror_ctx): what verb.h's
 * functions build and every step of a verb's table is given. Apart from
 * verb.h so that steps.c, whose steps verb.c runs, can read it.
 */
#ifndef RDCTL_CTX_H
#define RDCTL_CTX_H

#include "md/md.h"
#include "mirror/conf_steps.h"
#include "mirror/disk_check.h"
#include "mirror/mirror.h"
#include "mirror/options.h"

/*
 * A verb that needs more (what --refresh puts back, --create's disks)
 * embeds this as the first member of its own context, so that its steps,
 * given this, convert it back (C11 6.7.2.1).
 */
struct mirror_ctx {
	const struct mirror_opts *o;
	const char *verb;	/* "convert" */
	const char *array;	/* ARRAY as the user wrote it */
	char *mdpath, *kname;	/* what mdadm is given; the kernel name (--create: NULL until known) */
	struct md_array a;	/* --create: empty, the array is made by a step */
	struct conf_file conf;
	struct mirror_run *r;	/* the record of the steps, once they start */
	char *rdpath;		/* the attached RAM disk's path (a dry run: DEV/rdN), or --member's */
	struct disk_info member;	/* --member: the disk, checked (member.h); zeroed for RAM */
	uint64_t mem_limit;	/* --compress: the RAM member's bound (mirror_check_memory()) */
};

#endif
