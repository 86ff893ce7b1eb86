/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The record of the last rdctl --restore: $RDCTL_RUN_DIR/restore.json
 * (default /run/rdmirror/restore.json), the document --restore --json
 * prints plus "time" (unix seconds) and "kernel" (uname -r). It lives on
 * tmpfs, so no record means that restore has not run since boot. Read
 * tolerantly: --status must still report when it is damaged or of
 * another version, so anything missing is only "unknown".
 */
#ifndef RDCTL_STATUS_RESTORE_H
#define RDCTL_STATUS_RESTORE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "lib/config.h"

struct restore_rec_item {
	char *array, *uuid, *rd, *spec;	/* NULL when absent */
	char *action;		/* added, already, failed, refused; NULL unknown */
	char *code, *message;	/* the error, or NULL */
	int line;		/* the config line, 0 unknown */
};

struct restore_record {
	char *path;
	bool present;		/* the file exists */
	bool valid;		/* and holds a "restore" list */
	int64_t time;		/* 0 unknown */
	char *kernel;		/* NULL unknown */
	struct restore_rec_item *v;
	size_t n;
};

/* Read the record; never fails (see above). */
void restore_record_read(struct restore_record *r);
/* The item of config line m (by spec and line, then spec, then UUID), or NULL. */
const struct restore_rec_item *restore_record_find(const struct restore_record *r,
						   const struct conf_mirror *m, const char *uuid);
void restore_record_free(struct restore_record *r);

/*
 * How --restore's error for a member disk holding other data begins; what
 * it found follows, up to the first "; ". --status says that part alone.
 */
#define RESTORE_FOREIGN_LEAD "member disk not used, never written: "
/* What a foreign item's message says was found (allocated): see above. */
char *restore_foreign_found(const char *message);

#endif
