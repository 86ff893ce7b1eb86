/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The mirror verbs' steps on configuration files: rdmirror.conf's line
 * of the array (with its undo) and mdadm.conf's entry.
 */
#ifndef RDCTL_CONF_STEPS_H
#define RDCTL_CONF_STEPS_H

#include <stdbool.h>
#include <stddef.h>

#include "mirror/mirror.h"

#include "lib/config.h"

/*
 * rdmirror.conf as one command sees it: its path worked out once
 * (config_path()), its text read once, at the first need, and from then
 * on the text rdctl itself wrote: every step of the command works on it.
 */
struct conf_file {
	const char *path;
	char *text;		/* NULL until read */
	bool json;		/* --json: conf_adopt_line() prints no "# add to" line */
};

/* path: --config FILE, or NULL for the default. Reads nothing yet. */
void conf_file_init(struct conf_file *f, const char *given, bool json);
void conf_file_free(struct conf_file *f);

/* The configuration parsed (an empty one when unreadable: config_free() it). 0, or an exit code. */
int conf_file_parse(struct conf_file *f, struct config *c);

/* Add the array's line to the configuration unless a line names it already. */
int conf_add_line(struct mirror_run *r, struct conf_file *f, const char *kname, bool auto_size);

/* Remove every line that names the array. */
int conf_remove_lines(struct mirror_run *r, struct conf_file *f, const char *kname);

/* Take back the line conf_add_line() added (an undo step). */
void conf_undo_line(struct mirror_run *r, struct conf_file *f);

/*
 * Will the array assemble at boot under its name? udev assembles any array
 * it finds from the superblocks; mdadm.conf (and the initramfs copy of it)
 * gives it a fixed name. An array the file does not list is not added to
 * it here (which name it gets is the administrator's call): tell them the
 * line.
 */
void mdadm_conf_check_listed(struct mirror_run *r, const char *mdpath);

/* Does a line of the configuration name the array kname? */
bool conf_names_array(struct conf_file *f, const char *kname);

/*
 * Before the array's device count changes: an mdadm.conf entry that names
 * it with num-devices= (older installs have them) loses that word, and the
 * initramfs copy is made again. Dropped, not rewritten: the entry then fits
 * the array before and after the change (a reboot at any moment assembles
 * it), and after any later change too; mdadm.conf(5) makes the word
 * optional, and mdadm takes the count from the superblocks.
 */
int mdadm_conf_fit_step(struct mirror_run *r);

/* Add the line of the array kname to the configuration (auto size). */
void conf_adopt_line(struct conf_file *f, const char *kname, bool prealloc);

#endif
