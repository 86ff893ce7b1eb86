// SPDX-License-Identifier: GPL-2.0
/* Build identities (lib/build_id.h): what differs between module and rdctl. */
#include <stdlib.h>

#include "lib/build_id.h"
#include "unit.h"

static void diff_has(const char *module, const char *tool, const char *want)
{
	char *s = build_id_difference(module, tool);

	if (!s || !strstr(s, want))
		fprintf(stderr, "  %s vs %s: \"%s\" lacks \"%s\"\n", module, tool, s ? s : "(null)", want);
	CHECK(s && strstr(s, want));
	free(s);
}

void test_build_id(void)
{
	const char *a = "0.2.0+5-g0123456789ab", *b = "0.2.0+7-gba9876543210";

	CHECK(rdctl_build_id()[0] != '\0');
	CHECK(build_id_compare("0.2.0", "0.2.0") == BUILD_SAME);
	CHECK(build_id_compare(a, a) == BUILD_SAME);
	CHECK(build_id_compare("0.2.0+5-g0123456789ab-dirty", "0.2.0+5-g0123456789ab-dirty") == BUILD_SAME);
	/* one version string, two builds: what a version-only check missed */
	CHECK(build_id_compare(a, b) == BUILD_OTHER_COMMIT);
	CHECK(build_id_compare("0.2.0", a) == BUILD_OTHER_COMMIT);
	CHECK(build_id_compare(a, "0.2.0") == BUILD_OTHER_COMMIT);
	CHECK(build_id_compare("0.1.0", "0.2.0") == BUILD_OTHER_RELEASE);
	CHECK(build_id_compare("0.1.0+3-g0123456789ab", b) == BUILD_OTHER_RELEASE);
	CHECK(build_id_compare(a, "0.2.0+5-g0123456789ab-dirty") == BUILD_UNCOMMITTED);
	CHECK(build_id_compare("0.2.0+5-g0123456789ab-dirty", a) == BUILD_UNCOMMITTED);

	CHECK(build_id_difference(a, a) == NULL);
	diff_has("0.1.0", b, "other releases: the module is 0.1.0, rdctl 0.2.0");
	diff_has(a, b, "the same release 0.2.0, other builds: the module from git commit 0123456789ab, rdctl from git commit ba9876543210");
	diff_has("0.2.0", b, "the module from the release tarball, rdctl from git commit ba9876543210");
	diff_has(a, "0.2.0+5-g0123456789ab-dirty", "the same commit 0123456789ab, but rdctl built with uncommitted changes");
	diff_has("0.2.0+5-g0123456789ab-dirty", a, "but the module built with uncommitted changes");
}
