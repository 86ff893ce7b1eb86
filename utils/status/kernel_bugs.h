/* SPDX-License-Identifier: GPL-2.0 */
/*
 * md bugs that break a RAM mirror, by kernel release. rdctl --restore,
 * --create and --convert refuse to run on a kernel known to carry one
 * (unless --ignore-kernel-bug), and --status warns.
 */
#ifndef RDCTL_KERNEL_BUGS_H
#define RDCTL_KERNEL_BUGS_H

#include <stdbool.h>

/*
 * The upstream release (numbers) of kernel release rel ("6.10.3-amd64"),
 * as uname -r prints it, with version the text of /proc/version (NULL when
 * unread): Debian's kernels name theirs there ("... Debian 6.1.158-1 ...",
 * while uname -r says 6.1.0-57-amd64). False when nothing tells: X.Y.0
 * followed by a build number ("6.12.0-55.el10.x86_64") is a distribution's
 * kernel with backports of its own.
 */
bool kernel_upstream_release(const char *rel, const char *version, unsigned *maj, unsigned *min,
			     unsigned *patch, unsigned *rc);

/*
 * When the running kernel's upstream release cannot be told (and it is a
 * series from 6.6 on, where md met the bugs below): one sentence saying
 * so, with the md commits to look for; NULL otherwise. The caller frees
 * it. rel as kernel_md_bug().
 */
char *kernel_md_bug_unknown(const char *rel);

/*
 * The known bug of kernel release rel ("6.10.3-amd64", as uname -r prints
 * it), as one sentence naming it and the fix, or NULL when none is known
 * (also when its upstream release is unknown: kernel_md_bug_unknown()).
 * Read as its upstream release: for Debian's, from /proc/version.
 * rel NULL: $RDCTL_KERNEL_RELEASE when set (tests), else the running kernel.
 */
const char *kernel_md_bug(const char *rel);

/*
 * The known md bug that loses writes with write-behind on, of kernel
 * release rel (as kernel_md_bug()), or NULL. Not a refusal: rdctl turns
 * write-behind off; --status flags an array that has it on.
 */
const char *kernel_md_write_behind_bug(const char *rel);

#endif
