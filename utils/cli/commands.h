/* SPDX-License-Identifier: GPL-2.0 */
/* The commands. Each returns the exit status, with any error recorded (errors.h). */
#ifndef RDCTL_COMMANDS_H
#define RDCTL_COMMANDS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "status/list_table.h"

struct opts {
	bool json, prealloc, force, wait, dry_run;
	const char *config;	/* --config FILE, or NULL for /etc/rdmirror.conf */
	bool auto_size;		/* --size auto (the default of the mirror commands) */
	uint64_t size;		/* --size SIZE, bytes */
	bool bitmap_none;	/* --bitmap none */
	unsigned timeout;	/* --timeout SEC of --wait, 0: the default */
	bool quiet;		/* --quiet: --status prints nothing, only its exit status */
	bool nagios;		/* --nagios: --status as a monitoring plugin (one line, exit 0-3) */
	bool prometheus;	/* --prometheus: --status as Prometheus metrics */
	struct list_format list; /* --list: -o, --raw, -n, -b */
};

int cmd_attach(const struct opts *o, uint64_t size);
int cmd_detach(const struct opts *o, unsigned index);
int cmd_resize(const struct opts *o, unsigned index, uint64_t size);
int cmd_flush(const struct opts *o, unsigned index);
/* --list [rdN...]: every disk, or the named ones. */
int cmd_list(const struct opts *o, char *const names[], size_t nnames);
int cmd_status(const struct opts *o);
int cmd_version(const struct opts *o);
int cmd_restore(const struct opts *o);
int cmd_release(const struct opts *o);
int cmd_create(const struct opts *o, const char *array, char *const disks[], size_t ndisks);
int cmd_convert(const struct opts *o, const char *array);
int cmd_revert(const struct opts *o, const char *array);
int cmd_refresh(const struct opts *o, const char *array);

/*
 * The restore of the configuration line that names the array kname (as
 * --restore does it for that line alone, with its report): what finishes
 * an interrupted --create or --convert. *found false (and 0) when no line
 * names it. An exit code.
 */
int restore_array(const struct opts *o, const char *kname, bool *found);

/* Refuse needing more than MemAvailable unless --force (what: "attaching this disk"). */
int check_memory(const struct opts *o, uint64_t need, const char *what);
/* Refuse a kernel with a known md bug that loses a RAM mirror's data, unless --force. */
int check_kernel_bug(const struct opts *o, const char *verb);

/* The message that says who holds a busy disk (holder, mount, process). */
char *busy_message(unsigned index);

#endif
