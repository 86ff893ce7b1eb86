/* SPDX-License-Identifier: GPL-2.0 */
/* md arrays as sysfs shows them: /sys/block/mdX/md/... */
#ifndef RDCTL_MD_H
#define RDCTL_MD_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "md/md_badblocks.h"

/*
 * What a member is to its mirror: a persistent disk, or the fast member
 * of one of its three kinds. Every rule of the fast member (the highest
 * slot, never write-mostly, never the truth) holds for each kind.
 */
enum md_kind {
	MD_PERSISTENT,		/* a disk of the mirror: write-mostly, the truth */
	MD_FAST_RAM,		/* an rd disk */
	MD_FAST_COMPRESSED,	/* an rd disk created compressed (its rdmirror/compressor file) */
	MD_FAST_DISK,		/* the local disk rdmirror.conf names (md_fast_disk_add()) */
};

struct md_member {
	char *name;		/* kernel name: "rd0", "sdb1" */
	enum md_kind kind;	/* set once, by md_array_read() (md_member_kind()) */
	char *state;		/* dev-X/state as is: "in_sync,write_mostly"; NULL unknown */
	bool write_mostly, in_sync, spare;
	/*
	 * md has failed the member (its Faulty bit): out of the array until
	 * removed. Not state's "faulty" alone, which md's state_show() also
	 * prints for a member it keeps, one with bad blocks not yet
	 * acknowledged in the superblock (read_member() in md.c tells the
	 * two apart).
	 */
	bool faulty;
	bool write_error;	/* md saw a write to it fail (state "write_error") */
	int slot;		/* -1 when none or unknown */
	int64_t data_offset;	/* sectors: where its copy of the array begins; -1 unknown */
	struct md_ranges bad;	/* md's bad-block log (acknowledged or not) */
};

struct md_array {
	char *name;		/* "md0" */
	char *level;		/* "raid1"; NULL unknown */
	char *array_state;	/* "clean", "active", ...; NULL unknown */
	int raid_disks;		/* -1 unknown */
	int degraded;		/* -1 unknown */
	char *sync_action;	/* "idle", "resync", "recover", ...; NULL unknown */
	bool has_sync;		/* sync_completed gave "done / total" */
	uint64_t sync_done, sync_total;	/* sectors */
	bool has_speed;
	uint64_t sync_speed;	/* KiB/s as md reports it */
	int write_behind;	/* bitmap/backlog: write-behind limit, 0 off; -1 unknown */
	struct md_member *members;
	size_t nmembers;
};

/* Is this kernel block device name an rd disk? */
bool md_name_is_rd(const char *name);

/* The member is the fast member (of any kind), or the fast member is a local disk. */
static inline bool md_is_fast(const struct md_member *m)
{
	return m->kind != MD_PERSISTENT;
}

static inline bool md_is_disk(const struct md_member *m)
{
	return m->kind == MD_FAST_DISK;
}

/* The kind of the member of that kernel name, from its name and sysfs. */
enum md_kind md_member_kind(const char *name);
/* "ram", "compressed", "disk", "persistent": the kind in JSON and metrics. */
const char *md_kind_name(enum md_kind k);

/*
 * The local disks named as fast members (member=PATH of rdmirror.conf, or
 * --member), by kernel name ("nvme0n1"): md_array_read() gives a member
 * of that name the kind MD_FAST_DISK. For the life of the process: a
 * member's name alone does not tell a local fast disk from a persistent
 * one, the configuration does.
 */
void md_fast_disk_add(const char *name);
bool md_name_is_fast_disk(const char *name);
/* The kernel name of the block device path leads to (symlinks followed), or NULL (malloc'd). */
char *md_block_name_of(const char *path);
struct config;
/* md_fast_disk_add() of every member=PATH of c that leads to a device now. */
void md_fast_disks_from_config(const struct config *c);

/* Read one array by name ("md0"). 0, -ENODEV when no such array, -errno. */
int md_array_read(const char *name, struct md_array *a);
void md_array_clear(struct md_array *a);

/* Every md array that has at least one rd member, sorted by name. */
int md_arrays_with_rd(struct md_array **arrays, size_t *n);
void md_arrays_free(struct md_array *arrays, size_t n);

/*
 * The ranges that every persistent member in sync has recorded bad: the
 * RAM member holds the only good copy of them. Empty when there is no
 * RAM member in sync, or no persistent member in sync (the whole array is
 * then in RAM only, which the callers tell apart).
 */
void md_ram_only_ranges(const struct md_array *a, struct md_ranges *out);

/*
 * md's check/repair (process_checks() in drivers/md/raid1.c) takes the
 * lowest slot that read well as the truth and writes it over the others;
 * a resync reads a member that is not write-mostly. The RAM member must
 * sit above every persistent member, so that a disk is the truth. True
 * when the RAM member's slot is below a persistent member's.
 */
bool md_ram_slot_low(const struct md_array *a);

/*
 * The members in a slot of the array's geometry (not faulty), the
 * persistent ones among them, and the highest slot of a persistent member
 * (-1: none). With one slot free (raid_disks == persistent + 1) and
 * top_persistent >= persistent, the free slot is below a disk: a RAM
 * member added now would land under it.
 */
void md_count_slots(const struct md_array *a, int *slotted, int *persistent, int *top_persistent);

/* Sync progress in percent (0..100) or -1 when no sync runs. */
double md_sync_percent(const struct md_array *a);
/* Seconds left at the current speed, or -1 when unknown. */
int64_t md_sync_eta(const struct md_array *a);
/* Is a resync, recovery or reshape running (reads not all from RAM yet)? */
bool md_sync_running(const struct md_array *a);

#endif
