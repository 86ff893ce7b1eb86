/* SPDX-License-Identifier: GPL-2.0 */
/* What a disk is used for: mirror, role in it, state; shared by text and JSON. */
#ifndef RDCTL_VIEW_H
#define RDCTL_VIEW_H

#include <stdint.h>

#include "lib/sysfs.h"
#include "md/md.h"

struct disk_view {
	char *mirror;		/* md array holding it, or another holder, or NULL */
	const char *role;	/* "active", "rebuilding", "spare", "faulty", "member", or NULL */
	char *array_state;	/* the mirror's array_state, or NULL */
	char *sync_action;	/* the mirror's sync action when not idle, or NULL */
	double sync_percent;	/* -1 when none */
};

/* Fill v for d (reads the holding md array). 0 or -errno. */
int disk_view_read(const struct rd_disk *d, struct disk_view *v);
void disk_view_clear(struct disk_view *v);

/* The role of one member as a word: see struct disk_view. */
const char *md_member_role(const struct md_member *m);

#endif
