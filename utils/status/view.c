// SPDX-License-Identifier: GPL-2.0
#include "status/view.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "lib/util.h"

const char *md_member_role(const struct md_member *m)
{
	if (m->faulty)
		return "faulty";
	if (m->in_sync)
		return "active";
	if (m->spare && m->slot < 0)
		return "spare";
	if (m->slot >= 0 || m->spare)
		return "rebuilding";
	return "member";
}

int disk_view_read(const struct rd_disk *d, struct disk_view *v)
{
	struct md_array a;
	int r;

	memset(v, 0, sizeof(*v));
	v->sync_percent = -1;
	if (d->nholders == 0)
		return 0;
	v->mirror = xstrdup(d->holders[0]);
	if (strncmp(d->holders[0], "md", 2))
		return 0;
	r = md_array_read(d->holders[0], &a);
	if (r == -ENODEV)
		return 0;
	if (r < 0) {
		disk_view_clear(v);
		return r;
	}
	for (size_t i = 0; i < a.nmembers; i++)
		if (!strcmp(a.members[i].name, d->name))
			v->role = md_member_role(&a.members[i]);
	if (a.array_state)
		v->array_state = xstrdup(a.array_state);
	if (a.sync_action && strcmp(a.sync_action, "idle")) {
		v->sync_action = xstrdup(a.sync_action);
		v->sync_percent = md_sync_percent(&a);
	}
	md_array_clear(&a);
	return 0;
}

void disk_view_clear(struct disk_view *v)
{
	free(v->mirror);
	free(v->array_state);
	free(v->sync_action);
	memset(v, 0, sizeof(*v));
	v->sync_percent = -1;
}
