/* SPDX-License-Identifier: GPL-2.0 */
/* The commands. Each returns the exit status, with any error recorded (errors.h). */
#ifndef RDCTL_COMMANDS_H
#define RDCTL_COMMANDS_H

#include <stdbool.h>
#include <stdint.h>

struct opts {
	bool json, prealloc, force, wait;
	const char *config;	/* --config FILE, or NULL for /etc/rdmirror.conf */
};

int cmd_attach(const struct opts *o, uint64_t size);
int cmd_detach(const struct opts *o, unsigned index);
int cmd_resize(const struct opts *o, unsigned index, uint64_t size);
int cmd_flush(const struct opts *o, unsigned index);
int cmd_list(const struct opts *o);
int cmd_status(const struct opts *o);
int cmd_version(const struct opts *o);
int cmd_restore(const struct opts *o);
int cmd_release(const struct opts *o);

/* The message that says who holds a busy disk (holder, mount, process). */
char *busy_message(unsigned index);

#endif
