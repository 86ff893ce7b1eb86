// SPDX-License-Identifier: GPL-2.0
#include "mirror/verb.h"

#include <stdlib.h>

#include "lib/config.h"
#include "lib/util.h"
#include "md/md_ops.h"
#include "mirror/checks.h"
#include "mirror/steps.h"

int mirror_open(struct mirror_ctx *c, const struct mirror_opts *o, const char *verb, const char *array,
		bool kernel_bug)
{
	int rc;

	mirror_ctx_init(c, o, verb, array);
	if ((rc = mirror_begin(o, verb)) || (kernel_bug && (rc = check_kernel_bug(o->ignore_kernel_bug, verb))))
		return rc;
	return mirror_find_array(array, &c->mdpath, &c->kname, &c->a);
}

void mirror_close(struct mirror_ctx *c)
{
	md_array_clear(&c->a);
	conf_file_free(&c->conf);
	free(c->mdpath);
	free(c->kname);
	free(c->rdpath);
	disk_info_clear(&c->member);
}

bool mirror_ctx_ram(const struct mirror_ctx *c)
{
	return !c->o->member;
}

void mirror_ctx_member(struct mirror_ctx *c)
{
	struct mirror_run *r = c->r;

	r->member = xstrdup(c->member.path);
	r->rd = xstrdup(c->member.name);
	r->has_size = true;
	r->size = c->member.size;
	c->rdpath = xstrdup(c->member.path);
	md_fast_disk_add(c->member.name);
	mirror_step(r, false, xasprintf("# the fast member: %s (%s), used whole", r->member, r->rd));
	if (c->member.signatures)
		mirror_note(r, xasprintf("--force: destroying what wipefs found on %s: %s", r->member,
					 c->member.signatures));
}

int mirror_run_steps(struct mirror_ctx *c, const struct verb_step *steps, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		const struct verb_step *s = &steps[i];
		int rc;

		if (s->when && !s->when(c))
			continue;
		rc = s->run(c);
		if (rc)
			return s->failed ? s->failed(c) : rc;
	}
	return 0;
}

void mirror_ctx_run(struct mirror_ctx *c, struct mirror_run *r)
{
	c->r = r;
	mirror_run_init(r, c->verb, c->kname, c->o->dry_run, c->o->json);
	r->uuid = md_uuid_of(c->kname);
	for (size_t i = 0; i < c->a.nmembers; i++)
		if (!md_is_fast(&c->a.members[i]))
			strv_add(&r->members, &r->nmembers, c->a.members[i].name);
}

void mirror_ctx_init(struct mirror_ctx *c, const struct mirror_opts *o, const char *verb, const char *array)
{
	struct config cfg;

	*c = (struct mirror_ctx){ .o = o, .verb = verb, .array = array };
	conf_file_init(&c->conf, o->config, o->json);
	/* the member disks the configuration names are fast members, as rd disks are */
	if (config_read(c->conf.path, &cfg) == 0)
		md_fast_disks_from_config(&cfg);
	config_free(&cfg);
}
