/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The mirror verbs that change an array (--create, --convert, --revert,
 * --refresh, --release, and --restore for each line of the configuration:
 * mirror/<verb>.c; restore.h and release.h declare the last two, which run
 * over many arrays), and the context of one (struct mirror_ctx), built once a
 * command: the options it takes, the lock (unless a dry run), the array
 * resolved and read (mirror_open(); --create makes it, create.c), and the
 * configuration's path worked out, its text read at the first need
 * (conf_steps.h). A verb is then its refusals (checks.h) and a table of
 * its steps (struct verb_step, made of steps.h's), each with what undoes
 * or finishes it, run in order by mirror_run_steps().
 */
#ifndef RDCTL_VERB_H
#define RDCTL_VERB_H

#include <stdbool.h>
#include <stddef.h>

#include "md/md.h"
#include "mirror/ctx.h"
#include "mirror/mirror.h"
#include "mirror/options.h"


/* --member: the fast member is a disk, no RAM disk is attached. */
bool mirror_ctx_ram(const struct mirror_ctx *c);

/*
 * --member: the checked disk c->member becomes the fast member of the run
 * c->r (before its steps): its kernel name, path and size in the record, and
 * md marks it the fast member from then on (md_fast_disk_add()).
 */
void mirror_ctx_member(struct mirror_ctx *c);

/*
 * One step of a verb; a verb's steps are a table, run in its order by
 * mirror_run_steps(). run does the step: 0, or an exit code with the
 * error recorded. when (NULL: always) says whether the verb takes it,
 * from the options and what the steps before found. failed (NULL: run's
 * exit code as it is) is what undoes or finishes the steps done so far
 * once this one failed: it undoes what must not stay, records with
 * mirror_failed() the state the array is left in and the command that
 * finishes or undoes it, and returns the exit code. It is each step's
 * own, not an undo per step run backwards, because what stays depends on
 * how far the verb got (a --convert whose grow is done keeps its
 * configuration line when the add fails: --restore fills the slot).
 */
struct verb_step {
	const char *name;	/* what it does, for the reader */
	bool (*when)(const struct mirror_ctx *c);
	int (*run)(struct mirror_ctx *c);
	int (*failed)(struct mirror_ctx *c);
};

/* The steps in order, until one fails. 0, or the failed step's exit code. */
int mirror_run_steps(struct mirror_ctx *c, const struct verb_step *steps, size_t n);
#define MIRROR_RUN_STEPS(c, table) mirror_run_steps((c), (table), sizeof(table) / sizeof((table)[0]))

/*
 * The context of one command: the options, the verb, ARRAY as given, the
 * configuration's path worked out (its text is read at the first need);
 * and the local disks it names as fast members known (md_fast_disk_add()):
 * nothing checked or resolved yet. mirror_open() starts with it; --create,
 * whose array a step makes, calls it alone. mirror_close() it.
 */
void mirror_ctx_init(struct mirror_ctx *c, const struct mirror_opts *o, const char *verb, const char *array);

/*
 * Root and the lock (not for a dry run), the known-md-bug refusal when
 * kernel_bug, the array found (mirror_find_array()). 0 or an exit code
 * with the error recorded; mirror_close() it either way (it frees what
 * the context holds, not c->r).
 */
int mirror_open(struct mirror_ctx *c, const struct mirror_opts *o, const char *verb, const char *array,
		bool kernel_bug);
void mirror_close(struct mirror_ctx *c);

/* The record of the verb's steps (mirror.h, c->r), with the array's UUID and its persistent members. */
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
