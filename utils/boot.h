/* SPDX-License-Identifier: GPL-2.0 */
/* --restore and --release: one result per mirror, printed as text or JSON. */
#ifndef RDCTL_BOOT_H
#define RDCTL_BOOT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "config.h"

struct boot_item {
	char *array;		/* "md0", or the ARRAY of the config line when not found */
	char *uuid;		/* NULL when unknown */
	char *rd;		/* "rd0" or NULL */
	bool has_size;
	uint64_t size;		/* bytes of the rd disk */
	const char *action;	/* restore: added, already, failed; release: released, failed */
	char **wm;		/* persistent members made write-mostly */
	size_t nwm;
	char *code, *message;	/* the error, or NULL */
	char *summary;		/* one line for people (without the array name) */
	bool wait;		/* restore --wait: wait for rd's sync once all is done */
};

struct boot_report {
	struct boot_item *v;
	size_t n;
};

struct boot_item *boot_item_new(struct boot_report *r, const char *array);
/* Record an error on the item (the first one wins); message is taken (freed). Returns -1. */
int boot_item_fail(struct boot_item *it, const char *code, char *message);
/* Move the error recorded through errors.h (fail()) onto the item. Returns -1. */
int boot_item_take_error(struct boot_item *it);
void boot_report_free(struct boot_report *r);

/*
 * Print the report: text (one line per item on stdout, failures as
 * "rdctl: md0: ..." on stderr, config errors as "rdctl: FILE:LINE: ..."
 * on stderr), or one JSON document with key "restore" or "release".
 * 0, or EXIT_RUNTIME when any item failed, a config line was bad, or
 * the output could not be written.
 */
int boot_report_emit(const struct boot_report *r, const char *key, const struct config *cfg, bool json);

#endif
