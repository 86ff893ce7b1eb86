/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Build identities (scripts/build-id): "0.2.0" for a release tarball's
 * build, "0.2.0+5-g0123456789ab" for a build from git (5 commits after
 * release 0.2.0), with "-dirty" when it had uncommitted changes. rdctl's
 * own, and how it differs from the module's (/sys/module/rdmirror/version,
 * built by the same script).
 */
#ifndef RDCTL_BUILD_ID_H
#define RDCTL_BUILD_ID_H

/* rdctl's build identity (scripts/build-id when it was compiled) */
const char *rdctl_build_id(void);

enum build_diff {
	BUILD_SAME,		/* the same identity (a dirty one: trusted to be one tree) */
	BUILD_OTHER_RELEASE,	/* the releases (VERSION) differ */
	BUILD_OTHER_COMMIT,	/* one release, other commits, or git and a tarball */
	BUILD_UNCOMMITTED,	/* one commit, one of the two with uncommitted changes */
};

enum build_diff build_id_compare(const char *a, const char *b);

/*
 * What differs between the module's identity and rdctl's, in words for
 * --status ("the same release 0.2.0 from other commits: ..."); NULL when
 * they are the same. The caller frees it.
 */
char *build_id_difference(const char *module, const char *tool);

#endif
