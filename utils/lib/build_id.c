// SPDX-License-Identifier: GPL-2.0
#include "lib/build_id.h"

#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "lib/util.h"

/* utils/Makefile defines it for this file alone (utils/.build-id) */
#ifndef RDCTL_BUILD_ID
#error "RDCTL_BUILD_ID is not defined: build with utils/Makefile"
#endif

const char *rdctl_build_id(void)
{
	return RDCTL_BUILD_ID;
}

struct build_parts {
	char *release;	/* up to the "+" */
	char *commit;	/* after "-g", up to "-dirty"; NULL for a tarball's build */
	bool dirty;
};

static void parts_of(const char *id, struct build_parts *p)
{
	const char *plus = strchr(id, '+'), *g;
	size_t n;

	memset(p, 0, sizeof(*p));
	if (!plus) {
		p->release = xstrdup(id);
		return;
	}
	p->release = xasprintf("%.*s", (int)(plus - id), id);
	g = strstr(plus, "-g");
	if (!g)
		return;
	g += 2;
	n = strlen(g);
	if (n >= 6 && !strcmp(g + n - 6, "-dirty")) {
		p->dirty = true;
		n -= 6;
	}
	p->commit = xasprintf("%.*s", (int)n, g);
}

static void parts_free(struct build_parts *p)
{
	free(p->release);
	free(p->commit);
}

enum build_diff build_id_compare(const char *a, const char *b)
{
	struct build_parts pa, pb;
	enum build_diff d;

	if (!strcmp(a, b))
		return BUILD_SAME;
	parts_of(a, &pa);
	parts_of(b, &pb);
	if (strcmp(pa.release, pb.release))
		d = BUILD_OTHER_RELEASE;
	else if (!pa.commit || !pb.commit || strcmp(pa.commit, pb.commit))
		d = BUILD_OTHER_COMMIT;
	else if (pa.dirty || pb.dirty)
		d = BUILD_UNCOMMITTED;
	else
		d = BUILD_OTHER_COMMIT;	/* one commit counted from two tags */
	parts_free(&pa);
	parts_free(&pb);
	return d;
}

static const char *source_of(const struct build_parts *p)
{
	return p->commit ? "git" : "the release tarball";
}

char *build_id_difference(const char *module, const char *tool)
{
	struct build_parts pm, pt;
	enum build_diff d = build_id_compare(module, tool);
	char *s = NULL;

	if (d == BUILD_SAME)
		return NULL;
	parts_of(module, &pm);
	parts_of(tool, &pt);
	switch (d) {
	case BUILD_SAME:
		break;
	case BUILD_OTHER_RELEASE:
		s = xasprintf("other releases: the module is %s, rdctl %s", pm.release, pt.release);
		break;
	case BUILD_OTHER_COMMIT:
		s = xasprintf("the same release %s, other builds: the module from %s%s%s, rdctl from %s%s%s",
			      pm.release, source_of(&pm), pm.commit ? " commit " : "", pm.commit ? pm.commit : "",
			      source_of(&pt), pt.commit ? " commit " : "", pt.commit ? pt.commit : "");
		break;
	case BUILD_UNCOMMITTED:
		s = xasprintf("the same commit %s, but %s built with uncommitted changes",
			      pm.commit, pm.dirty && pt.dirty ? "both" : pm.dirty ? "the module" : "rdctl");
		break;
	}
	parts_free(&pm);
	parts_free(&pt);
	return s;
}
