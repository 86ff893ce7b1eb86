/* SPDX-License-Identifier: GPL-2.0 */
/*
 * md bugs that break a RAM mirror, by kernel release. rdctl --restore,
 * --create and --convert refuse to run on a kernel known to carry one
 * (unless --ignore-kernel-bug), and --status warns.
 */
#ifndef RDCTL_KERNEL_BUGS_H
#define RDCTL_KERNEL_BUGS_H

/*
 * The known bug of kernel release rel ("6.10.3-amd64", as uname -r prints
 * it), as one sentence naming it and the fix, or NULL when none is known.
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
