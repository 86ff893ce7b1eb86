/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The commands of the command line that change no mirror: the disks'
 * (cli/cmd_disk.c) and --list, --status, --version (cli/cmd_info.c). The
 * mirror verbs are in mirror/ (verb.h, restore.h, release.h). Each returns
 * the exit status, with any error recorded (lib/errors.h).
 */
#ifndef RDCTL_COMMANDS_H
#define RDCTL_COMMANDS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "mirror/options.h"
#include "status/list_table.h"

/* Every option of a command line: the mirror verbs' and those of --list and --status. */
struct cli_opts {
	struct mirror_opts m;
	bool quiet;		/* --quiet: --status prints nothing, only its exit status */
	bool nagios;		/* --nagios: --status as a monitoring plugin (one line, exit 0-3) */
	bool prometheus;	/* --prometheus: --status as Prometheus metrics */
	struct list_format list; /* --list: -o, --raw, -n, -b */
};

/* rdN or /dev/rdN: its index, or a usage error. */
int disk_arg(const char *arg, unsigned *index);

int cmd_attach(const struct cli_opts *o, uint64_t size);
int cmd_detach(const struct cli_opts *o, unsigned index);
int cmd_resize(const struct cli_opts *o, unsigned index, uint64_t size);
int cmd_flush(const struct cli_opts *o, unsigned index);
/* --list [rdN...]: every disk, or the named ones. */
int cmd_list(const struct cli_opts *o, char *const names[], size_t nnames);
int cmd_status(const struct cli_opts *o);
int cmd_version(const struct cli_opts *o);

#endif
