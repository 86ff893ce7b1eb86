/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A compressed RAM member's memory: the bound rdctl gives it, and the
 * ratio it had, kept at --release for the next boot's check.
 *
 * The bound (rdmirror_add.mem_limit): what memory is spare now, kept the
 * reserve: MemAvailable, less the reserve (config_reserve_bytes(): the
 * one --restore keeps), less what the other rd disks may still take (an
 * uncompressed one its size, a compressed one its own bound, less what
 * each holds). Past it a write fails with ENOSPC and md fails only the
 * RAM member: the host never runs short for it. Less than
 * COMPRESS_MIN_LIMIT spare is refused: such a member would fail at once.
 */
#ifndef RDCTL_COMPRESS_H
#define RDCTL_COMPRESS_H

#include <stdbool.h>
#include <stdint.h>

#include "lib/config.h"

#define COMPRESS_MIN_LIMIT	(64ULL << 20)

/* What the bound is made of, in bytes. */
struct compress_room {
	uint64_t total, available, reserve, pending;
	uint64_t spare;		/* available - reserve - pending, 0 when none */
};

/* Read the figures (cfg may be NULL: the default reserve). 0 or -errno. */
int compress_room_read(const struct config *cfg, struct compress_room *room);

/*
 * The bound of a new compressed member (what, for the messages): the
 * spare memory, or with ignore_memory MemTotal less the reserve, whatever
 * its size (what it will hold compressed is not known yet). 0 with
 * *limit, or an exit code with the refusal recorded (errors.h).
 */
int compress_limit(const struct config *cfg, bool ignore_memory, const char *what, uint64_t *limit);
/* The same with the reserve of the configuration at conf_path (none there: the default). */
int compress_limit_conf(const char *conf_path, bool ignore_memory, const char *what, uint64_t *limit);

/*
 * The ratio a compressed member had (data_bytes over allocated_bytes of
 * its disk at --release), for array uuid: 0 with the two figures, or
 * -ENOENT when none was kept. compress_ratio_save() keeps it (0 or -errno
 * with *why; never creates the state directory, as warm_record.h says).
 */
int compress_ratio_read(const char *uuid, uint64_t *data, uint64_t *allocated);
int compress_ratio_save(const char *uuid, uint64_t data, uint64_t allocated, char **why);

/*
 * --restore of a compressed member of size for array uuid: the memory it
 * is expected to take (size at the ratio recorded, or with no record the
 * bound alone) must fit in room->spare. NULL, or why not (malloc'd); *limit
 * the bound to give it.
 */
char *compress_refuse_restore(const struct compress_room *room, const char *uuid, uint64_t size, uint64_t *limit);

#endif
