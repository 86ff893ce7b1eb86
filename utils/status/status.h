/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What --status reports, read once and printed as text, JSON, a
 * monitoring-plugin line (status_nagios.h) or Prometheus metrics
 * (status_prom.h): the module, memory, rd disks, every array with an rd
 * member and every mirror of the configuration, with or without its RAM
 * member, and the findings with their severity.
 */
#ifndef RDCTL_STATUS_H
#define RDCTL_STATUS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "lib/meminfo.h"
#include "lib/sysfs.h"
#include "md/md.h"
#include "rd/status_module.h"
#include "status/status_restore.h"
#include "status/view.h"
#include "status/warnings.h"

enum mirror_state {
	MIRROR_IN_SYNC,		/* the RAM member is in sync: reads come from RAM */
	MIRROR_RECOVERING,	/* the RAM member is there, not yet in sync */
	MIRROR_MISSING,		/* the array runs without a RAM member */
	MIRROR_FAILED,		/* the RAM member is faulty or failed a write */
	MIRROR_NOT_ASSEMBLED,	/* the configured array is not running */
};

struct mirror {
	char *spec;		/* ARRAY of the config line; /dev/mdN when not configured */
	int line;		/* the config line, 0 when not configured */
	bool configured;
	char *array;		/* "md0", NULL when not assembled */
	char *uuid;		/* NULL when unknown */
	long ai;		/* its index in status.arrays, -1 none */
	char *rd;		/* the RAM member, NULL none */
	enum mirror_state state;
	double progress;	/* percent, -1 unknown (100 in sync, 0 missing) */
	int64_t rate;		/* recovery bytes/s, -1 unknown */
	int64_t eta;		/* seconds, -1 unknown */
	bool has_ram;		/* ram_bytes/ram_size known */
	uint64_t ram_bytes;	/* RAM the rd disk holds */
	uint64_t ram_size;	/* its size */
	int64_t ram_memory_errors;	/* its broken pages, -1 unknown */
	char *reason;		/* why there is no working RAM member, NULL when there is */
	char *brief;		/* the same in a few words, for the plugin line */
	char *fix;		/* the command that fixes it, NULL */
	bool copying;		/* recovering: a warm-up copy, before md has the member */
	bool full_recovery;	/* recovering: md refused the warm-up's re-add, recovers it all */
	/* reads the members completed (read_counts() in status.c); -1 unknown */
	int64_t ram_reads, disk_reads;
	/*
	 * The array is still set up for a RAM member: one in it, a slot for
	 * one (raid-devices above its persistent members: what --release
	 * leaves), or a write-mostly disk. Only rdctl --revert takes it back
	 * to its disks; removing rdmirror before that strands it (the
	 * packages' removal guards read rdmirror_mirror_converted). False
	 * when the array is not assembled: nothing tells.
	 */
	bool converted;
	/*
	 * member=PATH: the fast member is this disk (NULL: RAM); when it is
	 * not in the array, member_finding names the finding of its state
	 * (member_absent, member_foreign; not_restored once it is back after
	 * a restore that found it absent) at member_severity, else NULL.
	 */
	char *member;
	const char *member_finding;
	enum severity member_severity;
};

/* The share of x's reads its RAM member served, 0 to 1; -1 unknown. */
double mirror_ram_read_share(const struct mirror *x);

struct status {
	char *config_path;
	bool config_found;	/* it was read */
	struct module_info mod;
	enum module_state modstate;
	struct meminfo mi;
	struct rd_disk *disks;
	struct disk_view *views;
	size_t ndisks;
	/*
	 * Of each disk out of the array it was given to (in none, compressed
	 * or with writes refused): that array, named by the md superblock on
	 * it or by rdctl's record (rd_record.h); NULL for the others.
	 */
	char **left;
	struct md_array *arrays;	/* with an rd member, and the configured ones */
	size_t narrays;
	struct mirror *mirrors;		/* the configured ones in file order, then the others */
	size_t nmirrors;
	struct restore_record rec;
	struct warnings w;
};

/*
 * Read it all. config: --config FILE, or NULL for /etc/rdmirror.conf (its
 * absence is no error, an explicit file's is). 0, or an exit code with
 * the error recorded (errors.h); st is then empty.
 */
int status_collect(const char *config, struct status *st);
void status_free(struct status *st);

/* The rd disks and their views (--list too). 0 or an exit code, error recorded. */
int status_read_disks(struct rd_disk **disks, size_t *n, struct disk_view **views);
void status_free_disks(struct rd_disk *disks, struct disk_view *views, size_t n);

/* "in_sync", "recovering", "missing", "failed", "not_assembled" */
const char *mirror_state_name(enum mirror_state s);

#endif
