/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The compressed RAM member in --status (text, JSON, Prometheus) and its
 * findings: its compressor, ratio (data held over RAM used), RAM used,
 * data held, limit, and the reads its checksums failed. What status.c and
 * its outputs call for an rd disk created compressed (d->compressor).
 */
#ifndef RDCTL_COMPRESSED_H
#define RDCTL_COMPRESSED_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "lib/json.h"
#include "lib/sysfs.h"
#include "md/md.h"
#include "status/warnings.h"

/* allocated_bytes at or above this share of the limit is a WARNING */
#define COMPRESSED_NEAR_LIMIT_PCT	90

/* Data held over RAM used (3.0 for 3:1), or -1 when the disk holds nothing or does not say. */
double compressed_ratio(const struct rd_disk *d);

/*
 * The findings of a compressed disk d, a member of a (NULL: of no array),
 * or one md took out of a (left: md removes a member whose recovery
 * failed, status.c finds which array by its md superblock):
 *   CRITICAL compressed_limit        its limit refused writes (refused_writes):
 *                                    md failed it; the ratio, the limit, the fix
 *                                    (of a member that left, --detach it first)
 *   WARNING  compressed_near_limit   allocated_bytes at 90% of the limit or more
 *   WARNING  compressed_checksum     reads failed their checksum (md mended them)
 */
void compressed_warnings(const struct md_array *a, bool left, const struct rd_disk *d, struct warnings *w);

/*
 * compressed_limit's words for d, member of md (or, left, taken out of
 * it): "compressed RAM member rd0 reached its memory limit (ratio ...,
 * limit ...): N writes refused, so md failed it ...; fix: ...", malloc'd.
 */
char *compressed_limit_words(const char *md, bool left, const struct rd_disk *d);

/*
 * Why RAM member rd left md during its recovery (md_wait_in_sync()'s
 * -EIO), when it is a compressed disk whose limit refused writes: the
 * same words (left when md no longer holds it), malloc'd; else NULL.
 */
char *compressed_left_why(const char *md, const char *rd);

/* The "compressed:" lines of --status, one a compressed disk (none: nothing printed). 0 or -1. */
int compressed_text(FILE *f, const struct rd_disk *disks, size_t n);

/* --status --json's "compressed" of a disk: an object, or null when it is not compressed. */
json_t *compressed_json(const struct rd_disk *d);

/* The rdmirror_compressed_* metric families (none when no disk is compressed). 0 or 1 on a write error. */
int compressed_prom(FILE *f, const struct rd_disk *disks, size_t n);

#endif
