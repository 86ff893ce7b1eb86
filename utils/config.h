/* SPDX-License-Identifier: GPL-2.0 */
/*
 * /etc/rdmirror.conf: the mirrors that rdctl --restore brings back.
 * One mirror per line, "ARRAY SIZE [OPTIONS...]", words separated by blanks,
 * "#" starts a comment (to the end of the line), blank lines are ignored.
 *   ARRAY    /dev/mdN, mdN, /dev/md/NAME, or UUID=xxxxxxxx:xxxxxxxx:xxxxxxxx:xxxxxxxx
 *            (the array UUID as mdadm --detail prints it; hex digits, any case)
 *   SIZE     auto (what the array needs from a member), or a size as for --attach
 *   OPTIONS  prealloc
 * A bad line is recorded with its line number; the good lines still count.
 */
#ifndef RDCTL_CONFIG_H
#define RDCTL_CONFIG_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define CONFIG_DEFAULT_PATH "/etc/rdmirror.conf"

enum conf_kind {
	CONF_DEVICE,	/* /dev/mdN or mdN: name is "mdN" */
	CONF_MDNAME,	/* /dev/md/NAME: name is "NAME" */
	CONF_UUID,	/* UUID=...: uuid is lower case, with the colons */
};

struct conf_mirror {
	int line;
	enum conf_kind kind;
	char *spec;		/* ARRAY as written */
	char *name;		/* "md0" or "data"; NULL for CONF_UUID */
	char *uuid;		/* NULL unless CONF_UUID */
	bool auto_size;
	uint64_t size;		/* bytes, when !auto_size */
	bool prealloc;
};

struct conf_error {
	int line;		/* 0: the file itself */
	char *message;		/* without "file:line: " */
};

struct config {
	char *path;
	struct conf_mirror *v;
	size_t n;
	struct conf_error *errs;
	size_t nerrs;
};

/* Parse text (the file's contents) into c. Never fails: bad lines go to c->errs. */
void config_parse_text(const char *path, const char *text, struct config *c);
/* Read and parse path. 0, or -errno when the file cannot be read (c is then empty). */
int config_read(const char *path, struct config *c);
void config_free(struct config *c);

/* Is s a valid "xxxxxxxx:xxxxxxxx:xxxxxxxx:xxxxxxxx" UUID? */
bool config_uuid_valid(const char *s);

#endif
