// SPDX-License-Identifier: GPL-2.0
/* The kernel's upstream release, as the md bug checks read it (kernel_bugs.h). */
#include <stdbool.h>
#include <stdlib.h>

#include "status/kernel_bugs.h"
#include "unit.h"

static void upstream(const char *rel, const char *version, bool known, unsigned min, unsigned patch)
{
	unsigned ma = 0, mi = 0, pa = 0, rc = 0;
	bool got = kernel_upstream_release(rel, version, &ma, &mi, &pa, &rc);

	if (got != known || (known && (mi != min || pa != patch)))
		fprintf(stderr, "  %s / %s: %s %u.%u.%u\n", rel, version ? version : "-", got ? "known" : "unknown",
			ma, mi, pa);
	CHECK(got == known);
	if (known)
		CHECK(ma == 6 && mi == min && pa == patch);
}

void test_kernel_bugs(void)
{
	static const char deb61[] =
		"Linux version 6.1.0-57-amd64 (debian-kernel@lists.debian.org) (gcc-12 (Debian 12.2.0-14+deb12u1) 12.2.0, GNU ld (GNU Binutils for Debian) 2.40) #1 SMP PREEMPT_DYNAMIC Debian 6.1.158-1 (2025-11-09)\n";
	static const char deb610[] =
		"Linux version 6.10.0-1-amd64 (debian-kernel@lists.debian.org) #1 SMP PREEMPT_DYNAMIC Debian 6.10.6-1~bpo12+1 (2024-08-26)\n";
	char *s;

	/* upstream's numbers in uname -r */
	upstream("6.10.3", NULL, true, 10, 3);
	upstream("6.12.117+deb12-amd64", NULL, true, 12, 117);
	upstream("6.16.0-rc1", NULL, true, 16, 0);
	upstream("6.15.7-arch1", NULL, true, 15, 7);
	/* Debian's ABI number in uname -r, the stable release in /proc/version */
	upstream("6.1.0-57-amd64", deb61, true, 1, 158);
	upstream("6.10.0-1-amd64", deb610, true, 10, 6);
	upstream("6.1.0-57-amd64", NULL, false, 0, 0);
	/* another series' /proc/version is not this kernel's word */
	upstream("6.10.0-1-amd64", deb61, false, 0, 0);
	/* a distribution's X.Y.0 with its own backports: nothing tells */
	upstream("6.12.0-55.el10.x86_64", NULL, false, 0, 0);
	upstream("6.4.0-150600.23.7-default", NULL, false, 0, 0);

	/* the refusal follows the upstream release, and does not guess */
	CHECK(kernel_md_bug("6.10.6") != NULL);
	CHECK(kernel_md_bug("6.12.0-55.el10.x86_64") == NULL);
	s = kernel_md_bug_unknown("6.12.0-55.el10.x86_64");
	CHECK(s && strstr(s, "kernel 6.12.0-55.el10.x86_64 does not say which upstream stable release it carries") &&
	      strstr(s, "c916ca35308d") && strstr(s, "5fa31c499281") && strstr(s, "93dec51e716d"));
	free(s);
	CHECK(kernel_md_bug_unknown("6.10.7") == NULL);
	/* 6.1.y never had the bugs: its number, whatever it is, says enough */
	CHECK(kernel_md_bug_unknown("6.1.0-57-amd64") == NULL);
}
