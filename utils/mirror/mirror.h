/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The changes --create, --convert and --revert make, step by step. Each
 * step is printed as the command it amounts to ("mdadm ...", "rdctl
 * --attach 255M", "echo writemostly > /sys/..."), before it runs, so the
 * user sees what happens and can finish or undo it by hand; with
 * --dry-run the steps are printed and nothing runs. The report (text or
 * JSON) is printed at the end.
 */
#ifndef RDCTL_MIRROR_H
#define RDCTL_MIRROR_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct mirror_step {
	char *command;
	const char *status;	/* "planned", "done", "failed" */
	bool undo;		/* taken to undo an earlier step */
};

struct mirror_run {
	const char *verb;	/* "create", "convert", "revert" */
	bool dry_run, json;
	char *array;		/* kernel name ("md0") once known, else as given */
	char *uuid, *rd;	/* rd: the fast member's kernel name ("rd3", or a disk's "nvme0n1") */
	char *member;		/* --member: the disk's path as given (rd is its kernel name); NULL: RAM */
	bool has_size;
	uint64_t size;		/* bytes of the RAM member */
	bool prealloc;
	unsigned comp;		/* RDMIRROR_COMP_* of a compressed RAM member; 0: uncompressed */
	uint64_t mem_limit;	/* a compressed RAM member's memory bound, bytes */
	char **members;		/* persistent members */
	size_t nmembers;
	char **wm;		/* members whose write-mostly flag was set (cleared by revert) */
	size_t nwm;
	const char *bitmap;	/* create: "internal" or "none" */
	char *config_path, *config_line;
	bool config_changed;
	int mdadm_conf_listed;	/* 1, 0, -1 unknown */
	char *mdadm_conf_line;
	char *sync;		/* "recovery 3.1%", "in sync", ... */
	char **notes;		/* remarks for people (warnings) */
	size_t nnotes;
	struct mirror_step *steps;
	size_t nsteps;
};

void mirror_run_init(struct mirror_run *r, const char *verb, const char *array, bool dry_run, bool json);
void mirror_run_free(struct mirror_run *r);
void mirror_note(struct mirror_run *r, char *text);	/* takes text */
void strv_add(char ***v, size_t *n, const char *s);

/*
 * Run "mdadm ARGS..." as a step (NULL-terminated). 0 (dry run: printed
 * only), or an exit code with the error recorded (errors.h): mdadm's
 * command line and last line of stderr.
 */
int mirror_mdadm(struct mirror_run *r, bool undo, const char *arg, ...) __attribute__((sentinel));
/* The same with the arguments (after "mdadm") in a NULL-terminated array. */
int mirror_mdadmv(struct mirror_run *r, bool undo, const char *const args[]);
/* "echo VALUE > PATH" as a step. 0 or an exit code with the error recorded. */
int mirror_sysfs(struct mirror_run *r, bool undo, const char *path, const char *value);
/*
 * Why attaching a RAM disk of size failed with errno e (prealloc: the
 * option's name when given; comp: the compressor asked for, 0 none). malloc'd.
 */
char *attach_error(int e, uint64_t size, const char *prealloc, unsigned comp);
/* Attach a RAM disk of size as a step, compressed as r->comp and r->mem_limit say; r->rd set. 0 or an exit code. */
int mirror_attach(struct mirror_run *r, uint64_t size, bool prealloc);
/* Detach r->rd as a step. 0 or an exit code. */
int mirror_detach(struct mirror_run *r, bool undo);
/* A step that is not a command (a config edit): printed as "# text". */
struct mirror_step *mirror_step(struct mirror_run *r, bool undo, char *command);

/*
 * After a failed step and its undo: the recorded error becomes
 * "<error>; <state>", where state (taken) says what the array is left as
 * and how to finish or undo by hand. Returns the exit code.
 */
int mirror_failed(char *state);

/* The final report: text lines or one JSON document {verb: {...}}. */
int mirror_emit(struct mirror_run *r);

/* "255M" when a whole number of MiB, else "1052672B": what --attach reads back. */
char *size_arg_str(uint64_t bytes);

#endif
