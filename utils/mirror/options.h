/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The options the mirror verbs take (--create, --convert, --revert,
 * --refresh, --restore, --release), as cli/rdctl.c parsed them.
 */
#ifndef RDCTL_OPTIONS_H
#define RDCTL_OPTIONS_H

#include <stdbool.h>
#include <stdint.h>

struct mirror_opts {
	bool json, prealloc, wait, dry_run;
	bool force;		/* --force: --create (and --member) destroys what wipefs finds on its disks */
	unsigned compress;	/* --compress: RDMIRROR_COMP_LZ4 or _ZSTD; 0: uncompressed */
	const char *member;	/* --member PATH: the fast member is this disk, not RAM; NULL: RAM */
	bool ignore_memory;	/* --ignore-memory: past the check of MemAvailable (and restore's reserve) */
	bool ignore_kernel_bug;	/* --ignore-kernel-bug: run on a kernel with a known md bug */
	const char *config;	/* --config FILE, or NULL for /etc/rdmirror.conf */
	bool auto_size;		/* --size auto (the default of the mirror commands) */
	uint64_t size;		/* --size SIZE, bytes */
	bool bitmap_none;	/* --bitmap none */
	unsigned timeout;	/* --timeout SEC of --wait, 0: the default */
};

#endif
