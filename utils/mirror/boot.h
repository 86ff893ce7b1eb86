/* SPDX-License-Identifier: GPL-2.0 */
/* --restore and --release: one result per mirror, printed as text or JSON. */
#ifndef RDCTL_BOOT_H
#define RDCTL_BOOT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <jansson.h>

#include "lib/config.h"

struct boot_item {
	char *array;		/* "md0", or the ARRAY of the config line when not found */
	char *spec;		/* restore: the config line's ARRAY as written, and its line */
	int line;
	char *uuid;		/* NULL when unknown */
	char *rd;		/* "rd0" or NULL */
	bool has_size;
	uint64_t size;		/* bytes of the rd disk */
	const char *action;	/* restore: added, already, refused (does not fit in memory),
				 * failed; release: released, failed */
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

struct md_array;
/*
 * Refuse to take the RAM member rd out of a when every persistent member
 * has a range recorded bad (md_ram_only_ranges()): the error, with the
 * ranges and the fix, goes on it ("releasing", "reverting"). true when
 * refused.
 */
bool ram_only_refusal(struct boot_item *it, const struct md_array *a, const char *rd, const char *verb);

/* The JSON document of the report: {key: [items], "config_errors": [...]}. */
json_t *boot_report_json(const struct boot_report *r, const char *key, const struct config *cfg);

/*
 * Write the restore report to <run dir>/restore.json atomically: the
 * document of --restore --json with "time" (Unix seconds) and "kernel"
 * (uname -r) added. A failure is a warning on stderr; 0 or -errno.
 */
int boot_report_save(const struct boot_report *r, const struct config *cfg);

#endif
