// SPDX-License-Identifier: GPL-2.0
#include "mirror/verb.h"

#include <stdlib.h>

#include "md/md_ops.h"
#include "mirror/checks.h"
#include "mirror/steps.h"

int mirror_open(struct mirror_ctx *c, const struct mirror_opts *o, const char *verb, const char *array,
		bool kernel_bug)
{
	int rc;

	*c = (struct mirror_ctx){ .o = o, .verb = verb, .array = array };
	conf_file_init(&c->conf, o->config, o->json);
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
		if (!c->a.members[i].is_ram)
			strv_add(&r->members, &r->nmembers, c->a.members[i].name);
}

void mirror_ctx_init(struct mirror_ctx *c, const struct mirror_opts *o, const char *verb, const char *array)
{
	*c = (struct mirror_ctx){ .o = o, .verb = verb, .array = array };
	conf_file_init(&c->conf, o->config, o->json);
}
